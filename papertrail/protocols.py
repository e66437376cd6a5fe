"""The seams of the pipeline: tiny Protocols, each with only the methods it is called by.

``Embedder``, ``Generator`` and ``ChatModel`` need one method each; ``Store``
the ten that ``PaperTrail`` and ``Retriever`` call. Real implementations live
next to their idea (``embed/``, ``answer/llm.py``, ``answer/extractive.py``,
``store/chroma.py``); tests pass
in small real fakes (``tests/fakes.py``) instead of monkeypatching. Opening,
cleaning up and closing a store are the concrete store's business, not the
seam's.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from papertrail.types import Chunk, Document, Draft, Hit


class Embedder(Protocol):
    """Turns texts into L2-normalised vectors, one row per text.

    ``name`` identifies the model, so vectors of different models never share
    a collection.
    """

    name: str

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


class Generator(Protocol):
    """Writes an answer to ``question`` citing ``hits`` as ``[1]``..``[len(hits)]``."""

    def generate(self, question: str, hits: Sequence[Hit]) -> Draft: ...


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

    def delete(self, channel: str, doc_id: str) -> bool: ...

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

    def chunk_vectors(self, channel: str, chunk_ids: Sequence[str]) -> dict[str, np.ndarray]: ...

    def vectors_elsewhere(self, channel: str, doc_id: str) -> dict[str, np.ndarray]:
        """Chunk text -> vector of ``doc_id`` as stored ready in another channel, or {}."""
        ...


@runtime_checkable
class ChatModel(Protocol):
    """A language model answering chat messages with text (an LLM generator offers it)."""

    def complete(self, messages: list[dict[str, str]]) -> str: ...
