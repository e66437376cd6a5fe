"""Chunks and vectors kept in Chroma, per channel, with their documents' status.

Isolation is by collection: each (channel, index key) pair has its own
(``keys.py``: the key is the embedding model and the chunking), so no query
can reach another channel's chunks. The registry (``registry.py``) records
each document with a status: ``begin`` marks it "indexing", ``commit`` marks
it "ready" after checking every chunk is stored, and reads (``documents``,
``chunks``, ``query``) only see ready documents; a crash mid-ingest leaves an
invisible half document, which ``begin`` (same document again) or ``cleanup``
removes. Vectors are always passed in (never Chroma's embedding function, which
downloads a model). Chunk ids are ``<file sha256>:<chunk number>``, so the same
file again upserts the same records. Left out: embedding, ranking, locks across
processes (``coord.py``), metadata (``records.py``), clients (``clients.py``),
how a search is run (``searches.py``), the other index keys' documents
(``other_keys.py``).
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from papertrail.errors import PaperTrailError
from papertrail.settings import BUNDLED_NAME, Settings, model_name
from papertrail.store.clients import ephemeral_client, http_client, persistent_client
from papertrail.store.doc_vectors import DocVectors
from papertrail.store.keys import collection_name, index_key
from papertrail.store.other_keys import OtherKeys
from papertrail.store.records import chunk, chunk_meta
from papertrail.store.registry import Registry
from papertrail.store.searches import Searches
from papertrail.types import Chunk, Document

log = logging.getLogger(__name__)

# Candidates HNSW keeps while it searches. At Chroma's default (100) a search of the
# 33-filing channel (24,605 chunks) missed up to 13 of the true 70 nearest chunks, and a
# few questions got other chunks in another process: the channel's first stage, and any
# weights fitted on it, changed from run to run. At 1000 two questions of 52 miss at most
# two, every process finds the same, and a search costs ~2 ms instead of ~1.2.
EF_SEARCH = 1000
_COSINE = {"hnsw": {"space": "cosine", "ef_search": EF_SEARCH}}  # distance = 1 - cosine


class ChromaStore(Searches, OtherKeys):
    """One Chroma database holding every channel's documents for one embedding model.

    ``model`` is the embedder's ``name`` and ``chunking`` the (size, overlap) chunks are
    cut with: other models' vectors and chunks cut another way never share a collection.
    ``batch_size`` caps records per write (0 = the client's maximum). Thread-safe."""

    def __init__(
        self,
        client,
        *,
        model: str = BUNDLED_NAME,
        batch_size: int = 0,
        chunking: tuple[int, int] | None = None,
    ) -> None:
        self.client = client
        self.model = model
        self.key = index_key(model, chunking)
        self._registry = Registry(client, model)
        self._collections: dict[str, object] = {}
        self._indexing: set[str] = set()  # registry ids being indexed by this process
        self._lock = threading.RLock()
        self._near = DocVectors()  # searches within a few documents
        self.closed = False
        limit = int(client.get_max_batch_size())
        self._batch = max(1, min(batch_size, limit) if batch_size > 0 else limit)

    @classmethod
    def persistent(cls, path: Path, **options) -> ChromaStore:
        """Embedded Chroma in the folder ``path`` (created if missing)."""
        return cls(persistent_client(path), **options)

    @classmethod
    def http(cls, host: str, port: int, **options) -> ChromaStore:
        """A Chroma server, e.g. ``chroma run --host 127.0.0.1 --port 8000``."""
        return cls(http_client(host, port), **options)

    @classmethod
    def ephemeral(cls, **options) -> ChromaStore:
        """In memory and empty (a fresh database each call): for tests."""
        return cls(ephemeral_client(), **options)

    def close(self) -> None:
        """Close the Chroma client (its SQLite files, or its connection to the server)."""
        with self._lock:
            self._collections.clear()
            self.closed = True
        self._near.close()
        self.client.close()

    def collection_name(self, channel: str) -> str:
        """The chunk collection of ``channel``: 43 characters Chroma accepts."""
        return collection_name(self.key, channel)

    def _rid(self, channel: str, doc_id: str) -> str:  # the registry's id of a document
        return f"{self.collection_name(channel)}/{doc_id}"

    def _chunks_of(self, channel: str):
        name = self.collection_name(channel)
        with self._lock:
            col = self._collections.get(name)
            if col is None:
                col = self.client.get_or_create_collection(
                    name,
                    configuration=_COSINE,
                    metadata={"channel": channel, "model": self.model},
                    embedding_function=None,
                )
                _search_wide(col)
                self._collections[name] = col
        return col

    # -- ingest: begin -> add_chunks* -> commit ----------------------------

    def begin(self, doc: Document) -> None:
        """Register ``doc`` as "indexing" (invisible; a ready one until the next ``commit``)
        and remove any leftover chunks. PaperTrailError(code="busy") when this process is
        already indexing the same document in the same channel."""
        rid = self._rid(doc.channel, doc.doc_id)
        with self._lock:
            if rid in self._indexing:
                raise PaperTrailError(
                    f"{doc.name} is already being indexed in this channel: wait for it to finish.",
                    code="busy",
                )
            self._indexing.add(rid)
        try:
            self._put(doc, status="indexing")
            self._near.drop(doc.channel, doc.doc_id)
            self._chunks_of(doc.channel).delete(where={"doc_id": doc.doc_id})
        except BaseException:
            self._indexing.discard(rid)
            raise

    def add_chunks(self, channel: str, chunks: Sequence[Chunk], vectors: np.ndarray) -> None:
        """Store ``chunks`` with their ``vectors`` (row i belongs to chunk i)."""
        vectors = np.asarray(vectors, dtype=np.float32)
        if vectors.ndim != 2 or len(vectors) != len(chunks):
            raise ValueError(f"{len(chunks)} chunks but vectors of shape {vectors.shape}")
        for doc_id in {c.doc_id for c in chunks}:
            if self._rid(channel, doc_id) not in self._indexing:
                raise ValueError(f"add_chunks for {doc_id[:12]} without begin()")
        col = self._chunks_of(channel)
        for i in range(0, len(chunks), self._batch):
            part = chunks[i : i + self._batch]
            col.upsert(
                ids=[c.id for c in part],
                embeddings=vectors[i : i + self._batch],
                documents=[c.text for c in part],
                metadatas=[chunk_meta(c) for c in part],
            )

    def commit(self, doc: Document) -> Document:
        """Mark ``doc`` ready once all ``doc.chunks`` chunks are stored; return it."""
        col = self._chunks_of(doc.channel)
        stored = len(col.get(where={"doc_id": doc.doc_id}, include=[])["ids"])
        if stored != doc.chunks:
            raise PaperTrailError(
                f"Only {stored} of {doc.chunks} parts of {doc.name} reached the index. "
                "Upload it again.",
                code="store",
            )
        ready = dataclasses.replace(doc, status="ready", created=doc.created or time.time())
        self._put(ready, status="ready")
        self._indexing.discard(self._rid(doc.channel, doc.doc_id))
        return ready

    # -- registry -----------------------------------------------------------

    def _put(self, doc: Document, *, status: str) -> None:
        space = self.collection_name(doc.channel)
        self._registry.put(self._rid(doc.channel, doc.doc_id), doc, status=status, space=space)

    def get_document(self, channel: str, doc_id: str) -> Document | None:
        """The registered document, "ready" or "indexing", or None: one cheap lookup."""
        return self._registry.get(self._rid(channel, doc_id))

    def all_documents(self, channel: str) -> list[Document]:
        """Every registered document of ``channel``, indexing ones included, oldest first."""
        return self._registry.of_space(self.collection_name(channel), channel)

    def documents(self, channel: str) -> list[Document]:
        """The documents of ``channel`` that questions can see, oldest first."""
        return [d for d in self.all_documents(channel) if d.status == "ready"]

    def recent_channels(self, limit: int) -> list[str]:  # the latest upload's channel first
        return self._registry.recent_channels(limit)

    def delete(self, channel: str, doc_id: str) -> bool:
        """Remove one document and its chunks from ``channel``; False if it was unknown."""
        known = self._registry.has(rid := self._rid(channel, doc_id))
        self._registry.remove(rid)  # invisible first, then the chunks
        self._near.drop(channel, doc_id)
        self._chunks_of(channel).delete(where={"doc_id": doc_id})
        self._indexing.discard(rid)
        return known

    def cleanup(self, older_than: float = 0.0) -> list[Document]:
        """Remove documents left "indexing" by a crashed process, with their chunks; spare
        those this process is indexing and those begun less than ``older_than`` seconds
        ago (with a Chroma server shared by several processes: the longest ingest)."""
        stale = self._registry.stale(older_than, spare=set(self._indexing))
        for doc in stale:
            log.info("removing half-indexed %s from %s", doc.doc_id[:12], doc.channel)
            self.delete(doc.channel, doc.doc_id)
        return stale

    # -- reads ----------------------------------------------------------------

    def chunks(self, channel: str, doc_ids: Iterable[str] | None = None) -> list[Chunk]:
        """Every chunk of the channel's ready documents (or of ``doc_ids``), in order."""
        out: list[Chunk] = []
        col = None
        ready = [d.doc_id for d in self.documents(channel)]
        wanted = set(ready if doc_ids is None else doc_ids)
        for doc_id in (d for d in ready if d in wanted):
            col = col or self._chunks_of(channel)
            got = col.get(
                where={"doc_id": doc_id}, include=["documents", "metadatas", "embeddings"]
            )
            part = [chunk(t, m) for t, m in zip(got["documents"], got["metadatas"], strict=True)]
            self._near.hold(channel, doc_id, part, got["embeddings"])  # read anyway: keep
            out.extend(sorted(part, key=lambda c: c.index))
        return out

    def chunk_vectors(self, channel: str, chunk_ids: Sequence[str]) -> dict[str, np.ndarray]:
        """Stored vectors of ``chunk_ids`` in ``channel`` (unknown ids are left out)."""
        if not chunk_ids:
            return {}
        got = self._chunks_of(channel).get(ids=list(chunk_ids), include=["embeddings"])
        return {
            cid: np.asarray(vec, dtype=np.float32)
            for cid, vec in zip(got["ids"], got["embeddings"], strict=True)
        }

    def vectors_elsewhere(self, channel: str, doc_id: str) -> dict[str, np.ndarray]:
        """Chunk text -> stored vector of ``doc_id`` in another channel where it is ready:
        the same file in a second channel skips embedding. Only that document's chunks
        are read, and copied, never shared: each channel keeps its own collection."""
        for other in self._registry.ready_elsewhere(doc_id):
            if other == channel:
                continue
            got = self._chunks_of(other).get(
                where={"doc_id": doc_id}, include=["documents", "embeddings"]
            )
            if got["ids"]:
                return {
                    text: np.asarray(vec, dtype=np.float32)
                    for text, vec in zip(got["documents"], got["embeddings"], strict=True)
                }
        return {}


def indexed_as(model: str, settings: Settings) -> str:
    """The name the index key gives ``model``'s vectors: passages embedded in context
    (``settings.contextual``) are other vectors than the same passages alone."""
    return model + ("+context" * settings.contextual)


def open_store(settings: Settings, model: str | None = None) -> ChromaStore:
    """The store ``settings`` configure: a Chroma server if CHROMA_HOST is set, else
    an embedded index in ``data_dir/chroma``. ``model`` defaults to the name of the
    embedder ``settings`` select (pass ``embedder.name`` when using another one); the
    chunking settings join it in the index key.
    """
    model = model if model is not None else model_name(settings.embedding_model)
    key = {"model": model, "chunking": (settings.chunk_size, settings.chunk_overlap)}
    if settings.chroma_host:
        return ChromaStore.http(settings.chroma_host, settings.chroma_port, **key)
    return ChromaStore.persistent(Path(settings.data_dir) / "chroma", **key)


def _search_wide(col) -> None:
    """A collection made before ``EF_SEARCH`` was set searches with Chroma's default:
    raise it (Chroma reads it when a process opens the collection, so from the next start)."""
    hnsw = (getattr(col, "configuration", None) or {}).get("hnsw") or {}
    if int(hnsw.get("ef_search") or 0) < EF_SEARCH:
        try:
            col.modify(configuration={"hnsw": {"ef_search": EF_SEARCH}})
        except Exception:  # an older server: it keeps searching as before
            log.warning("could not raise the search breadth of %s", col.name, exc_info=True)
