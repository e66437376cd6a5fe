"""Questions to suggest after a PDF is indexed, each one checked answerable first.

Candidates come from the document's own words: figures its text states
("Net income was £1.5m": what was the net income?), the labels of its table
rows (words followed by figures), its headings (the ``section`` each passage
was read under) and the terms it defines (“X” means…, X (“Y”), X is defined
as…). They are tried in turns (a figure, a row, a heading, a term, …)
and each is asked through the pipeline on that document alone; only
a question whose answer is grounded, keeps at least one verified citation, has
no unsupported sentence and says something the question does not (at least
``NEW_WORDS`` words of its own: "HUAWEI CO., LTD [1]" for a heading of that
name is an echo, not an answer) is offered, at most ``MAX_SUGGESTIONS``, after at
most ``MAX_TRIES`` attempts (each is a real question: an LLM, when
configured, is called). Nothing here knows a domain: the words come from the
PDF. Left out: ranking by interest, and languages whose headings and
definitions look nothing like these patterns (they get fewer suggestions,
never wrong ones).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Iterator, Sequence

from papertrail.types import Answer, Chunk

log = logging.getLogger(__name__)

MAX_SUGGESTIONS = 3
MAX_TRIES = 6  # questions asked through the pipeline per document, at most
MAX_WORDS = 8  # a heading, row label or term longer than this reads badly as a question
NEW_WORDS = 4  # words (or figures) an answer must add to its question to be worth offering

# headings every long document has, which make poor questions
_GENERIC = {
    "abstract",
    "acknowledgements",
    "acknowledgments",
    "appendix",
    "bibliography",
    "contents",
    "index",
    "introduction",
    "notes",
    "overview",
    "references",
    "summary",
    "table of contents",
}
_NUMBER = r"[(\-–]?[$€£¥]?\s?\d[\d,.]*%?\)?"
# a row label (a capitalised word, then up to six more) followed by two figures or more;
# passages are read with their lines joined, so a table row is found inside running text
_ROW = re.compile(
    rf"\b([A-Z][a-z]+(?:\s+(?:[a-z]+|[A-Z][a-z]+|&)){{0,6}}):?\s+{_NUMBER}(?:\s+{_NUMBER})+"
)
_MONTHS = {
    "january", "february", "march", "april", "may", "june", "july", "august",
    "september", "october", "november", "december",
}  # fmt: skip
# a figure stated in running text: "Net income was £1,577,000", "Revenue rose to $9 million"
_STATED = re.compile(
    r"\b([A-Z][a-z]+(?:\s+[a-z]+){0,3})\s+(was|were|is|are|rose|fell|grew|increased|"
    rf"decreased|reached|totalled|totaled|stood)\b(?:\s+(?:to|at|by))?\s+{_NUMBER}"
)
_TERM = [
    re.compile(r"[“\"]([A-Z][\w\-’' ]{1,40}?)[”\"]\s+(?:means|refers to|is defined as)\b"),
    re.compile(r"\(\s*(?:the\s+)?[“\"]([A-Z][\w\-’' ]{1,40}?)[”\"]\s*\)"),
    re.compile(r"\b([A-Z][\w\-]*(?:\s+[A-Z][\w\-]*){0,4})\s+(?:is|are)\s+defined\s+as\b"),
]


def headings(chunks: Sequence[Chunk], title: str = "") -> list[str]:
    """The document's headings, in reading order, each once; not its title (as read, or
    the heading its first passage sits under), nor lines in capitals (running heads)."""
    found = [_clean(c.section) for c in sorted(chunks, key=lambda c: c.index) if c.section]
    opening = [_clean(c.section) for c in chunks if c.index == 0 and c.page == 1]
    skip = {_clean(title).lower()} | {h.lower() for h in opening}
    return _unique(h for h in found if h.lower() not in skip and not h.isupper())


def row_labels(chunks: Iterable[Chunk]) -> list[str]:
    """Labels of table rows (a line of words followed by figures), each once."""
    found = []
    for c in chunks:
        for m in _ROW.finditer(" ".join(c.text.split())):
            label = _clean(m.group(1))
            if label.split()[-1].lower() not in _MONTHS:  # "December 31, 2023" is a date
                found.append(label)
    return _unique(found)


def stated_figures(chunks: Iterable[Chunk]) -> list[tuple[str, str]]:
    """(label, verb to ask with) of figures the text states, each once: "Costs were
    £5m" asks with "were", "Revenue rose to £9m" with "was"."""
    found: dict[str, str] = {}
    for c in chunks:
        for m in _STATED.finditer(" ".join(c.text.split())):
            label, verb = _clean(m.group(1)), m.group(2)
            if label.lower() not in {k.lower() for k in found} and label.split()[0] != "The":
                found[label] = verb if verb in ("was", "were", "is", "are") else "was"
    kept = _unique(found)
    return [(label, found[label]) for label in kept]


def defined_terms(chunks: Iterable[Chunk]) -> list[str]:
    """Terms the document defines, each once."""
    found = []
    for c in chunks:
        text = " ".join(c.text.split())
        for pattern in _TERM:
            found += [_clean(m.group(1)) for m in pattern.finditer(text)]
    return _unique(found)


def candidates(chunks: Sequence[Chunk], title: str = "") -> Iterator[str]:
    """Questions from figures stated in the text, table rows, headings and defined
    terms, taken in turns; a label the text states a figure for is asked once."""
    figures = stated_figures(chunks)
    stated = {f.lower() for f, _ in figures}
    asks = [
        [f"What {verb} the {_lower(f)}?" for f, verb in figures],
        [f"What is the {_lower(r)}?" for r in row_labels(chunks) if r.lower() not in stated],
        [f"What does the document say about {h}?" for h in headings(chunks, title)],
        [f"What does {t} mean?" for t in defined_terms(chunks)],
    ]
    seen = set()
    for turn in range(max((len(a) for a in asks), default=0)):
        for kind in asks:
            if turn < len(kind) and kind[turn].lower() not in seen:
                seen.add(kind[turn].lower())
                yield kind[turn]


def answerable(answer: Answer) -> bool:
    """Whether an answer is fit to be the reason a question is suggested."""
    return (
        answer.grounded
        and not answer.refusal
        and any(c.level == "verified" for c in answer.citations)  # not only "partly supported"
        and not answer.unsupported
        and len(_words(answer.text) - _words(answer.question)) >= NEW_WORDS
    )


def _words(text: str) -> set[str]:
    """Words of three letters or more, and figures (a date counts once), lower-cased."""
    text = re.sub(r"\[\d+\]", " ", text.lower())  # citation markers are not content
    return set(re.findall(r"[^\W\d_]{3,}|\d[\d,.:/\-]*\d|\d", text))


def suggest(pipeline, channel: str, doc_id: str, *, documents=None) -> list[str]:
    """Up to ``MAX_SUGGESTIONS`` questions about ``doc_id`` that get a verified answer."""
    chunks = pipeline.store.chunks(channel, [doc_id])
    chunks = sorted(chunks, key=lambda c: c.index)
    doc = pipeline.store.get_document(channel, doc_id)
    title = doc.identity.title if doc is not None and doc.identity is not None else ""
    offered: list[str] = []
    for tries, question in enumerate(candidates(chunks, title)):
        if tries >= MAX_TRIES or len(offered) >= MAX_SUGGESTIONS:
            break
        try:
            answer = pipeline.ask(
                channel, question, doc_ids=[doc_id], render=False, documents=documents
            )
        except Exception:  # a suggestion is a nicety: it never fails the drop
            log.exception("checking the suggestion %r failed", question)
            continue
        if answerable(answer):
            offered.append(question)
    return offered


def _clean(text: str) -> str:
    text = " ".join(text.split()).strip(" .:;,-–")
    text = re.sub(r"^(?:Table|Figure|Section|Chapter|Appendix)\s+[\dA-Z]+[.:]?\s+", "", text)
    text = re.sub(r"^(?:\d+(?:\.\d+)*\.?|[IVXLC]+\.|[A-Z]\.)\s+", "", text)  # "2.1 ", "1. "
    return text


def _lower(label: str) -> str:
    """A row label inside a sentence: "Net revenue" -> "net revenue", acronyms kept."""
    first = label.split()[0]
    if len(first) > 1 and first[1:].lower() != first[1:]:
        return label
    return label[0].lower() + label[1:]


def _unique(items: Iterable[str]) -> list[str]:
    out, seen = [], set()
    for item in items:
        words = item.split()
        key = item.lower()
        if (
            not item
            or key in seen
            or key in _GENERIC
            or not 1 <= len(words) <= MAX_WORDS
            or not any(ch.isalpha() for ch in item)
        ):
            continue
        seen.add(key)
        out.append(item)
    return out


def suggestions(pipeline, channel: str, docs, progress=None, library=None) -> tuple[str, ...]:
    """Up to ``MAX_SUGGESTIONS`` checked questions about ``docs``, the first ones first."""
    if not docs:
        return ()
    if progress:
        progress("Finding questions this document can answer…")
    found: list[str] = []
    for doc in docs:
        found += suggest(pipeline, channel, doc.doc_id, documents=library)
        if len(found) >= MAX_SUGGESTIONS:
            break
    return tuple(found[:MAX_SUGGESTIONS])
