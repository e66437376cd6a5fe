"""What a document is, from its opening text: title, period, and what a domain adds.

``opening`` reads a document's first pages (the cover page of a filing, the
title block of a paper or a manual); ``identify`` turns that into an
``Identity``: a title (the first line of real text that is not a licence,
copyright or permission notice, joined with a short second line unless that
is in much smaller type), the period it covers
(``periods``), and what the first ``Domain`` that recognises it adds (kind,
issuer, aliases such as a trading symbol). The file name is only a fallback
for the period (a user's file names follow no convention). It leaves out
PDF metadata fields, which are mostly empty or the producing program's name.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from papertrail.protocols import Domain
from papertrail.text import periods
from papertrail.text.ask import as_ask
from papertrail.types import Ask, Chunk, Identity

OPENING_CHARS = 4000  # opening characters of a document read as its self-description
OPENING_PAGES = 2  # ... taken from at most this many first pages
BODY_PAGES = 15  # pages a quarterly report's fiscal quarter is looked for in
TITLE_CHARS = 120
_LETTERS = re.compile(r"[^\W\d_]{2,}")
# what licence, copyright and permission notices are made of; a notice is a paragraph
# with two of these (or one, in a sentence of NOTICE_WORDS words or more)
_NOTICE = re.compile(
    r"\b(?:permission|permitted|licen[cs]\w*|copyright|all rights reserved|attribution|"
    r"reproduc\w*|redistribut\w*|creative commons|terms of use|hereby grant\w*|"
    rf"trademarks?|preprint|under review|arxiv)\b|©|\(c\)\s*{periods.YEAR}",
    re.I,
)
NOTICE_WORDS = 12
NOTICE_LINES = 6  # a notice paragraph runs at most this many lines before its full stop
# a line under a title in type this much smaller is its authors or date, not more title
SMALLER = 0.75
# words of a company's legal name that name no company
_LEGAL = frozenset(
    "the inc incorporated corp corporation co company ltd limited plc llc and of".split()
)


def _lines(c: Chunk) -> str:
    """A chunk's text with its line breaks back (``Chunk.lines``: where each line starts)."""
    if not c.lines:
        return c.text
    ends = [*c.lines[1:], len(c.text)]
    return "\n".join(c.text[a:b].strip() for a, b in zip(c.lines, ends, strict=True))


def opening(chunks: Sequence[Chunk]) -> str:
    """The text of a document's first pages (up to ``OPENING_CHARS``), line by line."""
    return "\n".join(line for line, _ in _opening_lines(chunks))


def _opening_lines(chunks: Sequence[Chunk]) -> list[tuple[str, float | None]]:
    """The lines of ``opening`` with their size of type in points (None when not known)."""
    pages = sorted({c.page for c in chunks})[:OPENING_PAGES]
    out: list[tuple[str, float | None]] = []
    size = 0
    for c in chunks:
        if c.page in pages and size < OPENING_CHARS:
            lines = _lines(c).split("\n")
            # a chunk's boxes are its lines' boxes when both were kept
            known = len(c.rects) == len(lines) and len(c.lines) == len(lines)
            # the size of type: a line's height, or its width when it runs sideways
            size_of = [min(r.width, r.height) for r in c.rects] if known else [None] * len(lines)
            out += list(zip(lines, size_of, strict=True))
            size += len(c.text)
    cut, kept = OPENING_CHARS, []
    for line, height in out:  # the first OPENING_CHARS characters, newlines counted
        if cut <= 0:
            break
        kept.append((line[:cut], height))
        cut -= len(line) + 1
    return kept


def title(text: str, heights: Sequence[float | None] | None = None) -> str:
    """The first line with words in it that is no notice (``notices``), joined with the
    next when either is short, unless ``heights`` (one per line of ``text``) says the next
    is set in much smaller type (a title's authors, not its second line)."""
    raw = [line.strip() for line in text.splitlines()]
    sizes = list(heights) if heights is not None and len(heights) == len(raw) else [None] * len(raw)
    skip = notices(raw)
    lines = [
        (line, sizes[i])
        for i, line in enumerate(raw)
        if i not in skip and len(_LETTERS.findall(line)) >= 1
    ]
    if not lines:
        return ""
    out, height = lines[0]
    if len(lines) > 1:  # a title set over two lines, or with a short tail
        line, other = lines[1]
        smaller = height is not None and other is not None and other < SMALLER * height
        if not smaller and (len(out) < 30 and len(line) <= 60 or len(line) <= 24 and len(out) < 80):
            out = f"{out} {line}"
    return out[:TITLE_CHARS].strip()


def notices(lines: Sequence[str]) -> set[int]:
    """The indexes of ``lines`` in licence, copyright or permission notices ("Provided
    proper attribution is provided, X hereby grants permission to reproduce..."): each
    paragraph from a line naming such a thing to the line ending its sentence, kept when
    it names two of them, or one in a sentence of ``NOTICE_WORDS`` words or more. A short
    line followed by a new sentence stands alone ("The MIT License" / "Permission is...")."""
    out: set[int] = set()
    i = 0
    while i < len(lines):
        if i in out or not _NOTICE.search(lines[i]):
            i += 1
            continue
        j = i
        heading = len(lines[i].split()) < 6 and i + 1 < len(lines) and lines[i + 1][:1].isupper()
        while (
            not heading and j + 1 < len(lines) and j - i + 1 < NOTICE_LINES and not _ends(lines[j])
        ):
            j += 1
        if not _ends(lines[j]):
            j = i  # no full stop in reach: the line alone
        para = " ".join(lines[i : j + 1])
        terms = {m.group(0).casefold() for m in _NOTICE.finditer(para)}
        if len(terms) >= 2 or len(para.split()) >= NOTICE_WORDS:
            out.update(range(i, j + 1))
            i = j + 1
        else:
            i += 1
    return out


def _ends(line: str) -> bool:
    return bool(re.search(r"[.;]\W*$", line))


def identify(name: str, chunks: Sequence[Chunk], domains: Sequence[Domain] = ()) -> Identity:
    """The identity of the document ``name`` made of ``chunks`` (in order)."""
    lines = _opening_lines(chunks)
    text = "\n".join(line for line, _ in lines)
    found: dict[str, object] = {"title": title(text, [h for _, h in lines])}
    named_for = None  # how the domain that recognises it names a fiscal year
    for domain in domains:
        extra = domain.recognise(text)
        if extra is not None:
            found |= {k: v for k, v in extra.items() if v} | {"domain": domain.name}
            named_for = domain.fiscal_year
            break
    pages = sorted({c.page for c in chunks})[:BODY_PAGES]
    body = " ".join(c.text for c in chunks if c.page in pages)
    c = periods.covered(name, text, body, named_for)
    return Identity(
        title=str(found.get("title", "")),
        issuer=str(found.get("issuer", "")),
        kind=str(found.get("kind", "")),
        domain=str(found.get("domain", "")),
        fiscal_year=c.fiscal.year,
        fiscal_quarter=c.fiscal.quarter,
        calendar_year=c.calendar.year,
        calendar_quarter=c.calendar.quarter,
        end=c.end,
        period=periods.shown(c),
        aliases=tuple(str(a) for a in found.get("aliases", ()) or ()),  # type: ignore[union-attr]
    )


def covered(identity: Identity) -> periods.Covered:
    """The period an identity records, for ``periods.match``."""
    return periods.of_fields(
        identity.fiscal_year,
        identity.fiscal_quarter,
        identity.calendar_year,
        identity.calendar_quarter,
        identity.end,
    )


def words(name: str, identity: Identity) -> str:
    """Everything an identity says, as text for BM25: names, kind, period, file name words."""
    stem = name.rsplit(".", 1)[0]
    parts = [" ".join(re.findall(r"[^\W\d_]+|\d+", stem)), identity.title, identity.issuer]
    parts += [identity.kind, identity.period, *identity.aliases]
    return "\n".join(p for p in parts if p)


def in_context(chunk: Chunk, identity: Identity) -> str:
    """What is embedded for ``chunk`` in contextual mode: the document's title and the
    chunk's section heading, then its text (the stored text and boxes stay exact).

    Only for a document a domain recognised, whose title is read from what its cover
    says it is (a filing's issuer and form, a call's company and quarter). Any other
    document's title is its first prominent line, often not a title at all
    ("Contents", "Data Presentation"): before every passage it pulls them all towards
    one meaning (dense hit@5 on MMLongBench 0.895 -> 0.763), so those are embedded as
    they are."""
    if not identity.domain:
        return chunk.text
    head = [identity.title, chunk.section]
    head = [h for h in dict.fromkeys(head) if h and not chunk.text.startswith(h)]
    return "\n".join([*head, chunk.text])


def passages(chunks: Sequence[Chunk], identity: Identity | None) -> list[str]:
    """The texts embedded for ``chunks``: in the context of ``identity`` (``in_context``),
    or as stored when it is None."""
    return [c.text if identity is None else in_context(c, identity) for c in chunks]


def named_in(ask: Ask | str, identity: Identity | None) -> float:
    """How plainly ``ask`` names this document: the share of its issuer's words it
    uses ("Coca Cola" for "The Coca-Cola Company"), one more for a trading symbol or
    short name it gives, a half for the fiscal year it covers. 0 without an identity."""
    if identity is None:
        return 0.0
    ask = as_ask(ask)
    asked = {w.casefold() for w in _LETTERS.findall(ask.text)}
    issuer = {w.casefold() for w in _LETTERS.findall(identity.issuer)} - _LEGAL
    score = len(issuer & asked) / len(issuer) if issuer else 0.0
    score += any(a.casefold() in asked for a in identity.aliases if len(a) > 1)
    return score + 0.5 * (identity.fiscal_year in ask.years)


def most_named(ask: Ask | str, ranked: Sequence[tuple[str, Identity | None]]) -> str:
    """The id of the document ``ask`` names most plainly (``named_in``) among
    ``ranked`` (id, identity) pairs, best-ranked first; the first on a tie."""
    ask = as_ask(ask)
    return max(enumerate(ranked), key=lambda e: (named_in(ask, e[1][1]), -e[0]))[1][0]
