"""The tokens-free channel: talk to PaperTrail from a terminal or a script.

``python -m bot local`` reads commands from stdin: ``/add FILE`` uploads a
PDF, plain text or ``/ask`` asks a question (as if @mentioning the bot),
``/list``, ``/forget FILE``, ``/help``, ``/quit``. ``--pdf FILE --ask "question"`` runs
the same steps without a prompt. Everything goes through the same
``ChatService`` as Slack and Discord, so replies carry the same text,
sources, warnings and footer; snippet PNGs are written to an output folder
and their paths printed. This module only translates: no indexing or
answering logic lives here.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Iterable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TextIO

from adapters.chat.replies import ALIASES
from adapters.chat.service import Attachment, ChatService, Mention, Reply
from papertrail.errors import PaperTrailError

CHANNEL = "local:console"

HELP = """\
Commands:
  /ask QUESTION   ask about the documents indexed here (plain text asks too)
  /list           list the documents indexed here (/docs works too)
  /forget FILE    remove one document (/forget all removes every one)
  /help           this help
  /add FILE       upload a PDF to this channel (index it)
  /quit           leave (Ctrl-D works too)"""


def _console_user_is_admin() -> bool:
    return True  # the one person at the terminal owns this channel


def file_attachment(path: Path) -> Attachment:
    """An ``Attachment`` whose ``fetch`` reads ``path``, as a platform upload would."""
    path = Path(path).expanduser()
    if not path.is_file():
        raise PaperTrailError(
            f"No such file: {path}. Give the path to a PDF on this computer.", code="not_found"
        )
    stat = path.stat()

    def fetch() -> bytes:
        try:
            return path.read_bytes()
        except OSError as exc:
            raise PaperTrailError(
                f"Could not read {path}: {exc.strerror}. Check the file's permissions.",
                code="download",
            ) from None

    return Attachment(
        name=path.name,
        fetch=fetch,
        size=stat.st_size,
        mimetype="application/pdf" if path.suffix.lower() == ".pdf" else "",
        key=f"local:{path.resolve()}:{stat.st_size}:{stat.st_mtime_ns}",  # changes with the file
        source="message",
    )


class LocalConsole:
    """One local channel: turns lines into ``Mention``s and prints the ``Reply``s."""

    def __init__(
        self,
        service: ChatService,
        *,
        out: TextIO | None = None,
        out_dir: Path | str = "out",
        channel: str = CHANNEL,
    ) -> None:
        self.service = service
        self.out = sys.stdout if out is None else out
        self.out_dir = Path(out_dir)
        self.channel = channel
        self.images_written: list[Path] = []
        self.errors = 0  # replies of kind "error", for the batch exit code
        self._last_status = ""

    # --- the channel's actions -------------------------------------------------

    def add(self, path: str | Path) -> Reply | None:
        try:
            attachment = file_attachment(Path(path))
        except PaperTrailError as exc:
            self._error(exc.message)
            return None
        return self._send(self._mention("", (attachment,)))

    def ask(self, text: str) -> Reply:
        return self._send(self._mention(text))

    def _mention(self, text: str, attachments: tuple[Attachment, ...] = ()) -> Mention:
        return Mention(self.channel, text, attachments, user="local", admin=_console_user_is_admin)

    def command(self, line: str) -> bool:
        """Run one input line; False means the user asked to quit."""
        line = line.strip()
        if not line:
            return True
        if not line.startswith("/"):
            self.ask(line)
            return True
        name, _, rest = line[1:].partition(" ")
        name, rest = name.lower(), rest.strip()
        name = ALIASES.get(name, name)
        if name in ("quit", "exit", "q"):
            return False
        if name == "help":
            self._print(HELP)
        elif name == "add":
            paths = _paths(rest)
            if not paths:
                self._error("Say which file: /add path/to/file.pdf")
            for path in paths:
                self.add(path)
        elif name == "ask":
            if rest:
                self.ask(rest)
            else:
                self._error("Say what to ask: /ask What was the net income?")
        elif name == "list":
            self._send(self._mention("list"))
        elif name == "forget":
            self._send(self._mention(f"forget {rest}".strip()))
        else:
            self._error(f"Unknown command /{name}. Type /help for the commands.")
        return True

    # --- output ---------------------------------------------------------------

    def _send(self, mention: Mention) -> Reply:
        self._last_status = ""
        reply = self.service.handle(mention, self._progress)
        self.show(reply)
        return reply

    def _progress(self, status: str) -> None:
        if status != self._last_status:  # platforms edit one message; we print changes only
            self._last_status = status
            self._print(f"... {status}")

    def show(self, reply: Reply) -> None:
        """Print a reply the way the bots lay it out, writing its images to ``out_dir``."""
        if reply.kind == "error":
            self.errors += 1
            self._print(f"Error: {reply.text}")
        elif reply.text:
            self._print(reply.text)
        if reply.sources:
            self._print("Sources:")
            for source in reply.sources:
                self._print(f"  {source.title}")
                if source.evidence:  # the supporting text, so the claim can be checked here
                    self._print(f"      “{source.evidence}”")
        for warning in reply.warnings:
            self._print(f"Warning: {warning}")
        if reply.footer:
            self._print(f"-- {reply.footer}")
        for image in reply.images:
            path = self._write_image(image.png)
            self._print(f"Image: {path}  ({image.title})")
        for question in reply.suggestions:  # each one checked answerable first
            self._print(f"Try: ask {question}")
        self._print("")

    def _write_image(self, png: bytes) -> Path:
        self.out_dir.mkdir(parents=True, exist_ok=True)
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        # the running number keeps names unique within one second and one session
        path = self.out_dir / f"{stamp}-{len(self.images_written) + 1}.png"
        path.write_bytes(png)
        self.images_written.append(path)
        return path

    def _error(self, text: str) -> None:
        self.errors += 1
        self._print(f"Error: {text}")

    def _print(self, text: str) -> None:
        print(text, file=self.out, flush=True)


def _paths(rest: str) -> list[str]:
    """``/add`` arguments: the whole rest if it names a file (spaces allowed), else words."""
    if not rest:
        return []
    unquoted = rest.strip("'\"")
    if Path(unquoted).expanduser().exists():
        return [unquoted]
    try:
        return shlex.split(rest)
    except ValueError:  # an unbalanced quote: take the line as one path
        return [unquoted]


def run_interactive(console: LocalConsole, stdin: TextIO | None = None) -> int:
    """Read commands until ``/quit`` or end of input; returns the exit code (0)."""
    stdin = sys.stdin if stdin is None else stdin
    prompt = stdin.isatty()
    console._print("PaperTrail local channel. Type /help for commands, /quit to leave.")
    while True:
        if prompt:
            console.out.write("> ")
            console.out.flush()
        line = stdin.readline()
        if not line:  # end of input (Ctrl-D or the end of a piped script)
            return 0
        if not console.command(line):
            return 0


def run_batch(console: LocalConsole, pdfs: Sequence[str], questions: Iterable[str]) -> int:
    """Add ``pdfs``, then ask each question; exit code 1 if any step failed."""
    for pdf in pdfs:
        console.add(pdf)
    for question in questions:
        console.ask(question)
    return 1 if console.errors else 0
