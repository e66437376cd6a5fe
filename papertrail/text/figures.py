"""Figures: which numbers a claim states, and whether an excerpt states the same.

``claim_figures`` finds the figures of a sentence (not years, list markers or
names with digits such as "FY2019" or "COVID-19"); ``excerpt_numbers`` reads every
number of an excerpt with its scale ("in millions", "1.6 billion") and spelled
numbers ("six"); ``figure_in`` allows for rounding to the stated precision and for
tables kept in thousands or millions. Nothing here knows about chunks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from papertrail.text.memo import per_text
from papertrail.text.periods import MONTH_WORD
from papertrail.text.powers import claim_powers, excerpt_powers
from papertrail.text.sentences import normalize, strip_markers
from papertrail.text.words import TOKEN, stem

_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100, "dozen": 12,
}  # fmt: skip
# Digit groups as written in English (1,234,567), Indian (12,34,567) and continental
# European (1.234.567,89) text; a lone "1.234" stays a decimal.
_NUM = re.compile(
    r"(?<![\d.,])(?:\d{1,2}(?:,\d\d)+,\d{3}(?!,\d)|\d{1,3}(?:,\d{3})+|\d{1,3}(?:\.\d{3}){2,}(?:,\d+)?"
    r"(?![\d.])|\d{1,3}(?:\.\d{3})+,\d+|\d+)(?:\.\d+)?(?![\d])|(?<![\w.])\.\d+"
)
_EUROPEAN = re.compile(r"^\d{1,3}(?:\.\d{3}){2,}(?:,\d+)?$|^\d{1,3}(?:\.\d{3})+,\d+$")
_UNITS = frozenset("one two three four five six seven eight nine".split())
_PERCENT_WORD = re.compile(r"\s?(?:percent|per cent)\b", re.I)
_SCALES = {"thousand": 1e3, "k": 1e3, "million": 1e6, "mn": 1e6, "m": 1e6, "billion": 1e9,
           "bn": 1e9, "b": 1e9, "trillion": 1e12, "tn": 1e12, "t": 1e12, "lakh": 1e5, "lac": 1e5,
           "crore": 1e7}  # fmt: skip
_SCALE = re.compile(
    r"\s?(thousand|million|billion|trillion|lakh|lac|crore|mn|bn|tn|[kmbt])s?(?![^\W\d_])", re.I
)
_IN_UNITS = re.compile(
    r"\bin (?:usd |us\$ |\$ ?|dollars? |rs\.? |inr |₹ ?)?"
    r"(thousands|millions|billions|lakhs|crores)\b",
    re.I,
)
_CURRENCY = "$€£¥₹"
_TIME = frozenset({"second", "minut", "hour", "day", "week", "month", "year"})  # word stems
# A currency named in words makes a sentence's figures money; what the money is for
# ("revenue", "rainfall") does not: "77 customers with revenue above $1 million" counts
# customers, and a figure with a currency sign or a scale is an amount anyway.
_AMOUNT_WORDS = re.compile(r"\b(usd|dollars?|eur|euros?|inr|rs|rupees?)\b", re.I)


@dataclass(frozen=True)
class Figure:
    """A number a claim states: the digits as written and how to compare them."""

    text: str  # as written, e.g. "382.00"
    value: float  # 382.0, before any scale word
    decimals: int  # precision: digits after the point, trailing zeros dropped
    percent: bool = False
    scale: float = 0.0  # 1e6 for "million" or "(in millions)"; 0 when the claim names none
    amount: bool = False  # money-like (a currency or a scale): may be stated in another unit
    unit: str = ""  # stem of the word after it ("hour" in "12 hours")
    day: bool = False  # the day of a date ("quarter ended June 30, 2023")

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
    unit: str = ""  # stem of the next word ("hour"): spelled-out numbers and times need it
    spelled: bool = False  # "twelve" rather than "12"
    then: str = ""  # a spelled number's second word after it ("eight P100 GPUs": "gpu")
    day: bool = False  # the day of a date ("June 30, 2023")


def _value(raw: str) -> str:
    """The digits of a written number with a point for decimals: "3,02,16,492" -> "30216492"."""
    if _EUROPEAN.match(raw):
        return raw.replace(".", "").replace(",", ".")
    return raw.replace(",", "")


def _scale_at(text: str, pos: int) -> float:
    m = _SCALE.match(text, pos)
    if not m or (len(m.group(1)) == 1 and m.group().startswith(" ")):
        return 0.0  # "5 m" is five metres more often than five million
    return _SCALES[m.group(1).lower()]


@per_text
def claim_figures(text: str) -> list[Figure]:
    """The figures a claim commits to (``claim_figures_at`` without the offsets)."""
    return [f for _, _, f in claim_figures_at(text)]


def claim_figures_at(text: str) -> list[tuple[int, int, Figure]]:
    """The figures a claim commits to, each with its offsets in ``figure_text(text)``.

    Left out: citation markers, list markers ("(1)", "1."), years (1900-2100
    without a currency sign), and digits glued to letters, which name things
    rather than count them ("FY2019", "Q2", "COVID-19", "P100", "10-K", "40K"),
    unless the letters are a scale ("450mn", "$4.6B"). Digits may be grouped the
    English, Indian or continental way ("3,02,16,492" is 30,216,492).
    """
    text = figure_text(text)
    scientific = [
        (a, b, Figure(raw, value, decimals)) for a, b, raw, value, decimals in claim_powers(text)
    ]
    in_units = _IN_UNITS.search(text)
    sentence_scale = _SCALES[in_units.group(1).lower().rstrip("s")] if in_units else 0.0
    amounts = bool(_AMOUNT_WORDS.search(text)) or bool(sentence_scale)
    out = list(scientific)
    for m in _NUM.finditer(text):
        raw, start, end = m.group(), m.start(), m.end()
        if any(a <= start < b for a, b, _ in scientific):
            continue  # a part of "3e-4" or "3 × 10^-4"
        before, after = text[max(0, start - 2) : start], text[end : end + 3]
        money = before.strip()[-1:] in tuple(_CURRENCY) or after[:1] in _CURRENCY
        scale = _scale_at(text, end)
        # "40K" names a thing; "$4.6B" and "450mn" count
        word = _SCALE.match(text, end)
        # "3.3B words": a decimal with a scale letter counts too; "40K" alone may name a thing
        counts = money or "." in raw
        glued = after[:1].isalpha() and not (counts and scale or word and len(word.group(1)) > 1)
        if before[-1:].isalpha() or before[-1:] == "_" or glued:
            continue
        if re.match(r"[^\W\d_]-$", before) or re.match(r"-[^\W\d_](?![^\W\d_])", after):
            continue  # "COVID-19", "10-K", "8-K"
        if before[-1:] == "(" and after[:1] == ")" and raw.isdigit() and int(raw) < 100:
            continue  # "(1)": a list or footnote marker
        if before[-1:] in ("'", "’") and len(raw) == 2 and raw.isdigit():
            continue  # "Q4'22", "FY '23": a year written short
        digits = _value(raw)
        if not money and "," not in raw and "." not in raw and 1900 <= int(digits) <= 2100:
            continue  # a year
        frac = digits.split(".")[1].rstrip("0") if "." in digits else ""
        pct = bool(re.match(r"\s?(%|percent)", text[end:], re.I))
        amount = not pct and (money or bool(scale) or amounts)
        fig_scale = scale or (sentence_scale if amount else 0.0)
        day = is_day(text, start, end)
        fig = Figure(
            raw, float(digits), len(frac), pct, fig_scale, amount, _next_word(text, end), day
        )
        out.append((start, end, fig))
    return out


def figure_text(text: str) -> str:
    """The text a claim's figures are read in (normalised, citation markers removed)."""
    return strip_markers(normalize(text))


_DAY_BEFORE = re.compile(rf"\b{MONTH_WORD}\s*$", re.I)  # "June 30"
_DAY_AFTER = re.compile(rf"^(?:st|nd|rd|th)?\s+(?:of\s+)?{MONTH_WORD}\b", re.I)  # "28 September"


def is_day(text: str, a: int, b: int) -> bool:
    """Whether the number at ``a``..``b`` of ``text`` is the day of a date ("June 30",
    "28 September")."""
    if not text[a:b].isdigit() or not 1 <= int(text[a:b]) <= 31 or text[b : b + 1] == "%":
        return False
    return bool(_DAY_BEFORE.search(text[max(0, a - 12) : a]) or _DAY_AFTER.match(text[b : b + 16]))


def _next_word(text: str, pos: int) -> str:
    m = TOKEN.search(text, pos)
    return stem(m.group().lower()) if m and m.start() - pos <= 2 else ""


@per_text
def excerpt_numbers(text: str) -> list[Number]:
    """Every number an excerpt states, including spelled-out ones ("twelve hours")."""
    text = normalize(text)
    out = [n for _, _, n in numbers_at(text)]
    out += [Number(value, integer=False) for value in excerpt_powers(text)]
    toks = list(TOKEN.finditer(text))
    skip = -1
    for i, m in enumerate(toks):
        word = m.group().lower()
        if word not in _WORDS or i == skip:
            continue
        value, end = float(_WORDS[word]), m.end()
        nxt = toks[i + 1] if i + 1 < len(toks) else None
        # "sixty-two", "forty one": a ten and a unit are one number
        if (
            nxt is not None
            and 20 <= value <= 90
            and nxt.group().lower() in _UNITS
            and text[end : nxt.start()] in ("-", " ")
        ):
            value, end, skip = value + _WORDS[nxt.group().lower()], nxt.end(), i + 1
        pct = bool(_PERCENT_WORD.match(text, end))
        out.append(Number(value, percent=pct, unit=_next_word(text, end), spelled=True,
                          then=_word_after(text, end)))  # fmt: skip
    return out


def _word_after(text: str, pos: int) -> str:
    """The stem of the second word after ``pos`` ("eight P100 *GPUs*")."""
    first = TOKEN.search(text, pos)
    second = TOKEN.search(text, first.end()) if first and first.start() - pos <= 2 else None
    return stem(second.group().lower()) if second and second.start() - first.end() <= 2 else ""


def numbers_at(text: str) -> list[tuple[int, int, Number]]:
    """The numbers written in digits in ``text`` (already normalised), with their offsets."""
    out = []
    for m in _NUM.finditer(text):
        raw = m.group()
        pct = bool(re.match(r"\s?%", text[m.end() :]))
        scale = _scale_at(text, m.end())
        value = _value(raw)
        unit = _next_word(text, m.end())
        number = Number(float(value), scale, pct, "." not in value, unit)
        if is_day(text, m.start(), m.end()):
            number = replace(number, day=True)
        out.append((m.start(), m.end(), number))
    return out


def figure_in(fig: Figure, numbers: list[Number]) -> bool:
    """Whether one of ``numbers`` states ``fig``, rounded to the claim's precision.

    Trailing zeros are not precision ("$382.00" is 382). An amount may be in
    another unit: when the claim names its scale ("$0.40 billion", "(in USD
    millions)") the excerpt's whole numbers may be in units, thousands or
    millions ("$382.00 million" is 381,603 in a table in thousands, "$0.40
    billion" is 389 in millions); when it names none, only a figure of three or
    more digits may be read a power of 1000 away ("$5,466" is 5,466,312). A
    spelled-out number counts only before the same word ("twelve hours", or one
    word on: "eight P100 GPUs") or as a percentage ("sixty-two percent"), and a
    time only in the same unit ("10 seconds" is not "10-minute intervals").
    """

    def same(x: float, target: float, unit: float) -> bool:
        # rounds to the target, and is not a smaller magnitude rounded up (0.006 -> 0.01)
        return abs(x - target) <= unit / 2 + unit * 1e-9 and (x >= unit * 0.95 or target == 0)

    last = 10.0 ** (-fig.decimals)  # the claim's last digit, before its scale
    for n in numbers:
        said_as = fig.percent and n.percent or fig.unit and fig.unit in (n.unit, n.then)
        if n.spelled and not said_as:
            continue  # "twelve hours", "eight P100 GPUs" for "8 GPUs", "sixty-two percent"
        if fig.amount and n.percent:
            continue  # "$12 million" is not "12%"
        if fig.unit in _TIME and n.unit in _TIME and fig.unit != n.unit:
            continue  # "10 seconds" is not "10-minute intervals"
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


# "section 5.4", "Table 2", "Eq. (3)": a number that names a part of the document, no amount
_REFERENCE = re.compile(
    r"\b(?:sections?|tables?|fig(?:ure)?s?\.?|eq(?:uation)?s?\.?|chapters?|pages?|appendix"
    r"|steps?|lines?|rows?|columns?|items?|notes?)\s*\(?\d+(?:\.\d+)*\)?",
    re.I,
)


@per_text
def states_amount(text: str) -> bool:
    """Whether ``text`` states an amount: a figure, or a number written out ("six layers"),
    other than a number naming a part of the document ("section 5.4", "Table 2")."""
    text = _REFERENCE.sub(" ", text)
    return bool(claim_figures(text)) or any(n.spelled for n in excerpt_numbers(text))
