"""What every chat adapter shares: commands, finding PDFs, indexing, answering.

An adapter turns a platform event into a ``Mention`` and a ``Reply`` back into
platform messages; everything in between happens here, synchronously, so it
can run in a worker thread. (Implementation in progress: the types and
signatures are the contract the Slack, Discord and local adapters code against.)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from papertrail.types import Answer, Document


@dataclass(frozen=True)
class Attachment:
    """A file the adapter can download on demand."""

    name: str
    fetch: Callable[[], bytes]  # downloads the bytes; raises PaperTrailError with a fix
    size: int | None = None  # bytes, when the platform says
    mimetype: str = ""
    key: str = ""  # platform file id, to skip re-downloading a file already indexed
    source: str = "message"  # "message" (this post), "thread" or "history"


@dataclass(frozen=True)
class Mention:
    """A message that addressed the bot, with the mention itself removed."""

    channel: str  # platform-qualified id, e.g. "slack:T1:C1" or "discord:123"
    text: str
    attachments: tuple[Attachment, ...] = ()  # this message's first, then thread, then history


@dataclass(frozen=True)
class Image:
    filename: str  # safe file name, e.g. "p3-report.png"
    png: bytes
    title: str  # e.g. "[1] report.pdf, page 3"


@dataclass(frozen=True)
class Reply:
    """A platform-neutral reply; adapters choose the markup."""

    kind: str  # "answer" | "help" | "list" | "forget" | "error"
    text: str  # main body; plain text with [n] markers
    sources: tuple[str, ...] = ()  # "[1] report.pdf, page 3", one per verified citation
    warnings: tuple[str, ...] = ()  # e.g. the ungrounded warning, pages without text
    footer: str = ""  # mode and verification summary
    images: tuple[Image, ...] = ()
    answer: Answer | None = None
    documents: tuple[Document, ...] = ()


Progress = Callable[[str], None]  # a status line such as "Indexing report.pdf — 12/40 pages"


class ChatService:
    def handle(self, mention: Mention, progress: Progress | None = None) -> Reply:
        """Run a command or answer a question; never raises for user errors."""
        raise NotImplementedError
