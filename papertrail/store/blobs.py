"""PDF bytes in a shared Chroma, so any worker can render a page it never downloaded.

In multi-worker mode no process keeps anything another needs on its own disk,
yet snippet images are rendered from the PDF. ``ChromaBlobs`` keeps each
indexed PDF in the ``papertrail-files`` collection of the same Chroma server
that holds the index (already shared, already on a persistent disk, already
backed up with it), split into base64 records of ``PIECE`` bytes with a 1-d
dummy vector; ``get`` joins them and checks the SHA-256 stored beside them,
so a half-written file reads as missing; ``has`` reads only the
records' metadata. The pipeline caches what it gets on
local disk. Chosen over re-downloading from the platform because it works
the same for Slack and Discord, needs no token at answer time and survives
the file being deleted from the chat. Left out: the local cache (the
pipeline's ``files`` folder) and any size quota.
"""

from __future__ import annotations

import base64
import hashlib
import logging
from typing import Protocol

log = logging.getLogger(__name__)

COLLECTION = "papertrail-files"
PIECE = 1_000_000  # raw bytes per record: well under any HTTP body limit of the server


class Blobs(Protocol):
    """Bytes by key, shared between workers."""

    def put(self, key: str, data: bytes) -> None: ...

    def get(self, key: str) -> bytes | None: ...

    def has(self, key: str) -> bool: ...

    def delete(self, key: str) -> None: ...


class ChromaBlobs:
    """``Blobs`` in one Chroma collection of a (usually remote) client."""

    def __init__(self, client) -> None:
        self._col = client.get_or_create_collection(COLLECTION, embedding_function=None)

    def put(self, key: str, data: bytes) -> None:
        sha = hashlib.sha256(data).hexdigest()
        n = max(1, -(-len(data) // PIECE))
        for i in range(n):
            piece = base64.b64encode(data[i * PIECE : (i + 1) * PIECE]).decode("ascii")
            meta = {"key": key, "part": i, "parts": n, "sha": sha}
            self._col.upsert(
                ids=[f"{key}/{i}"], embeddings=[[1.0]], documents=[piece], metadatas=[meta]
            )

    def get(self, key: str) -> bytes | None:
        got = self._col.get(where={"key": key}, include=["documents", "metadatas"])
        parts = sorted(
            zip(got["metadatas"], got["documents"], strict=True), key=lambda p: p[0]["part"]
        )
        if not parts or len(parts) != parts[0][0]["parts"]:
            return None
        data = b"".join(base64.b64decode(text) for _, text in parts)
        if hashlib.sha256(data).hexdigest() != parts[0][0]["sha"]:
            log.warning("stored file %s is damaged or half-written; ignoring it", key[:16])
            return None
        return data

    def has(self, key: str) -> bool:
        """Whether every record of ``key`` is there: its metadata only, not its bytes
        (a PDF of 50 MB is 67 MB of base64 to fetch). The checksum is ``get``'s."""
        got = self._col.get(where={"key": key}, include=["metadatas"])
        metas = got["metadatas"] or []
        return bool(metas) and len(metas) == metas[0]["parts"]

    def delete(self, key: str) -> None:
        self._col.delete(where={"key": key})
