"""Documents' chunks and vectors held in memory, for exact searches among them.

Chroma answers a search limited to one document by reading its metadata index
first, which costs many times the search itself (about 39 ms against 2 ms on a
33-filing channel, at load 4), and a channel's second retrieval stage searches
within each leading document. ``DocVectors.search`` ranks the chunks of the
documents it holds by an exact dot product with the question's vector instead:
the same cosine similarity Chroma's index approximates (~1 ms). Reading a
document's rows costs ~0.15 ms a row, several filtered searches, so it is never
done while a question waits: ``missing`` tells the caller which documents to
search in Chroma this time, and ``load_later`` reads them on a background
thread; ``hold`` keeps what a caller read anyway (the chunks a BM25 index is
built from).
Rows are held as float16, half the memory of float32, so a channel of ~100k
chunks fits (``max_rows`` in all, least recently used dropped first): the
ranking by them is only a shortlist, every row whose float16 score comes within
twice ``SLACK`` of the k-th is scored again from its stored float32 vector (read from
Chroma by id, ~2 ms), so the chunks found and their order are those the float32
rows give (scored in float64 and rounded, so that equal rows tie and keep their
order). A whole channel's documents, once held, are searched the same way, one
shortlist over all of them. It leaves out which documents are ready (the caller
passes only those).
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from papertrail.store.records import best_first, chunk, rows
from papertrail.types import Chunk

log = logging.getLogger(__name__)

MAX_ROWS = 131_072  # vectors kept: ~100 MB of float16 at 384 dimensions, plus their text
# A float16 unit vector's score is within 2**-11 (4.9e-4) of its float32 score (half a
# float16 step on each component), float32 rounding aside: more than that, so no row of
# the true top k is ever left out of the shortlist.
SLACK = 1e-3
Loaded = tuple[list[Chunk], np.ndarray]  # a document's chunks and their vectors, row i
Exact = Callable[[list[str]], dict[str, np.ndarray]]  # chunk ids -> stored float32 vectors


class DocVectors:
    """Exact nearest chunks within the documents held, read in the background. Thread-safe."""

    def __init__(self, max_rows: int = MAX_ROWS) -> None:
        self.max_rows = max_rows
        self._docs: OrderedDict[tuple[str, str], Loaded] = OrderedDict()
        self._ids: dict[tuple[str, str], dict[str, Chunk]] = {}  # a held document's chunks by id
        self._rows = 0
        self._pending: set[tuple[str, str]] = set()
        self._lock = threading.Lock()
        self._reader = ThreadPoolExecutor(1, thread_name_prefix="papertrail-doc-vectors")

    def query(
        self, collection, channel: str, doc_ids: Sequence[str], vector: np.ndarray, k: int
    ) -> list[tuple[Chunk, float]]:
        """The ``k`` chunks of ``doc_ids`` most similar to ``vector``, best first: held
        documents ranked here, the others searched in their Chroma ``collection`` and
        read into memory in the background for the next question."""
        missing = self.missing(channel, doc_ids)
        held = [d for d in doc_ids if d not in missing]
        found = self.search(channel, held, vector, k, lambda ids: read_vectors(collection, ids))
        if missing:
            found += self._chroma(collection, channel, missing, vector, k)
        return best_first(found)[:k]

    def query_each(
        self, collection, channel: str, doc_ids: Sequence[str], vector: np.ndarray, k: int
    ) -> dict[str, list[tuple[Chunk, float]]]:
        """Per document of ``doc_ids``: what ``query`` with that document alone returns.
        The held documents' shortlisted vectors are read in one call to ``collection``
        (each read costs a few ms however few its ids), the others searched one by one."""
        missing = self.missing(channel, doc_ids)
        held = [d for d in doc_ids if d not in missing]
        exact = lambda ids: read_vectors(collection, ids)  # noqa: E731
        out = self.search_each(channel, held, vector, k, exact)
        for d in missing:
            out[d] = self._chroma(collection, channel, [d], vector, k)
        return {d: out.get(d, []) for d in doc_ids}

    def _chroma(
        self, collection, channel: str, doc_ids: list[str], vector: np.ndarray, k: int
    ) -> list[tuple[Chunk, float]]:
        """Chroma's ``k`` nearest within ``doc_ids`` (not held); they are read for next time."""
        where = {"doc_id": {"$in": doc_ids}}
        include = ["documents", "metadatas", "distances"]
        found = rows(
            collection.query(
                query_embeddings=np.asarray(vector, dtype=np.float32).reshape(1, -1),
                n_results=k,
                where=where,
                include=include,
            )
        )
        for d in doc_ids:
            self.load_later(channel, d, lambda d=d: read_rows(collection, d))
        return found

    def missing(self, channel: str, doc_ids: Sequence[str]) -> list[str]:
        """The documents of ``doc_ids`` not held (yet)."""
        with self._lock:
            return [d for d in doc_ids if (channel, d) not in self._docs]

    def search(
        self, channel: str, doc_ids: Sequence[str], vector: np.ndarray, k: int, exact: Exact
    ) -> list[tuple[Chunk, float]]:
        """The ``k`` chunks of the held ``doc_ids`` most similar to ``vector`` (cosine),
        best first; documents not held are left out (see ``missing``). One shortlist over
        all of them, whose stored float32 vectors ``exact`` reads and scores again."""
        held = self._held(channel, doc_ids)
        if k <= 0 or not held:
            return []
        query = _unit(np.asarray(vector).reshape(1, -1))[0]
        chunks = [c for _, rows, _ in held for c in rows]
        near = [chunks[i] for i in _shortlist(np.concatenate([m @ query for *_, m in held]), k)]
        stored = exact([c.id for c in near])
        gone = {c.doc_id for c in near if c.id not in stored}  # being forgotten meanwhile
        near = [c for c in near if c.doc_id not in gone]
        if not near:
            return []
        scores = _rescored(near, stored, query)
        return best_first([(c, float(v)) for c, v in zip(near, scores, strict=True)])[:k]

    def search_each(
        self, channel: str, doc_ids: Sequence[str], vector: np.ndarray, k: int, exact: Exact
    ) -> dict[str, list[tuple[Chunk, float]]]:
        """Per held document of ``doc_ids``: its ``k`` chunks most similar to ``vector``,
        best first (documents not held, or gone meanwhile, are left out). One ``exact``
        read for all the documents' shortlisted chunks."""
        if k <= 0:
            return {}
        query = _unit(np.asarray(vector).reshape(1, -1))[0]
        shortlists = {  # per document, in row order
            doc_id: [chunks[i] for i in _shortlist(coarse @ query, k)]
            for doc_id, chunks, coarse in self._held(channel, doc_ids)
        }
        wanted = [c.id for chunks in shortlists.values() for c in chunks]
        stored = exact(wanted) if wanted else {}
        found: dict[str, list[tuple[Chunk, float]]] = {}
        for doc_id, chunks in shortlists.items():
            if any(c.id not in stored for c in chunks):
                continue  # gone from the index meanwhile: being forgotten
            scores = _rescored(chunks, stored, query)
            top = np.argsort(-scores, kind="stable")[:k]
            found[doc_id] = [(chunks[i], float(scores[i])) for i in top]
        return found

    def _held(
        self, channel: str, doc_ids: Sequence[str]
    ) -> list[tuple[str, list[Chunk], np.ndarray]]:
        """(doc_id, chunks, float16 rows) of the held documents of ``doc_ids``, in order;
        each becomes the most recently used."""
        out = []
        for doc_id in doc_ids:
            with self._lock:
                held = self._docs.get((channel, doc_id))
                if held is not None:
                    self._docs.move_to_end((channel, doc_id))
            if held is not None and held[0]:
                out.append((doc_id, *held))
        return out

    def found(self, collection, channel: str, got: dict) -> list[tuple[Chunk, float]]:
        """(chunk, cosine) of a one-vector Chroma query that returned ids and distances
        only: the chunks held here, the others read from ``collection`` by id; one removed
        between the two reads is left out, as if the search came a moment later."""
        ids, dists = got["ids"][0], got["distances"][0]
        chunks = self.held_chunks(channel, ids)
        if len(chunks) < len(ids):
            rest = [i for i in ids if i not in chunks]
            more = collection.get(ids=rest, include=["documents", "metadatas"])
            for cid, text, meta in zip(
                more["ids"], more["documents"], more["metadatas"], strict=True
            ):
                chunks[cid] = chunk(text, meta)
        pairs = zip(ids, dists, strict=True)
        return best_first([(chunks[i], 1.0 - float(d)) for i, d in pairs if i in chunks])

    def held_chunks(self, channel: str, chunk_ids: Sequence[str]) -> dict[str, Chunk]:
        """The chunks of ``chunk_ids`` (``"doc_id:index"``) held in memory, by id; ids of
        documents not held are left out."""
        out: dict[str, Chunk] = {}
        with self._lock:
            for cid in chunk_ids:
                found = self._ids.get((channel, cid.rpartition(":")[0]), {}).get(cid)
                if found is not None:
                    out[cid] = found
        return out

    def load_later(self, channel: str, doc_id: str, load: Callable[[], Loaded]) -> None:
        """Read ``doc_id`` with ``load()`` on the background thread, unless held or queued."""
        key = (channel, doc_id)
        with self._lock:
            if key in self._docs or key in self._pending:
                return
            self._pending.add(key)
        try:
            self._reader.submit(self._load, key, load)
        except RuntimeError:  # closed: the caller searches Chroma as it did before
            with self._lock:
                self._pending.discard(key)

    def hold(self, channel: str, doc_id: str, chunks: list[Chunk], vectors) -> None:
        """Keep ``doc_id``'s chunks and vectors, read anyway (a channel's BM25 index is
        built from every chunk: with their vectors that read costs ~30 % more, once)."""
        self._keep((channel, doc_id), chunks, vectors)

    def drop(self, channel: str, doc_id: str) -> None:
        """Forget ``doc_id``'s rows in ``channel`` (it is being re-indexed or removed)."""
        with self._lock:
            gone = self._docs.pop((channel, doc_id), None)
            self._ids.pop((channel, doc_id), None)
            if gone is not None:
                self._rows -= len(gone[0])

    def close(self) -> None:
        self._reader.shutdown(wait=False, cancel_futures=True)

    def _load(self, key: tuple[str, str], load: Callable[[], Loaded]) -> None:
        try:
            chunks, vectors = load()
        except Exception:  # a closed store, a vanished document: searched in Chroma instead
            log.debug("reading the vectors of %s failed", key[1][:12], exc_info=True)
            with self._lock:
                self._pending.discard(key)
            return
        self._keep(key, chunks, vectors)

    def _keep(self, key: tuple[str, str], chunks: list[Chunk], vectors) -> None:
        coarse = _unit(np.asarray(vectors).reshape(len(chunks), -1)).astype(np.float16)
        with self._lock:
            self._pending.discard(key)
            if key in self._docs or len(chunks) > self.max_rows:
                return
            self._docs[key] = (list(chunks), coarse)
            self._ids[key] = {c.id: c for c in chunks}
            self._rows += len(chunks)
            while self._rows > self.max_rows:
                first, (old, _) = self._docs.popitem(last=False)
                self._ids.pop(first, None)
                self._rows -= len(old)


def read_rows(collection, doc_id: str) -> Loaded:
    """``doc_id``'s chunks and stored vectors, read from its Chroma ``collection``."""
    got = collection.get(where={"doc_id": doc_id}, include=["documents", "metadatas", "embeddings"])
    texts, metas = got["documents"], got["metadatas"]
    return [chunk(t, m) for t, m in zip(texts, metas, strict=True)], np.asarray(got["embeddings"])


def read_vectors(collection, ids: list[str]) -> dict[str, np.ndarray]:
    """The stored vectors of chunk ``ids`` in their Chroma ``collection`` (unknown ids left out)."""
    got = collection.get(ids=list(ids), include=["embeddings"])
    return dict(zip(got["ids"], np.asarray(got["embeddings"], dtype=np.float32), strict=True))


def _shortlist(coarse: np.ndarray, k: int) -> np.ndarray:
    """The rows (in row order: ties stay put) whose float16 score comes within twice
    ``SLACK`` of the k-th best: the true top ``k`` is among them."""
    kth = np.partition(coarse, -k)[-k] if len(coarse) > k else coarse.min()
    return np.flatnonzero(coarse >= kth - 2 * SLACK)


def _rescored(chunks: list[Chunk], stored: dict[str, np.ndarray], query: np.ndarray) -> np.ndarray:
    """The cosine of each of ``chunks`` from its ``stored`` float32 vector, summed in float64
    and kept as float32: equal rows score equally wherever they stand (a float32 matrix
    product's last bit depends on the row's position)."""
    unit = _unit(np.stack([stored[c.id] for c in chunks])).astype(np.float64)
    return (unit @ query.astype(np.float64)).astype(np.float32)


def _unit(vectors: np.ndarray) -> np.ndarray:
    """``vectors`` as float32 rows of length 1 (a zero row stays zero)."""
    rows = np.asarray(vectors, dtype=np.float32)
    return rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-12)
