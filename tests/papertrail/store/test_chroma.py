"""ChromaStore: round trips, the indexing -> ready registry, and channel isolation."""

from __future__ import annotations

import hashlib
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st

from papertrail.errors import PaperTrailError
from papertrail.settings import Settings
from papertrail.store.chroma import EF_SEARCH, ChromaStore, open_store
from papertrail.store.keys import collection_name, index_key
from papertrail.types import Chunk, Document, Rect
from tests.fakes import HashEmbedder

EMB = HashEmbedder()
CHROMA_NAME = re.compile(r"^[a-zA-Z0-9][a-zA-Z0-9._-]{1,61}[a-zA-Z0-9]$")


def make_doc(channel: str, texts: list[str], *, seed: bytes = b"pdf", name: str = "a.pdf"):
    """A Document and its chunks, as the pipeline would build them from ``seed`` bytes."""
    doc_id = hashlib.sha256(seed).hexdigest()
    chunks = [
        Chunk(
            doc_id=doc_id,
            doc_name=name,
            index=i,
            page=1 + i // 2,
            text=text,
            # awkward floats: must come back bit for bit
            rects=(Rect(0.1 + i, 1 / 3, 100.25, 12.000000000000002), Rect(72.0, 80.5, 300.7, 91.1)),
            section="Item 7. Management’s Discussion" if i % 2 else "",
        )
        for i, text in enumerate(texts)
    ]
    doc = Document(
        channel=channel,
        doc_id=doc_id,
        name=name,
        pages=1 + len(texts) // 2,
        chunks=len(chunks),
        status="indexing",
        no_text_pages=(3, 7),
        ocr_pages=(2,),
        created=1_700_000_000.123456,
    )
    return doc, chunks


def ingest(store: ChromaStore, doc: Document, chunks: list[Chunk], *, commit: bool = True):
    store.begin(doc)
    store.add_chunks(doc.channel, chunks, EMB.embed([c.text for c in chunks]))
    return store.commit(doc) if commit else doc


@pytest.fixture
def store(tmp_path) -> ChromaStore:
    return ChromaStore.persistent(tmp_path / "chroma", model=EMB.name)


TEXTS = ["Revenue grew 12% to $5,794 million.", "Dividends: 1.2 per share — 配当", "Goodwill 9,764"]


def test_round_trip_keeps_chunks_and_document_fields_exactly(store):
    doc, chunks = make_doc("C1", TEXTS)
    ready = ingest(store, doc, chunks)
    assert ready.status == "ready"
    assert store.documents("C1") == [ready]
    assert store.get_document("C1", doc.doc_id) == ready
    got = store.get_document("C1", doc.doc_id)
    assert (got.no_text_pages, got.ocr_pages, got.created) == ((3, 7), (2,), doc.created)
    assert store.chunks("C1") == chunks  # rects, section, unicode text: exact


def test_query_returns_cosine_similarity_best_first(store):
    doc, chunks = make_doc("C1", TEXTS)
    ingest(store, doc, chunks)
    vec = EMB.embed([TEXTS[2]])[0]
    found = store.query("C1", vec, 3)
    assert found[0][0] == chunks[2]
    assert found[0][1] == pytest.approx(1.0, abs=1e-5)
    sims = [s for _, s in found]
    assert sims == sorted(sims, reverse=True)
    expected = float(EMB.embed([TEXTS[0]])[0] @ vec)
    assert dict((c.index, s) for c, s in found)[0] == pytest.approx(expected, abs=1e-5)
    assert len(store.query("C1", vec, 50)) == 3  # k above the chunk count is fine


def test_chunk_vectors_returns_stored_vectors(store):
    doc, chunks = make_doc("C1", TEXTS)
    ingest(store, doc, chunks)
    got = store.chunk_vectors("C1", [chunks[1].id, "missing:0"])
    assert list(got) == [chunks[1].id]
    assert got[chunks[1].id].dtype == np.float32
    np.testing.assert_allclose(got[chunks[1].id], EMB.embed([TEXTS[1]])[0], atol=1e-6)


def test_half_ingested_document_is_invisible(store):
    doc, chunks = make_doc("C1", TEXTS)
    ingest(store, doc, chunks, commit=False)
    assert store.documents("C1") == []
    assert store.chunks("C1") == []
    assert store.query("C1", EMB.embed([TEXTS[0]])[0], 5) == []
    assert store.get_document("C1", doc.doc_id).status == "indexing"
    assert [d.doc_id for d in store.all_documents("C1")] == [doc.doc_id]


def test_query_skips_hidden_chunks_even_when_they_crowd_the_top(store):
    ready, rc = make_doc("C1", ["a ready chunk about leases"], seed=b"ready")
    ingest(store, ready, rc)
    crowd = [f"revenue grew strongly {i}" for i in range(40)]  # > k + OVERFETCH
    half, hc = make_doc("C1", crowd, seed=b"half")
    ingest(store, half, hc, commit=False)
    found = store.query("C1", EMB.embed(["revenue grew strongly"])[0], 2)
    assert [c.text for c, _ in found] == ["a ready chunk about leases"]


def test_commit_refuses_a_document_with_missing_chunks(store):
    doc, chunks = make_doc("C1", TEXTS)
    store.begin(doc)
    store.add_chunks("C1", chunks[:2], EMB.embed(TEXTS[:2]))
    with pytest.raises(PaperTrailError) as err:
        store.commit(doc)
    assert err.value.code == "store"
    assert store.documents("C1") == []


def test_stale_indexing_from_a_crash_is_cleaned(tmp_path):
    path = tmp_path / "chroma"
    crashed = ChromaStore.persistent(path, model=EMB.name)
    doc, chunks = make_doc("C1", TEXTS + ["extra leftover chunk"])
    ingest(crashed, doc, chunks, commit=False)  # then the process "dies"

    fresh = ChromaStore.persistent(path, model=EMB.name)  # the next process
    assert fresh.documents("C1") == []
    assert fresh.cleanup(older_than=600) == []  # might still be another live process's work
    assert [d.doc_id for d in fresh.cleanup()] == [doc.doc_id]
    assert fresh.get_document("C1", doc.doc_id) is None
    assert fresh.chunk_vectors("C1", [c.id for c in chunks]) == {}


def test_begin_again_removes_leftovers_of_an_earlier_attempt(tmp_path):
    path = tmp_path / "chroma"
    doc, chunks = make_doc("C1", TEXTS + ["leftover 4", "leftover 5"])
    ingest(ChromaStore.persistent(path, model=EMB.name), doc, chunks, commit=False)
    fresh = ChromaStore.persistent(path, model=EMB.name)
    # same bytes, fewer chunks (other chunk settings): leftovers would break the count
    doc3, chunks3 = make_doc("C1", TEXTS)
    assert ingest(fresh, doc3, chunks3).status == "ready"
    assert store_texts(fresh, "C1") == TEXTS


def store_texts(store, channel):
    return [c.text for c in store.chunks(channel)]


def test_cleanup_spares_documents_this_process_is_indexing(store):
    doc, chunks = make_doc("C1", TEXTS)
    ingest(store, doc, chunks, commit=False)
    assert store.cleanup() == []
    assert store.commit(doc).status == "ready"


def test_begin_twice_is_busy_and_add_without_begin_is_a_bug(store):
    doc, chunks = make_doc("C1", TEXTS)
    store.begin(doc)
    with pytest.raises(PaperTrailError) as err:
        store.begin(doc)
    assert err.value.code == "busy"
    with pytest.raises(ValueError):
        store.add_chunks("C2", chunks, EMB.embed(TEXTS))  # begun in C1, not C2
    with pytest.raises(ValueError):
        store.add_chunks("C1", chunks, EMB.embed(TEXTS[:2]))  # rows != chunks


def test_writes_are_batched(tmp_path):
    small = ChromaStore.persistent(tmp_path / "chroma", model=EMB.name, batch_size=3)
    texts = [f"chunk number {i}" for i in range(10)]
    doc, chunks = make_doc("C1", texts)
    ingest(small, doc, chunks)
    assert store_texts(small, "C1") == texts


def test_delete_removes_one_document_and_reports_unknown_ones(store):
    a, ca = make_doc("C1", TEXTS, seed=b"a", name="a.pdf")
    b, cb = make_doc("C1", ["other file"], seed=b"b", name="b.pdf")
    ingest(store, a, ca)
    ingest(store, b, cb)
    assert store.delete("C1", a.doc_id) is True
    assert store.delete("C1", a.doc_id) is False
    assert [d.name for d in store.documents("C1")] == ["b.pdf"]
    assert store_texts(store, "C1") == ["other file"]


# -- channel isolation: try hard to break it ------------------------------------

NASTY = ["a/b", "a_b", "a-b", "A/B", "x" * 5000, "频道/💥", "", " ", "../../etc", "a/b\x00c"]


def test_same_pdf_in_many_lookalike_channels_stays_separate(store):
    for i, channel in enumerate(NASTY):
        doc, chunks = make_doc(channel, [f"text of channel {i}", "shared words"])
        ingest(store, doc, chunks)  # same bytes -> same doc_id and chunk ids everywhere
    names = {store.collection_name(c) for c in NASTY}
    assert len(names) == len(NASTY)
    for i, channel in enumerate(NASTY):
        assert [d.channel for d in store.documents(channel)] == [channel]
        assert store_texts(store, channel) == [f"text of channel {i}", "shared words"]
        hits = store.query(channel, EMB.embed(["shared words"])[0], 50)
        assert {c.text for c, _ in hits} == {f"text of channel {i}", "shared words"}


def test_forget_in_one_channel_leaves_the_other(store):
    doc_a, chunks_a = make_doc("a/b", TEXTS)
    doc_b, chunks_b = make_doc("a_b", TEXTS)
    ingest(store, doc_a, chunks_a)
    ingest(store, doc_b, chunks_b)
    store.delete("a/b", doc_a.doc_id)
    assert store.documents("a/b") == [] and store.chunks("a/b") == []
    assert store_texts(store, "a_b") == TEXTS
    assert len(store.query("a_b", EMB.embed([TEXTS[0]])[0], 5)) == 3
    assert set(store.chunk_vectors("a_b", [c.id for c in chunks_b])) == {c.id for c in chunks_b}


def test_doc_ids_of_another_channel_reach_nothing(store):
    mine, mc = make_doc("mine", ["my secret figure 42"], seed=b"mine")
    theirs, tc = make_doc("theirs", ["their secret figure 42"], seed=b"theirs")
    ingest(store, mine, mc)
    ingest(store, theirs, tc)
    vec = EMB.embed(["secret figure 42"])[0]
    assert store.query("mine", vec, 5, doc_ids=[theirs.doc_id]) == []
    assert store.chunks("mine", [theirs.doc_id]) == []
    assert store.get_document("mine", theirs.doc_id) is None
    assert store.delete("mine", theirs.doc_id) is False
    assert store_texts(store, "theirs") == ["their secret figure 42"]


def test_models_do_not_share_collections(tmp_path):
    path = tmp_path / "chroma"
    a = ChromaStore.persistent(path, model="model-a")
    doc, chunks = make_doc("C1", TEXTS)
    ingest(a, doc, chunks)
    b = ChromaStore.persistent(path, model="model-b")
    assert b.collection_name("C1") != a.collection_name("C1")
    assert b.documents("C1") == [] and b.get_document("C1", doc.doc_id) is None


def test_ephemeral_stores_do_not_share_data():
    one, two = ChromaStore.ephemeral(model=EMB.name), ChromaStore.ephemeral(model=EMB.name)
    doc, chunks = make_doc("C1", TEXTS)
    ingest(one, doc, chunks)
    assert len(one.documents("C1")) == 1 and two.documents("C1") == []


@hyp_settings(max_examples=60, deadline=None)
@given(st.text(max_size=300), st.text(max_size=40))
def test_collection_names_always_satisfy_chroma(channel, model):
    assert CHROMA_NAME.match(collection_name(index_key(model), channel))
    assert CHROMA_NAME.match(collection_name(index_key(model, (400, 50)), channel))


# -- server mode: the same code against `chroma run` on loopback -----------------


@pytest.fixture(scope="module")
def chroma_server(tmp_path_factory):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    exe = Path(sys.executable).parent / "chroma"
    path = tmp_path_factory.mktemp("chroma-server")
    env = {**os.environ, "ANONYMIZED_TELEMETRY": "False"}
    proc = subprocess.Popen(
        [str(exe), "run", "--path", str(path), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v2/heartbeat", timeout=1)
                break
            except OSError:
                assert proc.poll() is None, "chroma run exited"
                assert time.monotonic() < deadline, "chroma run did not start in 30 s"
                time.sleep(0.2)
        yield port
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_server_mode_behaves_like_the_embedded_store(chroma_server, tmp_path):
    settings = Settings(chroma_host="127.0.0.1", chroma_port=chroma_server, data_dir=tmp_path)
    store = open_store(settings, model=EMB.name)
    doc_a, chunks_a = make_doc("a/b", TEXTS)
    doc_b, chunks_b = make_doc("a_b", TEXTS)
    ingest(store, doc_a, chunks_a)
    ingest(store, doc_b, chunks_b, commit=False)
    assert store.chunks("a/b") == chunks_a
    assert store.documents("a_b") == []  # half-ingested stays invisible over HTTP too
    assert store.query("a_b", EMB.embed([TEXTS[0]])[0], 5) == []
    assert store.query("a/b", EMB.embed([TEXTS[0]])[0], 1)[0][0] == chunks_a[0]
    assert not (tmp_path / "chroma").exists()  # nothing written locally


def _breadth(store: ChromaStore, channel: str) -> int:
    return store._chunks_of(channel).configuration["hnsw"]["ef_search"]


def test_a_channel_is_searched_broadly_in_a_new_index_and_an_old_one(tmp_path):
    store = ChromaStore.persistent(tmp_path / "chroma", model=EMB.name)
    ingest(store, *make_doc("C1", TEXTS))
    assert _breadth(store, "C1") == EF_SEARCH
    # a collection made before the setting searched with Chroma's default: raised on open
    name = store.collection_name("C2")
    store.client.create_collection(name, configuration={"hnsw": {"space": "cosine"}})
    assert store.client.get_collection(name).configuration["hnsw"]["ef_search"] < EF_SEARCH
    assert _breadth(store, "C2") == EF_SEARCH
    store.close()
    again = ChromaStore.persistent(tmp_path / "chroma", model=EMB.name)
    assert _breadth(again, "C2") == EF_SEARCH
    assert again.query("C1", EMB.embed([TEXTS[1]])[0], 1)[0][0].text == TEXTS[1]


def test_server_that_is_down_is_a_clear_error():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens here
    with pytest.raises(PaperTrailError) as err:
        ChromaStore.http("127.0.0.1", port)
    assert err.value.code == "store" and "CHROMA_HOST" in err.value.message


def test_open_store_defaults_to_an_embedded_index_in_data_dir(tmp_path):
    store = open_store(Settings(data_dir=tmp_path))
    assert store.model == "all-MiniLM-L6-v2"
    assert (tmp_path / "chroma").is_dir()
    custom = open_store(Settings(data_dir=tmp_path / "x", embedding_model="/models/e5/"))
    assert custom.model == "/models/e5"


def test_a_changed_chunking_builds_a_new_index(tmp_path):
    from papertrail.pipeline import PaperTrail
    from tests import pdfs

    def pipeline(**chunking) -> PaperTrail:
        settings = Settings(data_dir=tmp_path, **chunking)
        return PaperTrail(settings, embedder=EMB, store=open_store(settings, model=EMB.name))

    data = pdfs.paper_pdf()
    first = pipeline()
    first.ingest("ch", "paper.pdf", data)
    chunks = first.store.chunks("ch")
    first.store.close()
    small = pipeline(chunk_size=300, chunk_overlap=40)
    assert small.documents("ch") == []  # chunks cut another way are not served
    result = small.ingest("ch", "paper.pdf", data)
    assert result.new and max(len(c.text) for c in small.store.chunks("ch")) <= 300
    assert len(small.store.chunks("ch")) > len(chunks)
    small.store.close()
    again = pipeline()  # the first chunking finds its index as it was
    assert [d.doc_id for d in again.documents("ch")] == [result.document.doc_id]
    assert again.store.chunks("ch") == chunks
    again.store.close()
