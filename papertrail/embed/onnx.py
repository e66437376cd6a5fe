"""The same sentence-transformers model run by ONNX Runtime instead of PyTorch.

A local model folder made of a BERT-style Transformer, mean pooling and
(optionally) normalisation, like the bundled all-MiniLM-L6-v2, is exported to
ONNX once (fp32, with ``torch.onnx``), checked against sentence-transformers on
a few probe texts, and cached by the weights' path, size and mtime. Later
processes load only the ``.onnx`` file, the ``tokenizers`` tokenizer and ONNX
Runtime: no torch import (about 1/3 less memory) and about twice the
throughput of PyTorch eager on this CPU (the vectors agree to ~1e-7 in
cosine, so an index built by either path serves the other). Anything that
does not fit (another pooling, no ``tokenizer.json``, no ``onnx`` package,
an export that disagrees with the original) returns None and the caller keeps
PyTorch. It leaves out quantisation: an int8 export ran slower here.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np

log = logging.getLogger(__name__)

PROBES = (  # the export must reproduce sentence-transformers on these
    "The pier toll raised £1,577,000 in 2023.",
    "The encoder is composed of a stack of N = 6 identical layers. " * 25,  # > 256 tokens
    "短い文。",
)
TOLERANCE = 1e-4  # largest allowed difference of any vector component after export
OPSET = 17


class OnnxEncoder:
    """Tokenize with ``tokenizers``, run the exported model, mean-pool, normalise.

    ``encode`` is safe to call from several threads at once: each call runs one
    forward pass on one core (``intra_op_num_threads=1``), as the PyTorch path does.
    """

    def __init__(self, onnx_path: Path, tokenizer_path: Path, max_tokens: int) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1  # callers run one pass per core side by side
        opts.inter_op_num_threads = 1
        opts.log_severity_level = 3
        self._session = ort.InferenceSession(
            str(onnx_path), opts, providers=["CPUExecutionProvider"]
        )
        self._inputs = {i.name for i in self._session.get_inputs()}
        tokenizer = Tokenizer.from_file(str(tokenizer_path))
        tokenizer.no_padding()  # tokenizer.json may pad to a fixed length: pad per batch instead
        tokenizer.enable_truncation(max_tokens)
        self._tokenizer = tokenizer
        self._lock = threading.Lock()  # a Rust tokenizer object is not shared across threads
        self.dim = int(self._session.get_outputs()[0].shape[-1])

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """One L2-normalised float32 row per text (mean of the token vectors)."""
        with self._lock:
            encs = self._tokenizer.encode_batch(list(texts))
        feed = token_arrays(encs)
        hidden = self._session.run(None, {k: v for k, v in feed.items() if k in self._inputs})[0]
        return mean_pooled(hidden, feed["attention_mask"])


def token_arrays(encs, multiple: int = 1) -> dict[str, np.ndarray]:
    """The model's three inputs for a batch of ``tokenizers`` encodings, padded to the longest
    rounded up to a ``multiple`` of tokens (the mask keeps the padding out of the vectors)."""
    width = -(-max(len(e.ids) for e in encs) // multiple) * multiple
    ids = np.zeros((len(encs), width), dtype=np.int64)
    mask = np.zeros_like(ids)
    for row, e in enumerate(encs):
        ids[row, : len(e.ids)] = e.ids
        mask[row, : len(e.ids)] = 1
    return {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}


def mean_pooled(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """L2-normalised float32 means of the unpadded token vectors (batch, tokens, dim)."""
    summed = np.einsum("bth,bt->bh", hidden.astype(np.float32, copy=False), mask.astype(np.float32))
    rows = summed / np.maximum(mask.sum(axis=1, keepdims=True), 1)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return (rows / np.maximum(norms, 1e-12)).astype(np.float32)


def load_onnx(folder: Path, cache_dir: Path) -> OnnxEncoder | None:
    """An ONNX encoder for the sentence-transformers ``folder``, exporting it if needed.

    None when the folder's model is not a mean-pooled Transformer with a
    ``tokenizer.json``, or the export fails or disagrees with the original.
    """
    spec = _spec(folder)
    if spec is None:
        return None
    try:
        target = exported(folder, cache_dir)
        return OnnxEncoder(target, folder / "tokenizer.json", spec[1])
    except Exception as exc:  # any failure: the caller keeps PyTorch
        log.warning("ONNX path for %s not used (%s); using PyTorch", folder, exc)
        return None


def exported(folder: Path, cache_dir: Path) -> Path:
    """The checked ``.onnx`` export of ``folder`` (a model ``_spec`` accepts), made if needed."""
    spec = _spec(folder)
    if spec is None:
        raise ValueError(f"{folder} is not a mean-pooled Transformer with a tokenizer.json")
    weights, limit = spec
    target = Path(cache_dir).expanduser() / f"{_cache_key(folder, weights)}.onnx"
    if not target.exists():
        _export_checked(folder, target, limit)
    return target


def token_limit(folder: Path) -> int | None:
    """The token limit of ``folder``'s model, None when this module cannot run it."""
    spec = _spec(folder)
    return spec[1] if spec else None


def probe_vectors(folder: Path, target: Path) -> np.ndarray:
    """The rows of ``PROBES`` the checked export ``target`` gives, kept beside it: what
    another runtime of the same export must reproduce. Made once per export (the file
    of an export made before this existed is made now from the export itself)."""
    kept = target.with_suffix(".probes.npy")
    if kept.exists():
        rows = np.load(kept)
        if rows.shape[0] == len(PROBES):
            return rows
    limit = token_limit(folder) or 512
    rows = OnnxEncoder(target, folder / "tokenizer.json", limit).encode(PROBES)
    tmp = target.with_suffix(f".{os.getpid()}.probes.tmp")
    try:
        with open(tmp, "wb") as out:
            np.save(out, rows)
        tmp.replace(kept)  # atomic, as the export itself
    except OSError as exc:  # a read-only cache (a container's): made again next start
        log.info("probe vectors not kept beside %s (%s)", target, exc)
    return rows


def _spec(folder: Path) -> tuple[Path, int] | None:
    """(weights file, token limit) when ``folder`` is a model this module can run."""
    try:
        modules = json.loads((folder / "modules.json").read_text())
        kinds = [m["type"].rsplit(".", 1)[-1] for m in modules]
        if kinds[:2] != ["Transformer", "Pooling"] or kinds[2:] not in ([], ["Normalize"]):
            return None
        pooling = json.loads((folder / modules[1]["path"] / "config.json").read_text())
        # sentence-transformers 6 writes "pooling_mode": "mean"; older ones a flag per mode
        modes = [k for k, v in pooling.items() if k.startswith("pooling_mode_") and v]
        mode = pooling.get("pooling_mode", "mean" if modes == ["pooling_mode_mean_tokens"] else "")
        if mode != "mean" or modules[0]["path"] not in ("", "."):
            return None
        weights = next(
            p for p in (folder / "model.safetensors", folder / "pytorch_model.bin") if p.exists()
        )
        limit = _json(folder / "sentence_bert_config.json").get("max_seq_length") or _json(
            folder / "tokenizer_config.json"
        ).get("model_max_length", 512)  # the probes check it: one is over 256 tokens
    except (OSError, ValueError, KeyError, IndexError, StopIteration):
        return None
    if not (folder / "tokenizer.json").exists():
        return None
    return weights, int(limit)


def _json(path: Path) -> dict:
    return json.loads(path.read_text()) if path.exists() else {}


def _cache_key(folder: Path, weights: Path) -> str:
    st = weights.stat()
    raw = f"{folder.resolve()}\0{st.st_size}\0{st.st_mtime_ns}\0{OPSET}"
    return hashlib.sha256(raw.encode()).hexdigest()[:32]


def _export_checked(folder: Path, target: Path, max_tokens: int) -> None:
    """Export ``folder``'s Transformer to ``target`` and keep it only if it agrees."""
    import torch
    from sentence_transformers import SentenceTransformer
    from transformers import AutoModel

    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(f".{os.getpid()}.tmp")
    bert = AutoModel.from_pretrained(str(folder), attn_implementation="eager").eval()

    class LastHidden(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, input_ids, attention_mask, token_type_ids):
            out = self.bert(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            )
            return out.last_hidden_state

    ids = torch.ones(2, 16, dtype=torch.long)
    axes = {0: "batch", 1: "tokens"}
    names = ["input_ids", "attention_mask", "token_type_ids"]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # tracer notes about constant shapes: the probes decide
            torch.onnx.export(
                LastHidden(),
                (ids, torch.ones_like(ids), torch.zeros_like(ids)),
                str(tmp),
                input_names=names,
                output_names=["last_hidden_state"],
                dynamic_axes={**{n: axes for n in names}, "last_hidden_state": axes},
                opset_version=OPSET,
                dynamo=False,  # the TorchScript exporter: no onnxscript needed
            )
        want = SentenceTransformer(str(folder), device="cpu").encode(
            list(PROBES), normalize_embeddings=True
        )
        got = OnnxEncoder(tmp, folder / "tokenizer.json", max_tokens).encode(PROBES)
        diff = float(np.abs(got - want).max())
        if diff > TOLERANCE:
            raise ValueError(f"the export differs from the model by {diff:.1e}")
        tmp.replace(target)  # atomic: a concurrent process sees the whole file or none
        log.info("exported %s to %s (max difference %.1e)", folder, target, diff)
    finally:
        tmp.unlink(missing_ok=True)
