"""A few documents' chunks and vectors held in memory, for searches within them.

Chroma answers a search limited to one document by reading its metadata index
first, which costs many times the search itself (about 25 ms against 2 ms on a
33-filing channel), and a channel's second retrieval stage searches within
each leading document. ``DocVectors.search`` ranks those documents' chunks by
an exact dot product with the question's vector instead: the same cosine
similarity Chroma's index approximates. Each document is read from Chroma once
(``load``) and kept, least recently used dropped first, up to ``max_rows``
vectors in all. It leaves out which documents are ready (the caller passes
only those) and any search over a whole channel (Chroma's index does that).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence

import numpy as np

from papertrail.store.records import chunk
from papertrail.types import Chunk

MAX_ROWS = 60_000  # vectors kept: ~90 MB of float32 at 384 dimensions, plus their text
Loaded = tuple[list[Chunk], np.ndarray]  # a document's chunks and their unit vectors, row i


class DocVectors:
    """Exact nearest chunks within a few documents, their vectors cached. Thread-safe."""

    def __init__(self, max_rows: int = MAX_ROWS) -> None:
        self.max_rows = max_rows
        self._docs: OrderedDict[tuple[str, str], Loaded] = OrderedDict()
        self._rows = 0
        self._lock = threading.Lock()

    def search(
        self,
        channel: str,
        doc_ids: Sequence[str],
        vector: np.ndarray,
        k: int,
        load: Callable[[str], tuple[list[Chunk], np.ndarray]],
    ) -> list[tuple[Chunk, float]]:
        """The ``k`` chunks of ``doc_ids`` most similar to ``vector`` (cosine), best first.

        ``load(doc_id)``: that document's chunks and their stored vectors (row i: chunk i).
        """
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        query = query / max(float(np.linalg.norm(query)), 1e-12)
        found: list[tuple[Chunk, float]] = []
        for doc_id in doc_ids:
            chunks, unit = self._get(channel, doc_id, load)
            if not chunks:
                continue
            scores = unit @ query
            top = np.argsort(-scores, kind="stable")[:k]
            found.extend((chunks[i], float(scores[i])) for i in top)
        found.sort(key=lambda pair: -pair[1])
        return found[:k]

    def drop(self, channel: str, doc_id: str) -> None:
        """Forget ``doc_id``'s rows in ``channel`` (it is being re-indexed or removed)."""
        with self._lock:
            gone = self._docs.pop((channel, doc_id), None)
            if gone is not None:
                self._rows -= len(gone[0])

    def _get(self, channel: str, doc_id: str, load) -> Loaded:
        key = (channel, doc_id)
        with self._lock:
            if key in self._docs:
                self._docs.move_to_end(key)
                return self._docs[key]
        chunks, vectors = load(doc_id)  # outside the lock: a read may take a while
        unit = np.asarray(vectors, dtype=np.float32).reshape(len(chunks), -1)
        unit = unit / np.maximum(np.linalg.norm(unit, axis=1, keepdims=True), 1e-12)
        loaded = (list(chunks), unit)
        with self._lock:
            if key not in self._docs and len(chunks) <= self.max_rows:
                self._docs[key] = loaded
                self._rows += len(chunks)
                while self._rows > self.max_rows:
                    _, (old, _) = self._docs.popitem(last=False)
                    self._rows -= len(old)
        return loaded


def read_rows(collection, doc_id: str) -> Loaded:
    """``doc_id``'s chunks and stored vectors, read from its Chroma ``collection``."""
    got = collection.get(where={"doc_id": doc_id}, include=["documents", "metadatas", "embeddings"])
    texts, metas = got["documents"], got["metadatas"]
    return [chunk(t, m) for t, m in zip(texts, metas, strict=True)], np.asarray(got["embeddings"])
