"""adapters/local.py and ``python -m bot local``: the console channel, driven via stdin/stdout."""

from __future__ import annotations

import io
import json
import os
import signal
import socket
import time
import urllib.request

import pymupdf
import pytest

from adapters.chat.service import ChatService, Mention, Reply
from adapters.local import HELP, LocalConsole, run_batch, run_interactive
from bot.__main__ import main
from papertrail.pipeline import PaperTrail
from papertrail.settings import Settings
from papertrail.store.chroma import ChromaStore
from tests.fakes import HashEmbedder, ScriptedGenerator, source

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16


class RecordingService:
    """Answers every mention with the next scripted reply; records mentions and fetches."""

    def __init__(self, *replies: Reply, statuses: tuple[str, ...] = ()) -> None:
        self.replies = list(replies)
        self.statuses = statuses
        self.mentions: list[Mention] = []
        self.fetched: list[bytes] = []

    def handle(self, mention: Mention, progress=None) -> Reply:
        self.mentions.append(mention)
        for att in mention.attachments:
            self.fetched.append(att.fetch())
        for status in self.statuses:
            progress(status)
        return self.replies.pop(0) if self.replies else Reply(kind="list", text="ok")


def console(service, tmp_path) -> tuple[LocalConsole, io.StringIO]:
    out = io.StringIO()
    return LocalConsole(service, out=out, out_dir=tmp_path / "out", channel="local:t"), out


def test_commands_become_mentions(tmp_path):
    pdf = tmp_path / "my report.pdf"  # a space in the name: /add takes the whole rest
    pdf.write_bytes(b"%PDF-1.7 fake")
    service = RecordingService()
    c, out = console(service, tmp_path)
    script = f"/add {pdf}\nWhat is the warranty?\n\n/list\n/forget my report.pdf\n/quit\nnever\n"
    assert run_interactive(c, io.StringIO(script)) == 0
    texts = [m.text for m in service.mentions]
    assert texts == ["", "What is the warranty?", "list", "forget my report.pdf"]
    add = service.mentions[0]
    assert add.channel == "local:t" and len(add.attachments) == 1
    att = add.attachments[0]
    assert (att.name, att.source, att.mimetype, att.size) == (
        "my report.pdf",
        "message",
        "application/pdf",
        len(b"%PDF-1.7 fake"),
    )
    assert att.key and service.fetched == [b"%PDF-1.7 fake"]
    assert "never" not in texts  # nothing after /quit runs


def test_help_is_local_and_errors_are_printed(tmp_path):
    service = RecordingService()
    c, out = console(service, tmp_path)
    for line in ["/help", "/add", f"/add {tmp_path / 'missing.pdf'}", "/frobnicate"]:
        assert c.command(line)
    text = out.getvalue()
    assert HELP in text
    assert "Error: Say which file" in text
    assert f"Error: No such file: {tmp_path / 'missing.pdf'}" in text
    assert "Error: Unknown command /frobnicate" in text
    assert service.mentions == [] and c.errors == 3


def test_reply_layout_and_images_written(tmp_path):
    reply = Reply(
        kind="answer",
        text="The warranty lasts 24 months [1].",
        sources=(
            source(
                "[1] report.pdf, page 3", PNG, filename="1-p3-report.png", evidence="24 months."
            ),
            source("[2] report.pdf, page 4", PNG + b"2", filename="2-p4-report.png"),
        ),
        warnings=("pages 4, 5 have no text layer",),
        footer="Mode: scripted · 1 citation verified",
    )
    service = RecordingService(reply, statuses=("Indexing a.pdf…", "Indexing a.pdf…", "Done"))
    c, out = console(service, tmp_path)
    c.command("how long is the warranty?")
    lines = out.getvalue().splitlines()
    assert lines[:8] == [
        "... Indexing a.pdf…",  # the repeated status is printed once
        "... Done",
        "The warranty lasts 24 months [1].",
        "Sources:",
        "  [1] report.pdf, page 3",
        "      “24 months.”",  # the evidence, quoted under its source
        "  [2] report.pdf, page 4",
        "Warning: pages 4, 5 have no text layer",
    ]
    assert lines[8] == "-- Mode: scripted · 1 citation verified"
    images = [ln for ln in lines if ln.startswith("Image: ")]
    assert len(images) == 2 and c.images_written == sorted(c.images_written)
    for line, path, png in zip(images, c.images_written, (PNG, PNG + b"2"), strict=True):
        assert line.startswith(f"Image: {path}  (")
        assert path.parent == tmp_path / "out" and path.name.endswith(
            f"-{images.index(line) + 1}.png"
        )
        assert path.read_bytes() == png


def test_error_replies_count_for_the_batch_exit_code(tmp_path):
    service = RecordingService(Reply(kind="error", text="I don't see a PDF here yet."))
    c, out = console(service, tmp_path)
    assert run_batch(c, [], ["anything?"]) == 1
    assert "Error: I don't see a PDF here yet." in out.getvalue()
    ok, _ = console(RecordingService(Reply(kind="answer", text="fine")), tmp_path)
    assert run_batch(ok, [], ["q"]) == 0


def test_suggested_questions_are_printed_as_lines_to_ask(tmp_path):
    suggestions = ("What is the net revenue?", "What is the cost of sales?")
    reply = Reply(kind="indexed", text="Indexed report.pdf.", suggestions=suggestions)
    c, out = console(RecordingService(reply), tmp_path)
    run_batch(c, [], ["q"])
    shown = out.getvalue()
    assert "Try: ask What is the net revenue?\nTry: ask What is the cost of sales?" in shown


# -- the real pipeline behind the real ChatService, through ``python -m bot local`` -----


def make_pdf(path) -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "Service Agreement", fontsize=16)
    body = (
        "The warranty period is 24 months from the date of delivery.",
        "Claims must be filed in writing within 30 days of discovering a defect.",
        "The supplier repairs or replaces defective parts at its own cost.",
    )
    for i, line in enumerate(body):
        page.insert_text((72, 110 + 18 * i), line, fontsize=11)
    doc.save(path)


class ClosingPaperTrail(PaperTrail):
    closed = 0

    def close(self) -> None:
        type(self).closed += 1


def real_pipeline(tmp_path, answer: str) -> PaperTrail:
    settings = Settings(data_dir=tmp_path / "data", ocr=False)
    embedder = HashEmbedder()
    return ClosingPaperTrail(
        settings,
        embedder=embedder,
        store=ChromaStore.ephemeral(model=embedder.name),
        generator=ScriptedGenerator(answer),
    )


def test_batch_mode_answers_with_a_verified_citation_and_a_png(tmp_path, restore_logging):
    pdf = tmp_path / "agreement.pdf"
    make_pdf(pdf)
    pipeline = real_pipeline(tmp_path, "The warranty period is 24 months from delivery [1].")
    out = io.StringIO()
    code = main(
        ["--env-file", os.devnull, "local", "--pdf", str(pdf)]
        + ["--ask", "How long is the warranty?", "--out", str(tmp_path / "png")],
        env={},
        pipeline=pipeline,
        stdout=out,
    )
    text = out.getvalue()
    assert code == 0, text
    assert "Indexed agreement.pdf. Ask me a question about it." in text
    assert "mention" not in text.lower()  # nobody is mentioned at a terminal
    assert "The warranty period is 24 months from delivery [1]." in text
    assert "  [1] agreement.pdf, page 1" in text
    assert "1 citation verified" in text
    pngs = list((tmp_path / "png").glob("*.png"))
    assert len(pngs) == 1 and pngs[0].read_bytes().startswith(b"\x89PNG")
    assert f"Image: {pngs[0]}" in text
    assert pipeline.documents("local:console")[0].name == "agreement.pdf"


def test_batch_mode_exits_1_when_a_file_is_missing(tmp_path, restore_logging):
    pipeline = real_pipeline(tmp_path, "unused")
    out = io.StringIO()
    code = main(
        ["--env-file", os.devnull, "local", "--pdf", str(tmp_path / "nope.pdf")]
        + ["--ask", "anything?"],
        env={},
        pipeline=pipeline,
        stdout=out,
    )
    assert code == 1
    assert "No such file" in out.getvalue() and "I don't see a PDF here yet" in out.getvalue()


class SigtermOnRead(io.StringIO):
    """stdin whose second read is interrupted by SIGTERM, as `render`/`docker stop` do."""

    def readline(self, *args):
        if self.tell() > 0:
            os.kill(os.getpid(), signal.SIGTERM)
        return super().readline(*args)


def test_sigterm_shuts_down_cleanly(tmp_path, restore_logging, capsys):
    pipeline = real_pipeline(tmp_path, "unused")
    before = ClosingPaperTrail.closed
    previous = signal.getsignal(signal.SIGTERM)
    code = main(
        ["--env-file", os.devnull, "local"],
        env={"PAPERTRAIL_LOG_LEVEL": "INFO"},
        pipeline=pipeline,
        stdin=SigtermOnRead("/list\nnot reached\n"),
        stdout=io.StringIO(),
    )
    assert code == 0
    assert ClosingPaperTrail.closed == before + 1  # the pipeline was closed
    assert signal.getsignal(signal.SIGTERM) is previous  # handler restored
    err = capsys.readouterr().err
    assert "interrupted" in err and err.rstrip().endswith("stopped")


class SigtermTurnedIntoAnError(io.StringIO):
    """stdin whose second read is interrupted by SIGTERM inside a library that turns the
    interrupt into an error of its own, as pydantic-core does while building a class."""

    def readline(self, *args):
        if self.tell() > 0:
            try:
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(5)  # the handler's KeyboardInterrupt lands here
            except KeyboardInterrupt as stop:
                raise ValueError("'cls' must be valid as the first argument") from stop
        return super().readline(*args)


def test_a_stop_a_library_turned_into_an_error_is_still_a_clean_stop(
    tmp_path, restore_logging, capsys
):
    code = main(
        ["--env-file", os.devnull, "local"],
        env={"PAPERTRAIL_LOG_LEVEL": "INFO"},
        pipeline=real_pipeline(tmp_path, "unused"),
        stdin=SigtermTurnedIntoAnError("/list\nnot reached\n"),
        stdout=io.StringIO(),
    )
    assert code == 0
    err = capsys.readouterr().err
    assert "interrupted (ValueError while stopping)" in err and "Traceback" not in err
    assert err.rstrip().endswith("stopped")


def test_same_service_class_as_the_bots(tmp_path):
    # the console needs nothing beyond ChatService.handle: a real one works unchanged
    service = ChatService(real_pipeline(tmp_path, "unused"), Settings(ocr=False))
    c, out = console(service, tmp_path)
    c.command("/list")
    c.command("/help")
    assert "No documents are indexed in this channel yet" in out.getvalue()


class ProbingStdin(io.StringIO):
    """stdin that checks /healthz while the console waits for input."""

    def __init__(self, port: int) -> None:
        super().__init__("/quit\n")
        self.port, self.health = port, None

    def readline(self, *args):
        url = f"http://127.0.0.1:{self.port}/healthz"
        with urllib.request.urlopen(url, timeout=5) as resp:
            self.health = json.loads(resp.read())
        return super().readline(*args)


def test_port_serves_healthz_while_running(tmp_path, restore_logging):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    stdin = ProbingStdin(port)
    code = main(
        ["--env-file", os.devnull, "local", "--port", str(port)],
        env={},
        pipeline=real_pipeline(tmp_path, "unused"),
        stdin=stdin,
        stdout=io.StringIO(),
    )
    assert code == 0
    assert stdin.health["status"] == "ok" and stdin.health["mode"] == "local"
    assert stdin.health["llm"] is False
    with pytest.raises(OSError):  # closed on the way out
        urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2)
