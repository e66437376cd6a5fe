"""The document registry: which documents each channel's index holds, and their status.

One Chroma collection, ``papertrail-registry`` (1-d dummy vectors, metadata
only), records each (collection, document) under the id
``<collection name>/<doc_id>`` with its status: "indexing" while chunks are
being written, "ready" once every chunk is stored. It lives in Chroma so a
Chroma server serves several bot processes as the embedded client serves one.
The metadata format is ``records.py``'s; which collection a channel's chunks go
to, and when a document becomes ready, is ``chroma.py``'s.

Every question reads its channel's records (~4 ms on 33 filings at load 1, 8 ms
under load), though they change only when a document is added, finished or
removed. So each collection also has a stamp record, ``<collection>/~stamp``,
given a fresh random value after every write to that collection's records
(the record first, then the stamp); ``of_space`` reads the stamp by id (~0.8 ms)
and re-reads the records only when it changed since it last read them. The
stamp is read before the records, so a write that the records missed changes
it afterwards; values are never reused, so none is seen again. A reader that
finds no stamp (a registry written before stamps) writes one before reading.
The stamp record has none of the keys the record queries filter on. Every
process writing to a shared registry must bump the stamp: one that does not
(an older release) leaves the others' lists stale until the next bump.
"""

from __future__ import annotations

import threading
import time
import uuid

from papertrail.store.records import document, document_meta
from papertrail.types import Document

REGISTRY = "papertrail-registry"
STAMP = "~stamp"  # the stamp's id within a collection: no sha256 doc_id looks like it


class Registry:
    """Document records of every channel and model in one Chroma database."""

    def __init__(self, client, model: str) -> None:
        self.model = model  # the embedding model: stored with each record
        self._col = client.get_or_create_collection(REGISTRY, embedding_function=None)
        self._seen: dict[str, tuple[str, list[Document]]] = {}  # space -> (stamp, records)
        self._lock = threading.Lock()

    def put(self, rid: str, doc: Document, *, status: str, space: str) -> None:
        meta = document_meta(doc, status=status, space=space)
        meta["model"] = self.model
        self._col.upsert(ids=[rid], embeddings=[[1.0]], metadatas=[meta])
        self._bump(space)

    def get(self, rid: str) -> Document | None:
        """The record ``rid``, "ready" or "indexing", or None: one cheap lookup."""
        got = self._col.get(ids=[rid], include=["metadatas"])
        return document(got["metadatas"][0]) if got["ids"] else None

    def has(self, rid: str) -> bool:
        return bool(self._col.get(ids=[rid], include=[])["ids"])

    def remove(self, rid: str) -> None:
        self._col.delete(ids=[rid])
        self._bump(rid.rsplit("/", 1)[0])  # a record's id is "<space>/<doc_id>"

    def _bump(self, space: str) -> str:
        """Give ``space``'s stamp a value never used before; that value."""
        value = uuid.uuid4().hex
        meta = {"stamp_of": space, "stamp": value}
        self._col.upsert(ids=[f"{space}/{STAMP}"], embeddings=[[1.0]], metadatas=[meta])
        return value

    def _stamp(self, space: str) -> str:
        """``space``'s stamp, written first if there is none yet."""
        got = self._col.get(ids=[f"{space}/{STAMP}"], include=["metadatas"])
        return str(got["metadatas"][0]["stamp"]) if got["ids"] else self._bump(space)

    def of_space(self, space: str, channel: str) -> list[Document]:
        """Every record of ``channel`` in the collection ``space``, oldest first; read
        again only when the stamp changed since the last read."""
        stamp = self._stamp(space)
        with self._lock:
            seen = self._seen.get(space)
        if seen is None or seen[0] != stamp:
            got = self._col.get(where={"space": space}, include=["metadatas"])
            seen = (stamp, [document(m) for m in got["metadatas"]])
            with self._lock:
                self._seen[space] = seen
        docs = [d for d in seen[1] if d.channel == channel]  # records are frozen: shared
        return sorted(docs, key=lambda d: (d.created, d.name, d.doc_id))

    def stale(self, older_than: float, spare: set[str]) -> list[Document]:
        """Records of this model left "indexing" ``older_than`` seconds ago or more,
        except the ids in ``spare`` (being indexed by this process)."""
        got = self._col.get(
            where={"$and": [{"model": self.model}, {"status": "indexing"}]},
            include=["metadatas"],
        )
        cutoff = time.time() - older_than
        return [
            document(m)
            for rid, m in zip(got["ids"], got["metadatas"], strict=True)
            if rid not in spare and m.get("updated", 0.0) <= cutoff
        ]

    def ready_elsewhere(self, doc_id: str) -> list[str]:
        """The channels where ``doc_id`` is ready for this model."""
        where = {"$and": [{"doc_id": doc_id}, {"model": self.model}, {"status": "ready"}]}
        return [
            m["channel"] for m in self._col.get(where=where, include=["metadatas"])["metadatas"]
        ]

    def ready_anywhere(self, channel: str | None = None) -> list[tuple[str, Document]]:
        """(space, record) of every ready record of ``channel`` (None: of every channel),
        whatever its model or chunking: one query (a record is a few hundred bytes)."""
        where: dict = {"status": "ready"}
        if channel is not None:
            where = {"$and": [where, {"channel": channel}]}
        got = self._col.get(where=where, include=["metadatas"])["metadatas"]
        return [(m["space"], document(m)) for m in got]

    def spaces_of(self, channel: str, doc_id: str) -> list[str]:
        """Every collection holding a record of ``doc_id`` in ``channel``, any status."""
        where = {"$and": [{"channel": channel}, {"doc_id": doc_id}]}
        got = self._col.get(where=where, include=["metadatas"])["metadatas"]
        return sorted({m["space"] for m in got})

    def recent_channels(self, limit: int) -> list[str]:
        """Up to ``limit`` channels with ready documents of this model, latest upload first."""
        where = {"$and": [{"model": self.model}, {"status": "ready"}]}
        latest: dict[str, float] = {}
        for m in self._col.get(where=where, include=["metadatas"])["metadatas"]:
            latest[m["channel"]] = max(latest.get(m["channel"], 0.0), float(m.get("created", 0.0)))
        return sorted(latest, key=latest.__getitem__, reverse=True)[:limit]
