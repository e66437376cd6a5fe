"""BM25 over one channel's chunks, pages and documents, built once per set of documents.

Three bm25s indexes share one tokenisation (``words.terms``):

* chunks: each chunk's text and section heading (``lexical_text``);
* pages: every chunk of a page together, so a table's title, column headers
  and rows count as one passage even when chunking cut them apart;
* documents: what a document says about itself (``identity_text``): its file
  name cut into words and its opening pages (title, issuer, period).

``build`` reuses the tokens of documents it has seen, so adding one document
to a large channel tokenises that document only; the bm25s indexes are then
rebuilt over the cached tokens (vectorised, seconds at 100k chunks), never per
question. Scoring a question is sparse-matrix arithmetic plus an
``argpartition``: no Python loop over the collection. Fusion with the dense
ranking lives in ``fusion``; routing between documents in ``routing``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import bm25s
import numpy as np

from papertrail import finance_terms, words
from papertrail.types import Chunk

IDENTITY_CHARS = 3000  # opening characters of a document read as its self-description
IDENTITY_PAGES = 2  # ... taken from at most this many first pages
_NAME_PART = re.compile(r"[^\W\d_]+|\d+")


def lexical_text(chunk: Chunk) -> str:
    """What BM25 indexes for ``chunk``: its text and section heading.

    Not the file name: on FinanceBench it repeated the year in every chunk of a
    filing and cost 6 of 52 questions at k=5 (documents are told apart by
    ``identity_text`` instead).
    """
    return f"{chunk.text}\n{chunk.section}" if chunk.section else chunk.text


def identity_text(name: str, chunks: list[Chunk]) -> str:
    """A document's self-description: file name words and its opening pages' text.

    "MGMRESORTS_2023Q2_10Q.pdf" reads "MGMRESORTS 2023 Q 2 10 Q pdf"; the cover
    page of a filing names the issuer, the form and the period.
    """
    stem = name.rsplit(".", 1)[0]
    parts = [" ".join(_NAME_PART.findall(stem))]
    pages = sorted({c.page for c in chunks})[:IDENTITY_PAGES]
    size = 0
    for c in chunks:
        if c.page in pages and size < IDENTITY_CHARS:
            parts.append(c.text)
            size += len(c.text)
    return "\n".join(parts)


@dataclass(frozen=True)
class _Doc:
    """One document's cached tokens: chunks, their terms, and its identity terms."""

    name: str
    chunks: list[Chunk]
    terms: list[list[str]]
    identity: list[str]


@dataclass(frozen=True)
class LexicalIndex:
    """BM25 over one channel's ready chunks; ``key`` says which documents it covers."""

    key: tuple[tuple[str, float], ...]  # (doc_id, created) of each ready document
    docs: dict[tuple[str, float], _Doc]  # reused on rebuild
    chunks: list[Chunk]
    row_of: dict[str, int]  # chunk id -> row
    doc_of_row: np.ndarray  # row -> position of its document in ``key``
    page_of_row: np.ndarray  # row -> page number in ``pages``
    page_rows: list[np.ndarray]  # page number -> its rows
    doc_of_page: np.ndarray  # page number -> position of its document in ``key``
    bm25: bm25s.BM25 | None
    page_bm25: bm25s.BM25 | None
    doc_bm25: bm25s.BM25 | None
    statements: dict[tuple[str, str], list[int]]  # (kind, doc_id) -> rows of its statement pages

    def chunk_scores(self, terms: list[str]) -> np.ndarray:
        """BM25 score of every chunk (row order); zeros when no term is known."""
        return _scores(self.bm25, terms, len(self.chunks))

    def page_scores(self, terms: list[str]) -> np.ndarray:
        """BM25 score of every page (``page_rows`` order)."""
        return _scores(self.page_bm25, terms, len(self.page_rows))

    def doc_scores(self, terms: list[str]) -> np.ndarray:
        """BM25 score of every document's identity text (``key`` order)."""
        return _scores(self.doc_bm25, terms, len(self.key))


def build(fetch, names: dict[str, str], key, old: LexicalIndex | None) -> LexicalIndex:
    """The index over the documents in ``key``, tokenising only those ``old`` lacks.

    ``fetch(doc_id)`` returns a document's chunks in order; ``names`` maps
    doc_id -> file name.
    """
    docs = {}
    for doc_key in key:
        if old is not None and doc_key in old.docs:
            docs[doc_key] = old.docs[doc_key]
            continue
        part = fetch(doc_key[0])
        name = names.get(doc_key[0], "")
        docs[doc_key] = _Doc(
            name,
            part,
            [words.terms(lexical_text(c)) for c in part],
            words.terms(identity_text(name, part)),
        )
    chunks = [c for k in key for c in docs[k].chunks]
    corpus = [t for k in key for t in docs[k].terms]
    doc_of_row = np.array([pos for pos, k in enumerate(key) for _ in docs[k].chunks], np.int32)
    page_of_row = np.zeros(len(chunks), np.int32)
    page_rows: list[np.ndarray] = []
    page_terms: list[list[str]] = []
    seen: dict[tuple[int, int], int] = {}
    for row, c in enumerate(chunks):
        page = seen.setdefault((int(doc_of_row[row]), c.page), len(seen))
        if page == len(page_terms):
            page_terms.append([])
            page_rows.append([])
        page_terms[page].extend(corpus[row])
        page_rows[page].append(row)
        page_of_row[row] = page
    return LexicalIndex(
        key=key,
        docs=docs,
        chunks=chunks,
        row_of={c.id: row for row, c in enumerate(chunks)},
        doc_of_row=doc_of_row,
        page_of_row=page_of_row,
        page_rows=[np.asarray(r, np.int32) for r in page_rows],
        doc_of_page=np.array([doc_of_row[r[0]] for r in page_rows], np.int32),
        bm25=_bm25(corpus),
        page_bm25=_bm25(page_terms),
        doc_bm25=_bm25([docs[k].identity for k in key]),
        statements=_by_document(finance_terms.statement_rows(chunks), chunks),
    )


def top_rows(scores: np.ndarray, n: int) -> np.ndarray:
    """Rows of the ``n`` highest positive ``scores``, best first (ties: lower row first)."""
    n = min(n, len(scores))
    if n <= 0:
        return np.zeros(0, np.int64)
    part = np.argpartition(-scores, n - 1)[:n] if n < len(scores) else np.arange(len(scores))
    part = part[np.lexsort((part, -scores[part]))]
    return part[scores[part] > 0]


def _by_document(rows: dict[str, list[int]], chunks: list[Chunk]) -> dict:
    """Statement rows grouped by (kind, doc_id), so a question reads only routed documents'."""
    out: dict[tuple[str, str], list[int]] = {}
    for kind, kind_rows in rows.items():
        for row in kind_rows:
            out.setdefault((kind, chunks[row].doc_id), []).append(row)
    return out


def _bm25(corpus: list[list[str]]) -> bm25s.BM25 | None:
    if not any(corpus):
        return None
    index = bm25s.BM25()
    index.index(corpus, show_progress=False)
    return index


def _scores(index: bm25s.BM25 | None, terms: list[str], size: int) -> np.ndarray:
    if index is None:
        return np.zeros(size, np.float32)
    known = [t for t in dict.fromkeys(terms) if t in index.vocab_dict]
    if not known:
        return np.zeros(size, np.float32)
    return np.asarray(index.get_scores(known), np.float32)
