"""The registry's stamp: a channel's records are re-read only after a write, from any process."""

from __future__ import annotations

from papertrail.store.chroma import ChromaStore
from papertrail.store.registry import REGISTRY, STAMP
from tests.papertrail.store.test_chroma import EMB, TEXTS, ingest, make_doc


class CountingCollection:
    """The registry's Chroma collection, counting reads of records by their metadata."""

    def __init__(self, col) -> None:
        self.col, self.filtered = col, 0

    def get(self, *args, **kwargs):
        self.filtered += "where" in kwargs
        return self.col.get(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.col, name)


def counted(store: ChromaStore) -> CountingCollection:
    spy = CountingCollection(store._registry._col)
    store._registry._col = spy
    return spy


def test_records_are_read_again_only_after_a_write(tmp_path):
    store = ChromaStore.persistent(tmp_path / "chroma", model=EMB.name)
    spy = counted(store)
    a, ac = make_doc("C1", TEXTS, seed=b"a", name="a.pdf")
    ingest(store, a, ac)
    first = store.documents("C1")
    reads = spy.filtered
    assert store.documents("C1") == first and store.documents("C1") == first
    assert spy.filtered == reads  # nothing changed: the stamp said so
    b, bc = make_doc("C1", TEXTS, seed=b"b", name="b.pdf")
    ingest(store, b, bc, commit=False)
    assert [d.name for d in store.all_documents("C1")] == ["a.pdf", "b.pdf"]
    assert [d.name for d in store.documents("C1")] == ["a.pdf"]
    store.commit(b)
    assert [d.name for d in store.documents("C1")] == ["a.pdf", "b.pdf"]
    store.delete("C1", a.doc_id)
    assert [d.name for d in store.documents("C1")] == ["b.pdf"]
    assert spy.filtered > reads


def test_another_store_writing_is_seen_at_once(tmp_path):
    # a second store on the same files: its own registry object, as another process has
    path = tmp_path / "chroma"
    reader, writer = (ChromaStore.persistent(path, model=EMB.name) for _ in range(2))
    assert reader.documents("C1") == []
    a, ac = make_doc("C1", TEXTS, seed=b"a")
    ready = ingest(writer, a, ac)
    assert reader.documents("C1") == [ready]
    writer.delete("C1", a.doc_id)
    assert reader.documents("C1") == []


def test_a_registry_written_before_stamps_gets_one_and_lists_as_before(tmp_path):
    path = tmp_path / "chroma"
    old = ChromaStore.persistent(path, model=EMB.name)
    a, ac = make_doc("C1", TEXTS, seed=b"a")
    ready = ingest(old, a, ac)
    col = old.client.get_collection(REGISTRY)
    stamp = f"{old.collection_name('C1')}/{STAMP}"
    col.delete(ids=[stamp])  # as an older release left it
    fresh = ChromaStore.persistent(path, model=EMB.name)
    assert fresh.documents("C1") == [ready]
    assert col.get(ids=[stamp])["ids"] == [stamp]
    b, bc = make_doc("C1", TEXTS, seed=b"b", name="b.pdf")
    ingest(old, b, bc)
    assert [d.name for d in fresh.documents("C1")] == ["a.pdf", "b.pdf"]


def test_stamps_are_no_documents_anywhere(tmp_path):
    store = ChromaStore.persistent(tmp_path / "chroma", model=EMB.name)
    a, ac = make_doc("C1", TEXTS, seed=b"a")
    ingest(store, a, ac)
    store.documents("C2")  # a stamp for an empty channel too
    assert store.documents("C2") == []
    assert store.recent_channels(5) == ["C1"]
    assert store.cleanup() == []
    assert store.vectors_elsewhere("C2", a.doc_id)  # C1's copy, found by its record
