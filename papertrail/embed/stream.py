"""Embedding one document's texts at the embedder's limit: each distinct text once,
the next call always queued behind the running one.

``embed_all`` embeds every distinct text not already in ``known`` (which gains
them) in calls of ``CALL`` texts, in the order given, keeping ``IN_FLIGHT``
calls submitted at once: while one call's last batches finish on one core, the
next call's first batches already run on the other, so neither core waits
between calls (each call is one ``Embedder.embed``, whose batches run one per
core and whose tokenising runs beside the other worker's inference). The same
slices of the same texts are embedded as one call at a time would, so the
vectors are the same. It leaves out what is done with the vectors.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np

from papertrail.protocols import Embedder

CALL = 256  # texts per embedding call: many batches per core, progress per call
IN_FLIGHT = 2  # calls submitted at once: the next is queued before the current ends
_feeder = ThreadPoolExecutor(IN_FLIGHT, thread_name_prefix="papertrail-embed-feed")


def embed_all(
    embedder: Embedder,
    texts: Sequence[str],
    known: dict[str, np.ndarray],
    *,
    call: int = CALL,
    before_call: Callable[[], None] | None = None,
    after_call: Callable[[], None] | None = None,
) -> int:
    """Embed the distinct ``texts`` not in ``known`` into it; how many were embedded.

    ``before_call()`` runs before each call is submitted (a time limit or a
    lease check: what it raises stops the rest); ``after_call()`` after each
    call's rows are in ``known``, in order. ``call``: texts per call.
    """
    fresh = [t for t in dict.fromkeys(texts) if t not in known]
    calls = iter([fresh[i : i + call] for i in range(0, len(fresh), max(1, call))])
    pending: deque[tuple[list[str], Future]] = deque()

    def submit() -> None:
        part = next(calls, None)
        if part is not None:
            if before_call is not None:
                before_call()
            pending.append((part, _feeder.submit(embedder.embed, part)))

    try:
        for _ in range(IN_FLIGHT):
            submit()
        while pending:
            texts_done, running = pending.popleft()
            rows = np.asarray(running.result(), dtype=np.float32)
            known.update(zip(texts_done, rows, strict=True))
            submit()
            if after_call is not None:
                after_call()
    finally:
        for _, running in pending:  # stopped early: drop what has not started
            running.cancel()
    return len(fresh)
