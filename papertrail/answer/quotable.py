"""Which sentences of an excerpt can stand as answer text on their own.

An excerpt is about 800 characters of whole lines, so its text carries what a
reader would skip: the section heading run into the first sentence ("3.1
Encoder and Decoder Stacks Encoder: The encoder is..."), a paragraph's run-in
label ("Optimizer We used..."), a table's column headings ("Year Ended
December 31, 2015 2016 2017"), and at either end a sentence the excerpt cut in
two. ``quotable`` returns the sentences fit to quote, headings and labels
removed, footnote text glued on by extraction cut off, a page number after the
last full stop dropped, each marked when it opens the excerpt (it may have begun
in the one before). Long table runs are cut into rows and overlong text into
pieces. Lead-ins (ending in a colon), bare table rows (figures without the
words that say what they are) and boilerplate (``boilerplate``) are never
quotable. ``closest_passages`` names the best excerpts as passages to read
when nothing answers. It does not judge relevance (``extractive`` does).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from papertrail.answer.boilerplate import is_boilerplate
from papertrail.text.figures import excerpt_numbers
from papertrail.text.periods import ends_in_years
from papertrail.text.rows import MAX_CHARS, ROW_START, TABLE_NUMBERS
from papertrail.text.sentences import split_sentences, strip_heading
from papertrail.types import Chunk, Hit

MIN_WORDS = 4  # shorter sentences are fragments or labels, not answers
CUT_CLAUSE_WORDS = 10  # the clauses of a sentence the excerpt cuts, quoted from this length
CLOSEST = 2  # passages offered, as passages, when nothing answers
PASSAGE_CHARS = 200  # characters of each such passage shown
# Footnote text glued on by extraction: a marker run into its note ("dv-dimensional 4To
# illustrate...") or a note symbol before a capital ("... data. ∗Equal contribution")
_FOOTNOTE = re.compile(r"(?<![\w.,])\d{1,2}(?=[A-Z][a-z]+\b)|\s[*\u2217\u2020\u2021](?=[A-Z])")
_SECTION_NUMBER = re.compile(r"^\s*\d+(?:\.\d+)*\.?\s+")  # "3.1 " before a heading
_CUT_END = re.compile(r"[.!?:;)\]\"'%\d]$")  # how a finished sentence or table row ends
# A page number (or a footnote number) left after a sentence's full stop by extraction:
# "... results on translation. 1", "... during training: 7"
_TRAILING_NUMBER = re.compile(r"(?<=[.!?:;])\s+\d{1,3}$")
# A repository's stamp printed sideways in the margin, read into the text beside it
_STAMP = re.compile(r"\s*\barXiv:\d{4}\.\d{4,5}(?:v\d+)?\s*\[[^\]]{1,20}\]\s*\d{1,2} \w{3,9} \d{4}")
_RULE = re.compile(r"\s*(?:_{3,}|={3,}|\.{4,})\s*")  # a drawn rule or dot leader read as text
_PAGE_NUMBER_LINE = re.compile(r"^\s*(?:page\s+)?\d{1,4}(?:\s+of\s+\d{1,4})?\s*$", re.I)
_DANGLING = re.compile(r"(?:\s[=+\u00b7*/<>-]|,)$")  # ends on an operator or comma: cut
# Ends in a question mark written after a word: it asks (an analyst's question in a call);
# a "?" after a space is a glyph extraction could not read ("with ? = 10-9")
_ASKS = re.compile(r"[^\s?]\?[\"'\u201d)\s]*$")
_CELL = r"(?:\$\s?)?\(?-?\$?\d[\d,]*(?:\.\d+)?\)?%?|[\u2014\u2013-]"  # 1,234 (56) 4.5% —
_CELLS_AT_END = re.compile(rf"(?:\s(?:{_CELL})){{2,}}\.?\s*$")


@dataclass(frozen=True)
class Quote:
    text: str
    opens: bool  # the excerpt's first sentence: it may have started in the excerpt before


def quotable(chunk: Chunk) -> list[Quote]:
    """The sentences of ``chunk`` fit to quote, in order (see the module docstring)."""
    sentences = split_sentences(without_page_numbers(chunk), hard_newlines=False)
    if len(sentences) > 1 and not _CUT_END.search(sentences[-1]):
        # it runs on into the next excerpt: its clauses before the cut may still be quoted
        # ("..., our big model achieves a BLEU score of 41.0, outperforming ..., at less
        # than 1/4 the training cost of the" up to its last comma)
        head = sentences[-1].rsplit(",", 1)[0] if "," in sentences[-1] else ""
        sentences = sentences[:-1] + ([head] if word_count(head) >= CUT_CLAUSE_WORDS else [])
    out: list[Quote] = []
    for i, s in enumerate(sentences):
        bare = strip_heading(s, chunk.section)
        opens = i == 0 and bare == s and chunk.index > 0
        # a heading taken off the excerpt's only sentence leaves a label, not a notice
        for piece in candidate_sentences(bare, alone=len(sentences) == 1 and bare == s):
            out.append(Quote(piece, opens and not out))
    return out


def without_page_numbers(chunk: Chunk) -> str:
    """The chunk's text without a first or last line that is only a page number ("9",
    "Page 3 of 40"), so the sentence the page cut off is seen as cut, not as ending in 9,
    and without a margin stamp read into it."""
    text = chunk.text
    if len(chunk.lines) < 2:
        return _STAMP.sub("", text)
    first, last = chunk.lines[1], chunk.lines[-1]
    if _PAGE_NUMBER_LINE.match(text[last:]):
        text = text[:last]
    if _PAGE_NUMBER_LINE.match(text[:first]):
        text = " " * first + text[first:]  # offsets kept for whoever maps them back
    return _STAMP.sub("", text)


def candidate_sentences(text: str, *, alone: bool | None = None) -> list[str]:
    """Whole sentences of ``text``; table runs cut into rows, overlong text into pieces.

    Fragments (under ``MIN_WORDS`` words, or starting in lowercase) and table
    heading rows are left out, unless the text holds nothing else (a title page,
    a one-line notice): ``alone`` says so, by default when ``text`` is one piece.
    """
    out = []
    for s in split_sentences(_RULE.sub(" ", _STAMP.sub("", text)).strip(), hard_newlines=False):
        pieces = [s]
        if len(s) > MAX_CHARS or len(excerpt_numbers(s)) >= TABLE_NUMBERS:
            pieces = [p for p in ROW_START.split(s) if p.strip()]
        for p in pieces:
            while len(p) > MAX_CHARS:
                cut = p.rfind(" ", 0, MAX_CHARS)
                cut = cut if cut > MAX_CHARS // 2 else MAX_CHARS
                out.append(p[:cut].strip())
                p = p[cut:].strip()
            out.append(p.strip())
    if len(out) == 1 and alone is not False and out[0] and not out[0][0].islower():
        return [] if _never(_TRAILING_NUMBER.sub("", out[0])) else out
    out = [s[: m.start()].rstrip() if (m := _FOOTNOTE.search(s)) else s for s in out]
    out = [_TRAILING_NUMBER.sub("", s) for s in out]
    return [
        s
        for s in out
        if word_count(s) >= MIN_WORDS
        and not s[0].islower()
        and not (s.startswith("(") and s.endswith(")"))  # an aside: "(In millions)"
        and not ends_in_years(s)  # a row of column headings
        and not _title_only(s)
        and not _never(s)
    ]


def _never(s: str) -> bool:
    """Never an answer, even as an excerpt's only text: a question (in a transcript, an
    analyst's), a lead-in (what it announces is not in it), a sentence cut on an operator
    or comma, a bare row, boilerplate."""
    return (
        bool(_ASKS.search(s))
        or s.endswith(":")
        or bool(_DANGLING.search(s))
        or bare_row(s)
        or is_boilerplate(s)
    )


def bare_row(text: str) -> bool:
    """A table row cut from its column headings: it ends in two or more value cells
    ("Net income $ 596 $ 2,371 $ 3,033"). Quoted, it would not say which figure is
    which period; ``tables`` states such a figure with its row and column instead."""
    return bool(_CELLS_AT_END.search(text))


def _title_only(text: str) -> bool:
    """A heading or a table's heading row: every word capitalised, no closing stop, and no
    figure after a leading section number (a row of names with figures is data: "Southern
    Home Care Services, Inc. San Leandro 123")."""
    words = [w for w in text.split() if w[:1].isalpha()]
    if re.search(r"\d", _SECTION_NUMBER.sub("", text)):
        return False
    return bool(words) and all(w[0].isupper() for w in words) and text[-1] not in ".!?"


def word_count(text: str) -> int:
    """Words of ``text``; in scripts written without spaces each wide character counts.

    A Chinese or Japanese sentence is one "word" to ``str.split`` but a
    character there is about a morpheme, as in ``pagetext.has_text``.
    """
    wide = sum(unicodedata.east_asian_width(c) in ("W", "F") and c.isalpha() for c in text)
    return len(text.split()) + wide


def closest_passages(hits: Sequence[Hit]) -> tuple[str, ...]:
    """Notes naming the best-ranked excerpts as passages to read, not as an answer."""
    out = []
    for h in hits[:CLOSEST]:
        text = " ".join(h.chunk.text.split())
        if len(text) > PASSAGE_CHARS:
            text = text[:PASSAGE_CHARS].rsplit(" ", 1)[0] + " ..."
        out.append(f'Closest passage ({h.chunk.doc_name}, page {h.chunk.page}): "{text}"')
    return tuple(out)
