"""ChatService: commands, finding PDFs, errors as replies, per-channel work."""

from __future__ import annotations

import threading
import time

from adapters.replies import UNGROUNDED
from adapters.service import Attachment, ChatService, Mention
from papertrail.errors import PaperTrailError
from papertrail.pipeline import PaperTrail
from papertrail.settings import Settings
from papertrail.store import ChromaStore
from tests import pdfs
from tests.fakes import HashEmbedder, ScriptedGenerator


def service(tmp_path, generator=None, **overrides) -> ChatService:
    embedder = HashEmbedder()
    pt = PaperTrail(
        Settings(data_dir=tmp_path, **overrides),
        embedder=embedder,
        store=ChromaStore.ephemeral(model=embedder.name),
        generator=generator,
    )
    return ChatService(pt)


def pdf(name="paper.pdf", data=None, source="message", key="", fetched=None):
    data = data if data is not None else pdfs.paper_pdf()

    def fetch():
        if fetched is not None:
            fetched.append(name)
        return data

    return Attachment(name=name, fetch=fetch, size=len(data), key=key, source=source)


def test_mention_with_pdf_and_question_answers_with_sources_and_images(tmp_path):
    svc = service(tmp_path)
    lines = []
    reply = svc.handle(
        Mention("ch", "How many identical layers does the encoder have?", (pdf(),)), lines.append
    )
    assert reply.kind == "answer", reply.text
    assert reply.sources and reply.sources[0].startswith("[1] paper.pdf, page ")
    assert len(reply.images) == len(reply.sources)
    assert reply.images[0].filename.endswith(".png") and reply.images[0].png[:4] == b"\x89PNG"
    assert "extractive" in reply.footer and "verified" in reply.footer
    assert lines[0] == "Indexing paper.pdf…" and lines[-1].endswith("4/4 pages")


def test_help_list_forget(tmp_path):
    svc = service(tmp_path)
    assert svc.handle(Mention("ch", "")).kind == "help"
    assert svc.handle(Mention("ch", "help")).kind == "help"
    assert "No documents" in svc.handle(Mention("ch", "list")).text
    svc.handle(Mention("ch", "", (pdf(),)))  # upload without a question: just index
    listing = svc.handle(Mention("ch", "list"))
    assert "paper.pdf — 4 pages" in listing.text
    assert "No document called" in svc.handle(Mention("ch", "forget other.pdf")).text
    assert svc.handle(Mention("ch", "forget paper.pdf")).text == "Forgot paper.pdf."
    assert "No documents" in svc.handle(Mention("ch", "list")).text


def test_non_pdf_attachment_is_refused_by_name_without_download(tmp_path):
    fetched = []
    svc = service(tmp_path)
    att = Attachment(name="notes.docx", fetch=lambda: fetched.append(1) or b"x", size=10)
    reply = svc.handle(Mention("ch", "what is this?", (att,)))
    assert reply.kind == "error" and "notes.docx is not a PDF" in reply.text and not fetched


def test_oversized_attachment_is_refused_before_download(tmp_path):
    svc = service(tmp_path, max_pdf_mb=0.001)
    fetched = []
    reply = svc.handle(Mention("ch", "q?", (pdf(fetched=fetched),)))
    assert reply.kind == "error" and "PAPERTRAIL_MAX_PDF_MB" in reply.text and not fetched


def test_no_pdf_in_reach_says_how_to_add_one(tmp_path):
    reply = service(tmp_path).handle(Mention("ch", "what is the revenue?"))
    assert reply.kind == "error" and "Upload a PDF" in reply.text


def test_broken_pdf_gives_the_pipeline_message_and_service_keeps_working(tmp_path):
    svc = service(tmp_path)
    bad = svc.handle(Mention("ch", "q?", (pdf("bad.pdf", pdfs.corrupt_bytes()),)))
    assert bad.kind == "error" and "PDF" in bad.text
    good = svc.handle(Mention("ch", "How many layers?", (pdf(),)))
    assert good.kind == "answer"


def test_history_pdfs_are_indexed_and_bad_old_files_skipped(tmp_path):
    svc = service(tmp_path)
    old_bad = pdf("old.pdf", b"not a pdf", source="history")
    reply = svc.handle(
        Mention("ch", "How many identical layers?", (old_bad, pdf(source="history")))
    )
    assert reply.kind == "answer" and reply.sources


def test_known_file_key_is_not_downloaded_twice(tmp_path):
    svc = service(tmp_path)
    fetched = []
    att = pdf(key="F1", source="history", fetched=fetched)
    svc.handle(Mention("ch", "layers?", (att,)))
    svc.handle(Mention("ch", "heads?", (att,)))
    assert fetched == ["paper.pdf"]


def test_ungrounded_answer_carries_the_warning(tmp_path):
    svc = service(tmp_path, generator=ScriptedGenerator("It costs 99 dollars [1]."))
    reply = svc.handle(Mention("ch", "price?", (pdf(),)))
    assert UNGROUNDED in reply.warnings and not reply.sources and "1 removed" in reply.footer


def test_fetch_error_becomes_the_reply(tmp_path):
    def fetch():
        raise PaperTrailError("Add the files:read scope.", code="scope")

    reply = service(tmp_path).handle(Mention("ch", "q?", (Attachment("a.pdf", fetch),)))
    assert reply == reply.__class__(kind="error", text="Add the files:read scope.")


def test_unexpected_bug_becomes_a_generic_reply(tmp_path):
    def fetch():
        raise ZeroDivisionError

    reply = service(tmp_path).handle(Mention("ch", "q?", (Attachment("a.pdf", fetch),)))
    assert reply.kind == "error" and "went wrong" in reply.text


def test_other_channel_is_not_blocked_by_indexing(tmp_path):
    svc = service(tmp_path)
    svc.handle(Mention("fast", "", (pdf(),)))
    gate = threading.Event()

    def slow_fetch():
        gate.wait(10)
        return pdfs.numbers_pdf()

    big = threading.Thread(
        target=svc.handle, args=(Mention("slow", "q?", (Attachment("big.pdf", slow_fetch),)),)
    )
    big.start()
    t0 = time.monotonic()
    reply = svc.handle(Mention("fast", "How many identical layers?"))
    elapsed = time.monotonic() - t0
    gate.set()
    big.join(10)
    assert reply.kind == "answer" and elapsed < 5
