"""Chunks, vectors and the document registry, kept in Chroma, per channel.

Isolation is by collection: every (channel, embedding model) pair gets its own
collection, named ``pt-`` + 40 hex digits of sha256(model, channel), so no
channel name can collide with another after sanitising and no query can reach
another channel's chunks. A ``papertrail-registry`` collection (1-d dummy
vectors, metadata only) records each document with a status: ``begin`` marks
it "indexing", ``commit`` marks it "ready" after checking every chunk is
stored, and reads (``documents``, ``chunks``, ``query``) only see ready
documents. A crash mid-ingest therefore leaves an invisible half document,
which ``begin`` (same document again) or ``cleanup`` removes. The registry
lives in Chroma so a Chroma server serves several bot processes the same way
as the embedded client. Vectors are always passed in (never Chroma's embedding
function, which would download a model). Chunk ids are ``<file sha256>:<chunk
number>`` inside the channel's collection, so indexing the same file again
upserts the same records. It leaves out embedding, ranking fusion and locking
across processes (one worker indexes a file under a lease: ``coord.py``), and
the metadata format (``chroma_meta.py``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import threading
import time
import uuid
from collections.abc import Iterable, Sequence
from pathlib import Path

import chromadb
import numpy as np
from chromadb.config import Settings as ChromaSettings

from papertrail.errors import PaperTrailError
from papertrail.settings import BUNDLED_NAME, Settings, model_name
from papertrail.store.records import chunk, chunk_meta, document, document_meta, rows
from papertrail.types import Chunk, Document

log = logging.getLogger(__name__)

REGISTRY = "papertrail-registry"
_COSINE = {"hnsw": {"space": "cosine"}}  # distance = 1 - cosine similarity
OVERFETCH = 20  # extra results of an unfiltered search, to make up for hidden chunks


def _settings() -> ChromaSettings:
    # A fresh object each time: chromadb's client constructors modify the one they get.
    return ChromaSettings(anonymized_telemetry=False)


class ChromaStore:
    """One Chroma database holding every channel's documents for one embedding model.

    ``model`` is the embedder's ``name``: vectors of different models never
    share a collection. ``batch_size`` caps records per write (0 = the
    client's maximum). Methods are safe to call from several threads.
    """

    def __init__(self, client, *, model: str = BUNDLED_NAME, batch_size: int = 0) -> None:
        self.client = client
        self.model = model
        self._registry = client.get_or_create_collection(REGISTRY, embedding_function=None)
        self._collections: dict[str, object] = {}
        self._indexing: set[str] = set()  # registry ids being indexed by this process
        self._lock = threading.RLock()
        limit = int(client.get_max_batch_size())
        self._batch = max(1, min(batch_size, limit) if batch_size > 0 else limit)

    @classmethod
    def persistent(
        cls, path: Path, *, model: str = BUNDLED_NAME, batch_size: int = 0
    ) -> ChromaStore:
        """Embedded Chroma in the folder ``path`` (created if missing)."""
        try:
            Path(path).mkdir(parents=True, exist_ok=True)
            client = chromadb.PersistentClient(path=str(path), settings=_settings())
            return cls(client, model=model, batch_size=batch_size)
        except (OSError, ValueError, RuntimeError) as exc:
            raise PaperTrailError(
                f"The index at {path} could not be opened ({exc}). Check that "
                "PAPERTRAIL_DATA_DIR is writable and used by one PaperTrail at a time.",
                code="store",
            ) from exc

    @classmethod
    def http(cls, host: str, port: int, *, model: str = BUNDLED_NAME) -> ChromaStore:
        """A Chroma server, e.g. ``chroma run --host 127.0.0.1 --port 8000``."""
        try:
            return cls(chromadb.HttpClient(host=host, port=port, settings=_settings()), model=model)
        except Exception as exc:
            raise PaperTrailError(
                f"The Chroma server at {host}:{port} did not answer ({exc}). Start it, "
                "or fix CHROMA_HOST / CHROMA_PORT (leave CHROMA_HOST empty for a local index).",
                code="store",
            ) from exc

    @classmethod
    def ephemeral(cls, *, model: str = BUNDLED_NAME) -> ChromaStore:
        """In memory and empty (a fresh database each call): for tests."""
        database = f"pt-{uuid.uuid4().hex}"
        client = chromadb.EphemeralClient(settings=_settings())
        chromadb.AdminClient(client.get_settings()).create_database(database)
        client.set_database(database)
        return cls(client, model=model)

    # -- names ------------------------------------------------------------

    def collection_name(self, channel: str) -> str:
        """The chunk collection of ``channel``: 43 characters Chroma accepts."""
        raw = f"{self.model}\x00{channel}".encode("utf-8", "surrogatepass")
        key = hashlib.sha256(raw).hexdigest()
        return f"pt-{key[:40]}"  # 160 bits: collisions are not a practical concern

    def _rid(self, channel: str, doc_id: str) -> str:
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
                self._collections[name] = col
        return col

    # -- ingest: begin -> add_chunks* -> commit ----------------------------

    def begin(self, doc: Document) -> None:
        """Register ``doc`` as "indexing" (invisible) and remove any leftover chunks.

        Calling it for a document that is ready hides that document until the
        next ``commit``. Raises PaperTrailError(code="busy") when this process
        is already indexing the same document in the same channel.
        """
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
        meta = document_meta(doc, status=status, space=self.collection_name(doc.channel))
        meta["model"] = self.model
        rid = self._rid(doc.channel, doc.doc_id)
        self._registry.upsert(ids=[rid], embeddings=[[1.0]], metadatas=[meta])

    def get_document(self, channel: str, doc_id: str) -> Document | None:
        """The registered document, "ready" or "indexing", or None: one cheap lookup."""
        got = self._registry.get(ids=[self._rid(channel, doc_id)], include=["metadatas"])
        return document(got["metadatas"][0]) if got["ids"] else None

    def all_documents(self, channel: str) -> list[Document]:
        """Every registered document of ``channel``, indexing ones included, oldest first."""
        got = self._registry.get(
            where={"space": self.collection_name(channel)}, include=["metadatas"]
        )
        docs = [document(m) for m in got["metadatas"] if m.get("channel") == channel]
        return sorted(docs, key=lambda d: (d.created, d.name, d.doc_id))

    def documents(self, channel: str) -> list[Document]:
        """The documents of ``channel`` that questions can see, oldest first."""
        return [d for d in self.all_documents(channel) if d.status == "ready"]

    def ready_ids(self, channel: str, doc_ids: Iterable[str] | None = None) -> list[str]:
        """Ready document ids of ``channel``, narrowed to ``doc_ids`` when given."""
        ready = [d.doc_id for d in self.documents(channel)]
        if doc_ids is None:
            return ready
        wanted = set(doc_ids)
        return [d for d in ready if d in wanted]

    def delete(self, channel: str, doc_id: str) -> bool:
        """Remove one document and its chunks from ``channel``; False if it was unknown."""
        rid = self._rid(channel, doc_id)
        known = bool(self._registry.get(ids=[rid], include=[])["ids"])
        self._registry.delete(ids=[rid])  # invisible first, then the chunks
        self._chunks_of(channel).delete(where={"doc_id": doc_id})
        self._indexing.discard(rid)
        return known

    def cleanup(self, older_than: float = 0.0) -> list[Document]:
        """Remove documents left "indexing" by a crashed process, with their chunks.

        Documents this process is indexing are spared, and so are those begun
        less than ``older_than`` seconds ago: with a Chroma server shared by
        several processes, pass the longest an ingest may take.
        """
        got = self._registry.get(
            where={"$and": [{"model": self.model}, {"status": "indexing"}]},
            include=["metadatas"],
        )
        cutoff = time.time() - older_than
        stale = [
            document(m)
            for rid, m in zip(got["ids"], got["metadatas"], strict=True)
            if rid not in self._indexing and m.get("updated", 0.0) <= cutoff
        ]
        for doc in stale:
            log.info("removing half-indexed %s from %s", doc.doc_id[:12], doc.channel)
            self.delete(doc.channel, doc.doc_id)
        return stale

    # -- reads ----------------------------------------------------------------

    def chunks(self, channel: str, doc_ids: Iterable[str] | None = None) -> list[Chunk]:
        """Every chunk of the channel's ready documents (or of ``doc_ids``), in order."""
        out: list[Chunk] = []
        col = None
        for doc_id in self.ready_ids(channel, doc_ids):
            col = col or self._chunks_of(channel)
            got = col.get(where={"doc_id": doc_id}, include=["documents", "metadatas"])
            part = [chunk(t, m) for t, m in zip(got["documents"], got["metadatas"], strict=True)]
            out.extend(sorted(part, key=lambda c: c.index))
        return out

    def query(
        self,
        channel: str,
        vector: np.ndarray,
        k: int,
        doc_ids: Iterable[str] | None = None,
        *,
        documents: Sequence[Document] | None = None,
    ) -> list[tuple[Chunk, float]]:
        """The ``k`` nearest chunks of ready documents, with cosine similarity, best first.

        ``documents`` are the channel's ready documents if the caller has read them.
        """
        every = self.ready_ids(channel) if documents is None else [d.doc_id for d in documents]
        wanted = None if doc_ids is None else set(doc_ids)
        ready = every if wanted is None else [d for d in every if d in wanted]
        if not ready or k <= 0:
            return []
        col = self._chunks_of(channel)
        query = np.asarray(vector, dtype=np.float32).reshape(1, -1)
        include = ["documents", "metadatas", "distances"]
        if len(ready) == len(every):
            # A metadata filter costs ~15x the search itself (55 vs 4 ms on 6k
            # chunks), so search everything and drop chunks of documents that are
            # not ready; fall back to the filter only if too few remain.
            n = int(k) + OVERFETCH
            found = rows(col.query(query_embeddings=query, n_results=n, include=include))
            visible = set(ready)
            keep = [(c, s) for c, s in found if c.doc_id in visible]
            if len(keep) >= k or len(found) < n:
                return keep[:k]
        where = {"doc_id": {"$in": ready}}
        return rows(col.query(query_embeddings=query, n_results=k, where=where, include=include))

    def chunk_vectors(self, channel: str, chunk_ids: Sequence[str]) -> dict[str, np.ndarray]:
        """Stored vectors of ``chunk_ids`` in ``channel`` (unknown ids are left out)."""
        if not chunk_ids:
            return {}
        got = self._chunks_of(channel).get(ids=list(chunk_ids), include=["embeddings"])
        return {
            cid: np.asarray(vec, dtype=np.float32)
            for cid, vec in zip(got["ids"], got["embeddings"], strict=True)
        }

    # -- vectors of the same bytes in other channels (speed: no re-embedding) ----

    def vectors_elsewhere(self, channel: str, doc_id: str) -> dict[str, np.ndarray]:
        """Chunk text -> stored vector of ``doc_id`` in another channel where it is ready.

        Lets the same file uploaded to a second channel skip embedding. Only
        that document's own chunks are read, and they are copied, never shared:
        each channel keeps its own collection.
        """
        where = {"$and": [{"doc_id": doc_id}, {"model": self.model}, {"status": "ready"}]}
        for meta in self._registry.get(where=where, include=["metadatas"])["metadatas"]:
            if meta.get("channel") == channel:
                continue
            got = self._chunks_of(meta["channel"]).get(
                where={"doc_id": doc_id}, include=["documents", "embeddings"]
            )
            if got["ids"]:
                return {
                    text: np.asarray(vec, dtype=np.float32)
                    for text, vec in zip(got["documents"], got["embeddings"], strict=True)
                }
        return {}


def open_store(settings: Settings, model: str | None = None) -> ChromaStore:
    """The store ``settings`` configure: a Chroma server if CHROMA_HOST is set, else
    an embedded index in ``data_dir/chroma``. ``model`` defaults to the name of the
    embedder ``settings`` select (pass ``embedder.name`` when using another one).
    """
    model = model if model is not None else model_name(settings.embedding_model)
    if settings.chroma_host:
        return ChromaStore.http(settings.chroma_host, settings.chroma_port, model=model)
    return ChromaStore.persistent(Path(settings.data_dir) / "chroma", model=model)
