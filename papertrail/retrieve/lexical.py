"""BM25 over one channel's chunks, pages and documents, built once per set of documents.

Three BM25 indexes (``bm25``) share one tokenisation (``words.terms``) and one
vocabulary:

* chunks: each chunk's text and section heading (``lexical_text``);
* pages: every chunk of a page together, so a table's title, column headers
  and rows count as one passage even when chunking cut them apart;
* documents: what a document says about itself (``identity_text``): its
  identity (title, period and what its domain adds: ``text.identity``), its file
  name cut into words and its opening pages; scored by BM25 and read for
  which of a question's terms it holds (``LexicalIndex.doc_shares``).

``build`` reuses the term counts of documents it has seen, so adding one
document to a large channel tokenises and counts that document only; the
weights are then recomputed over the stacked counts with numpy (about a second
at 100k chunks), never per question. Scoring a question is sparse-matrix arithmetic plus an
``argpartition``: no Python loop over the collection. Fusion with the dense
ranking lives in ``fusion``; routing between documents in ``routing``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy import sparse

from papertrail.protocols import Domain
from papertrail.retrieve.bm25 import BM25, Vocabulary, count, stack
from papertrail.text import identity as identities
from papertrail.text import labels, periods, words
from papertrail.types import Chunk, Document, Identity


def lexical_text(chunk: Chunk) -> str:
    """What BM25 indexes for ``chunk``: its text and section heading.

    Not the file name: a name carrying a year repeats it in every chunk of the
    document and cost 6 of 52 development questions at k=5 (documents are told apart by
    ``identity_text`` instead).
    """
    return f"{chunk.text}\n{chunk.section}" if chunk.section else chunk.text


def identity_text(name: str, identity: Identity, chunks: list[Chunk]) -> str:
    """A document's self-description: its identity's words and its opening pages' text.

    "ACME_2023Q2_report.pdf" reads "ACME 2023 Q 2 report"; a cover page names
    who wrote the document, what it is and the period it covers.
    """
    return identities.words(name, identity) + "\n" + identities.opening(chunks)


@dataclass(frozen=True)
class _Doc:
    """One document's cached parts: chunks, term counts of chunks, pages and identity."""

    chunks: list[Chunk]
    counts: sparse.csr_matrix  # chunk x term
    page_of_row: np.ndarray  # chunk -> page number within this document
    page_counts: sparse.csr_matrix  # page x term: every chunk of a page summed
    identity_counts: sparse.csr_matrix  # one row: the identity text's terms
    sections: dict[str, list[int]]  # section kind or label (``labelled``) -> rows within it
    about: Identity  # stored at indexing, or read from the chunks for older indexes


@dataclass(frozen=True)
class LexicalIndex:
    """BM25 over one channel's ready chunks; ``key`` says which documents it covers."""

    key: tuple[tuple[str, float], ...]  # (doc_id, created) of each ready document
    docs: dict[tuple[str, float], _Doc]  # reused on rebuild
    vocab: Vocabulary  # shared with the next build of this channel
    chunks: list[Chunk]
    row_start: dict[str, int]  # doc_id -> row of its first chunk
    doc_of_row: np.ndarray  # row -> position of its document in ``key``
    page_of_row: np.ndarray  # row -> page number (channel-wide)
    doc_of_page: np.ndarray  # page number -> position of its document in ``key``
    doc_page_start: np.ndarray  # position in ``key`` -> its first page number
    bm25: BM25
    page_bm25: BM25
    doc_bm25: BM25
    # (kind, doc_id) -> rows of its pages that a domain's section kind titles or that
    # print a table's or figure's label ("table II": ``text.labels``)
    sections: dict[tuple[str, str], list[int]]
    identities: list[Identity]  # ``key`` order
    # doc_id -> the index a channel holding only that document would build (``part``)
    parts: dict[str, LexicalIndex] = field(default_factory=dict, compare=False, repr=False)

    @property
    def covered(self) -> list[periods.Covered]:
        """The period each document covers (``key`` order)."""
        return [identities.covered(i) for i in self.identities]

    def chunk_scores(self, terms: list[str]) -> np.ndarray:
        """BM25 score of every chunk (row order); zeros when no term is known."""
        return self.bm25.scores(terms)

    def page_scores(self, terms: list[str]) -> np.ndarray:
        """BM25 score of every page (channel-wide page numbers)."""
        return self.page_bm25.scores(terms)

    def doc_scores(self, terms: list[str]) -> np.ndarray:
        """BM25 score of every document's identity text (``key`` order)."""
        return self.doc_bm25.scores(terms)

    def doc_shares(self, terms: list[str]) -> np.ndarray:
        """Per document (``key`` order), how much of what the question says to tell the
        documents apart its identity text matches, in [0, 1].

        A term's weight is its rarity among the documents as wholes (the idf of how many
        hold it on any page or in their identity text), not among identity texts alone:
        a word every transcript uses says nothing about which one is asked, even when
        only one transcript's opening pages happen to hold it. A document's share is the
        weight of the question's terms its identity text holds over the weight of those
        some document holds anywhere: not scaled to the best document, so a match on an
        incidental word stays small when no document is named, and a question naming
        what only one document is called gives it most of its weight.
        """
        n = len(self.key)
        out = np.zeros(n, np.float64)
        named, pages = self.doc_bm25.matrix, self.page_bm25.matrix
        total = 0.0
        for term in sorted(set(terms)):
            col = self.vocab.ids.get(term, named.shape[1])
            if col >= named.shape[1]:
                continue
            own = slice(named.indptr[col], named.indptr[col + 1])
            on_pages = pages.indices[pages.indptr[col] : pages.indptr[col + 1]]
            holders = len(set(self.doc_of_page[on_pages].tolist()) | set(named.indices[own]))
            if not holders:
                continue
            weight = float(np.log1p((n - holders + 0.5) / (holders + 0.5)))
            total += weight
            out[named.indices[own]] += weight
        return out / total if total > 0 else out

    def row(self, chunk: Chunk) -> int | None:
        """The row of ``chunk``, or None if this index does not hold it."""
        start = self.row_start.get(chunk.doc_id)
        if start is None:
            return None
        row = start + chunk.index
        ok = row < len(self.chunks) and self.chunks[row].id == chunk.id
        return row if ok else None

    def rows_of(self, doc_ids: set[str]) -> np.ndarray | None:
        """Rows of the documents ``doc_ids``; None when that is every row."""
        return self._spans(doc_ids, rows=True)

    def pages_of(self, doc_ids: set[str]) -> np.ndarray | None:
        """Page numbers of the documents ``doc_ids``; None when that is every page."""
        return self._spans(doc_ids, rows=False)

    def _spans(self, doc_ids: set[str], *, rows: bool) -> np.ndarray | None:
        spans = []
        for pos, doc_key in enumerate(self.key):
            if doc_key[0] in doc_ids:
                d = self.docs[doc_key]
                if rows:
                    start, size = self.row_start[doc_key[0]], len(d.chunks)
                else:
                    start, size = int(self.doc_page_start[pos]), d.page_counts.shape[0]
                spans.append(np.arange(start, start + size))
        if len(spans) == len(self.key):
            return None
        return np.concatenate(spans) if spans else np.zeros(0, np.int64)

    def part(self, doc_id: str) -> LexicalIndex:
        """The index of ``doc_id`` alone: its own term weights, as in a channel holding
        only it (no tokenising: its cached counts are reused); built once."""
        found = self.parts.get(doc_id)
        if found is None:
            key = tuple(k for k in self.key if k[0] == doc_id)
            found = build(lambda _: [], {}, key, self)
            self.parts[doc_id] = found
        return found

    def page_rows(self, page: int) -> np.ndarray:
        """The rows of a page (channel-wide page number)."""
        return np.flatnonzero(self.page_of_row == page)


def build(
    fetch,
    documents: dict[str, Document],
    key,
    old: LexicalIndex | None,
    domains: Sequence[Domain] = (),
) -> LexicalIndex:
    """The index over the documents in ``key``, tokenising only those ``old`` lacks.

    ``fetch(doc_id)`` returns a document's chunks in order; ``documents`` maps
    doc_id -> its record; ``domains`` recognise documents indexed before
    identities were stored and give section rules to their own documents.
    Everything per document is cached, so a rebuild is concatenation and
    weighting with numpy.
    """
    vocab = old.vocab if old is not None else Vocabulary()
    docs = {}
    for doc_key in key:
        if old is not None and doc_key in old.docs:
            docs[doc_key] = old.docs[doc_key]
        else:
            doc = documents.get(doc_key[0])
            docs[doc_key] = _document(fetch(doc_key[0]), doc, vocab, domains)
    width = len(vocab.ids)
    parts = [docs[k] for k in key]
    sizes = np.array([len(d.chunks) for d in parts], np.int64)
    npages = np.array([d.page_counts.shape[0] for d in parts], np.int64)
    row_starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    page_starts = np.concatenate([[0], np.cumsum(npages)[:-1]]).astype(np.int64)
    page_of_row = [d.page_of_row + start for d, start in zip(parts, page_starts, strict=True)]
    sections = {
        (kind, doc_id): [r + int(start) for r in rows]
        for (doc_id, _), d, start in zip(key, parts, row_starts, strict=True)
        for kind, rows in d.sections.items()
    }
    return LexicalIndex(
        key=key,
        docs=docs,
        vocab=vocab,
        chunks=[c for d in parts for c in d.chunks],
        row_start={doc_id: int(s) for (doc_id, _), s in zip(key, row_starts, strict=True)},
        doc_of_row=np.repeat(np.arange(len(key), dtype=np.int32), sizes),
        page_of_row=np.concatenate(page_of_row) if parts else np.zeros(0, np.int32),
        doc_of_page=np.repeat(np.arange(len(key), dtype=np.int32), npages),
        doc_page_start=page_starts,
        bm25=BM25(stack([d.counts for d in parts], width), vocab),
        page_bm25=BM25(stack([d.page_counts for d in parts], width), vocab),
        doc_bm25=BM25(stack([d.identity_counts for d in parts], width), vocab),
        sections=sections,
        identities=[d.about for d in parts],
    )


def _document(
    chunks: list[Chunk], doc: Document | None, vocab: Vocabulary, domains: Sequence[Domain]
) -> _Doc:
    """Tokenise and count one document (the only per-document Python work)."""
    name = doc.name if doc is not None else ""
    found = doc.identity if doc is not None else None
    if found is None:  # indexed before identities were stored
        found = identities.identify(name, chunks, domains)
    domain = next((d for d in domains if d.name == found.domain), None)
    counts = count([words.terms(lexical_text(c)) for c in chunks], vocab)
    numbers: dict[int, int] = {}
    page_of_row = np.array([numbers.setdefault(c.page, len(numbers)) for c in chunks], np.int32)
    # page counts = (pages x chunks indicator) @ chunk counts
    where = (page_of_row, np.arange(len(chunks)))
    ones = np.ones(len(chunks), np.float32)
    member = sparse.csr_matrix((ones, where), (len(numbers), len(chunks)))
    identity = count([words.terms(identity_text(name, found, chunks))], vocab)
    sections = domain.section_rows(chunks) if domain is not None else {}
    return _Doc(
        chunks,
        counts,
        page_of_row,
        (member @ counts).tocsr(),
        identity,
        {**labelled(chunks, page_of_row), **sections},
        found,
    )


def labelled(chunks: list[Chunk], page_of_row: np.ndarray) -> dict[str, list[int]]:
    """Label ("table II") -> the rows of every page of one document that prints it."""
    pages: dict[str, set[int]] = {}
    for row, chunk in enumerate(chunks):
        for label in labels.named(chunk.text):
            pages.setdefault(label, set()).add(int(page_of_row[row]))
    return {
        label: np.flatnonzero(np.isin(page_of_row, sorted(held))).tolist()
        for label, held in pages.items()
    }


def top_rows(scores: np.ndarray, n: int) -> np.ndarray:
    """Rows of the ``n`` highest positive ``scores``, best first (ties: lower row first)."""
    n = min(n, len(scores))
    if n <= 0:
        return np.zeros(0, np.int64)
    part = np.argpartition(-scores, n - 1)[:n] if n < len(scores) else np.arange(len(scores))
    part = part[np.lexsort((part, -scores[part]))]
    return part[scores[part] > 0]
