"""Dense searches of a channel's chunks: over the whole channel, or within documents.

A search of documents whose vectors are all held in memory (``doc_vectors``: a
channel's BM25 index build reads every chunk's vector) is ranked exactly there,
over the whole channel too: Chroma's index is approximate, and two builds of the
same channel miss different nearest chunks. Otherwise a search of the whole
channel is Chroma's index (``OVERFETCH`` more results, so chunks of documents
not ready can be dropped); it asks only for ids and distances and takes the
chunks held in memory, as reading every result's text and metadata cost most of
the search. A search within at most ``FEW_DOCS`` documents is ranked exactly in
memory, the documents not held read for next time; within more, Chroma's
filtered search. ``query_each`` runs the second retrieval stage's searches,
each leading document on its own, at once. ``ChromaStore`` has these methods;
they need its ``documents``, ``_chunks_of`` and ``_near``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from papertrail.store.doc_vectors import read_vectors
from papertrail.store.records import rows
from papertrail.types import Chunk, Document

OVERFETCH = 20  # extra results of an unfiltered search, to make up for hidden chunks
FEW_DOCS = 4  # searches within this many documents are ranked in memory (``doc_vectors``)


class Searches:
    """``query`` and ``query_each`` of ``ChromaStore``."""

    def query(
        self,
        channel: str,
        vector: np.ndarray,
        k: int,
        doc_ids: Iterable[str] | None = None,
        *,
        documents: Sequence[Document] | None = None,
    ) -> list[tuple[Chunk, float]]:
        """The ``k`` nearest chunks of ready documents, with cosine similarity, best first
        (``documents``: the channel's ready documents if the caller has read them)."""
        every = [d.doc_id for d in (self.documents(channel) if documents is None else documents)]
        wanted = None if doc_ids is None else set(doc_ids)
        ready = every if wanted is None else [d for d in every if d in wanted]
        if not ready or k <= 0:
            return []
        col = self._chunks_of(channel)
        query = np.asarray(vector, dtype=np.float32).reshape(1, -1)
        include = ["documents", "metadatas", "distances"]
        if not self._near.missing(channel, ready):
            # every ready document held (a channel's BM25 index reads them all): exact, where
            # Chroma's approximate index can miss the nearest chunks, and differently in each
            # build of the same channel
            return self._near.search(channel, ready, query, k, lambda ids: read_vectors(col, ids))
        if len(ready) == len(every):
            # A filter costs ~15x the search (55 vs 4 ms on 6k chunks): search all, drop
            # chunks of documents not ready, fall back to the filter if too few remain.
            n = int(k) + OVERFETCH
            # ids and distances only (the text and metadata of 70 results cost ~10 ms of a
            # ~12 ms search on 25k chunks): the chunks are those held in memory
            got = col.query(query_embeddings=query, n_results=n, include=["distances"])
            found = self._near.found(col, channel, got)
            visible = set(ready)
            keep = [(c, s) for c, s in found if c.doc_id in visible]
            if len(keep) >= k or len(found) < n:
                return keep[:k]
        elif len(ready) <= FEW_DOCS:  # ranked in memory, exactly, where it can be
            return self._near.query(col, channel, ready, query, k)
        where = {"doc_id": {"$in": ready}}
        return rows(col.query(query_embeddings=query, n_results=k, where=where, include=include))

    def query_each(
        self,
        channel: str,
        vector: np.ndarray,
        k: int,
        doc_ids: Sequence[str],
        *,
        documents: Sequence[Document] | None = None,
    ) -> dict[str, list[tuple[Chunk, float]]]:
        """Per document of ``doc_ids``: ``query`` within it alone, the same results; those
        held in memory (``doc_vectors``) cost one read of their stored vectors in all."""
        every = [d.doc_id for d in (self.documents(channel) if documents is None else documents)]
        out: dict[str, list[tuple[Chunk, float]]] = {d: [] for d in doc_ids}
        ready = [d for d in out if d in set(every)]
        if len(every) == 1 or not ready or k <= 0:  # one document: the whole-channel search
            return out | {
                d: self.query(channel, vector, k, [d], documents=documents) for d in ready
            }
        query = np.asarray(vector, dtype=np.float32).reshape(1, -1)
        return out | self._near.query_each(self._chunks_of(channel), channel, ready, query, k)
