"""Whether a sentence states the kind of thing a question asks, whatever its subject.

A sentence can hold a question's words and still not answer it. "How many steps
are there?" is not answered by "To replace the grille: 1", nor "What percentage
...?" by a dollar amount, nor "By how much did it increase?" by the new level
alone. ``lacks`` reads the ``Ask`` for the kind of statement that answers it and
says what a sentence lacks, or None:

* a count of what "how many N" counts: a number a few words before N ("8
  parallel attention layers, or heads"), or after it with a linking word ("N:
  4", "N was 4"); a unit ("how many grams") is the number with the unit or its
  symbol ("16 g"); a part of the document ("Table 6-2", "section 4.13") counts
  nothing;
* a figure when a quantity is asked, a percentage when a percentage is, a figure
  other than a percentage when an amount in a currency or a scale is;
* a change (a verb of going up or down, "from ... to", "compared with") when the
  question asks by how much something changed;
* a year when it asks which year; the code it names ("AR01"), if any;
* a long form of the acronym it asks to be spelled out: words whose initials spell it
  ("What does RAG stand for?" is not answered by "the three paradigms of RAG");
* a name when which/who asks for one name: a capitalised word, acronym or code
  that the question does not already say (not for "what <noun>": "what budget" asks
  for a figure as often as "which budget" for a name).

It reads the sentence alone: whether it is about what was asked (its words, the
period) is ``coverage``'s and ``periods``' job, and it never looks at a document.
"""

from __future__ import annotations

import re

from papertrail.text.acronyms import spells
from papertrail.text.figures import claim_figures, states_amount
from papertrail.text.periods import YEAR
from papertrail.text.words import rarity, stem
from papertrail.types import Ask

NAME_RARITY = 2.5  # words.rarity of a first word read as a name ("Duet"), not "This" (1.0)
COUNT_WINDOW = 5  # words from a count to its noun ("8 parallel attention layers, or heads")
_SPELLED = frozenset(
    "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety "
    "hundred thousand dozen".split()
)
# symbols written for units a question spells out ("how many grams" -> "16 g")
_UNIT_SYMBOLS = {
    "gram": "g gr", "kilogram": "kg", "milligram": "mg", "meter": "m", "metre": "m",
    "centimeter": "cm", "centimetre": "cm", "millimeter": "mm", "millimetre": "mm",
    "kilometer": "km", "kilometre": "km", "liter": "l", "litre": "l", "milliliter": "ml",
    "millilitre": "ml", "second": "s sec secs", "minute": "min mins", "hour": "h hr hrs",
    "day": "d", "inch": "in", "foot": "ft", "feet": "ft", "pound": "lb lbs", "ounce": "oz",
    "degree": "°", "byte": "b", "kilobyte": "kb", "megabyte": "mb", "gigabyte": "gb",
    "terabyte": "tb", "watt": "w", "kilowatt": "kw", "volt": "v", "calorie": "cal kcal",
    "mile": "mi", "yard": "yd", "percent": "%",
}  # fmt: skip
_UNITS = {stem(k): frozenset(v.split()) for k, v in _UNIT_SYMBOLS.items()}
# a part of the document, not a count: "Table 6-2", "section 4.13", "step 3", "page 12"
_REFERENCE = re.compile(
    r"\b(?:sections?|tables?|fig(?:ure)?s?\.?|eq(?:uation)?s?\.?|chapters?|pages?|appendix"
    r"|steps?|lines?|rows?|columns?|items?|notes?|no\.|nos?\.?|#)\s*\(?\d+(?:[.-]\d+)*\)?",
    re.I,
)
_SECTION_NUMBER = re.compile(r"^\s*\d+(?:\.\d+)*\.?\s+(?=[A-Z])")  # "6.3 English Parsing."
# where a sentence joins pieces: a comma or semicolon, a list item's number before a capital
_PIECE = re.compile(r"[,;]\s+|\s+(?=\d{1,2}\s+[A-Z][a-z])")
_ITEM_MARK = re.compile(r"^\d{1,2}\s+(?=[A-Z][a-z])")
MIN_PIECE_WORDS = 3  # a shorter piece is a fragment
_ALL_SYMBOLS = frozenset().union(*_UNITS.values()) | {"db", "hz", "khz", "mhz", "ghz", "kwh", "mah"}
_TOKEN = re.compile(r"\d[\d,]*(?:\.\d+)?|[^\W\d_]+(?:'[^\W\d_]+)?|[%°]")
_LINK = re.compile(
    r"^\s*(?:[:=]|\b(?:of|is|was|were|are|totall?ed|numbered|reached|at)\b)\s*"
    r"(?:\b(?:about|approximately|around|over|nearly|some|roughly|only|just)\b\s*)?$",
    re.I,
)
_PERCENT = re.compile(r"%|\bper\s?cent|\bpercentage\b|\bbasis\s+points?\b|\bbps\b", re.I)
_SCALED_UNITS = ("million", "billion", "thousand", "usd")
_CHANGE = re.compile(
    r"\b(?:increas|decreas|rais|rose|risen|rising|grew|grow(?!th)|declin|fell|fall|dropp|drops?\b"
    r"|lower|reduc|improv|gain|climb|jump|cut\b|expand|shr[ai]nk|chang|up\b|down\b|higher|"
    r"compared\b|versus\b|vs\b)|\bfrom\b[^.;]*\bto\b",
    re.I,
)
_YEAR = re.compile(rf"(?<!\d){YEAR}(?!\d)")
_CODE = re.compile(r"[A-Z]{2,}|[A-Za-z]+\d|\d+[A-Za-z]|[a-z][A-Z]")  # "PKG", "P100", "ChatGPT"


def lacks(ask: Ask, sentence: str) -> str | None:
    """Why ``sentence`` does not state the kind of thing ``ask`` asks (see the module
    docstring), or None when it does; a compound question needs one of its parts met."""
    reasons = [_lacks(q, sentence) for q in ask.questions]
    return None if any(r is None for r in reasons) else reasons[0]


def _lacks(ask: Ask, sentence: str) -> str | None:
    body = ask.plain or ask.body
    if ask.code and not re.search(rf"(?<![\w-]){re.escape(ask.code)}(?![\w-])", sentence):
        return f"it does not name {ask.code}"  # a question about one code: its entry answers
    if ask.acronym and not spells(sentence, ask.acronym):
        return f"it does not spell out {ask.acronym}"
    if ask.counted and not counts(sentence, ask.counted):
        return f"it gives no number of {ask.counted}"
    if ask.kind == "figure" and not states_amount(_SECTION_NUMBER.sub("", sentence)):
        return "it states no figure, and a figure was asked"
    if ask.unit == "percent" and not _PERCENT.search(sentence):
        return "it states no percentage, and one was asked"
    if ask.unit in _SCALED_UNITS and not any(not f.percent for f in claim_figures(sentence)):
        return f"it states no amount, and one in {ask.unit} was asked"
    if ask.change and not _CHANGE.search(sentence):
        return "it states no change, and how much something changed was asked"
    if ask.which_year and not _YEAR.search(sentence):
        return "it names no year, and a year was asked"
    if ask.name and ask.who and not names_one(sentence, body):
        return "it names nothing the question does not, and a name was asked"
    return None


def counts(sentence: str, noun: str) -> bool:
    """Whether ``sentence`` gives a number of ``noun`` (see the module docstring)."""
    text = _REFERENCE.sub(" ", sentence)
    found = list(_TOKEN.finditer(text))
    key = stem(noun)
    symbols = _UNITS.get(key, frozenset())
    nouns = [j for j, t in enumerate(found) if stem(t.group()) == key]
    for i, t in enumerate(found):
        word = t.group().lower()
        if not (word[0].isdigit() or word in _SPELLED):
            continue
        if _marker(text, t.start()):
            continue  # "(3 A-evaluated sound pressure level ...": a note's marker
        after = found[i + 1].group().lower() if i + 1 < len(found) else ""
        if not symbols and after in _ALL_SYMBOLS:
            continue  # "70 dB", "5 %": a measure, not a count of things
        if symbols and i + 1 < len(found) and found[i + 1].group().lower() in symbols:
            return True  # "16 g", "16g"
        if not symbols and "." in word:
            continue  # "4.13" numbers a section, it counts nothing
        if any(0 < j - i <= COUNT_WINDOW for j in nouns):
            return True
        if any(0 < i - j <= 3 and _LINK.match(text[found[j].end() : t.start()]) for j in nouns):
            return True  # "steps: 9", "the number of heads is 8"
    return False


def names_one(sentence: str, question: str) -> bool:
    """Whether ``sentence`` holds a name the question does not: a capitalised word (the
    first one only when it is no everyday word), or an acronym or code ("PKG", "P100",
    "ChatGPT")."""
    said = {w.lower() for w in _TOKEN.findall(question)}
    for i, t in enumerate(_TOKEN.finditer(sentence)):
        w = t.group()
        if w.lower() in said or not w[0].isalpha():
            continue
        if _CODE.search(w) or (w[0].isupper() and (i or _uncommon(w, sentence[t.end() :]))):
            return True
    return False


def _uncommon(word: str, rest: str) -> bool:
    """A sentence's first word that is a name, not an everyday word ("This", "Short-term")
    nor a connective before its comma ("Furthermore,")."""
    low = word.lower()
    return rarity(word) >= NAME_RARITY and not rest.startswith(",") and low not in _SPELLED


def counting_piece(sentence: str, noun: str) -> str | None:
    """The piece of ``sentence`` that gives the number of ``noun``, when the sentence joins
    it to others: cut at commas, semicolons and the numbers that mark a list's items ("6
    Open the lid 6 Insert ground coffee (max. 16 g) 6 Close ..." -> "Insert ground coffee
    (max. 16 g)"); None when the whole sentence is that piece or no piece gives it."""
    pieces = [p.strip() for p in _PIECE.split(sentence) if p and p.strip()]
    for piece in pieces:
        piece = _ITEM_MARK.sub("", piece)
        if len(piece.split()) >= MIN_PIECE_WORDS and counts(piece, noun):
            return piece if piece != sentence.strip() else None
    return None


def _marker(text: str, at: int) -> bool:
    """Whether the number at ``at`` opens a note's marker: "(3" whose bracket another
    "(" or the end comes before it closes ("(3 level (Lpa)"), unlike "(8 heads)"."""
    if at == 0 or text[at - 1] != "(":
        return False
    close, reopen = text.find(")", at), text.find("(", at)
    return close < 0 or 0 <= reopen < close
