"""Normalising text and splitting it into sentences.

``normalize`` folds what PDFs and answers write differently (NFKC, one kind of
dash and quote, no control characters, single spaces); ``strip_markers`` removes
``[n]`` citation markers; ``sentence_spans`` / ``split_sentences`` cut answers and
PDF text into sentences, keeping abbreviations, initials, list numbers and
decimals whole; ``strip_heading`` takes a section heading or run-in label off
the sentence it was run into ("3.1 Encoder and Decoder Stacks Encoder: The...").
Words and figures live in ``words`` and ``figures``.
"""

from __future__ import annotations

import re
import unicodedata

from papertrail.text.memo import per_text

_DASHES = dict.fromkeys(map(ord, "\u2010\u2011\u2012\u2013\u2014\u2212"), "-")
_QUOTES = dict.fromkeys(map(ord, "\u2018\u2019\u201b\u2032"), "'") | dict.fromkeys(
    map(ord, "\u201c\u201d\u201f\u2033"), '"'
)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u00ad\u200b-\u200d\ufeff]")
_MARKER = re.compile(r"\[\s*\d+(?:\s*[-,;]\s*\d+)*\s*\]")
_LIST_START = re.compile(r"^\s*(?:[-*\u2022\u25aa\u25cf]|\(?(?:\d{1,2}|[a-z])[.)])\s+")


@per_text
def normalize(text: str) -> str:
    """NFKC, one kind of dash and quote, no control characters, single spaces."""
    text = unicodedata.normalize("NFKC", text).translate(_DASHES).translate(_QUOTES)
    return re.sub(r"[ \t\r\f\v]+", " ", _CONTROL.sub("", text))


@per_text
def strip_markers(text: str) -> str:
    """Remove ``[n]``-style citation markers and a leading list marker or bullet."""
    text = _MARKER.sub(" ", text)
    return re.sub(r"\s+([.,;:!?])", r"\1", _LIST_START.sub("", re.sub(r"[ \t]+", " ", text)))


_ABBREV = frozenset(
    """
e.g i.e etc vs al fig figs eq eqs no nos dr mr mrs ms prof inc corp co ltd jr sr st
approx dept est vol pp p sec ch art jan feb mar apr jun jul aug sep sept oct nov dec max min
u.s u.k resp cf
""".split()
)
# Chinese and Japanese end sentences with 。 (or ! ? before the next character) and no space.
_BOUNDARY = re.compile(r"[.!?][\"')\]]*\s+|。[」』）]*\s*|[!?](?=[\u3040-\u30ff\u4e00-\u9fff])")


@per_text
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


@per_text
def split_sentences(text: str, *, hard_newlines: bool = True) -> list[str]:
    """Sentences of ``text`` (normalised, single-spaced), see ``sentence_spans``."""
    text = normalize(text)
    if not hard_newlines:
        text = re.sub(r"(?<=[a-z])-\s*\n\s*(?=[a-z])", "", text)  # hyphenation at a line end
    spans = sentence_spans(text, hard_newlines=hard_newlines)
    return [re.sub(r"\s+", " ", text[a:b]) for a, b in spans]


# --- headings run into a sentence -------------------------------------------------

# A run-in label: up to three words and a colon before a capitalised sentence ("Encoder: The")
_LABEL_COLON = re.compile(r"^[A-Z][\w-]*(?: [\w&-]+){0,2}:\s+(?=[A-Z])")
# Words that open English sentences: where a heading run into its paragraph ends
_OPENERS = (
    r"(?:We|The|This|These|Our|In|On|At|By|For|To|A|An|It|Each|Since|Unlike|Most|All|As"
    r"|When|While|After|Given|If|Here|There|Although|Because|Following)\s"
)
# A numbered heading ("6.1 Machine Translation", "3.2.3 Applications of Attention in our
# Model") or one to three capitalised words ("Optimizer", "Residual Dropout") before one
_HEADING_RUN = re.compile(
    r"^(?:\d+(?:\.\d+)*\.?\s+(?:(?:[A-Z][\w-]*|\d+(?:\.\d+)+|of|and|the|in|for|on|to|with|our|a)\s+){1,8}?"
    rf"|[A-Z][a-z-]+(?: [A-Za-z][a-z-]+){{0,2}} )(?={_OPENERS}\w|[A-Z][\w-]*:\s)"
)


@per_text
def strip_heading(sentence: str, section: str = "") -> str:
    """``sentence`` without a leading section heading or run-in label."""
    head = normalize(section).strip()
    if head and sentence.startswith(head) and len(sentence) > len(head) + 1:
        sentence = sentence[len(head) :].lstrip(" .:-")
    sentence = _HEADING_RUN.sub("", sentence, count=1)
    return _LABEL_COLON.sub("", sentence, count=1)
