"""The indexed PDFs' bytes, kept for rendering snippet images.

``PdfFiles`` keeps each channel's PDFs under ``root/<sha256(channel)[:24]>/
<doc_id>.pdf`` (the pipeline hands a password-protected PDF over decrypted, so
snippets render without the password). With ``shared`` blobs (multi-worker
mode, see ``papertrail/store/blobs.py``) every saved PDF is also put there,
and a worker that must render a PDF it never downloaded fetches it and caches
it locally.
Writes go through a temporary file and a rename, so a reader never sees half
a PDF. Rendering itself is ``render.py``'s job.
"""

from __future__ import annotations

import hashlib
import logging
import os
from pathlib import Path

from papertrail.store.blobs import Blobs

log = logging.getLogger(__name__)


class PdfFiles:
    """PDF bytes per (channel, document), on local disk and optionally shared."""

    def __init__(self, root: Path, shared: Blobs | None = None) -> None:
        self.root = Path(root)
        self.shared = shared

    def path(self, channel: str, doc_id: str) -> Path:
        key = hashlib.sha256(channel.encode()).hexdigest()[:24]
        return self.root / key / f"{doc_id}.pdf"

    def key(self, channel: str, doc_id: str) -> str:
        """The name of the PDF in the shared store."""
        path = self.path(channel, doc_id)
        return f"{path.parent.name}/{path.name}"

    def save(self, channel: str, doc_id: str, data: bytes) -> None:
        """Keep ``data`` (the pipeline passes a password-protected PDF decrypted)."""
        path = self.path(channel, doc_id)
        _write(path, data)
        if self.shared is not None:
            self.shared.put(self.key(channel, doc_id), data)

    def load(self, channel: str, doc_id: str) -> bytes | None:
        """The PDF's bytes from the local copy, else from the shared store; None if lost."""
        path = self.path(channel, doc_id)
        if not path.exists() and self.shared is not None:
            try:
                data = self.shared.get(self.key(channel, doc_id))
            except Exception:  # an image is a bonus: the answer goes out without it
                log.exception("fetching %s from the shared store failed", doc_id[:12])
                data = None
            if data is not None:
                _write(path, data)  # cached: the next answer renders from disk
        return path.read_bytes() if path.exists() else None

    def kept(self, channel: str, doc_id: str) -> bool:
        """Whether the PDF is still kept: in the shared store when there is one (another
        worker may have forgotten it, leaving this one's cached copy), else on disk."""
        if self.shared is not None:
            return self.shared.has(self.key(channel, doc_id))
        return self.path(channel, doc_id).exists()

    def delete(self, channel: str, doc_id: str) -> None:
        path = self.path(channel, doc_id)
        path.unlink(missing_ok=True)
        if self.shared is not None:
            self.shared.delete(self.key(channel, doc_id))


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")  # per process: two workers may cache at once
    tmp.write_bytes(data)
    tmp.replace(path)
