"""ChromaStore across index keys: what another key holds (``left_behind``), and ``forget``
removing a document under every key, records and chunks."""

from __future__ import annotations

from papertrail.store.chroma import ChromaStore
from tests.papertrail.store.test_chroma import TEXTS, ingest, make_doc


def put(store: ChromaStore, channel: str, *, seed: bytes = b"pdf", commit: bool = True):
    """Index a small document (``seed`` names its bytes) into ``channel`` of ``store``."""
    doc, chunks = make_doc(channel, TEXTS, seed=seed, name=f"{seed.decode()}.pdf")
    return ingest(store, doc, chunks, commit=commit)


def open_key(tmp_path, model: str = "model-a", chunking=None) -> ChromaStore:
    return ChromaStore.persistent(tmp_path / "chroma", model=model, chunking=chunking)


def test_left_behind_lists_what_only_another_key_holds(tmp_path):
    old = open_key(tmp_path, "model-a")
    a, b = put(old, "C1", seed=b"a"), put(old, "C2", seed=b"b")
    put(old, "C1", seed=b"half", commit=False)  # never ready: nothing to carry
    new = open_key(tmp_path, "model-a", chunking=(400, 50))  # same model, other chunking
    assert new.documents("C1") == []
    assert [(d.channel, d.doc_id) for d in new.left_behind()] == [
        ("C1", a.doc_id),
        ("C2", b.doc_id),
    ]
    assert [d.doc_id for d in new.left_behind("C2")] == [b.doc_id]
    put(new, "C1", seed=b"a")  # carried: no longer behind
    assert [d.doc_id for d in new.left_behind()] == [b.doc_id]
    assert old.left_behind() == []  # the old key still holds all it had


def test_a_document_ready_under_two_other_keys_is_listed_once(tmp_path):
    first = put(open_key(tmp_path, "model-a"), "C1", seed=b"a")
    put(open_key(tmp_path, "model-b"), "C1", seed=b"a")
    behind = open_key(tmp_path, "model-c").left_behind()
    assert [d.doc_id for d in behind] == [first.doc_id]


def test_forget_removes_records_and_chunks_under_every_key(tmp_path):
    old = open_key(tmp_path, "model-a")
    doc = put(old, "C1")
    put(old, "C2")  # the same file in another channel stays
    new = open_key(tmp_path, "model-b")
    put(new, "C1")
    assert new.forget("C1", doc.doc_id) is True
    assert new.documents("C1") == [] and new.left_behind("C1") == []
    assert open_key(tmp_path, "model-a").documents("C1") == []  # a roll-back finds nothing
    assert old.client.get_collection(old.collection_name("C1")).count() == 0
    assert [d.doc_id for d in old.documents("C2")] == [doc.doc_id]
    assert new.forget("C1", doc.doc_id) is False  # nothing left under any key


def test_forget_reaches_a_document_only_another_key_holds(tmp_path):
    doc = put(open_key(tmp_path, "model-a"), "C1")
    new = open_key(tmp_path, "model-b")
    assert new.forget("C1", doc.doc_id) is True
    assert new.left_behind() == [] and open_key(tmp_path, "model-a").documents("C1") == []
