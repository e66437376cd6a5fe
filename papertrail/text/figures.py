"""Figures: which numbers a claim states, and whether an excerpt states the same.

``claim_figures`` finds the figures of a sentence (not years, list markers or
names with digits such as "FY2019" or "COVID-19"); ``excerpt_numbers`` reads every
number of an excerpt with its scale ("in millions", "1.6 billion") and spelled
numbers ("six"); ``figure_in`` allows for rounding to the stated precision and for
tables kept in thousands or millions. Nothing here knows about chunks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from papertrail.text.memo import per_text
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
_SCALES = {"thousand": 1e3, "k": 1e3, "million": 1e6, "mn": 1e6, "m": 1e6, "billion": 1e9,
           "bn": 1e9, "b": 1e9, "trillion": 1e12, "tn": 1e12, "lakh": 1e5, "lac": 1e5,
           "crore": 1e7}  # fmt: skip
_SCALE = re.compile(
    r"\s?(thousand|million|billion|trillion|lakh|lac|crore|mn|bn|tn|[kmb])s?(?![^\W\d_])", re.I
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
    """The figures a claim commits to.

    Left out: citation markers, list markers ("(1)", "1."), years (1900-2100
    without a currency sign), and digits glued to letters, which name things
    rather than count them ("FY2019", "Q2", "COVID-19", "P100", "10-K", "40K"),
    unless the letters are a scale ("450mn", "$4.6B"). Digits may be grouped the
    English, Indian or continental way ("3,02,16,492" is 30,216,492).
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
        # "40K" names a thing; "$4.6B" and "450mn" count
        word = _SCALE.match(text, end)
        glued = after[:1].isalpha() and not (money and scale or word and len(word.group(1)) > 1)
        if before[-1:].isalpha() or before[-1:] == "_" or glued:
            continue
        if re.match(r"[^\W\d_]-$", before) or re.match(r"-[^\W\d_](?![^\W\d_])", after):
            continue  # "COVID-19", "10-K", "8-K"
        if before[-1:] == "(" and after[:1] == ")" and raw.isdigit() and int(raw) < 100:
            continue  # "(1)": a list or footnote marker
        digits = _value(raw)
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
    m = TOKEN.search(text, pos)
    return stem(m.group().lower()) if m and m.start() - pos <= 2 else ""


@per_text
def excerpt_numbers(text: str) -> list[Number]:
    """Every number an excerpt states, including spelled-out ones ("twelve hours")."""
    text = normalize(text)
    out = []
    for m in _NUM.finditer(text):
        raw = m.group()
        pct = bool(re.match(r"\s?%", text[m.end() :]))
        scale = _scale_at(text, m.end())
        value = _value(raw)
        unit = _next_word(text, m.end())
        out.append(Number(float(value), scale, pct, "." not in value, unit))
    for m in TOKEN.finditer(text):
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
    spelled-out number counts only before the same word ("twelve hours"), and a
    time only in the same unit ("10 seconds" is not "10-minute intervals").
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
