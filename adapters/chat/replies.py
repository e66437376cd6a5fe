"""Platform-neutral reply texts: help, document lists, and answers with sources.

Kept apart from ``service.py`` so the wording lives in one place. Markup is
left to each adapter; these strings are plain text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from papertrail.text.formula import working
from papertrail.text.names import image_name, safe_filename
from papertrail.types import Answer, Citation, Document, Snippet
from papertrail.verify.evidence import shown


@dataclass(frozen=True)
class Image:
    filename: str  # safe file name, e.g. "1-p3-1a2b3c4d-report.png"
    png: bytes
    title: str  # e.g. "[1] report.pdf, page 3"


@dataclass(frozen=True)
class Source:
    """One verified citation as a reply shows it; each platform lays it out."""

    n: int
    document: str  # file name as indexed
    page: int  # 1-based
    evidence: str = ""  # the supporting text, trimmed for chat; "" when none was found
    image: Image | None = None  # the page region, when it could be rendered

    @property
    def title(self) -> str:
        return f"[{self.n}] {self.document}, page {self.page}"


@dataclass(frozen=True)
class Reply:
    """A platform-neutral reply; adapters choose the markup."""

    kind: str  # "answer" | "help" | "list" | "forget" | "indexed" | "error"
    text: str  # main body; plain text with [n] markers
    sources: tuple[Source, ...] = ()  # one per verified citation, in [n] order
    warnings: tuple[str, ...] = ()  # e.g. the ungrounded warning, pages without text
    footer: str = ""  # mode and verification summary
    answer: Answer | None = None
    documents: tuple[Document, ...] = ()
    suggestions: tuple[str, ...] = ()  # questions checked answerable, after a drop
    answer_id: str = ""  # what feedback buttons name (``feedback.py``); "" = not votable

    @property
    def images(self) -> tuple[Image, ...]:
        return tuple(s.image for s in self.sources if s.image is not None)


HELP = """I answer questions about the PDFs shared in this channel and show where each \
answer comes from.

• Share a PDF here: I index it right away (⏳ then ✅ on the message), no mention needed. \
Every PDF shared since I joined is in this channel's library, however long ago.
• Mention me with a question. In the thread of my answer, reply without a mention \
for a follow-up ("And the decoder?").
• Every [n] in my answer was checked against the passage it cites; citations that \
fail the check are removed, and an answer with none left is marked ungrounded. Under each \
source I quote the supporting text and attach a picture of it on its page.
• Deleting a PDF from the channel removes it from the library. PDFs shared before I \
joined are found only in the last {history} messages: share them again to add them.

Commands: `ask <question>` · `list` (the library) · `forget <file>` (the person who \
shared it, or an admin) · `forget all` (admins) · `help`"""

# The same help where a question is simply typed (the web page, the console).
TYPED_HELP = """I answer questions about the PDFs shared here and show where each answer \
comes from.

• Add a PDF: I index it right away and say when it is ready.
• Type a question. The next question in the same conversation is read as a follow-up \
("And the decoder?").
• Every [n] in my answer was checked against the passage it cites; citations that \
fail the check are removed, and an answer with none left is marked ungrounded. Under each \
source I quote the supporting text and show a picture of it on its page.

Commands: `ask <question>` · `list` (the library) · `forget <file>` (the person who \
shared it) · `help`"""

# Channels (by prefix) where a question is simply typed: the web page and the console.
# Elsewhere (Slack, Discord) the bot reads a channel message only when it is mentioned.
TYPED = ("web:", "local:")

# The command words of every channel (Slack, Discord, the console, the web page) and of
# the CLI, with what each takes; older names stay as aliases.
COMMANDS = {
    "ask": "<question>",
    "list": "",
    "forget": "<file> | all",
    "help": "",
}
ALIASES = {"docs": "list", "documents": "list"}

UNGROUNDED = (
    "⚠️ Ungrounded: no sentence of this answer is stated by any of the passages found. "
    "Treat it as unverified."
)
UNSUPPORTED = " ⚠️(no passage states this)"  # after each sentence no passage states
UNSUPPORTED_NOTE = "Sentences marked ⚠️ are stated by no passage found: treat them as unverified."


HISTORY_FALLBACK = 20  # recent messages the adapters search for PDFs shared before the bot joined


def typed(channel: str) -> bool:
    """True where a question is simply typed, with no mention (``TYPED``)."""
    return channel.startswith(TYPED)


def how_to_ask(channel: str) -> str:
    """What to do once a PDF is indexed, in ``channel``'s platform's words."""
    if typed(channel):
        return "Ask me a question about it."
    return "Mention me with a question about it."


def help_reply(channel: str = "") -> Reply:
    if typed(channel):
        return Reply(kind="help", text=TYPED_HELP)
    return Reply(kind="help", text=HELP.format(history=HISTORY_FALLBACK))


def list_reply(docs: Sequence[Document], channel: str = "") -> Reply:
    if not docs:
        ask = "ask me about it" if typed(channel) else "mention me"
        return Reply(
            kind="list",
            text=f"No documents are indexed in this channel yet. Upload a PDF and {ask}.",
        )
    lines = [f"{len(docs)} document{'s' if len(docs) != 1 else ''} indexed here:"]
    for d in sorted(docs, key=lambda d: d.name.lower()):
        extra = f", {len(d.no_text_pages)} without text" if d.no_text_pages else ""
        lines.append(f"• {d.name} — {d.pages} pages, {d.chunks} passages{extra}")
        if about := understood(d):
            lines.append(f"  {about}")
    return Reply(kind="list", text="\n".join(lines), documents=tuple(docs))


def understood(d: Document) -> str:
    """What the bot read the document to be: "title · kind · period" ("" when unknown)."""
    i = d.identity
    if i is None:
        return ""
    return " · ".join(part for part in (i.title, i.kind, i.period) if part)


def answer_reply(answer: Answer, *, extra_warnings: Sequence[str] = ()) -> Reply:
    warnings = list(extra_warnings)
    if not answer.grounded:
        warnings.append(UNGROUNDED)
    elif answer.unsupported:
        warnings.append(UNSUPPORTED_NOTE)
    warnings.extend(answer.notes)
    snippets = {s.n: s for s in answer.snippets}
    sources = tuple(_source(c, snippets.get(c.n), answer) for c in answer.citations if c.chunk)
    return Reply(
        kind="answer",
        text=_with_working(marked(answer), answer),
        sources=sources,
        warnings=tuple(warnings),
        footer=footer(answer),
        answer=answer,
    )


def _with_working(text: str, answer: Answer) -> str:
    """A worked-out answer's text with its arithmetic on the next line."""
    shown = working(answer.calculation, answer.grounded) if answer.calculation else ""
    return f"{text}\n{shown}" if shown else text


def marked(answer: Answer) -> str:
    """The answer's text with each sentence no passage states marked where it ends.

    An ungrounded answer is not marked sentence by sentence: its warning says it all.
    """
    text = answer.text
    if not answer.grounded:
        return text
    for u in sorted(answer.unsupported, key=lambda u: u.at, reverse=True):
        at = min(max(u.at, 0), len(text))
        end = re.match(r"[.!?。]?", text[at:]).end()  # after the sentence's full stop
        text = text[: at + end] + UNSUPPORTED + text[at + end :]
    return text


def _source(c: Citation, snippet: Snippet | None, answer: Answer) -> Source:
    image = None
    if snippet is not None:
        image = Image(
            filename=safe_filename(image_name(snippet, answer), suffix=".png"),
            png=snippet.png,
            title=f"[{c.n}] {snippet.doc_name}, page {snippet.page}",
        )
    return Source(
        n=c.n,
        document=c.chunk.doc_name,
        page=c.chunk.page,
        evidence=shown(c.evidence),
        image=image,
    )


def footer(answer: Answer) -> str:
    calc = answer.calculation
    mode = (
        "read from the cited table row"  # one figure looked up: nothing was worked out
        if calc is not None and len(calc.operands) < 2
        else "worked out in code from the cited rows"
        if calc is not None
        else "extractive (offline: sentences quoted from the PDF)"
        if answer.mode == "extractive"
        else answer.mode
    )
    kept, dropped = len(answer.citations), len(answer.dropped)
    parts = [f"Mode: {mode}", f"{kept} citation{'s' if kept != 1 else ''} verified"]
    partly = sum(c.level == "partly supported" for c in answer.citations)
    if partly:  # how sure the checker is, in words: kept, but not beyond doubt
        sure = kept - partly
        said = [f"{sure} verified"] * bool(sure) + [f"{partly} partly supported"]
        parts[-1] = f"{kept} citation{'s' if kept != 1 else ''}: " + ", ".join(said)
    if answer.by:  # the offline rule that answered: "quote", "table figure", "acronym"
        parts.insert(1, f"answered by: {answer.by}")
    by_checker = sum(c.reason.startswith("cited by the checker") for c in answer.citations)
    if by_checker:
        parts[-1] += f" ({by_checker} added by the checker)"
    if dropped:
        parts.append(f"{dropped} removed ({_reasons(answer)})")
    return " · ".join(parts)


def _reasons(answer: Answer) -> str:
    seen: list[str] = []
    for c in answer.dropped:
        if c.reason not in seen:
            seen.append(c.reason)
    return "; ".join(seen[:3])
