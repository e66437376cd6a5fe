"""The seams of the pipeline: tiny Protocols, each with only the methods it is called by.

``Embedder``, ``Generator`` and ``ChatModel`` need one method each; ``Store``
those that ``PaperTrail`` and ``Retriever`` call. Real implementations live
next to their idea (``embed/``, ``answer/llm.py``, ``answer/extractive.py``,
``store/chroma.py``); tests pass
in small real fakes (``tests/fakes.py``) instead of monkeypatching. Opening,
cleaning up and closing a store are the concrete store's business, not the
seam's.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date
from typing import Protocol, runtime_checkable

import numpy as np

from papertrail.types import Ask, Chunk, Document, Draft, Hit, Metric


class Embedder(Protocol):
    """Turns texts into L2-normalised vectors, one row per text.

    ``name`` identifies the model, so vectors of different models never share
    a collection.
    """

    name: str

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


class Generator(Protocol):
    """Writes an answer to ``question`` citing ``hits`` as ``[1]``..``[len(hits)]``.

    The pipeline passes the question read once (``Ask``); a generator reads only
    ``ask.text`` or the fields it needs, never the text again.
    """

    def generate(self, question: Ask, hits: Sequence[Hit]) -> Draft: ...


class Answerer(Protocol):
    """One rule of the offline answerer: a ``Draft`` citing ``hits`` from 1, or None when
    the rule does not apply. ``name`` is what ``Draft.by``, the reply's footer and
    ``eval --without NAME`` call it."""

    name: str

    def answer(self, ask: Ask, hits: Sequence[Hit]) -> Draft | None: ...


class Store(Protocol):
    """Chunks and their vectors per channel, and the documents they belong to.

    Ingest runs ``begin`` -> ``add_chunks``* -> ``commit``; until ``commit`` a
    document is invisible to ``documents``, ``chunks`` and ``query``.
    """

    def collection_name(self, channel: str) -> str:
        """A stable name for ``channel``'s chunks (the retriever keys its cache on it)."""
        ...

    def begin(self, doc: Document) -> None: ...

    def add_chunks(self, channel: str, chunks: Sequence[Chunk], vectors: np.ndarray) -> None: ...

    def commit(self, doc: Document) -> Document: ...

    def get_document(self, channel: str, doc_id: str) -> Document | None: ...

    def documents(self, channel: str) -> list[Document]:
        """The ready documents of ``channel``, oldest first."""
        ...

    def delete(self, channel: str, doc_id: str) -> bool:
        """Remove ``doc_id`` from ``channel`` under this store's index key."""
        ...

    def forget(self, channel: str, doc_id: str) -> bool:
        """``delete`` under every index key (other models, chunkings): gone for good."""
        ...

    def left_behind(self, channel: str | None = None) -> list[Document]:
        """Documents ready under another index key but not this one, oldest first."""
        ...

    def chunks(self, channel: str, doc_ids: Iterable[str] | None = None) -> list[Chunk]: ...

    def query(
        self,
        channel: str,
        vector: np.ndarray,
        k: int,
        doc_ids: Iterable[str] | None = None,
        *,
        documents: Sequence[Document] | None = None,
    ) -> list[tuple[Chunk, float]]:
        """The ``k`` nearest chunks with cosine similarity, best first.

        ``documents``: the channel's ready documents as the caller just read them
        (one registry read per question); None reads them.
        """
        ...

    def query_each(
        self,
        channel: str,
        vector: np.ndarray,
        k: int,
        doc_ids: Sequence[str],
        *,
        documents: Sequence[Document] | None = None,
    ) -> dict[str, list[tuple[Chunk, float]]]:
        """Per document of ``doc_ids``: ``query`` with ``doc_ids=[that document]``."""
        ...

    def chunk_vectors(self, channel: str, chunk_ids: Sequence[str]) -> dict[str, np.ndarray]: ...

    def vectors_elsewhere(self, channel: str, doc_id: str) -> dict[str, np.ndarray]:
        """Chunk text -> vector of ``doc_id`` as stored ready in another channel, or {}."""
        ...


class Domain(Protocol):
    """What one kind of document (financial filings, say) adds to generic retrieval.

    The pipeline asks each known domain to ``recognise`` a document from its
    opening text when it is indexed; a document no domain recognises gets none
    of their rules. The retriever applies a domain's question rules only in a
    channel holding documents it recognised, and its section rules only to
    those documents; the pipeline adds the statement rows a ``metric`` needs only
    in such a channel.
    ``papertrail.domains.finance`` is the one shipped.
    """

    name: str
    # words its questions use for an amount ("revenue"): a sentence with a figure answers them
    amounts: frozenset[str]
    # contrasting words its documents use, each group written as the verifier's own
    # ("basic | diluted"): a claim with one where the excerpt has the other, beside the same
    # word, is not stated by it
    contrasts: tuple[str, ...]

    def recognise(self, opening: str) -> dict[str, object] | None:
        """Identity fields (``kind``, ``title``, ``issuer``, ``aliases``) when ``opening``
        is the start of a document of this domain, else None."""
        ...

    def fiscal_year(self, end: date) -> int:
        """The year a fiscal year ending on ``end`` is named for (its calendar's rule)."""
        ...

    def clean(self, question: str) -> str:
        """``question`` without answer-format boilerplate ("Round your answer to ...")."""
        ...

    def expand(self, question: str) -> str:
        """Words documents of this domain use for what ``question`` names (for BM25)."""
        ...

    def sections_named(self, question: str) -> set[str]:
        """The kinds of section (e.g. a named financial statement) ``question`` needs."""
        ...

    def section_rows(self, chunks: Sequence[Chunk]) -> dict[str, list[int]]:
        """Per kind of section, the positions in ``chunks`` of the chunks on its pages."""
        ...

    def metric(self, ask: Ask) -> Metric | None:
        """The figure ``ask`` asks to work out from table rows (a ratio, a growth, a line
        item in a unit, a ratio the question defines itself), with the rows it needs, or
        None."""
        ...


@runtime_checkable
class ChatModel(Protocol):
    """A language model answering chat messages with text (an LLM generator offers it)."""

    def complete(self, messages: list[dict[str, str]]) -> str: ...
