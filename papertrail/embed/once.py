"""Vectors for one ingest's chunk texts, each distinct text embedded once.

A text repeated inside a document (a running header paragraph, a boilerplate
notice) or already embedded for the same bytes in another channel (the store's
``vectors_elsewhere``) is looked up instead of embedded again. It leaves out
where vectors come from and where they go: the pipeline passes both.
"""

from __future__ import annotations

import numpy as np

from papertrail.protocols import Embedder


def embed_once(
    embedder: Embedder, texts: list[str], known: dict[str, np.ndarray]
) -> tuple[np.ndarray, int]:
    """Rows for ``texts``, embedding only those not in ``known`` (which gains them).

    Returns the rows, in the order of ``texts``, and how many texts were embedded.
    """
    fresh = [t for t in dict.fromkeys(texts) if t not in known]
    if fresh:
        rows = np.asarray(embedder.embed(fresh), dtype=np.float32)
        known.update(zip(fresh, rows, strict=True))
    return np.stack([known[t] for t in texts]), len(fresh)
