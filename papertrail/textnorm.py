"""Text helpers shared by the verifier and the extractive answerer.

Normalising (NFKC, dashes, PDF hyphenation), splitting into sentences, content
words with a light stemmer and rarity weights, and figures: which numbers a
claim states and whether an excerpt states the same figure, allowing for
rounding and for tables kept in thousands or millions. Rarity comes from the
``wordfreq`` package (English Zipf frequencies); without it every content word
weighs the same. Nothing here knows about chunks, hits or embeddings.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

try:  # wordfreq ships English frequencies from several large corpora, offline
    from wordfreq import zipf_frequency
except ImportError:  # pragma: no cover - the dependency is declared; this keeps imports working
    zipf_frequency = None

# fmt: off
STOPWORDS = frozenset("""
a about above after again against all also am an and any are as at be because been before
being below between both but by can could did do does doing down during each either few for
from further had has have having he her here hers herself him himself his how however i if in
into is it its itself just may me might more most must my myself no nor not of off on once only
or other our ours ourselves out over own per same shall she should so some such than that the
their theirs them themselves then there these they this those through thus to too under until
up upon us very via was we were what when where whether which while who whom whose why will
with within without would yes yet you your yours yourself yourselves one two three
""".split())
# Units and hedges belong to a figure and are checked with it ("roughly $16.1 million").
UNIT_WORDS = frozenset("""
thousand thousands million millions billion billions trillion usd dollar dollars percent pct
eur euro euros roughly approximately approx around nearly almost circa
""".split())
# fmt: on

_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100, "dozen": 12,
}  # fmt: skip
_DASHES = dict.fromkeys(map(ord, "\u2010\u2011\u2012\u2013\u2014\u2212"), "-")
_QUOTES = dict.fromkeys(map(ord, "\u2018\u2019\u201b\u2032"), "'") | dict.fromkeys(
    map(ord, "\u201c\u201d\u201f\u2033"), '"'
)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u00ad\u200b-\u200d\ufeff]")
_TOKEN = re.compile(r"[^\W_]+(?:'[^\W_]+)?")
_MARKER = re.compile(r"\[\s*\d+(?:\s*[-,;]\s*\d+)*\s*\]")
_LIST_START = re.compile(r"^\s*(?:[-*\u2022\u25aa\u25cf]|\(?(?:\d{1,2}|[a-z])[.)])\s+")
_YEARISH = re.compile(r"^(?:fy|cy|q[1-4]|h[12])?\d{2,4}[a-z]?$|^\d{4}q[1-4]$")


def normalize(text: str) -> str:
    """NFKC, one kind of dash and quote, no control characters, single spaces."""
    text = unicodedata.normalize("NFKC", text).translate(_DASHES).translate(_QUOTES)
    return re.sub(r"[ \t\r\f\v]+", " ", _CONTROL.sub("", text))


def strip_markers(text: str) -> str:
    """Remove ``[n]``-style citation markers and a leading list marker or bullet."""
    text = _MARKER.sub(" ", text)
    return re.sub(r"\s+([.,;:!?])", r"\1", _LIST_START.sub("", re.sub(r"[ \t]+", " ", text)))


# --- sentences -------------------------------------------------------------------------

_ABBREV = frozenset(
    """
e.g i.e etc vs al fig figs eq eqs no nos dr mr mrs ms prof inc corp co ltd jr sr st
approx dept est vol pp p sec ch art jan feb mar apr jun jul aug sep sept oct nov dec
u.s u.k resp cf
""".split()
)
# Chinese and Japanese end sentences with 。 (or ! ? before the next character) and no space.
_BOUNDARY = re.compile(r"[.!?][\"')\]]*\s+|。[」』）]*\s*|[!?](?=[\u3040-\u30ff\u4e00-\u9fff])")


def sentence_spans(text: str, *, hard_newlines: bool = True) -> list[tuple[int, int]]:
    """(start, end) of each sentence of ``text``, stripped, in order; offsets into ``text``.

    Splits after ``.``, ``!`` or ``?`` followed by space (``。`` needs none), except after common
    abbreviations ("e.g.", "Fig."), initials ("Richard A. Johnson"), a list
    number ("1.") or before a lowercase word; a decimal ("28.4") has no space
    after its point. With ``hard_newlines`` (answers) every line is its own
    unit, so list items stand alone; without (PDF text) a newline is a space.
    """
    if hard_newlines:
        lines = [(m.start(), m.group()) for m in re.finditer(r"[^\n]+", text)]
    else:
        lines = [(0, text)]
    spans = []
    for offset, line in lines:
        start = 0
        for m in _BOUNDARY.finditer(line):
            words = line[start : m.start() + 1].split()
            last = words[-1].lower().rstrip(".").lstrip("([\"'") if words else ""
            if last in _ABBREV or (len(last) == 1 and last.isalpha()):
                continue
            if len(words) == 1 and re.fullmatch(r"\(?(\d{1,2}|[a-z]|[ivx]+)[.)]", words[0]):
                continue  # a list number such as "1." starts the item, it does not end one
            if line[m.end() : m.end() + 1].islower():
                continue  # "approx. value": no new sentence starts in lowercase
            spans.append((offset + start, offset + m.end()))
            start = m.end()
        spans.append((offset + start, offset + len(line)))
    out = []
    for a, b in spans:
        piece = text[a:b]
        a2 = a + len(piece) - len(piece.lstrip())
        b2 = b - (len(piece) - len(piece.rstrip()))
        if b2 > a2:
            out.append((a2, b2))
    return out


def split_sentences(text: str, *, hard_newlines: bool = True) -> list[str]:
    """Sentences of ``text`` (normalised, single-spaced), see ``sentence_spans``."""
    text = normalize(text)
    if not hard_newlines:
        text = re.sub(r"(?<=[a-z])-\s*\n\s*(?=[a-z])", "", text)  # hyphenation at a line end
    spans = sentence_spans(text, hard_newlines=hard_newlines)
    return [re.sub(r"\s+", " ", text[a:b]) for a, b in spans]


# --- words ------------------------------------------------------------------------------

_SUFFIXES = (
    "ational", "ization", "fulness", "iveness", "ation", "ement", "ingly", "ment", "ness",
    "able", "ible", "ance", "ence", "ally", "ical", "ity", "ing", "ive", "ize", "ise", "ous",
    "ful", "est", "al", "ed", "er", "ly",
)  # fmt: skip


@lru_cache(maxsize=50_000)
def stem(word: str) -> str:
    """A light, consistent suffix stripper: "dividends" -> "dividend", "increased" -> "increas".

    Not linguistics, just the same key for the forms of one word; ``found`` adds
    prefix matching for the derivations it misses.
    """
    w = word.lower()
    if w.endswith("'s"):
        w = w[:-2]
    if len(w) <= 3 or not w.isalpha():
        return w
    if w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith(("sses", "xes", "zes", "ches", "shes")):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    for suf in _SUFFIXES:
        if w.endswith(suf) and len(w) - len(suf) >= 3:
            w = w[: -len(suf)]
            break
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "lsz":
        w = w[:-1]  # "plann(ed)" -> "plan"
    return w[:-1] if len(w) > 4 and w.endswith("e") else w


@lru_cache(maxsize=50_000)
def rarity(word: str) -> float:
    """Weight of a word: about 1 for everyday words, up to 6 for rare terms and names.

    Zipf frequency is log10 of occurrences per billion words (``the`` is 7.7,
    ``company`` 5.6, ``encoder`` 2.7, unknown names 0).
    """
    if zipf_frequency is None:
        return 1.0
    zipf = zipf_frequency(word.lower(), "en")
    return 1.0 + max(0.0, min(5.0, 6.0 - zipf))


def tokens(text: str) -> list[str]:
    """Lowercase word tokens (letters and digits) of ``text``, in order."""
    return [t.lower() for t in _TOKEN.findall(normalize(text))]


def is_content(token: str) -> bool:
    """True for words that carry meaning: not stop words, numbers, years or single letters."""
    if len(token) < 2 or token in STOPWORDS or token in UNIT_WORDS or _YEARISH.match(token):
        return False
    return not re.fullmatch(r"[\d.,]+", token)


def content_words(text: str) -> list[str]:
    """Content tokens of ``text`` in order (unstemmed, lowercase)."""
    return [t for t in tokens(strip_markers(text)) if is_content(t)]


def word_keys(text: str) -> set[str]:
    """Everything a claim word may be found as in ``text``.

    Stems of its words, compounds written apart or split by a hyphen or a line
    break ("d_model" / "dmodel", "pos- sible"), and acronyms of consecutive words
    ("CEO" for "Chief Executive Officer"), stored as ``"acr:ceo"``.
    """
    norm = normalize(text)
    toks = tokens(norm)
    keys = {stem(t) for t in toks}
    for a, b in re.findall(r"([^\W\d_]+)(?:-\s?|_|\s?-|\.)([^\W\d_]+)", norm):
        keys.add(stem((a + b).lower()))
    for i in range(len(toks)):
        for n in (2, 3):
            if i + n <= len(toks):
                keys.add(stem("".join(toks[i : i + n])))
    initials = [t[0] for t in toks if t.isalpha()]
    skipping = [t[0] for t in toks if t.isalpha() and t not in ("and", "of", "the", "for")]
    for seq in (initials, skipping):
        for i in range(len(seq)):
            for n in (2, 3, 4, 5):
                if i + n <= len(seq):
                    keys.add("acr:" + "".join(seq[i : i + n]))
    return keys


def found(word: str, keys: set[str], *, acronym: bool = False) -> bool:
    """Whether claim ``word`` is among ``keys`` (as built by ``word_keys``)."""
    s = stem(word)
    if s in keys or (acronym and "acr:" + word.lower() in keys):
        return True
    # Derivations the stemmer keeps apart ("gener(ation)" / "generat(ed)"): one stem
    # starts the other and the shorter is still a real word stem (5+ letters).
    if len(s) < 5:
        return False
    return any(len(k) >= 5 and (k.startswith(s) or s.startswith(k)) for k in keys)


# --- figures ----------------------------------------------------------------------------

_NUM = re.compile(r"(?<![\d.,])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\d])|(?<![\w.])\.\d+")
_SCALES = {"thousand": 1e3, "k": 1e3, "million": 1e6, "mn": 1e6, "m": 1e6, "billion": 1e9,
           "bn": 1e9, "b": 1e9, "trillion": 1e12, "tn": 1e12}  # fmt: skip
_SCALE = re.compile(r"\s?(thousand|million|billion|trillion|mn|bn|tn|[kmb])s?(?![^\W\d_])", re.I)
_IN_UNITS = re.compile(r"\bin (?:usd |us\$ |\$ ?|dollars? )?(thousands|millions|billions)\b", re.I)
_CURRENCY = "$€£¥"
_AMOUNT_WORDS = re.compile(r"\b(usd|dollars?|eur|euros?|revenue|sales|cash|income)\b", re.I)


@dataclass(frozen=True)
class Figure:
    """A number a claim states: the digits as written and how to compare them."""

    text: str  # as written, e.g. "382.00"
    value: float  # 382.0, before any scale word
    decimals: int  # precision: digits after the point, trailing zeros dropped
    percent: bool = False
    scale: float = 0.0  # 1e6 for "million" or "(in millions)"; 0 when the claim names none
    amount: bool = False  # money-like: may be stated in another unit
    unit: str = ""  # stem of the word after it ("hour" in "12 hours")

    @property
    def digits(self) -> int:
        """Significant digits: how specific the figure is (1 for "0.40", 5 for "11,588")."""
        return len(f"{self.value:.{self.decimals}f}".replace(".", "").lstrip("0")) or 1


@dataclass(frozen=True)
class Number:
    """A number an excerpt states."""

    value: float
    scale: float = 0.0  # from a scale word right after it ("$4.2 billion"), else 0
    percent: bool = False
    integer: bool = True
    unit: str = ""  # stem of the next word, kept for spelled-out numbers
    spelled: bool = False  # "twelve" rather than "12"


def _scale_at(text: str, pos: int) -> float:
    m = _SCALE.match(text, pos)
    if not m or (len(m.group(1)) == 1 and m.group().startswith(" ")):
        return 0.0  # "5 m" is five metres more often than five million
    return _SCALES[m.group(1).lower()]


def claim_figures(text: str) -> list[Figure]:
    """The figures a claim commits to.

    Left out: citation markers, list markers ("(1)", "1."), years (1900-2100
    without a currency sign), and digits glued to letters, which name things
    rather than count them ("FY2019", "Q2", "COVID-19", "P100", "10-K", "40K").
    """
    text = strip_markers(normalize(text))
    in_units = _IN_UNITS.search(text)
    sentence_scale = _SCALES[in_units.group(1).lower().rstrip("s")] if in_units else 0.0
    amounts = bool(_AMOUNT_WORDS.search(text)) or bool(sentence_scale)
    out = []
    for m in _NUM.finditer(text):
        raw, start, end = m.group(), m.start(), m.end()
        before, after = text[max(0, start - 2) : start], text[end : end + 3]
        money = before.strip()[-1:] in tuple(_CURRENCY) or after[:1] in _CURRENCY
        scale = _scale_at(text, end)
        glued = after[:1].isalpha() and not (money and scale)  # "40K" names; "$4.6B" counts
        if before[-1:].isalpha() or before[-1:] == "_" or glued:
            continue
        if re.match(r"[^\W\d_]-$", before) or re.match(r"-[^\W\d_](?![^\W\d_])", after):
            continue  # "COVID-19", "10-K", "8-K"
        if before[-1:] == "(" and after[:1] == ")" and raw.isdigit() and int(raw) < 100:
            continue  # "(1)": a list or footnote marker
        digits = raw.replace(",", "")
        if not money and "," not in raw and "." not in raw and 1900 <= int(digits) <= 2100:
            continue  # a year
        frac = digits.split(".")[1].rstrip("0") if "." in digits else ""
        pct = bool(re.match(r"\s?(%|percent)", text[end:], re.I))
        amount = not pct and (money or bool(scale) or amounts)
        fig_scale = scale or (sentence_scale if amount else 0.0)
        out.append(
            Figure(raw, float(digits), len(frac), pct, fig_scale, amount, _next_word(text, end))
        )
    return out


def _next_word(text: str, pos: int) -> str:
    m = _TOKEN.search(text, pos)
    return stem(m.group().lower()) if m and m.start() - pos <= 2 else ""


def excerpt_numbers(text: str) -> list[Number]:
    """Every number an excerpt states, including spelled-out ones ("twelve hours")."""
    text = normalize(text)
    out = []
    for m in _NUM.finditer(text):
        raw = m.group()
        pct = bool(re.match(r"\s?%", text[m.end() :]))
        scale = _scale_at(text, m.end())
        out.append(Number(float(raw.replace(",", "")), scale, pct, "." not in raw))
    for m in _TOKEN.finditer(text):
        word = m.group().lower()
        if word in _WORDS:
            out.append(Number(float(_WORDS[word]), unit=_next_word(text, m.end()), spelled=True))
    return out


def figure_in(fig: Figure, numbers: list[Number]) -> bool:
    """Whether one of ``numbers`` states ``fig``, rounded to the claim's precision.

    Trailing zeros are not precision ("$382.00" is 382). An amount may be in
    another unit: when the claim names its scale ("$0.40 billion", "(in USD
    millions)") the excerpt's whole numbers may be in units, thousands or
    millions ("$382.00 million" is 381,603 in a table in thousands, "$0.40
    billion" is 389 in millions); when it names none, only a figure of three or
    more digits may be read a power of 1000 away ("$5,466" is 5,466,312). A
    spelled-out number counts only before the same word ("twelve hours").
    """

    def same(x: float, target: float, unit: float) -> bool:
        # rounds to the target, and is not a smaller magnitude rounded up (0.006 -> 0.01)
        return abs(x - target) <= unit / 2 + unit * 1e-9 and (x >= unit * 0.95 or target == 0)

    last = 10.0 ** (-fig.decimals)  # the claim's last digit, before its scale
    for n in numbers:
        if n.spelled and (not fig.unit or n.unit != fig.unit):
            continue
        if fig.amount and n.percent:
            continue  # "$12 million" is not "12%"
        if same(n.value, fig.value, last):
            return True
        if not fig.amount or n.spelled:
            continue
        if fig.scale:  # compare absolute amounts
            target, unit = fig.value * fig.scale, last * fig.scale
            table_units = (1.0, 1e3, 1e6) if n.integer and not n.scale else (1.0,)
            if any(same(n.value * (n.scale or 1.0) * t, target, unit) for t in table_units):
                return True
        elif fig.digits >= 3:
            factors = (1e-9, 1e-6, 1e-3, 1e3, 1e6, 1e9)
            if any(same(n.value * f, fig.value, last) for f in factors):
                return True
    return False
