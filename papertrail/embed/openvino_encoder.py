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

import contextlib
import logging
import os
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
from papertrail.offline import openvino

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
        from tokenizers import Tokenizer

        ov = openvino()

        core = ov.Core()
        # bfloat16 passes need no float32 weights: compile from a copy of the export with
        # float16 weights (memory-mapped), which took the loaded model from ~205 to ~120 MB
        source = _half_weights(core, onnx_path) if precision == "bf16" else onnx_path
        self._compiled = core.compile_model(
            str(source),
            "CPU",
            {
                "NUM_STREAMS": streams,
                "INFERENCE_NUM_THREADS": streams,  # one thread per stream
                "INFERENCE_PRECISION_HINT": precision,
                "ENABLE_CPU_PINNING": False,  # a shared machine: let the OS place threads
            },
        )
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


def _half_weights(core, onnx_path: Path) -> Path:
    """The export as OpenVINO IR with float16 weights, kept beside it (made once, ~1 s).

    Float16 keeps 3 more mantissa bits than the bfloat16 the passes compute in; the
    probe check of ``load_openvino`` covers the copy as it covers the export.
    """
    ov = openvino()
    xml = onnx_path.with_suffix(".f16.xml")
    if not xml.exists():
        tmp = onnx_path.with_suffix(f".{os.getpid()}.f16tmp.xml")
        try:
            ov.save_model(core.read_model(str(onnx_path)), str(tmp), compress_to_fp16=True)
            tmp.with_suffix(".bin").replace(xml.with_suffix(".bin"))
            tmp.replace(xml)  # last: a complete .xml means its .bin is there
        except Exception as exc:  # a read-only cache: the export itself, more memory
            log.info("no float16 copy of %s (%s); compiling the export", onnx_path, exc)
            return onnx_path
        finally:
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)
                tmp.with_suffix(".bin").unlink(missing_ok=True)
    return xml


def cpu_precision() -> str:
    """ "bf16" when OpenVINO's CPU plugin computes in bfloat16 natively here, else "f32"."""
    caps = openvino().Core().get_property("CPU", "OPTIMIZATION_CAPABILITIES")
    return "bf16" if "BF16" in caps else "f32"


def load_openvino(folder: Path, cache_dir: Path, streams: int) -> OpenVinoEncoder | None:
    """An OpenVINO encoder for the sentence-transformers ``folder`` (exported to ONNX if
    needed); None when OpenVINO is missing, the model is not one ``embed_onnx`` can
    export, or the compiled model's probe vectors disagree with the export's."""
    limit = token_limit(folder)
    if limit is None:
        return None
    try:
        openvino()
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
