"""The embedding model's checked ONNX export run by OpenVINO, in bfloat16 where the CPU has it.

``load_openvino`` compiles the export ``embed_onnx`` made (and checked against
sentence-transformers) for OpenVINO's CPU plugin: one stream per worker, one
thread each, so the caller's batches run side by side as on ONNX Runtime. On a
CPU with AVX512_BF16 or AMX the matrix products run in bfloat16 with float32
accumulation: on this AVX512_BF16 machine that halved the CPU time per passage
(26 against 52 ms for a ~150-token chunk of a book, ONNX Runtime fp32) at a
cosine of 0.99997 or more to the float32 vectors; elsewhere it runs in float32
(~15 % faster than ONNX Runtime here). The compiled model must reproduce the
export's vectors of the ``PROBES`` to ``AGREE`` in cosine, else None is
returned and the caller keeps ONNX Runtime. Tokenising and pooling are
``embed_onnx``'s. It leaves out int8 quantisation and GPUs.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from papertrail.embed.onnx import (
    PROBES,
    exported,
    mean_pooled,
    probe_vectors,
    token_arrays,
    token_limit,
)

log = logging.getLogger(__name__)

AGREE = 0.9995  # least cosine of a probe's vector to the float32 export's (bf16 gave 0.99997)
REQUESTS_PER_STREAM = 2  # a question's pass can queue beside a document's without waiting here
# Memory: the CPU plugin keeps kernels and buffers per input shape, so every new
# (texts, tokens) shape grew the process (+170 MB over a 1,040-chunk book at 8 texts
# a pass, padded to the longest). Padding to a multiple of 16 tokens and 4 texts a
# pass kept it at +30 MB for the same CPU time per passage (26.8 against 26.3 ms).
PAD_TO = 16  # tokens
BATCH = 4  # texts per pass


class OpenVinoEncoder:
    """Tokenize with ``tokenizers``, run the compiled model, mean-pool, normalise.

    ``encode`` is safe from several threads at once: each call borrows one of the
    compiled model's infer requests, and ``streams`` of them run at a time, one
    core each. ``batch_size``: texts per pass this runtime runs best.
    """

    batch_size = BATCH

    def __init__(
        self, onnx_path: Path, tokenizer_path: Path, limit: int, *, streams: int, precision: str
    ) -> None:
        import openvino as ov
        from tokenizers import Tokenizer

        core = ov.Core()
        model = core.read_model(str(onnx_path))
        self._compiled = core.compile_model(
            model,
            "CPU",
            {
                "NUM_STREAMS": streams,
                "INFERENCE_NUM_THREADS": streams,  # one thread per stream
                "INFERENCE_PRECISION_HINT": precision,
                "ENABLE_CPU_PINNING": False,  # a shared machine: let the OS place threads
            },
        )
        del model  # the float32 graph: the compiled one holds what it needs
        self.precision = precision
        self._inputs = {i.get_any_name() for i in self._compiled.inputs}
        self._requests: queue.SimpleQueue = queue.SimpleQueue()
        for _ in range(max(1, streams) * REQUESTS_PER_STREAM):
            self._requests.put(self._compiled.create_infer_request())
        tokenizer = Tokenizer.from_file(str(tokenizer_path))
        tokenizer.no_padding()  # padded per batch instead
        tokenizer.enable_truncation(limit)
        self._tokenizer = tokenizer
        self._lock = threading.Lock()  # a Rust tokenizer object is not shared across threads
        self.dim = int(self._compiled.outputs[0].get_partial_shape()[-1].get_length())

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """One L2-normalised float32 row per text (mean of the token vectors)."""
        with self._lock:
            encs = self._tokenizer.encode_batch(list(texts))
        feed = token_arrays(encs, PAD_TO)
        request = self._requests.get()
        try:
            # a copy: the request's output buffer is reused by its next pass
            hidden = np.array(request.infer({k: feed[k] for k in self._inputs})[0])
        finally:
            self._requests.put(request)
        return mean_pooled(hidden, feed["attention_mask"])


def cpu_precision() -> str:
    """ "bf16" when OpenVINO's CPU plugin computes in bfloat16 natively here, else "f32"."""
    import openvino as ov

    caps = ov.Core().get_property("CPU", "OPTIMIZATION_CAPABILITIES")
    return "bf16" if "BF16" in caps else "f32"


def load_openvino(folder: Path, cache_dir: Path, streams: int) -> OpenVinoEncoder | None:
    """An OpenVINO encoder for the sentence-transformers ``folder`` (exported to ONNX if
    needed); None when OpenVINO is missing, the model is not one ``embed_onnx`` can
    export, or the compiled model's probe vectors disagree with the export's."""
    limit = token_limit(folder)
    if limit is None:
        return None
    try:
        import openvino  # noqa: F401
    except ImportError:
        return None
    try:
        target = exported(folder, cache_dir)
        want = probe_vectors(folder, target)
        encoder = OpenVinoEncoder(
            target,
            folder / "tokenizer.json",
            limit,
            streams=streams,
            precision=cpu_precision(),
        )
        agree = float((encoder.encode(PROBES) * want).sum(axis=1).min())
        if agree < AGREE:
            raise ValueError(f"its vectors differ from the export's (cosine {agree:.5f})")
        log.info("embedding on OpenVINO (%s), probe cosine %.6f", encoder.precision, agree)
        return encoder
    except Exception as exc:  # any failure: the caller keeps ONNX Runtime
        log.warning("OpenVINO path for %s not used (%s)", folder, exc)
        return None
