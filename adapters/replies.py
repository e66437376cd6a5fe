"""Platform-neutral reply texts: help, document lists, and answers with sources.

Kept apart from ``service.py`` so the wording lives in one place. Markup is
left to each adapter; these strings are plain text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from papertrail.names import safe_filename
from papertrail.types import Answer, Document


@dataclass(frozen=True)
class Image:
    filename: str  # safe file name, e.g. "1-p3-report.png"
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


HELP = """I answer questions about PDFs and show where each answer comes from.

• Upload a PDF (or attach it to your message) and mention me with a question.
• Every [n] in my answer was checked against the passage it cites; citations that \
fail the check are removed, and an answer with none left is marked ungrounded.
• I attach a picture of each cited passage, outlined on its page.

Commands: `help` · `list` (documents indexed here) · `forget <file>` · `forget all`"""

UNGROUNDED = (
    "⚠️ Ungrounded: no sentence of this answer could be matched to the passages it "
    "cites. Treat it as unverified."
)


def help_reply() -> Reply:
    return Reply(kind="help", text=HELP)


def list_reply(docs: Sequence[Document]) -> Reply:
    if not docs:
        return Reply(
            kind="list",
            text="No documents are indexed in this channel yet. Upload a PDF and mention me.",
        )
    lines = [f"{len(docs)} document{'s' if len(docs) != 1 else ''} indexed here:"]
    for d in sorted(docs, key=lambda d: d.name.lower()):
        extra = f", {len(d.no_text_pages)} without text" if d.no_text_pages else ""
        lines.append(f"• {d.name} — {d.pages} pages, {d.chunks} passages{extra}")
    return Reply(kind="list", text="\n".join(lines), documents=tuple(docs))


def answer_reply(answer: Answer, *, extra_warnings: Sequence[str] = ()) -> Reply:
    sources = tuple(
        f"[{c.n}] {c.chunk.doc_name}, page {c.chunk.page}" for c in answer.citations if c.chunk
    )
    warnings = list(extra_warnings)
    if not answer.grounded:
        warnings.append(UNGROUNDED)
    warnings.extend(answer.notes)
    images = []
    for s in answer.snippets:
        stem = safe_filename(s.doc_name, suffix="").rsplit(".", 1)[0]
        images.append(
            Image(
                filename=safe_filename(f"{s.n}-p{s.page}-{stem}.png", suffix=".png"),
                png=s.png,
                title=f"[{s.n}] {s.doc_name}, page {s.page}",
            )
        )
    return Reply(
        kind="answer",
        text=answer.text,
        sources=sources,
        warnings=tuple(warnings),
        footer=footer(answer),
        images=tuple(images),
        answer=answer,
    )


def footer(answer: Answer) -> str:
    mode = (
        "extractive (offline: sentences quoted from the PDF)"
        if answer.mode == "extractive"
        else answer.mode
    )
    kept, dropped = len(answer.citations), len(answer.dropped)
    parts = [f"Mode: {mode}", f"{kept} citation{'s' if kept != 1 else ''} verified"]
    if dropped:
        parts.append(f"{dropped} removed ({_reasons(answer)})")
    return " · ".join(parts)


def _reasons(answer: Answer) -> str:
    seen: list[str] = []
    for c in answer.dropped:
        if c.reason not in seen:
            seen.append(c.reason)
    return "; ".join(seen[:3])
