"""Pipelines sharing one index: two workers on a real Chroma server and Redis; a lost lease."""

from __future__ import annotations

import hashlib
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

from bot.redis.coord import RedisLeases
from papertrail.embed.stream import IN_FLIGHT
from papertrail.errors import PaperTrailError
from papertrail.pipeline import PaperTrail
from papertrail.settings import Settings
from papertrail.store.blobs import ChromaBlobs
from papertrail.store.chroma import ChromaStore
from tests import pdfs
from tests.fakes import HashEmbedder, LocalLeases


class GatedEmbedder(HashEmbedder):
    """Signals when it first embeds, then waits: holds an indexing in progress."""

    def __init__(self) -> None:
        super().__init__()
        self.started, self.go = threading.Event(), threading.Event()

    def embed(self, texts):
        self.started.set()
        self.go.wait(30)
        return super().embed(texts)


def worker(tmp_path, chroma, redis_client, embedder=None) -> PaperTrail:
    """One worker: its own data folder, the shared Chroma server and Redis leases."""
    embedder = embedder or HashEmbedder()
    folder = tmp_path / uuid.uuid4().hex[:8]
    settings = Settings(data_dir=folder, chroma_host=chroma.host, chroma_port=chroma.port)
    store = ChromaStore.http(chroma.host, chroma.port, model=embedder.name)
    return PaperTrail(
        settings,
        embedder=embedder,
        store=store,
        leases=RedisLeases(redis_client),
        blobs=ChromaBlobs(store.client),
    )


def test_one_worker_indexes_a_file_the_other_waits_and_serves_it(
    tmp_path, chroma_server, redis_client
):
    channel = f"slack:T1:C{uuid.uuid4().hex[:6]}"
    gated = GatedEmbedder()
    a = worker(tmp_path, chroma_server, redis_client, gated)
    b_embedder = HashEmbedder()
    b = worker(tmp_path, chroma_server, redis_client, b_embedder)
    data = pdfs.paper_pdf()
    with ThreadPoolExecutor(2) as pool:
        first = pool.submit(a.ingest, channel, "paper.pdf", data)
        assert gated.started.wait(30)
        second = pool.submit(b.ingest, channel, "paper.pdf", data)  # waits on A's lease
        gated.go.set()
        ra, rb = first.result(60), second.result(60)
    assert ra.new and ra.embedded == ra.document.chunks
    assert not rb.new and rb.embedded == 0 and b_embedder.texts_embedded == 0
    assert [d.doc_id for d in b.documents(channel)] == [ra.document.doc_id]
    assert len(b.store.chunks(channel)) == ra.document.chunks


def test_a_worker_renders_images_of_a_pdf_it_never_downloaded(
    tmp_path, chroma_server, redis_client
):
    channel = f"slack:T1:C{uuid.uuid4().hex[:6]}"
    a = worker(tmp_path, chroma_server, redis_client)
    b = worker(tmp_path, chroma_server, redis_client)
    doc = a.ingest(channel, "paper.pdf", pdfs.paper_pdf()).document
    assert not b.files.path(channel, doc.doc_id).exists()
    answer = b.ask(channel, "How many identical layers is the encoder composed of?")
    assert answer.citations and len(answer.snippets) >= 1
    assert answer.snippets[0].png.startswith(b"\x89PNG")
    assert b.files.path(channel, doc.doc_id).exists()  # cached for the next answer
    shared = ChromaBlobs(a.store.client)
    assert shared.get(a.files.key(channel, doc.doc_id)) is not None
    assert b.files.kept(channel, doc.doc_id)
    a.forget(channel, "paper.pdf")
    assert shared.get(a.files.key(channel, doc.doc_id)) is None
    assert not b.files.kept(channel, doc.doc_id)  # though b still holds its cached copy


def test_shared_blobs_span_several_records_and_reject_a_damaged_copy(chroma_server):
    store = ChromaStore.http(chroma_server.host, chroma_server.port)
    blobs = ChromaBlobs(store.client)
    data = bytes(range(256)) * 9000  # 2.3 MB: three records
    blobs.put("k1/doc.pdf", data)
    assert blobs.get("k1/doc.pdf") == data and blobs.has("k1/doc.pdf")
    col = store.client.get_collection("papertrail-files")
    col.delete(ids=["k1/doc.pdf/1"])  # e.g. a writer killed half-way
    assert blobs.get("k1/doc.pdf") is None and not blobs.has("k1/doc.pdf")
    assert blobs.get("never/put.pdf") is None and not blobs.has("never/put.pdf")
    blobs.put("k2/doc.pdf", data)
    blobs.delete("k2/doc.pdf")
    assert not blobs.has("k2/doc.pdf")


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_worker_that_lost_its_lease_stops_and_leaves_the_new_holders_work(tmp_path):
    clock = Clock()
    leases = LocalLeases(clock)
    taken: list[str] = []

    class StallingEmbedder(HashEmbedder):
        def embed(self, texts):
            if self.calls == 1:  # a long pause after the first batch: the lease expires
                clock.now += 100
                taken.append(leases.acquire("index:c1:" + doc_id, 100))  # another worker
                time.sleep(0.3)  # the heartbeat notices
            return super().embed(texts)

    embedder = StallingEmbedder()
    pt = PaperTrail(
        Settings(data_dir=tmp_path),
        embedder=embedder,
        store=ChromaStore.ephemeral(model=embedder.name),
        leases=leases,
    )
    pt.embed_batch, pt.lease_ttl = 2, 0.15
    data = pdfs.paper_pdf()
    doc_id = hashlib.sha256(data).hexdigest()
    with pytest.raises(PaperTrailError) as err:
        pt.ingest("c1", "paper.pdf", data)
    assert err.value.code == "lease_lost" and taken[0]
    assert pt.store.get_document("c1", doc_id) is not None  # not deleted under the new holder
    # stopped before the next call it would start: the stalled call and the one queued
    # behind it (IN_FLIGHT calls run at once) end; none of the later ones (6 in all) starts
    assert 2 <= embedder.calls <= 1 + IN_FLIGHT < 6
