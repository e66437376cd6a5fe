"""Storing a document's chunks behind its embedding, in document order, on a thread.

``StoreBehind.push`` hands the store, in batches and in document order, every
chunk whose vector is known by now; the store writes them on its own thread
while the next texts are embedded, so storing adds no serial stretch between
embedding calls. Chunks reach the store in the same order as when embedding
and storing took turns. It leaves out embedding and committing the document.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np

from papertrail.protocols import Store
from papertrail.types import Chunk


class StoreBehind:
    """Adds ``chunks`` (embedded as ``texts``, vectors in ``known``) as their vectors come."""

    def __init__(
        self,
        store: Store,
        channel: str,
        chunks: Sequence[Chunk],
        texts: Sequence[str],
        known: dict[str, np.ndarray],
        *,
        batch: int,
        progress: Callable[[int, int], None] | None = None,
        pages: int = 0,
    ) -> None:
        self.store, self.channel = store, channel
        self.chunks, self.texts, self.known = chunks, texts, known
        self.batch = max(1, batch)
        self.progress, self.pages = progress, pages
        self.handed = 0  # chunks handed to the store thread, a prefix of ``chunks``
        self.busy = 0.0  # seconds the store thread spent adding
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="papertrail-store")
        self._adds: list[Future] = []

    def push(self) -> None:
        """Hand over the chunks after the last handed whose vectors are now known."""
        end = self.handed
        while end < len(self.chunks) and self.texts[end] in self.known:
            end += 1
        for i in range(self.handed, end, self.batch):
            part = self.chunks[i : min(end, i + self.batch)]
            rows = np.stack([self.known[t] for t in self.texts[i : i + len(part)]])
            self._adds.append(self._thread.submit(self._add, part, rows))
        if end > self.handed and self.progress:
            self.progress(self.chunks[end - 1].page, self.pages)
        self.handed = end

    def finish(self) -> BaseException | None:
        """Wait for every add; the first failure, if any (the caller raises it)."""
        self._thread.shutdown(wait=True)
        for add in self._adds:
            if add.exception() is not None:
                return add.exception()
        return None

    def _add(self, part: Sequence[Chunk], rows: np.ndarray) -> None:
        t0 = time.perf_counter()
        self.store.add_chunks(self.channel, list(part), rows)
        self.busy += time.perf_counter() - t0
