"""The pipeline API the adapters and the CLI call: ingest, ask, documents, forget.

Everything is per channel and synchronous; callers on an event loop run it in
a thread. (Implementation in progress: the signatures are the contract.)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from papertrail.types import Answer, Document

Progress = Callable[[int, int], None]  # (pages done, pages total)


@dataclass(frozen=True)
class IngestResult:
    document: Document
    new: bool  # False when the same bytes were already indexed for this channel
    embedded: int  # chunks embedded by this call (0 on a re-upload)
    warnings: tuple[str, ...] = ()  # user-facing, e.g. "pages 3, 4 have no text layer"


class PaperTrail:
    def ingest(
        self,
        channel: str,
        name: str,
        data: bytes,
        *,
        password: str | None = None,
        progress: Progress | None = None,
    ) -> IngestResult:
        """Index ``data`` for ``channel``; raises PaperTrailError on bad input."""
        raise NotImplementedError

    def ask(
        self,
        channel: str,
        question: str,
        *,
        doc_ids: Sequence[str] | None = None,
        render: bool = True,
    ) -> Answer:
        """Answer from the channel's ready documents (or only ``doc_ids``)."""
        raise NotImplementedError

    def documents(self, channel: str) -> list[Document]:
        raise NotImplementedError

    def forget(self, channel: str, name_or_id: str | None = None) -> list[Document]:
        """Remove one document (by file name or sha256 prefix) or, with None, all."""
        raise NotImplementedError
