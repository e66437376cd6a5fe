"""Reading a question once: ``read`` turns its text into the frozen ``Ask`` every answerer reads.

What a question asks is read here and nowhere else: its "According to the
report," preamble (dropped from ``Ask.body``), the questions a compound one
asks ("..., and how long did it take?"), the kind of thing it wants (a figure,
a name, a definition, yes or no, a list, a comparison, an explanation), the
periods it names (``text.periods``), the unit it asks for, a quoted term, an
acronym to spell out, a code a listing prints, a label whose value is asked,
and a metric the question defines in its own words ("X is defined as: A / B").
``domains`` drop their answer-format instructions ("Round your answer to two
decimals") into ``Ask.plain``. It does not resolve follow-ups (``answer.followup``
makes them standalone first) and does not look at any document.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from papertrail.protocols import Domain
from papertrail.text import labels, periods
from papertrail.text.sentences import normalize, split_sentences
from papertrail.text.words import content_words, stem
from papertrail.types import Ask

# "According to the report, ...", "In the 2019 10-K, ...", "Based on Table 2, ..."
_PREAMBLE = re.compile(r"^(?:according to|in|from|based on)\b[^,?]*,\s*", re.I)
# Where a second question starts inside one: "..., and how long did it take?"
_PART = re.compile(r",?\s+and\s+(?=(?:how|what|which|when|where|who|why)\b)", re.I)
_WH = r"(?:how|what|which|when|where|who|why)"
_SEVERAL = re.compile(
    r"^(?:what|which|who) (?:are|were)\b|\b(?:list|enumerate|name all|each of)\b"
    rf"|,?\s+and\s+{_WH}\b",
    re.I,
)
# "Which method ...?", "Who ...?": a name answers it (unless it names a measure)
_WHICH = re.compile(
    r"^(?:who\b|(?:which|what) (?!(?:is|are|was|were|does|do|did|can)\b)(?P<noun>[a-z-]+))", re.I
)
_AUX = re.compile(r"\b(?:is|are|was|were|does|do|did|can|has|have|had)\b")
# What a figure answers, not a name: "which temperature", "what score"
MEASURES = frozenset(
    "score number amount percentage percent rate ratio value year years date time temperature "
    "size price cost level age height width length weight speed duration share".split()
)
_TAIL = re.compile(r"^(?:where|when|who|which|what)\b", re.I)
_YES_NO = re.compile(r"^(?:is|are|was|were|does|do|did|can|could|has|have|had|will|should)\b", re.I)
# Asks for an amount outright: a sentence without one does not answer it
_AMOUNT = re.compile(
    r"\bhow (?:much|many)\b|\b(?:amount|number|total|percentage|value|cost|price)\b"
    r"|\bin (?:usd|us\$|\$|dollars|thousands|millions|billions|percent)",
    re.I,
)
_QUANTITY = re.compile(
    r"\bhow (much|many|large|big|long|often)\b|\b(amount|number|total|percent(age)?|rate|"
    r"ratio|value|size|cost|price|score|figure|sales|margin|accuracy)s?\b",
    re.I,
)
# Questions that ask for a reason or a description, which one figure does not give
EXPLAIN = re.compile(
    r"\s*(?:why|how(?! (?:much|many|large|big|long|often))|describe|explain"
    r"|what (?:drove|caused))\b",
    re.I,
)
_CHOICE = re.compile(r"\bor\b|\bcompare|\bversus\b|\bvs\.?\b|\bdifference\b", re.I)
_COMPARE = re.compile(r"\bcompare|\bversus\b|\bvs\.?\b|\bdifference\b", re.I)
_WHAT = re.compile(r"^(?:what|which|tell me|give|show)\b", re.I)
# A code: capitals and digits with at least one of each ("AR01", "E-12"), not a period
# ("FY2017", "Q3") nor a form number ("10-K")
CODE = re.compile(r"(?<![\w-])(?=[A-Z0-9-]*\d)(?=[A-Z0-9-]*[A-Z])[A-Z][A-Z0-9-]{1,9}(?![\w-])")
_PERIOD_CODE = re.compile(r"^(?:FY|CY|Q|H)\d{1,4}$|^\d+-[A-Z]$")
_QUOTED = re.compile(r"(?<!\w)['\"\u2018\u201c]([^'\"\u2019\u201d]{2,40})['\"\u2019\u201d](?!\w)")
_FIELD = re.compile(
    r"^what(?:'s| is| was) (?:the |its )?(?P<label>[^?]+?)"
    r"(?:\s+(?:of|for|in|on|at)\b[^?]*)?\s*\??$",
    re.I,
)
_PERIODISH = re.compile(rf"\b{periods.YEAR}\b|\b(?:FY|Q[1-4]|H[12])\s?\d*\b")
# "define X", "definition of X", "meaning of X", "what is meant by X"
_DEFINE = re.compile(
    r"\b(?:defines?|defined|definition\s+of|meaning\s+of|what\s+is\s+meant\s+by)\s+"
    r"(?:the\s+(?:term\s+|concept\s+|word\s+)?)?[\"'\u2018\u201c]?(?P<term>[^?\"'\u2019\u201d]+?)"
    r"[\"'\u2019\u201d]?\s*(?:\b(?:in|as|within|according)\b[^?]*)?\??\s*$",
    re.I,
)
_INSTRUCTION = re.compile(r"\bdefine\s[^?]*\bas\b", re.I)
# How a question asks for an acronym to be spelled out
_SPELL = re.compile(
    r"\bstands?\s+for\b|\bfull\s+(?:form|name)\b|\bexpansion\b|\bshort\s+for\b"
    r"|\b(?:acronym|abbreviation)\b|\bspelled\s+out\b",
    re.I,
)
_NOT_SPELL = re.compile(
    r"^(?:how\s+(?:many|much|often|long)|when|where|why|is|are|was|were|does|do|did|can|has)\b",
    re.I,
)
_TOKEN = re.compile(r"(?<![\w-])[A-Za-z][A-Za-z0-9&-]{1,9}(?![\w-])")
_UNIT = (  # (pattern, unit) in the order they are tried
    (re.compile(r"\bpercent(?:age)?\b|%", re.I), "percent"),
    (re.compile(r"\bin\s+(?:usd\s+|us\$\s*|\$\s*)?billions?\b", re.I), "billion"),
    (re.compile(r"\bin\s+(?:usd\s+|us\$\s*|\$\s*)?millions?\b", re.I), "million"),
    (re.compile(r"\bin\s+(?:usd\s+|us\$\s*|\$\s*)?thousands?\b", re.I), "thousand"),
    (re.compile(r"\bin\s+(?:usd|us\$|\$|dollars)\b", re.I), "usd"),
)  # fmt: skip
# "X is defined as: A / B", "defined as A divided by B": the formula the question gives
_DEFINED = re.compile(
    r"\bdefined\s+as\s*:?\s*(?P<formula>[^?.;]*[/÷][^?;]*?)\s*(?:[?;]|\.\s|\.?$)", re.I
)
_SUBJECT_OPENER = re.compile(
    rf"^(?:{_WH}|is|are|was|were|does|do|did|can|has|have|had)\b(?:\s+(?:much|many|long|often"
    r"|large|big|is|are|was|were|does|do|did|has|have|had|the|a|an))*\s*",
    re.I,
)

# What "how many N" counts, and what other kinds of statement a question asks for
_HOW_MANY = re.compile(r"\bhow\s+many\s+(?P<phrase>[^?,;:]+)", re.I)
# where the counted noun phrase ends: a verb, a preposition, a relative word
_PHRASE_END = frozenset(
    "is are was were be been does do did can could will would should shall may might must has "
    "have had there in on at of for from by with to under per during that which who whose "
    "whom when where this these those it its their".split()
)
_NOT_COUNT = frozenset({"time", "more", "less", "fewer"})  # "how many times": a ratio
_CHANGE_ASKED = re.compile(
    r"\bby\s+how\s+(?:much|many)\b|\bhow\s+(?:much|many)\b[^?]*?\b(?:increas|decreas|gr[eo]w|"
    r"rise|rose|declin|f[ae]ll|drop|chang|rais|lower|improv|reduc|climb|shr[ai]nk)",
    re.I,
)
_YEAR_ASKED = re.compile(r"^\s*(?:in\s+)?(?:what|which)\s+(?:fiscal\s+|calendar\s+)?year\b", re.I)
_WHO = re.compile(r"^\s*(?:which|who)\b", re.I)  # "what budget" asks a measure as often
# Asks what a table or figure shows, nothing more: its caption answers ("What does
# Figure 2 depict?", "What is shown in Table 3?", "What is the title of Figure 7?")
_SHOWS = (
    r"show|depict|illustrate|present|summari[sz]e|compare|describe|report|display|list"
    r"|study|plot|contain"
)
_CAPTION_ASKED = re.compile(
    rf"^\s*what\s+(?:(?:does|do|did)\b.*\b(?:{_SHOWS})\s*|(?:is|are|was|were)\b.*\babout\s*"
    rf"|(?:is|are|was|were)\s+(?:being\s+)?(?:{_SHOWS})(?:e?d|n)\s+(?:in|by)\b.*"
    r"|(?:is|was)\s+the\s+(?:title|caption)\s+of\b.*)\?*\s*$",
    re.I,
)
_COUNT_TOKEN = re.compile(r"\d[\d,]*(?:\.\d+)?|[^\W\d_]+(?:'[^\W\d_]+)?|[%°]")


def read(question: str, domains: Sequence[Domain] = (), *, whole: bool = True) -> Ask:
    """``question`` read once (see the module docstring); ``whole`` False reads one part
    of a compound question (its own parts are not split again)."""
    text = " ".join(normalize(question).split())
    m = _PREAMBLE.match(text)
    preamble, body = (text[: m.end()].rstrip(" ,"), text[m.end() :]) if m else ("", text)
    plain = body
    for domain in domains:  # each domain drops its answer-format boilerplate
        plain = domain.clean(plain)
    named = periods.named(body)
    explains = bool(EXPLAIN.match(body))
    one = _asks_one(body)
    said = {w.lower() for w in re.findall(r"[^\W_]+", body)}
    figures = not explains and (
        bool(_QUANTITY.search(body)) or any(said & d.amounts for d in domains)
    )
    term, acronym, name = _defined_term(body), _acronym(body), _asks_name(body, one)
    kind = _kind(body, one=one, figures=figures, explains=explains, defines=bool(term or acronym),
                 name=name)  # fmt: skip
    return Ask(
        text=text,
        body=body,
        preamble=preamble,
        kind=kind,
        parts=tuple(read(p, domains, whole=False) for p in _parts(body)) if whole else (),
        subject=_subject(body),
        years=tuple(sorted(named.get("year", ()))),
        quarters=tuple(sorted(named.get("quarter", ()))),
        unit=next((u for p, u in _UNIT if p.search(body)), ""),
        quoted=_quoted(body),
        term=term,
        acronym=acronym,
        code=_code(body),
        field=_field(body),
        one=one,
        amount=bool(_AMOUNT.search(body)),
        explains=explains,
        figures=figures,
        tail=bool(_TAIL.match(body)) and one,
        name=name,
        plain=plain,
        asking=" ".join(s for s in split_sentences(body) if s.rstrip().endswith("?")) or body,
        defined=_formula(plain),
        counted=_counted(plain or body),
        change=bool(_CHANGE_ASKED.search(plain or body)),
        which_year=bool(_YEAR_ASKED.match(plain or body)),
        who=bool(_WHO.match(plain or body)),
        caption=_caption(body),
    )


def _caption(body: str) -> str:
    """The one table or figure label whose caption the question asks for, or ""."""
    printed = labels.named(body)
    return printed[0] if len(printed) == 1 and _CAPTION_ASKED.match(body) else ""


def as_ask(question: str | Ask) -> Ask:
    """An ``Ask`` as is; a question's text read (for callers that hold only the text)."""
    return question if isinstance(question, Ask) else read(question)


def _kind(body: str, *, one: bool, figures: bool, explains: bool, defines: bool, name: bool) -> str:
    if defines:
        return "definition"
    if _YES_NO.match(body):
        return "yes-no"
    if explains:
        return "explain"
    if _COMPARE.search(body) or (re.match(r"(?:which|who)\b", body, re.I) and " or " in body):
        return "comparison"
    if not one:
        return "list"
    if figures:
        return "figure"
    if re.match(r"^(?:who|which|where|when)\b", body, re.I) or name:
        return "name"
    return "other"


def _parts(body: str) -> tuple[str, ...]:
    """The questions ``body`` asks: "What hardware was used and how long did it take?"
    asks two; none when it asks one thing."""
    parts = [p.strip(" ,?") for p in _PART.split(body)]
    if len(parts) > 1:
        parts = [p for p in parts if len(content_words(p)) >= 2]
    return tuple(parts) if len(parts) > 1 else ()


def _asks_one(body: str) -> bool:
    """Not a list: "What are the uses ...?", "Which methods ...", "List the ..." ask several."""
    if _SEVERAL.search(body):
        return False
    m = _WHICH.match(body)
    noun = (m.group("noun") or "").lower() if m else ""
    return not (noun.endswith("s") and not noun.endswith(("ss", "us", "is")))


def _asks_name(body: str, one: bool) -> bool:
    """A which/who question for one name, not for a measure ("which temperature")."""
    if not one or _WHICH.match(body) is None:
        return False
    head = _AUX.split(body)[0]
    return not ({w.lower() for w in re.findall(r"[^\W_]+", head)} & MEASURES)


def _subject(body: str) -> str:
    rest = _SUBJECT_OPENER.sub("", body.strip()).strip(" ?.")
    return rest or body.strip(" ?.")


def _quoted(body: str) -> str:
    """The one term a what/which question quotes ('Contact.Meet'), else ""."""
    if not _WHAT.match(body) or _CHOICE.search(body):
        return ""
    terms = {m.strip() for m in _QUOTED.findall(body)}
    return terms.pop() if len(terms) == 1 else ""


def _code(body: str) -> str:
    """The one code a what/which question names, else ""."""
    if not _WHAT.match(body) or _CHOICE.search(body):
        return ""
    codes = {c for c in CODE.findall(body) if not _PERIOD_CODE.match(c)}
    return codes.pop() if len(codes) == 1 else ""


def _field(body: str) -> str:
    """The label "What is the <label> (of ...)?" asks the value of, without a period."""
    m = _FIELD.match(body)
    return "" if m is None or _PERIODISH.search(body) else m.group("label")


def _defined_term(body: str) -> str:
    """The term ``body`` asks to be defined ("the law of good gestalt" -> "law of good
    gestalt"), else ""; not when the question gives the definition itself."""
    if not re.match(r"^(?:how|what)\b", body, re.I) or _INSTRUCTION.search(body):
        return ""
    m = _DEFINE.search(body)
    if m is None:
        return ""
    term = " ".join(m.group("term").split()).strip(" .,:;")
    return term if 1 <= len(term.split()) <= 8 else ""


def _acronym(body: str) -> str:
    """The acronym ``body`` asks to be spelled out ("How many times does the acronym RAG
    appear?" asks no such thing)."""
    if not _SPELL.search(body) or _NOT_SPELL.match(body):
        return ""
    found = [t for t in _TOKEN.findall(body) if sum(c.isupper() for c in t) >= 2]
    return found[0] if len(found) == 1 else ""  # two acronyms: which one is asked?


def _formula(plain: str) -> str:
    """The formula a question defines its metric by ("defined as: A / B"), else ""."""
    m = _DEFINED.search(plain)
    return " ".join(m.group("formula").split()).strip(" :") if m else ""


def _counted(question: str) -> str:
    """What "how many N ..." counts ("How many coffee quality levels can ...?" ->
    "levels"), "" when it asks no count (or a ratio: "how many times")."""
    m = _HOW_MANY.search(question)
    if m is None:
        return ""
    phrase: list[str] = []
    for w in _COUNT_TOKEN.findall(m.group("phrase")):
        low = w.lower()
        if low in _PHRASE_END or (phrase and low.endswith(("ed", "ing"))):
            break
        phrase.append(low)
    # the noun is its last plural word ("coffee quality levels"; "tables" in "tables
    # include"), else its first ("people live")
    plural = [w for w in phrase if len(w) > 3 and w[-1] == "s" and w[-2:] not in ("ss", "us", "is")]
    head = plural[-1] if plural else (phrase[0] if phrase else "")
    return "" if not head or stem(head) in _NOT_COUNT or head[0].isdigit() else head
