"""Answering a question about one figure of a table: row label, column, value and unit.

A statement in a filing reads, once its cells are joined into text, as a run of
column headings ("Year Ended December 31, 2017 2018 2019") followed by rows of
a label and one value per column ("Total net sales 177,866 232,887 280,522").
``table_rows`` parses that shape out of an excerpt; ``figure_answer`` picks the
row whose label the question names, the column of the year the question asks
about (the latest when it names none) and says it as a sentence:
"Total net sales in 2017 were $177,866 million". When a table runs over two
excerpts of the same page, the headings of the earlier one serve the later.
It does not add, subtract or compare figures, and it reads only tables whose
columns are years.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from papertrail.answer.quotable import without_page_numbers
from papertrail.protocols import Domain
from papertrail.text.ask import read
from papertrail.text.memo import per_text
from papertrail.text.periods import heading_date_word, heading_year
from papertrail.text.sentences import normalize, split_sentences
from papertrail.text.words import content_words, rarity, stem
from papertrail.types import Ask, Hit

MIN_LABEL_SHARE = 0.6  # rarity-weighted share of a row label's words the question must name
NAME_WEIGHT = 0.3  # a name in the question is usually the company, not a row
MAX_HITS = 5  # the best-ranked excerpts: a statement is often a few excerpts down
_CELL = re.compile(r"^\(?-?\d[\d,]*(?:\.\d+)?\)?%?$|^[\u2014\u2013-]$")  # 1,234 (56) 4.5% —
# A figure worked out from several cells: a ratio, a change, a sum or a difference
_COMPUTED = re.compile(
    r"\b(?:ratio|growth|change|average|turnover|define[ds]?|minus|plus|less|margin %)\b"
    r"|%|\bpercent|\s[+/]\s",
    re.I,
)
DATE_WORDS = 4  # words of a date before its year: "As of December 31,"
_SCALE = re.compile(r"\bin (thousands|millions|billions)\b", re.I)
# a label's pointer to the notes, whose numbers are no cells: "Inventories (Notes 1 and 3)"
_NOTE_REF = re.compile(r"\((?:see\s+)?notes?\s+\d[\w\s,.&-]{0,30}\)", re.I)
_UNIT_WORD = {"thousands": "thousand", "millions": "million", "billions": "billion"}


@dataclass(frozen=True)
class Row:
    label: str
    values: tuple[str, ...]  # cells as printed, one per column ("177,866", "(1,600)", "—")
    years: tuple[str, ...]  # the column headings, same length
    money: bool  # the row, or the table's first row, carries a currency sign


@per_text  # a question's excerpts are read for rows by the answerer and the calculator
def table_rows(text: str, years: tuple[str, ...] = ()) -> tuple[tuple[Row, ...], tuple[str, ...]]:
    """The rows of the year-column tables in ``text``, and the last column headings seen.

    ``years`` are headings carried over from an earlier excerpt of the same table.
    """
    words = normalize(_NOTE_REF.sub(" ", text)).split()
    rows: list[Row] = []
    label: list[str] = []
    money = False
    i = 0
    while i < len(words):
        run, end = _years_at(words, i)
        if len(run) >= 2:  # a heading row: these years name the columns from here on
            years, label, money = tuple(run), [], False
            i = end
            continue
        cells, dollar, j = _cells_at(words, i)
        if cells and label and years and len(cells) == len(years):
            money = money or dollar
            name = " ".join(label).rsplit(":", 1)[-1].strip()  # "Operating expenses: Cost of sales"
            if name:
                rows.append(Row(name, tuple(cells), years, money))
            label, i = [], j
        elif cells:  # numbers that do not fill a row: part of a label or prose
            label, i = [], j
        else:
            label.append(words[i])
            label = label[-8:]  # labels are short; longer runs are prose
            i += 1
    return tuple(rows), years


def asks_computed(ask: Ask) -> bool:
    """Whether ``ask`` asks for a figure worked out from several (a ratio, a change,
    an average), which no single cell or sentence without a figure gives."""
    return bool(_COMPUTED.search(ask.plain))


def figure_answer(
    question: Ask | str, hits: Sequence[Hit], domains: Sequence[Domain] = ()
) -> tuple[str, int] | None:
    """(sentence, 1-based hit) stating the table figure the question asks for, or None.

    The question is read without a domain's answer-format boilerplate (``Ask.plain``);
    ``domains`` add the words their documents use for what it names.
    """
    ask = question if isinstance(question, Ask) else read(question, domains)
    asked = ask.plain
    if _COMPUTED.search(asked):
        return None  # a ratio, a change or a sum: one cell does not answer it
    # the sentence that asks, not the instructions around it ("use the cash flow statement")
    asked = " ".join(s for s in split_sentences(asked) if s.endswith("?")) or asked
    years_asked = {str(y) for y in ask.years}
    if len(years_asked) > 1:
        return None  # two periods: a change or a comparison
    # words the question says count fully, words a filing may use for them half, and
    # names (capitalised inside the sentence: the company, "Walmart") little
    names = set(_weights(" ".join(re.findall(r"(?<=[\w,] )[A-Z][\w&']*", asked))))
    expanded = " ".join(domain.expand(asked) for domain in domains)
    wanted = {w: 0.5 for w in _weights(expanded)} | dict.fromkeys(_weights(asked), 1.0)
    wanted |= {w: NAME_WEIGHT for w in names if w in wanted}
    best: tuple[float, str, int] | None = None
    for k, row, unit in rows_in(hits):
        if k >= MAX_HITS:
            continue
        label, share = _best_label(row.label, wanted)
        col = _column(row, years_asked)
        if share < MIN_LABEL_SHARE or col is None:
            continue
        # a fuller label match wins, then a longer label (more specific), then rank
        key = share + 0.01 * len(content_words(label)) - 0.001 * k
        if best is None or key > best[0]:
            best = (key, say(Row(label, row.values, row.years, row.money), col, unit), k + 1)
    return (best[1], best[2]) if best else None


def rows_in(hits: Sequence[Hit]) -> list[tuple[int, Row, str]]:
    """(0-based hit, row, unit) for every table row of ``hits``.

    Excerpts are read in document order, so the column headings, the unit ("in
    millions") and the currency of a statement carry into its next excerpt on
    the same page; a row is marked as money when its table shows a "$".
    """
    out = []
    carried: dict[tuple[str, int], tuple[tuple[str, ...], str, bool]] = {}
    order = sorted(range(len(hits)), key=lambda k: (hits[k].chunk.doc_id, hits[k].chunk.index))
    for k in order:
        chunk = hits[k].chunk
        years, unit, money = carried.get((chunk.doc_id, chunk.page), ((), "", False))
        # a page number run on after the last row would read as one more cell
        rows, years = table_rows(without_page_numbers(chunk), years)
        unit = _unit(chunk.text, chunk.section) or unit
        money = money or "$" in chunk.text  # a statement shows "$" on its first and total rows
        carried[(chunk.doc_id, chunk.page)] = (years, unit, money)
        out += [(k, Row(r.label, r.values, r.years, r.money or money), unit) for r in rows]
    return out


def _years_at(words: list[str], i: int) -> tuple[list[str], int]:
    """The column headings starting at ``words[i]`` and where they end: years side by side
    ("2019 2018"), or dates that each end in a year ("At December 31, 2019 At December 31,
    2018")."""
    run, j = [], i
    while j < len(words):
        k = j
        while k < len(words) and k - j < DATE_WORDS and heading_date_word(words[k]):
            k += 1  # "At", "December", "31," before the year
        year = heading_year(words[k].rstrip(",:")) if k < len(words) else ""
        if not year:
            break
        run.append(year)
        j = k + 1
    return run, j


def _cells_at(words: list[str], i: int) -> tuple[list[str], bool, int]:
    """Value cells starting at ``words[i]`` ("$" signs skipped), whether one had a "$", end."""
    cells, dollar = [], False
    while i < len(words):
        w = words[i]
        if w == "$":
            dollar = True
        elif _CELL.match(w.lstrip("$")) and not heading_year(w):
            dollar = dollar or w.startswith("$")
            cells.append(w.lstrip("$"))
        else:
            break
        i += 1
    return cells, dollar, i


def _weights(text: str) -> dict[str, float]:
    return {stem(w): rarity(w) for w in content_words(text)}


def own_labels(label: str) -> list[str]:
    """The label and each of its tails that starts with a capital: a run of text puts a
    heading before a row's own label ("Current liabilities Accounts payable")."""
    words = label.split()
    return [" ".join(words[i:]) for i, w in enumerate(words) if i == 0 or w[:1].isupper()]


def _best_label(label: str, wanted: dict[str, float]) -> tuple[str, float]:
    """The row's own label and how much of it the question names.

    Text runs group headings into the label ("Current liabilities Accounts
    payable"): each tail that starts with a capital is tried, the best kept.
    """
    scored = [(_label_share(t, wanted), -i, t) for i, t in enumerate(own_labels(label))]
    share, _, best = max(scored)
    return best, share


def _label_share(label: str, wanted: dict[str, float]) -> float:
    words = _weights(label)
    total = sum(words.values())
    return sum(v * wanted.get(w, 0.0) for w, v in words.items()) / total if total else 0.0


def _column(row: Row, years_asked: set[str]) -> int | None:
    if years_asked:
        (year,) = years_asked
        return row.years.index(year) if year in row.years else None
    return max(range(len(row.years)), key=lambda c: row.years[c])  # the latest period


def _unit(text: str, section: str) -> str:
    m = _SCALE.search(text) or _SCALE.search(section)
    return _UNIT_WORD[m.group(1).lower()] if m else ""


def say(row: Row, col: int, unit: str) -> str:
    """Column ``col`` as a sentence: "Total net sales in 2017 were $177,866 million"."""
    value = row.values[col]
    negative = value.startswith("(") and value.endswith(")")
    value = value.strip("()")
    if value in ("-", "\u2013", "\u2014"):
        value = "nil"
    elif row.money and not value.endswith("%"):
        per = " per " in f" {row.label.lower()} "  # "earnings per share": not in millions
        value = f"{'-' if negative else ''}${value}" + (f" {unit}" if unit and not per else "")
    elif negative:
        value = f"-{value}"
    label = row.label.capitalize() if row.label.isupper() else row.label  # "TOTAL ASSETS"
    label = label[:1].upper() + label[1:]
    # the noun the verb agrees with: "Cost of sales", "Net cash provided by operations"
    head = re.split(r" (?:of|by|from|in|for|provided|used)\b", label.lower())[0].split()[-1]
    verb = "were" if head.endswith("s") and not head.endswith(("ss", "us", "is")) else "was"
    return f"{label} in {row.years[col]} {verb} {value}"
