"""ChatService: commands, finding PDFs, errors as replies, per-channel work."""

from __future__ import annotations

import threading
import time
from dataclasses import replace

from adapters.chat.replies import UNGROUNDED
from adapters.chat.service import Attachment, ChatService, Mention
from papertrail.domains import KNOWN
from papertrail.errors import PaperTrailError
from papertrail.pipeline import PaperTrail
from papertrail.settings import Settings
from papertrail.store.chroma import ChromaStore
from tests import pdfs
from tests.fakes import HashEmbedder, ScriptedGenerator


def service(tmp_path, generator=None, domains=KNOWN, **overrides) -> ChatService:
    embedder = HashEmbedder()
    pt = PaperTrail(
        Settings(data_dir=tmp_path, **overrides),
        embedder=embedder,
        store=ChromaStore.ephemeral(model=embedder.name),
        generator=generator,
        domains=domains,
    )
    return ChatService(pt)


def pdf(name="paper.pdf", data=None, source="message", key="", fetched=None, post=""):
    data = data if data is not None else pdfs.paper_pdf()

    def fetch():
        if fetched is not None:
            fetched.append(name)
        return data

    return Attachment(name=name, fetch=fetch, size=len(data), key=key, source=source, post=post)


def test_mention_with_pdf_and_question_answers_with_sources_and_images(tmp_path):
    svc = service(tmp_path)
    lines = []
    reply = svc.handle(
        Mention("ch", "How many identical layers does the encoder have?", (pdf(),)), lines.append
    )
    assert reply.kind == "answer", reply.text
    assert reply.sources and reply.sources[0].title.startswith("[1] paper.pdf, page ")
    assert len(reply.images) == len(reply.sources)
    assert reply.images[0].filename.endswith(".png") and reply.images[0].png[:4] == b"\x89PNG"
    assert "extractive" in reply.footer and "verified" in reply.footer
    assert lines[:2] == ["Downloading paper.pdf…", "Indexing paper.pdf…"]
    assert lines[-1].endswith("4/4 pages")


def test_help_list_forget(tmp_path):
    svc = service(tmp_path)
    assert svc.handle(Mention("ch", "")).kind == "help"
    assert svc.handle(Mention("ch", "help")).kind == "help"
    assert "No documents" in svc.handle(Mention("ch", "list")).text
    svc.handle(
        Mention("ch", "", (pdf(key="F1"),), user="u1")
    )  # upload without a question: just index
    listing = svc.handle(Mention("ch", "list"))
    assert "paper.pdf — 4 pages" in listing.text
    assert "No document called" in svc.handle(Mention("ch", "forget other.pdf")).text
    assert svc.handle(Mention("ch", "forget paper.pdf", user="u1")).text == "Forgot paper.pdf."
    assert "No documents" in svc.handle(Mention("ch", "list")).text


def test_the_wording_says_how_to_ask_on_each_platform(tmp_path):
    svc = service(tmp_path)
    for channel in ("web:team", "local:console"):  # a question is simply typed there
        said = [svc.handle(Mention(channel, w)).text for w in ("list", "help")]
        said.append(svc.handle(Mention(channel, "", (pdf(),))).text)
        said.append(svc.handle(Mention(channel + "2", "What is it?")).text)  # nothing indexed
        assert said[2] == "Indexed paper.pdf. Ask me a question about it."
        assert all("mention" not in s.lower() for s in said), said
        assert all(f"`{w}" in said[1] for w in ("ask", "list", "forget", "help"))
    slack = [svc.handle(Mention("slack:T1:C1", w)).text for w in ("list", "help")]
    slack.append(svc.handle(Mention("slack:T1:C1", "", (pdf(),))).text)
    assert "mention me" in slack[0] and "Mention me" in slack[1]
    assert slack[2] == "Indexed paper.pdf. Mention me with a question about it."


COVER = """UNITED STATES SECURITIES AND EXCHANGE COMMISSION
FORM 10-Q
QUARTERLY REPORT PURSUANT TO SECTION 13 OR 15(d)
For the quarterly period ended July 1, 2023
Initrode Systems, Inc.
(Exact name of registrant as specified in its charter)
Trading Symbol(s)
INIT
Indicate by check mark whether the registrant has filed all reports."""


def test_list_shows_what_each_document_was_read_to_be(tmp_path):
    svc = service(tmp_path, domains=KNOWN)
    cover = pdfs.simple_pdf([COVER, "Revenue was 12 million in the third quarter of fiscal 2023."])
    svc.handle(Mention("ch", "", (pdf("scan-0042.pdf", data=cover), pdf())))
    listing = svc.handle(Mention("ch", "list")).text
    filing = "Initrode Systems, Inc., quarterly report (10-Q) · quarterly report (10-Q)"
    assert f"{filing} · Q3 fiscal 2023 (as of 2023-07-01)" in listing  # cover and first pages
    assert pdfs.PAPER_TITLE in listing  # a paper: its title, no kind, no period


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


def yes() -> bool:
    return True


def no() -> bool:
    return False


def test_a_drop_is_indexed_once_and_a_later_question_needs_no_download(tmp_path):
    svc = service(tmp_path)
    fetched = []
    drop = pdf(key="F1", fetched=fetched, post="p1")
    first = svc.index_shared("ch", [drop])
    again = svc.index_shared("ch", [drop])  # a duplicate delivery
    assert (first.kind, first.text) == ("indexed", "Indexed paper.pdf.")
    assert again.kind == "indexed" and fetched == ["paper.pdf"]
    reply = svc.handle(Mention("ch", "How many identical layers does the encoder have?"))
    assert reply.kind == "answer" and reply.sources and fetched == ["paper.pdf"]


def test_a_question_waits_for_the_pdf_being_indexed_in_its_channel(tmp_path):
    svc = service(tmp_path)
    gate = threading.Event()

    def slow_fetch():
        gate.wait(10)
        return pdfs.paper_pdf()

    drop = threading.Thread(
        target=svc.index_shared, args=("ch", [Attachment("paper.pdf", slow_fetch, key="F1")])
    )
    drop.start()
    time.sleep(0.1)  # the drop holds the channel now
    asked, lines = [], []
    mention = Mention("ch", "How many identical layers?")
    question = threading.Thread(target=lambda: asked.append(svc.handle(mention, lines.append)))
    question.start()
    time.sleep(0.2)
    assert not asked  # waiting, not answering "no PDF here" nor indexing again
    assert svc.indexing("ch") == ["paper.pdf"] and svc.indexing("other") == []
    assert lines == ["Waiting for paper.pdf to finish indexing…"]
    gate.set()
    drop.join(10)
    question.join(10)
    assert asked[0].kind == "answer" and asked[0].sources


def test_a_non_pdf_file_in_a_drop_is_ignored_and_a_fake_pdf_is_named(tmp_path):
    svc = service(tmp_path)
    picture = Attachment("photo.png", lambda: b"png", mimetype="image/png", key="F9")
    assert svc.index_shared("ch", [picture]).kind == "indexed"
    fake = svc.index_shared("ch", [pdf("page.pdf", b"<html>sign in</html>", key="F2")])
    assert fake.kind == "error" and "PDF" in fake.text


def test_encrypted_pdf_reply_says_what_to_do_in_chat(tmp_path):
    reply = service(tmp_path).index_shared("ch", [pdf("locked.pdf", pdfs.encrypted_pdf("s3cret"))])
    assert reply.kind == "error" and "unprotected copy" in reply.text
    assert "--password" not in reply.text


def test_deleting_a_file_forgets_it_unless_the_same_bytes_are_still_shared(tmp_path):
    svc, data = service(tmp_path), pdfs.paper_pdf()
    svc.index_shared("ch", [pdf(data=data, key="F1", post="m1")])
    svc.index_shared("ch", [pdf(data=data, key="F2", post="m2")])  # the same bytes, twice
    svc.index_shared("other", [pdf(data=data, key="F1")])  # one Slack file shared in two channels
    assert svc.forget_files(["F1"], channel="ch") == []  # F2 is still live in ch
    assert [d.name for d in svc.pipeline.documents("ch")] == ["paper.pdf"]
    assert [d.name for d in svc.forget_post("m2")] == ["paper.pdf"]
    assert svc.pipeline.documents("ch") == []
    assert [d.name for d in svc.pipeline.documents("other")] == ["paper.pdf"]
    assert [d.name for d in svc.forget_files(["F1"])] == ["paper.pdf"]  # file_deleted: all


def test_shares_survive_a_restart(tmp_path):
    svc = service(tmp_path)
    svc.index_shared("ch", [pdf(key="F1")])
    again = ChatService(svc.pipeline)  # a new process on the same data directory
    assert [d.name for d in again.forget_files(["F1"])] == ["paper.pdf"]


def test_only_the_sharer_or_an_admin_may_forget_and_only_admins_forget_all(tmp_path):
    svc = service(tmp_path)
    svc.index_shared("ch", [replace(pdf(key="F1"), owner="alice")])
    refused = svc.handle(Mention("ch", "forget paper.pdf", user="bob", admin=no))
    assert refused.kind == "error" and "Only the person who shared paper.pdf" in refused.text
    refused = svc.handle(Mention("ch", "forget all", user="alice", admin=no))
    assert refused.kind == "error" and "Only a workspace admin" in refused.text
    assert svc.pipeline.documents("ch")
    assert svc.handle(Mention("ch", "forget paper.pdf", user="alice")).kind == "forget"
    svc.index_shared("ch", [pdf(key="F2")])
    assert svc.handle(Mention("ch", "forget all", user="carol", admin=yes)).kind == "forget"
    assert svc.pipeline.documents("ch") == []


def test_a_follow_up_in_a_thread_is_read_against_the_question_before_it(tmp_path):
    gen = ScriptedGenerator(
        "The decoder is also composed of a stack of N = 6 identical layers [1]."
    )
    svc = service(tmp_path, generator=gen)
    svc.index_shared("ch", [pdf(key="F1")])
    assert not svc.in_conversation("t1")
    svc.handle(Mention("ch", "How many identical layers are in the encoder stack?", thread="t1"))
    assert svc.in_conversation("t1") and svc.in_conversation("t1", "And the decoder?")
    assert not svc.in_conversation("t1", "thanks!") and not svc.in_conversation("t1", "ok 👍")
    reply = svc.handle(Mention("ch", "And the decoder?", thread="t1"))
    asked, hits = gen.asked[-1]
    assert asked == "How many identical layers are in the decoder stack?"
    assert "Read as: How many identical layers are in the decoder stack?" in reply.footer
    assert any("decoder" in h.chunk.text.lower() for h in hits[:3])
    svc.handle(Mention("ch", "And the decoder?", thread="t2"))  # no history: taken as is
    assert gen.asked[-1][0] == "And the decoder?"


class RegistryCountingStore(ChromaStore):
    """A real store that counts reads of a channel's document registry."""

    reads: int = 0

    def all_documents(self, channel):
        self.reads += 1
        return super().all_documents(channel)


def test_a_question_reads_the_channel_registry_once(tmp_path):
    embedder = HashEmbedder()
    store = RegistryCountingStore.ephemeral(model=embedder.name)
    pt = PaperTrail(Settings(data_dir=tmp_path), embedder=embedder, store=store)
    svc = ChatService(pt)
    svc.handle(Mention("ch", "", (pdf(key="F1"),)))
    store.reads = 0
    reply = svc.handle(Mention("ch", "How many identical layers does the encoder have?"))
    assert reply.kind == "answer" and store.reads == 1
    store.reads = 0  # the same file attached again: a known share, not downloaded
    again = (pdf(key="F1"),)
    reply = svc.handle(Mention("ch", "How many identical layers does the encoder have?", again))
    assert reply.kind == "answer" and store.reads == 1
