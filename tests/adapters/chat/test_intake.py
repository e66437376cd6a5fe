"""Intake: a post's PDFs download side by side, and a file that failed is not fetched again."""

from __future__ import annotations

import threading

from adapters.chat.failed import RETRY_AFTER, FailedFiles
from adapters.chat.intake import Attachment
from adapters.chat.service import ChatService, Mention
from papertrail.errors import PaperTrailError
from papertrail.pipeline import PaperTrail
from papertrail.settings import Settings
from papertrail.store.chroma import ChromaStore
from tests import pdfs
from tests.fakes import HashEmbedder


def service(tmp_path) -> ChatService:
    embedder = HashEmbedder()
    pt = PaperTrail(
        Settings(data_dir=tmp_path),
        embedder=embedder,
        store=ChromaStore.ephemeral(model=embedder.name),
    )
    return ChatService(pt)


def test_the_pdfs_of_one_post_are_downloaded_side_by_side(tmp_path):
    together = threading.Barrier(3, timeout=10)  # only passes if all three wait at once
    texts = ["The harbour is fourteen metres deep.", "The mirror is 6.5 metres wide.", "x" * 9]
    files = [pdfs.simple_pdf([t + " More words so the page counts as text."]) for t in texts]

    def attachment(n: int) -> Attachment:
        def fetch() -> bytes:
            together.wait()  # a sequential download would break the barrier here
            return files[n]

        return Attachment(f"f{n}.pdf", fetch, size=len(files[n]), key=f"F{n}")

    svc = service(tmp_path)
    reply = svc.index_shared("ch", [attachment(n) for n in range(3)])
    assert reply.kind == "indexed", reply.text
    assert len(svc.pipeline.documents("ch")) == 3


def test_a_file_that_failed_is_not_downloaded_again_until_it_changes(tmp_path):
    downloads = []

    def html(key: str, size: int) -> Attachment:
        def fetch() -> bytes:
            downloads.append(key)
            return b"<!DOCTYPE html><html>sign in</html>"

        return Attachment("report.pdf", fetch, size=size, key=key, source="history")

    svc = service(tmp_path)
    good = Attachment("paper.pdf", pdfs.paper_pdf, key="F-good", source="history")
    for _ in range(3):  # every later question in the channel sees the same bad old file
        reply = svc.handle(Mention("ch", "How many layers?", (html("F-bad", 40), good)))
        assert reply.kind == "answer", reply.text
    assert downloads == ["F-bad"]
    svc.handle(Mention("ch", "How many layers?", (html("F-bad", 41), good)))  # it changed
    assert downloads == ["F-bad", "F-bad"]
    first = svc.handle(Mention("ch2", "Layers?", (html("F-bad", 41),)))
    again = svc.handle(Mention("ch2", "Layers?", (html("F-bad", 41),)))
    assert first.kind == again.kind == "error" and first.text == again.text  # same words
    assert downloads == ["F-bad", "F-bad"]


def test_a_failed_download_is_tried_again_after_a_while():
    now = [0.0]
    failed = FailedFiles(clock=lambda: now[0])
    att = Attachment("a.pdf", bytes, size=10, key="F1")
    failed.add(att, PaperTrailError("Could not download a.pdf.", code="download"))
    assert failed.get(att) is not None
    now[0] = RETRY_AFTER + 1
    assert failed.get(att) is None
    failed.add(att, PaperTrailError("Not a PDF.", code="not_pdf"))
    now[0] = 10 * RETRY_AFTER
    assert failed.get(att) is not None  # the file itself is at fault: until it changes
    assert failed.get(Attachment("a.pdf", bytes, size=10, key="")) is None  # no id, no memory
