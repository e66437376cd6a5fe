"""What names a channel's index: the embedding model, the chunking and the channel.

A channel's chunks live in the collection ``collection_name(index_key(model,
chunking), channel)``: ``pt-`` + 40 hex digits of sha256, so no channel name
can collide with another after sanitising. A changed embedding model or chunk
size (or overlap) gives another key, so a new index is built instead of
serving vectors of another model or chunks cut another way.
"""

from __future__ import annotations

import hashlib

# (size, overlap) of every index built before chunking joined the key: such an index keeps
# its collections (its key is the model alone), so upgrading does not re-index every channel
FIRST_CHUNKING = (800, 100)


def index_key(model: str, chunking: tuple[int, int] | None = None) -> str:
    """What names a channel's collection besides the channel: the embedding model and,
    unless it is ``FIRST_CHUNKING`` (or None), the chunk size and overlap."""
    if chunking is None or tuple(chunking) == FIRST_CHUNKING:
        return model
    return f"{model}\x00chunks {chunking[0]}/{chunking[1]}"


def collection_name(key: str, channel: str) -> str:
    """The chunk collection of ``channel`` under index ``key``: 43 characters Chroma accepts."""
    raw = f"{key}\x00{channel}".encode("utf-8", "surrogatepass")
    digest = hashlib.sha256(raw).hexdigest()
    return f"pt-{digest[:40]}"  # 160 bits: collisions are not a practical concern
