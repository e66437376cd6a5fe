"""carry_over: a changed index key (contextual embedding, chunk size) keeps the libraries,
from the kept PDFs, without bringing back what was forgotten."""

from __future__ import annotations

import logging
import threading

from papertrail.pipeline import CarryOver, PaperTrail
from papertrail.settings import Settings
from papertrail.store.chroma import indexed_as, open_store
from tests import pdfs
from tests.fakes import HashEmbedder, LocalLeases

QUESTION = "How many identical layers is the encoder composed of?"


class Interrupting(HashEmbedder):
    """A HashEmbedder that runs ``during`` once, as it embeds: something another thread
    does while a document is being indexed."""

    def __init__(self) -> None:
        super().__init__()
        self.during = None

    def embed(self, texts):
        during, self.during = self.during, None
        if during is not None:
            during()
        return super().embed(texts)


class Overlapping(HashEmbedder):
    """A HashEmbedder whose first call waits (up to ``wait`` s) for a second call to start
    beside it: ``most`` is how many calls ran at once (2 when two indexings overlap)."""

    def __init__(self, wait: float = 2.0) -> None:
        super().__init__()
        self.wait, self.most, self._now = wait, 0, 0
        self._lock, self._second = threading.Lock(), threading.Event()

    def embed(self, texts):
        with self._lock:
            self._now += 1
            self.most = max(self.most, self._now)
            first = self.calls == 0
            if self._now > 1:
                self._second.set()
        try:
            if first:
                self._second.wait(self.wait)
            return super().embed(texts)
        finally:
            with self._lock:
                self._now -= 1


def opened(tmp_path, *, leases=None, embedder=None, **overrides) -> PaperTrail:
    """A pipeline on the data folder ``tmp_path`` as ``from_settings`` opens it: the index
    key from the embedder's name, the contextual setting and the chunking."""
    embedder = embedder or HashEmbedder()
    settings = Settings(data_dir=tmp_path, **overrides)
    store = open_store(settings, model=indexed_as(embedder.name, settings))
    return PaperTrail(settings, embedder=embedder, store=store, leases=leases)


def test_a_library_indexed_plain_is_answerable_after_turning_contextual_on(tmp_path):
    old = opened(tmp_path, contextual=False)
    doc = old.ingest("c1", "paper.pdf", pdfs.paper_pdf()).document
    new = opened(tmp_path, contextual=True)
    assert new.documents("c1") == []  # the new key's collection starts empty
    assert new.carry_over() == CarryOver(carried=1, channels=1)
    [carried] = new.documents("c1")
    assert (carried.doc_id, carried.name, carried.chunks) == (doc.doc_id, "paper.pdf", doc.chunks)
    assert new.embedder.texts_embedded == doc.chunks  # embedded again, with their context
    answer = new.ask("c1", QUESTION)
    assert answer.grounded and answer.citations and answer.snippets


def test_a_new_chunk_size_rereads_the_pdf(tmp_path):
    old = opened(tmp_path, contextual=False)
    doc = old.ingest("c1", "paper.pdf", pdfs.paper_pdf()).document
    new = opened(tmp_path, chunk_size=300, chunk_overlap=30)
    assert new.carry_over().carried == 1
    chunks = new.store.chunks("c1")
    assert len(chunks) == new.documents("c1")[0].chunks > doc.chunks  # cut anew, smaller
    assert max(len(c.text) for c in chunks) < max(len(c.text) for c in old.store.chunks("c1"))


def test_carrying_twice_carries_nothing_the_second_time(tmp_path):
    opened(tmp_path, contextual=False).ingest("c1", "paper.pdf", pdfs.paper_pdf())
    new = opened(tmp_path, contextual=True)
    assert new.carry_over().carried == 1
    embedded = new.embedder.texts_embedded
    assert new.carry_over() == CarryOver()
    assert new.embedder.texts_embedded == embedded


def test_a_document_forgotten_before_the_change_does_not_come_back(tmp_path):
    old = opened(tmp_path, contextual=False)
    old.ingest("c1", "paper.pdf", pdfs.paper_pdf())
    old.ingest("c1", "table.pdf", pdfs.table_pdf())
    old.forget("c1", "paper.pdf")
    new = opened(tmp_path, contextual=True)
    assert new.carry_over() == CarryOver(carried=1, channels=1)
    assert [d.name for d in new.documents("c1")] == ["table.pdf"]


def test_a_document_forgotten_after_carrying_stays_gone_under_every_key(tmp_path):
    opened(tmp_path, contextual=False).ingest("c1", "paper.pdf", pdfs.paper_pdf())
    new = opened(tmp_path, contextual=True)
    new.carry_over()
    assert [d.name for d in new.forget("c1", "paper.pdf")] == ["paper.pdf"]
    assert new.carry_over() == CarryOver()
    rolled_back = opened(tmp_path, contextual=False)
    assert rolled_back.documents("c1") == [] and rolled_back.store.chunks("c1") == []
    assert rolled_back.carry_over() == CarryOver()  # nor does it come back the other way


def test_a_document_waiting_to_be_carried_can_be_forgotten(tmp_path):
    opened(tmp_path, contextual=False).ingest("c1", "paper.pdf", pdfs.paper_pdf())
    new = opened(tmp_path, contextual=True)
    assert [d.name for d in new.find("c1")] == ["paper.pdf"]  # listed for ``forget`` already
    assert [d.name for d in new.forget("c1", "paper.pdf")] == ["paper.pdf"]
    assert new.carry_over() == CarryOver()
    assert opened(tmp_path, contextual=False).documents("c1") == []


def test_a_document_forgotten_while_another_worker_carries_it_stays_gone(tmp_path):
    old = opened(tmp_path, contextual=False)
    old.ingest("c1", "paper.pdf", pdfs.paper_pdf())
    old.ingest("c1", "table.pdf", pdfs.table_pdf())
    leases, embedder = LocalLeases(), Interrupting()
    carrier = opened(tmp_path, contextual=True, leases=leases, embedder=embedder)
    other = opened(tmp_path, contextual=True, leases=leases)  # where the forget command lands
    forgotten = []  # handled while the carrier embeds paper.pdf (the oldest, carried first)
    embedder.during = lambda: forgotten.extend(d.name for d in other.forget("c1", "paper.pdf"))
    assert carrier.carry_over() == CarryOver(carried=1, channels=1, skipped=1)
    assert forgotten == ["paper.pdf"]
    for worker in (carrier, other, opened(tmp_path, contextual=False)):
        assert [d.name for d in worker.documents("c1")] == ["table.pdf"]
        assert {c.doc_name for c in worker.store.chunks("c1")} == {"table.pdf"}
    assert opened(tmp_path, contextual=True).carry_over() == CarryOver()  # nor on the next run


def test_a_document_forgotten_in_this_worker_while_it_is_carried_is_skipped(tmp_path, caplog):
    old = opened(tmp_path, contextual=False)
    old.ingest("c1", "paper.pdf", pdfs.paper_pdf())
    old.ingest("c1", "table.pdf", pdfs.table_pdf())
    embedder = Interrupting()
    new = opened(tmp_path, contextual=True, embedder=embedder)
    embedder.during = lambda: new.forget("c1", "paper.pdf")  # handled while paper.pdf embeds
    with caplog.at_level(logging.INFO, logger="papertrail.pipeline.carrying"):
        assert new.carry_over() == CarryOver(carried=1, channels=1, skipped=1)
    assert "forgotten in c1 while it was carried over" in caplog.text
    assert "failed" not in caplog.text  # not a failure to try again: it is gone
    assert [d.name for d in new.documents("c1")] == ["table.pdf"]
    assert opened(tmp_path, contextual=True).carry_over() == CarryOver()


def test_the_carry_over_and_uploads_share_the_indexing_limit(tmp_path):
    for limit, at_once in ((2, 2), (1, 1)):  # 2 first: the embedder does see an overlap
        old = opened(tmp_path / str(limit), contextual=False)
        old.ingest("c1", "paper.pdf", pdfs.paper_pdf())
        embedder = Overlapping()
        new = opened(
            tmp_path / str(limit), contextual=True, embedder=embedder, max_concurrent_indexing=limit
        )
        results: list[object] = []
        carry = threading.Thread(target=lambda n=new, r=results: r.append(n.carry_over()))
        carry.start()
        results.append(new.ingest("c2", "table.pdf", pdfs.table_pdf()).document.name)
        carry.join(60)
        assert CarryOver(carried=1, channels=1) in results and "table.pdf" in results
        assert embedder.most == at_once


def test_a_document_without_its_pdf_is_skipped_and_left_where_it_was(tmp_path):
    old = opened(tmp_path, contextual=False)
    lost = old.ingest("c1", "paper.pdf", pdfs.paper_pdf()).document
    old.ingest("c1", "table.pdf", pdfs.table_pdf())
    old.files.delete("c1", lost.doc_id)  # its file lost (not forgotten: the record stays)
    new = opened(tmp_path, contextual=True)
    assert new.carry_over() == CarryOver(carried=1, channels=1, skipped=1)
    assert [d.name for d in new.documents("c1")] == ["table.pdf"]
    assert len(old.documents("c1")) == 2


def test_each_channel_gets_its_own_documents_only(tmp_path):
    old, data = opened(tmp_path, contextual=False), pdfs.paper_pdf()
    paper = old.ingest("c1", "paper.pdf", data).document
    table = old.ingest("c2", "table.pdf", pdfs.table_pdf()).document
    old.ingest("c2", "paper copy.pdf", data)  # the same file, named otherwise
    new = opened(tmp_path, contextual=True)
    assert new.carry_over() == CarryOver(carried=3, channels=2)
    assert [d.name for d in new.documents("c1")] == ["paper.pdf"]
    assert [d.name for d in new.documents("c2")] == ["table.pdf", "paper copy.pdf"]
    assert {c.doc_id for c in new.store.chunks("c1")} == {paper.doc_id}
    assert {c.doc_id for c in new.store.chunks("c2")} == {table.doc_id, paper.doc_id}


def test_an_encrypted_pdf_is_carried_as_the_same_document(tmp_path):
    old = opened(tmp_path, contextual=False)
    doc = old.ingest("c1", "locked.pdf", pdfs.encrypted_pdf("s3cret"), password="s3cret").document
    new = opened(tmp_path, contextual=True)
    assert new.carry_over().carried == 1  # from the decrypted copy kept for images
    assert [d.doc_id for d in new.documents("c1")] == [doc.doc_id]
    assert new.carry_over() == CarryOver()


def test_a_failure_is_logged_keeps_the_pdf_and_is_tried_again(tmp_path, caplog):
    doc = opened(tmp_path, contextual=False).ingest("c1", "paper.pdf", pdfs.paper_pdf()).document
    hasty = opened(tmp_path, contextual=True, max_index_seconds=0)  # every indexing times out
    with caplog.at_level(logging.INFO, logger="papertrail.pipeline.carrying"):
        assert hasty.carry_over() == CarryOver(failed=1)
    assert "carrying paper.pdf" in caplog.text and "1 failed" in caplog.text
    assert hasty.files.load("c1", doc.doc_id) is not None  # kept: the old key's copy needs it
    assert opened(tmp_path, contextual=True).carry_over().carried == 1


def test_a_closed_pipeline_carries_nothing_more(tmp_path):
    opened(tmp_path, contextual=False).ingest("c1", "paper.pdf", pdfs.paper_pdf())
    new = opened(tmp_path, contextual=True)
    new.close()  # the bot stops while its libraries are carried over
    assert new.carry_over() == CarryOver()
    assert opened(tmp_path, contextual=True).carry_over().carried == 1  # the next start


def test_two_workers_carrying_at_once_index_each_document_once(tmp_path):
    opened(tmp_path, contextual=False).ingest("c1", "paper.pdf", pdfs.paper_pdf())
    opened(tmp_path, contextual=False).ingest("c2", "table.pdf", pdfs.table_pdf())
    leases = LocalLeases()  # what Redis is to worker processes
    workers = [opened(tmp_path, contextual=True, leases=leases) for _ in range(2)]
    results: list[CarryOver] = []
    threads = [threading.Thread(target=lambda w=w: results.append(w.carry_over())) for w in workers]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert sum(r.carried for r in results) == 2 and not any(r.failed for r in results)
    assert [d.name for d in workers[0].documents("c1")] == ["paper.pdf"]
    assert [d.name for d in workers[1].documents("c2")] == ["table.pdf"]
