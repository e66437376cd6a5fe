"""Caches in front of an Embedder: on disk for evaluation, in memory for questions.

``CachingEmbedder`` keeps vectors in SQLite by (model, text): evaluation and
benchmarks re-index the same texts under several configurations (one channel
per document, one for a whole folder, other chunk sizes), and every run after
the first is cheap. The bots do not use it (they deduplicate whole PDFs by
hash). ``MemoEmbedder`` is the bots' cache: ``PaperTrail.from_settings`` wraps
the model in it so the sentences a question's answerer and verifier embed are
embedded once. ``close()`` closes the SQLite file.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from cachetools import LRUCache

from papertrail.protocols import Embedder


class CachingEmbedder:
    """Wraps ``inner``; vectors are stored in SQLite keyed by sha1(model + text)."""

    def __init__(self, inner: Embedder, path: Path) -> None:
        self.inner = inner
        self.name = inner.name
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path), check_same_thread=False)
        self._db.execute("CREATE TABLE IF NOT EXISTS vec (key TEXT PRIMARY KEY, v BLOB)")
        self._lock = threading.Lock()
        self.misses = 0  # texts actually embedded by the inner model

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _key(self, text: str) -> str:
        return hashlib.sha1(f"{self.name}\0{text}".encode()).hexdigest()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        keys = [self._key(t) for t in texts]
        found: dict[str, np.ndarray] = {}
        with self._lock:
            for i in range(0, len(keys), 500):  # SQLite's variable limit
                part = keys[i : i + 500]
                marks = ",".join("?" * len(part))
                for key, blob in self._db.execute(
                    f"SELECT key, v FROM vec WHERE key IN ({marks})", part
                ):
                    found[key] = np.frombuffer(blob, dtype=np.float32)
        todo = [i for i, k in enumerate(keys) if k not in found]
        if todo:
            vectors = np.asarray(self.inner.embed([texts[i] for i in todo]), dtype=np.float32)
            self.misses += len(todo)
            with self._lock:
                self._db.executemany(
                    "INSERT OR REPLACE INTO vec VALUES (?, ?)",
                    [(keys[i], vectors[j].tobytes()) for j, i in enumerate(todo)],
                )
                self._db.commit()
            for j, i in enumerate(todo):
                found[keys[i]] = vectors[j]
        if not keys:
            return np.zeros((0, 0), dtype=np.float32)
        return np.stack([found[k] for k in keys])


class MemoEmbedder:
    """An in-memory LRU of short texts' vectors, for answering questions.

    The extractive answerer and the verifier embed the same sentences of the
    same retrieved chunks, within one question and across questions on one
    document; this keeps them. Long texts (whole chunks at indexing time) pass
    straight through, so indexing never floods the cache.
    """

    def __init__(self, inner: Embedder, *, max_items: int = 50_000, max_chars: int = 400):
        self.inner = inner
        self.name = inner.name
        self.max_items = max_items  # 50k x 384 float32 = about 75 MB at most
        self.max_chars = max_chars
        self._memo: LRUCache[str, np.ndarray] = LRUCache(max_items)  # not thread-safe: lock
        self._lock = threading.Lock()

    def warm(self) -> None:
        """Load the inner model now, if it can be (see ``pipeline.start_warming``)."""
        warm = getattr(self.inner, "warm", None)
        if callable(warm):
            warm()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        out: list[np.ndarray | None] = [None] * len(texts)
        with self._lock:
            for i, t in enumerate(texts):
                out[i] = self._memo.get(t)  # a hit becomes the most recently used
        todo = [i for i, v in enumerate(out) if v is None]
        if todo:
            fresh = np.asarray(self.inner.embed([texts[i] for i in todo]), dtype=np.float32)
            with self._lock:
                for j, i in enumerate(todo):
                    out[i] = fresh[j]
                    if len(texts[i]) <= self.max_chars:
                        self._memo[texts[i]] = fresh[j]  # the least recently used goes
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        return np.stack(out)
