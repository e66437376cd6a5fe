"""Which platform file became which document of which channel, and who shared it.

A channel's library is the documents the pipeline indexed for it; this
registry adds what the pipeline does not know: each share (one platform file
id posted into one channel: Slack ``F…``, a Discord attachment id), the name
it was posted under, the post that carried it and the person who posted it.
Shares, not bytes, are what people own and forget (``forget.py``): the same
bytes posted twice are two shares of one document, and the document leaves
the channel only when no live share of it is left there. Deleting a file on
the platform names only its id (Slack ``file_deleted`` has no channel;
Discord reports a deleted message id), so the registry maps it back to
(channel, document). It is a small JSON file written atomically after each
change, so it survives restarts; it holds no platform objects, and serves
one process (one data directory); several workers share ``RedisShares``
(``bot/redis/state.py``) instead.
"""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Protocol

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Share:
    """One platform file shared into one channel and indexed as ``doc_id``."""

    file: str  # platform-qualified file id, e.g. "slack:F123" or "discord:456"
    channel: str  # the library it belongs to, e.g. "slack:T1:C1"
    doc_id: str  # sha256 of the bytes
    name: str  # file name as this share carried it (the document keeps its first name)
    owner: str = ""  # platform user id of the person who shared it ("" when unknown)
    post: str = ""  # platform-qualified id of the message that carried it


class Shares(Protocol):
    """The registry seam: ``ShareRegistry`` here, ``RedisShares`` for several workers."""

    def add(self, share: Share) -> None: ...
    def get(self, file: str, channel: str) -> Share | None: ...
    def remove(self, files: list[str], channel: str | None = None) -> list[Share]: ...
    def of_post(self, post: str) -> list[Share]: ...
    def of_document(self, channel: str, doc_id: str) -> list[Share]: ...
    def of_channel(self, channel: str) -> list[Share]: ...
    def drop_documents(self, channel: str, doc_ids: set[str]) -> None: ...


class ShareRegistry:
    """Thread-safe map of (file id, channel) -> ``Share``; ``path=None`` keeps it in memory.

    One Slack file can be shared into several channels under one id, hence the
    pair as key.
    """

    def __init__(self, path: Path | str | None = None) -> None:
        self.path = Path(path) if path is not None else None
        self._lock = threading.Lock()
        self._shares: dict[tuple[str, str], Share] = {}
        if self.path is not None and self.path.exists():
            try:
                rows = json.loads(self.path.read_text())
                self._shares = {(r["file"], r["channel"]): Share(**r) for r in rows}
            except (OSError, ValueError, TypeError, KeyError):
                log.exception("share registry %s unreadable; starting empty", self.path)

    def add(self, share: Share) -> None:
        with self._lock:
            self._shares[(share.file, share.channel)] = share
            self._save()

    def get(self, file: str, channel: str) -> Share | None:
        with self._lock:
            return self._shares.get((file, channel))

    def remove(self, files: list[str], channel: str | None = None) -> list[Share]:
        """Forget these file ids (in ``channel``, or in every channel); the shares known."""
        with self._lock:
            keys = [k for k in self._shares if k[0] in files and channel in (None, k[1])]
            gone = [self._shares.pop(k) for k in keys]
            if gone:
                self._save()
            return gone

    def of_post(self, post: str) -> list[Share]:
        with self._lock:
            return [s for s in self._shares.values() if post and s.post == post]

    def of_document(self, channel: str, doc_id: str) -> list[Share]:
        """The live shares of one document in one channel."""
        with self._lock:
            return [s for s in self._shares.values() if (s.channel, s.doc_id) == (channel, doc_id)]

    def of_channel(self, channel: str) -> list[Share]:
        """Every live share in one channel, by file id."""
        with self._lock:
            return sorted((s for s in self._shares.values() if s.channel == channel), key=_file)

    def drop_documents(self, channel: str, doc_ids: set[str]) -> None:
        """Forget every share of these documents in ``channel`` (after ``forget``)."""
        with self._lock:
            keys = [
                k for k, s in self._shares.items() if s.channel == channel and s.doc_id in doc_ids
            ]
            for k in keys:
                del self._shares[k]
            if keys:
                self._save()

    def _save(self) -> None:
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps([asdict(s) for s in self._shares.values()]))
        tmp.replace(self.path)


def _file(share: Share) -> str:
    return share.file
