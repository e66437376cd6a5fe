"""PdfFiles: whether a PDF is still kept is the shared store's word when there is one."""

from __future__ import annotations

from papertrail.store.pdf_files import PdfFiles


class DictBlobs:
    """``Blobs`` in a dict: what the shared Chroma collection is to several workers."""

    def __init__(self) -> None:
        self.data: dict[str, bytes] = {}

    def put(self, key: str, data: bytes) -> None:
        self.data[key] = data

    def get(self, key: str) -> bytes | None:
        return self.data.get(key)

    def has(self, key: str) -> bool:
        return key in self.data

    def delete(self, key: str) -> None:
        self.data.pop(key, None)


def test_kept_on_disk_without_a_shared_store(tmp_path):
    files = PdfFiles(tmp_path)
    assert not files.kept("c1", "d1")
    files.save("c1", "d1", b"%PDF-1.4")
    assert files.kept("c1", "d1")
    files.delete("c1", "d1")
    assert not files.kept("c1", "d1")


def test_a_pdf_another_worker_deleted_is_not_kept_though_cached_here(tmp_path):
    shared = DictBlobs()
    a, b = PdfFiles(tmp_path / "a", shared), PdfFiles(tmp_path / "b", shared)
    a.save("c1", "d1", b"%PDF-1.4")
    assert b.load("c1", "d1") == b"%PDF-1.4" and b.path("c1", "d1").exists()  # cached at b
    assert b.kept("c1", "d1")
    a.delete("c1", "d1")  # forgotten through worker a
    assert b.path("c1", "d1").exists() and not b.kept("c1", "d1")
