"""Searches within a few documents, ranked in memory: the same chunks Chroma's filter finds."""

from __future__ import annotations

import time

import numpy as np
import pytest

from papertrail.store.chroma import ChromaStore
from papertrail.store.doc_vectors import DocVectors
from papertrail.store.records import rows
from papertrail.store.searches import FEW_DOCS
from tests.papertrail.store.test_chroma import EMB, ingest, make_doc

WORDS = [f"w{i}" for i in range(400)]


@pytest.fixture
def store(tmp_path) -> ChromaStore:
    return ChromaStore.persistent(tmp_path / "chroma", model=EMB.name)


def _texts(seed: int, n: int) -> list[str]:
    rng = np.random.default_rng(seed)
    return [" ".join(rng.choice(WORDS, int(rng.integers(3, 12)))) for _ in range(n)]


def _held(store: ChromaStore, channel: str, doc_ids, timeout: float = 20.0) -> None:
    """Wait for the background reads of ``doc_ids`` to land."""
    end = time.monotonic() + timeout
    while store._near.missing(channel, doc_ids):
        assert time.monotonic() < end, "the vectors were never read into memory"
        time.sleep(0.02)


def test_a_search_within_documents_finds_what_the_filtered_index_finds(store):
    rng = np.random.default_rng(0)
    docs = []
    for seed in range(3):  # random vectors: no two chunks equally near a question
        doc, chunks = make_doc("C1", _texts(seed, 30), seed=bytes([seed]), name=f"{seed}.pdf")
        store.begin(doc)
        store.add_chunks("C1", chunks, rng.normal(size=(len(chunks), 16)).astype(np.float32))
        docs.append(store.commit(doc))
    col = store._chunks_of("C1")
    include = ["documents", "metadatas", "distances"]
    chosen_sets = ([docs[0].doc_id], [docs[1].doc_id, docs[2].doc_id])
    questions = [rng.normal(size=16).astype(np.float32) for _ in range(5)]

    def expected(vec, chosen):
        where = {"doc_id": {"$in": chosen}}
        return rows(col.query(query_embeddings=[vec], n_results=8, where=where, include=include))

    for held in (False, True):  # first searched in Chroma (read meanwhile), then in memory
        if held:
            _held(store, "C1", [d.doc_id for d in docs])
        for vec in questions:
            for chosen in chosen_sets:
                got, want = store.query("C1", vec, 8, doc_ids=chosen), expected(vec, chosen)
                assert [c for c, _ in got] == [c for c, _ in want]  # chunks exact, same order
                assert [s for _, s in got] == pytest.approx([s for _, s in want], abs=1e-5)
    assert len(docs) <= FEW_DOCS  # so the in-memory path is the one exercised


def test_reading_a_channel_chunks_holds_their_vectors(store):
    doc, chunks = make_doc("C1", _texts(1, 5), seed=b"one")
    ingest(store, doc, chunks)
    assert store._near.missing("C1", [doc.doc_id]) == [doc.doc_id]
    assert store.chunks("C1") == chunks  # what a BM25 index is built from
    assert store._near.missing("C1", [doc.doc_id]) == []


def test_a_forgotten_document_is_never_found_again(store):
    keep, keep_chunks = make_doc("C1", _texts(1, 5), seed=b"keep")
    gone, gone_chunks = make_doc("C1", _texts(2, 5), seed=b"gone")
    third, third_chunks = make_doc("C1", _texts(3, 5), seed=b"third")
    for doc, chunks in ((keep, keep_chunks), (gone, gone_chunks), (third, third_chunks)):
        ingest(store, doc, chunks)
    store.chunks("C1")
    vec = EMB.embed([gone_chunks[0].text])[0]
    before = store.query("C1", vec, 3, doc_ids=[gone.doc_id, keep.doc_id])
    assert before[0][0] == gone_chunks[0]
    store.delete("C1", gone.doc_id)
    after = store.query("C1", vec, 3, doc_ids=[gone.doc_id, keep.doc_id])
    assert after and all(c.doc_id == keep.doc_id for c, _ in after)


class _Row(str):
    """A stand-in chunk: its text is its id."""

    @property
    def id(self) -> str:
        return str(self)

    @property
    def doc_id(self) -> str:
        return self.rpartition(":")[0]

    @property
    def index(self) -> int:
        return int(self.rpartition(":")[2])


def test_memory_is_bounded_least_recently_used_first():
    near = DocVectors(max_rows=10)
    loads = []
    stored = {}

    def load(doc_id):
        loads.append(doc_id)
        rows = [_Row(f"{doc_id}:{i}") for i in range(4)]
        vectors = np.eye(4, 3, dtype=np.float32)
        stored.update(zip(rows, vectors, strict=True))
        return rows, vectors

    def exact(ids):
        return {i: stored[i] for i in ids}

    vec = np.array([1.0, 0.0, 0.0], np.float32)
    for doc_id in ("a", "b", "a", "c", "a", "b"):
        if near.missing("C", [doc_id]):
            near.hold("C", doc_id, *load(doc_id))
        near.search("C", [doc_id], vec, 2, exact)
    assert near._rows <= 10
    assert loads == ["a", "b", "c", "b"]  # "b" was the least recently used when "c" came
    assert near.search("C", ["a"], vec, 1, exact)[0] == ("a:0", 1.0)
    near.close()


def _float32_ranking(docs, query, k):
    """Every float32 row scored (summed in float64, so equal rows tie), best first."""
    q = (query / np.linalg.norm(query)).astype(np.float64)
    found = []
    for held, vectors in docs:
        unit = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        scores = (unit.astype(np.float64) @ q).astype(np.float32)
        found += [(held[i], float(scores[i])) for i in np.argsort(-scores, kind="stable")[:k]]
    return sorted(found, key=lambda pair: -pair[1])[:k]


def test_float16_rows_find_the_chunks_float32_rows_find_in_the_same_order():
    # near-duplicates a float16 rounding could reorder: the float32 re-scoring puts them back
    rng = np.random.default_rng(3)
    near, stored, docs = DocVectors(), {}, []
    for d in range(3):
        base = rng.normal(size=(40, 384)).astype(np.float32)
        twins = base[:10] + rng.normal(scale=1e-4, size=(10, 384)).astype(np.float32)
        vectors = np.concatenate([base, twins, base[:3]])  # and exact copies: ties
        held = [_Row(f"d{d}:{i}") for i in range(len(vectors))]
        stored.update(zip(held, vectors, strict=True))
        near.hold("C", f"d{d}", held, vectors)
        docs.append((held, vectors))
    read = []

    def exact(ids):
        read.append(len(ids))
        return {i: stored[i] for i in ids}

    for _ in range(30):
        query = (docs[0][1][int(rng.integers(0, 40))] + rng.normal(size=384)).astype(np.float32)
        for k in (1, 5, 12):
            got = near.search("C", ["d0", "d1", "d2"], query, k, exact)
            want = _float32_ranking(docs, query, k)
            assert [c for c, _ in got] == [c for c, _ in want]
            assert [s for _, s in got] == pytest.approx([s for _, s in want], abs=1e-6)
    assert max(read) < 3 * 63  # only a shortlist is read again, not every row
    near.close()


def test_a_shortlisted_chunk_gone_from_the_index_leaves_its_document_out():
    near = DocVectors()
    rows = [_Row(f"a:{i}") for i in range(3)]
    near.hold("C", "a", rows, np.eye(3, 4, dtype=np.float32))
    vec = np.array([1.0, 0.0, 0.0, 0.0], np.float32)
    assert near.search("C", ["a"], vec, 2, lambda ids: {}) == []
    near.close()


def _three_documents(store, rng, *, chunks: int, first_seed: int) -> list:
    """Three committed documents in channel C1, ``chunks`` chunks each, random vectors."""
    docs = []
    for seed in range(3):
        doc, parts = make_doc(
            "C1", _texts(seed, chunks), seed=bytes([first_seed + seed]), name=f"{seed}.pdf"
        )
        store.begin(doc)
        store.add_chunks("C1", parts, rng.normal(size=(len(parts), 16)).astype(np.float32))
        docs.append(store.commit(doc))
    return docs


def test_each_document_searched_alone_finds_what_its_own_search_finds(store):
    # the second retrieval stage searches several documents, each alone: one call for them
    rng = np.random.default_rng(5)
    docs = _three_documents(store, rng, chunks=20, first_seed=40)
    ids = [d.doc_id for d in docs]
    reads = []
    col = store._chunks_of("C1")
    real_get = col.get

    def counting_get(*args, **kwargs):
        reads.append(kwargs.get("ids"))
        return real_get(*args, **kwargs)

    for held in (False, True):  # searched in Chroma (read meanwhile), then in memory
        if held:
            _held(store, "C1", ids)
        for _ in range(4):
            vec = rng.normal(size=16).astype(np.float32)
            want = {d: store.query("C1", vec, 5, doc_ids=[d]) for d in ids}
            col.get = counting_get
            reads.clear()
            got = store.query_each("C1", vec, 5, [ids[2], ids[0], ids[1]], documents=docs)
            col.get = real_get
            assert list(got) == [ids[2], ids[0], ids[1]]
            for d in ids:
                assert [c for c, _ in got[d]] == [c for c, _ in want[d]]
                # (Chroma's float32 scores, or exact ones once read meanwhile)
                assert [s for _, s in got[d]] == pytest.approx([s for _, s in want[d]], abs=1e-5)
            if held:  # every shortlisted vector read at once
                assert len([r for r in reads if r is not None]) == 1
    assert store.query_each("C1", vec, 5, ["unknown"]) == {"unknown": []}


def test_a_channel_of_one_document_is_searched_whole(store):
    doc, chunks = make_doc("C1", _texts(7, 6), seed=b"only")
    ingest(store, doc, chunks)
    vec = EMB.embed([chunks[2].text])[0]
    got = store.query_each("C1", vec, 3, [doc.doc_id])
    assert got == {doc.doc_id: store.query("C1", vec, 3, doc_ids=[doc.doc_id])}
    assert got[doc.doc_id][0][0] == chunks[2]


def test_a_channel_wide_search_takes_held_chunks_and_reads_only_the_others(store):
    rng = np.random.default_rng(9)
    docs = _three_documents(store, rng, chunks=15, first_seed=60)
    vecs = [rng.normal(size=16).astype(np.float32) for _ in range(5)]
    before = [store.query("C1", v, 10) for v in vecs]  # nothing held: every chunk read
    assert store._near.missing("C1", [d.doc_id for d in docs])
    store.chunks("C1", [docs[0].doc_id, docs[1].doc_id])  # as a BM25 index build does
    col = store._chunks_of("C1")
    real_get, read = col.get, []

    def counting_get(*args, **kwargs):
        read.extend(kwargs.get("ids") or [])
        return real_get(*args, **kwargs)

    col.get = counting_get
    after = [store.query("C1", v, 10) for v in vecs]
    col.get = real_get
    assert after == before  # the same chunks, scores and order
    assert read and {i.rpartition(":")[0] for i in read} == {docs[2].doc_id}


def test_equal_scores_come_in_the_same_order_on_every_path(store):
    # The same boilerplate printed in several filings has the same vector: its chunks tie,
    # and their order (which document's passage comes first, which make the cut) must not
    # depend on the process or on whether the vectors are held in memory yet.
    rng = np.random.default_rng(11)
    boiler = rng.normal(size=16).astype(np.float32)
    docs = []
    for seed in (3, 1, 2, 0):  # ingested in another order than their ids sort
        doc, parts = make_doc("C1", _texts(seed, 12), seed=bytes([90 + seed]), name=f"{seed}.pdf")
        vectors = rng.normal(size=(len(parts), 16)).astype(np.float32)
        vectors[seed + 2] = vectors[seed + 7] = boiler  # twice in each, at its own places
        store.begin(doc)
        store.add_chunks("C1", parts, vectors)
        docs.append(store.commit(doc))
    ids = [d.doc_id for d in docs]
    seeds = zip(docs, (3, 1, 2, 0), strict=True)
    want = sorted((doc.doc_id, seed + k) for doc, seed in seeds for k in (2, 7))

    def order(found):
        return [(c.doc_id, c.index) for c, _ in found]

    for held in (False, True):  # Chroma's index first, then the rows held in memory
        if held:
            store.chunks("C1", ids)
            _held(store, "C1", ids)
        assert order(store.query("C1", boiler, 8)) == want
        assert order(store.query("C1", boiler, 5)) == want[:5]  # the cut is the same too
        assert order(store.query("C1", boiler, 4, doc_ids=ids[:2])) == [
            p for p in want if p[0] in ids[:2]
        ]
        each = store.query_each("C1", boiler, 2, ids)
        assert {d: order(found) for d, found in each.items()} == {
            d: [p for p in want if p[0] == d] for d in ids
        }


def test_a_channel_wide_search_of_held_documents_is_exact_and_asks_no_index(store):
    # Chroma's index is approximate, and two builds of one channel differ: one build of a
    # 57-document channel missed every one of a question's 70 nearest chunks. Once a
    # channel's vectors are held (its BM25 index reads them all), the search is exact.
    rng = np.random.default_rng(21)
    docs = []
    for seed in range(FEW_DOCS + 2):  # more documents than a filtered search ranks in memory
        doc, parts = make_doc("C1", _texts(seed, 40), seed=bytes([120 + seed]), name=f"{seed}.pdf")
        store.begin(doc)
        store.add_chunks("C1", parts, rng.normal(size=(len(parts), 16)).astype(np.float32))
        docs.append(store.commit(doc))
    store.chunks("C1")  # as a BM25 index build does: every document held
    col = store._chunks_of("C1")
    every = col.get(include=["documents", "metadatas", "embeddings"])
    stored = np.asarray(every["embeddings"], dtype=np.float64)
    stored /= np.linalg.norm(stored, axis=1, keepdims=True)
    asked = []
    real_query = col.query

    def counting_query(*args, **kwargs):
        asked.append(kwargs)
        return real_query(*args, **kwargs)

    col.query = counting_query
    for _ in range(5):
        vec = rng.normal(size=16).astype(np.float32)
        scores = stored @ (vec / np.linalg.norm(vec))
        want = [every["ids"][i] for i in np.argsort(-scores)[:12]]  # every chunk, exactly
        got = store.query("C1", vec, 12)
        assert [c.id for c, _ in got] == want
        assert [s for _, s in got] == pytest.approx(sorted(scores)[::-1][:12], abs=1e-5)
        # a question asked of some documents only: the same, among theirs
        some = {d.doc_id for d in docs[1:4]}
        mine = [i for i in np.argsort(-scores) if every["metadatas"][i]["doc_id"] in some]
        got = store.query("C1", vec, 7, doc_ids=some)
        assert [c.id for c, _ in got] == [every["ids"][i] for i in mine[:7]]
    col.query = real_query
    assert asked == []  # never Chroma's approximate index


def test_a_channel_wide_exact_search_never_crosses_channels_and_a_forgotten_copy_stays_gone(store):
    # The same PDF shared in two channels has one doc_id; its held rows are kept per
    # channel, so the exact search of one channel never reads the other's, and forgetting
    # it in one channel leaves the other's copy alone.
    shared_texts = _texts(7, 6)
    a_copy, a_chunks = make_doc("C1", shared_texts, seed=b"shared")
    b_copy, b_chunks = make_doc("C2", shared_texts, seed=b"shared")
    own, own_chunks = make_doc("C2", _texts(8, 6), seed=b"own")
    secret, secret_chunks = make_doc("C1", ["quarterly secret figure alpha"], seed=b"secret")
    for doc, chunks in (
        (a_copy, a_chunks),
        (secret, secret_chunks),
        (b_copy, b_chunks),
        (own, own_chunks),
    ):
        ingest(store, doc, chunks)
    store.chunks("C1"), store.chunks("C2")  # both channels held: the exact path
    assert not store._near.missing("C2", [b_copy.doc_id, own.doc_id])
    vec = EMB.embed([secret_chunks[0].text])[0]
    got = store.query("C2", vec, 20)
    assert got and all(c.doc_id in {b_copy.doc_id, own.doc_id} for c, _ in got)
    assert secret_chunks[0].id not in {c.id for c, _ in got}
    shared = EMB.embed([shared_texts[0]])[0]
    store.delete("C1", a_copy.doc_id)
    assert all(c.doc_id != a_copy.doc_id for c, _ in store.query("C1", shared, 20))
    assert store.query("C2", shared, 1)[0][0] == b_chunks[0]  # the other channel's copy stays
