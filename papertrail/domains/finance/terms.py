"""A small glossary of financial-report wording, for retrieval.

``expand`` adds the words a filing uses for what a question names ("COGS" ->
"cost of sales", "balance sheet" -> "statement of financial position"), for
BM25 only. ``statements_named`` says which primary financial statements a
question asks about, by name or through a metric computed from them;
``statement_title`` says which statement a heading or a chunk's opening words
(or one of its opening lines, under a running header) title, and
``statement_rows`` which chunks lie on such a page.
``strip_instructions`` drops answer-format boilerplate ("Round your answer to
two decimal places.", "(in USD millions)") from a question. It leaves out ratios' arithmetic,
non-English reports and notes to the statements.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from papertrail.types import Chunk

INCOME, BALANCE, CASH = "income", "balance", "cash"

# What a question may call each statement.
_NAMED = {
    INCOME: r"income statements?|statements? of (?:consolidated )?(?:income|operations|earnings)"
    r"|p\s*&\s*l\b|profit and loss",
    BALANCE: r"balance sheets?|statements? of financial (?:position|condition)",
    CASH: r"cash flows? statements?|statements? of cash flows?",
}
# Where an analysis concept's figures live (textbook knowledge of the statements, not
# any question's wording): margins and coverage come from the income statement,
# liquidity, leverage and capital intensity from the balance sheet, cash returned to
# shareholders and investment from the cash flow statement.
_MARGINS = r"\bmargins?\b"  # any margin is a ratio of income-statement lines
_IMPLIED = {
    INCOME: r"\bdpo\b|days payable|inventory turnover|sold its inventory|return on assets|\broa\b"
    r"|fixed asset turnover|capex as a %|" + _MARGINS + r"|interest coverage|\bebitd?a?r?\b"
    r"|effective tax rate|earnings per share|\beps\b|(?:revenue|sales) growth|top[- ]?line"
    r"|days (?:sales )?(?:of )?inventory|inventory days|\bdio\b"
    r"|capital[- ]intensi|return on equity|\broe\b",
    BALANCE: r"\bdpo\b|days payable|inventory turnover|sold its inventory|return on assets|\broa\b"
    r"|days (?:sales )?(?:of )?inventory|inventory days|\bdio\b"
    r"|fixed asset turnover|working capital|total current (?:assets|liabilities)"
    r"|accounts payable|current ratio|quick ratio|liquidity|debt[- ]to[- ]equity|leverage"
    r"|capital[- ]intensi|return on equity|\broe\b|total assets|book value",
    CASH: r"\bcapex\b|capital expenditures?|free cash flow|dividends? (?:paid|payout)"
    r"|paid (?:out )?(?:\w+ )?dividends|(?:share|stock) (?:buyback|repurchase)s?"
    r"|cash from operations|operating cash flow|capital[- ]intensi",
}
# How filings title the statements (headings): "comprehensive income" is not INCOME.
_TITLES = {
    INCOME: r"statements? of (?:consolidated )?(?:operations|income|earnings)\b|income statements?",
    BALANCE: r"balance sheets?|statements? of financial (?:position|condition)",
    CASH: r"statements? of cash flows?",
}
_EXPANSIONS = (
    (r"income statement|\bp\s*&\s*l\b|profit and loss", "statements of operations income"),
    (r"balance sheet|financial position", "balance sheets financial position"),
    (r"cash flows? statement|statements? of cash flows?", "statements of cash flows"),
    (r"\brevenues?\b|\bsales\b", "net sales total revenues"),
    (r"\bcogs\b|cost of goods sold|cost of sales", "cost of sales goods sold"),
    (r"\bcapex\b|capital expenditures?", "capital expenditures purchases property equipment"),
    (r"pp\s*&\s*e|fixed assets?", "property plant equipment net"),
    (r"\bdpo\b|days payable", "accounts payable"),
    (r"inventory turnover|sold its inventory", "inventories cost of sales"),
    (r"\broa\b|return on assets", "net income total assets"),
    (r"working capital", "total current assets total current liabilities"),
    (r"gross margin", "gross profit cost of sales"),
    (r"\bebitda\b", "depreciation amortization operating income"),
    (r"operating margin|\bebit\b", "operating income net sales revenues"),
    (r"(?:net|profit) margin", "net income net sales revenues"),
    (r"interest coverage", "operating income interest expense"),
    (r"effective tax rate", "provision for income taxes income before income taxes"),
    (r"free cash flow", "net cash provided by operating activities capital expenditures"),
    (r"capital[- ]intensi", "property plant equipment capital expenditures revenues"),
    (r"dividends?", "dividends paid"),
    (r"buyback|repurchase", "repurchases of common stock"),
    (r"current ratio|quick ratio|liquidity", "total current assets total current liabilities"),
    (r"debt[- ]to[- ]equity|leverage", "long-term debt total equity"),
    (r"\beps\b|earnings per share", "earnings per share diluted net income"),
)
# Answer-format instructions: a sentence holding one (and no question) is dropped.
_INSTRUCTION = re.compile(
    r"\b(?:round (?:your|the) answer|answer in (?:units|usd)|in units of|base your judg"
    r"|basing your judg|calculate (?:\(or extract\) )?(?:the answer|what was asked)"
    r"|address the question|give a response|please (?:utilize|base|use|state)|explain why"
    r"|(?:utiliz|rely)ing (?:on )?(?:the )?(?:line items|details|information))",
    re.IGNORECASE,
)
# An aside that only says how to give the answer: "(in USD millions)", "(in units of
# percents and round to one decimal place)". Its words name no line of a filing.
_ASIDE = re.compile(r"\s*\(([^()]*)\)")
_UNITS_ONLY = re.compile(
    r"(?:in\s+)?(?:(?:usd|us\$|\$|dollars?|millions?|billions?|thousands?|percent(?:s|age)?|%)"
    r"\s*)+",
    re.IGNORECASE,
)
TITLE_CHARS = 80  # opening characters of a chunk searched for a statement's title
TITLE_LINES = 4  # ... and its opening lines, each read on its own (a running header above)
TITLE_WORDS = 8  # a line of at most this many words is a heading, not prose
_SENTENCE = re.compile(r"(?<=[.?!])\s+(?=[A-Z(])")


def _find(patterns: dict[str, str], text: str) -> set[str]:
    low = text.casefold()
    return {kind for kind, pattern in patterns.items() if re.search(pattern, low)}


def statements_named(question: str) -> set[str]:
    """The statements (INCOME, BALANCE, CASH) ``question`` names or whose line items it needs."""
    return _find(_NAMED, question) | _find(_IMPLIED, question)


def statement_title(text: str) -> str | None:
    """The statement that ``text`` (a heading, or a page's opening words) titles, if any.

    Only capitalised wording counts ("CONSOLIDATED BALANCE SHEETS", "Consolidated
    Balance Sheets"): prose mentioning "our consolidated balance sheets" is not a title.
    """
    for kind, pattern in _TITLES.items():
        for m in re.finditer(pattern, text, re.IGNORECASE):
            words = [w for w in m.group().split() if w.casefold() != "of"]
            if all(w[:1].isupper() for w in words):
                return kind
    return None


def expand(question: str) -> str:
    """Filing wording for the terms ``question`` uses, to append to a BM25 query."""
    low = question.casefold()
    return " ".join(extra for pattern, extra in _EXPANSIONS if re.search(pattern, low))


def strip_instructions(question: str) -> str:
    """``question`` without its answer-format sentences; unchanged if nothing would be left."""
    kept = [
        s
        for s in _SENTENCE.split(_ASIDE.sub(_unless_instruction, question.strip()))
        if s.rstrip().endswith("?") or not _INSTRUCTION.search(s)
    ]
    return " ".join(kept) if kept else question


def _unless_instruction(aside: re.Match) -> str:
    """A bracketed aside, unless it only says how to give the answer (then nothing)."""
    inner = aside.group(1).strip()
    return "" if _INSTRUCTION.search(inner) or _UNITS_ONLY.fullmatch(inner) else aside.group()


def statement_rows(chunks: Sequence[Chunk]) -> dict[str, list[int]]:
    """Per statement kind, the rows of every chunk on a page that statement titles.

    A page is titled by a chunk whose section, or whose first words, name the
    statement in capitalised words ("CONSOLIDATED BALANCE SHEETS"); its other
    chunks (e.g. under "LIABILITIES AND EQUITY") belong to it too.
    """
    kinds: dict[tuple[str, int], str] = {}
    # opening words first: a page's first chunk inherits the previous page's section
    for text_of in (lambda c: c.text[:TITLE_CHARS], _heading_lines, lambda c: c.section):
        for c in chunks:
            kind = statement_title(text_of(c))
            if kind:
                kinds.setdefault((c.doc_id, c.page), kind)
    out: dict[str, list[int]] = {}
    for row, c in enumerate(chunks):
        kind = kinds.get((c.doc_id, c.page))
        if kind:
            out.setdefault(kind, []).append(row)
    return out


def _heading_lines(chunk: Chunk) -> str:
    """The short lines among ``chunk``'s first ``TITLE_LINES``, one per line: a title set
    below a running header ("Table of Contents" and the company's name on every page)
    sits past the opening characters, on a line of its own."""
    if not chunk.lines:  # indexed before line offsets were stored
        return ""
    ends = [*chunk.lines[1:], len(chunk.text)]
    lines = zip(chunk.lines, ends, strict=True)
    opening = [chunk.text[a:b].strip() for a, b in lines][:TITLE_LINES]
    return "\n".join(line for line in opening if len(line.split()) <= TITLE_WORDS)
