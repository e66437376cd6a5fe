"""RapidOCR's text detector run by OpenVINO, in bfloat16 where the CPU has it, per page shape.

The detector (a DBNet) holds full-page feature maps: on ONNX Runtime a
1600 x 1067 px page took 320-350 MB above the loaded models, beside the
embedder, and that was the ingest's peak memory. ``OpenVinoDetector`` runs the
same ONNX file on OpenVINO's CPU plugin compiled for the one input shape of the
page (static shapes let the plugin plan and reuse its buffers) in bfloat16 on
CPUs that compute it natively (half the bytes per activation), then drops the
compiled model, so nothing stays behind between pages: measured on the book's
two scanned pages, +220 MB at the peak, ~48 MB after (the model read once), and
1.3-2.1 s a page at load 4-5 where ONNX Runtime took 3.3-5.7 s. Compiling per
page costs 0.4-0.7 s of that (keeping a compiled shape would hold ~93 MB
between pages). Boxes agree with ONNX Runtime's up to a box at the threshold
(75 against 76 on the cartoon page: a line fragment and two line orders
differ; CER 0.016 on the linn scan either way). ``detector_for`` wraps
a loaded RapidOCR, and keeps ONNX Runtime when OpenVINO is missing or fails.
It leaves out recognition (ONNX Runtime, small crops) and GPUs.
"""

from __future__ import annotations

import logging
import threading

import numpy as np

from papertrail.offline import openvino

log = logging.getLogger(__name__)

THREADS = 1  # like the other OCR sessions: the embedder keeps the other core busy


class OpenVinoDetector:
    """RapidOCR's ``text_det.infer``: an NCHW float32 batch in, ``[probability map]`` out."""

    def __init__(self, onnx_path: str) -> None:
        ov = openvino()
        self._core = ov.Core()
        self._model = self._core.read_model(onnx_path)
        caps = self._core.get_property("CPU", "OPTIMIZATION_CAPABILITIES")
        self.precision = "bf16" if "BF16" in caps else "f32"
        self._lock = threading.Lock()  # one page at a time (reshape works on a clone)

    def __call__(self, batch: np.ndarray) -> list[np.ndarray]:
        with self._lock:
            model = self._model.clone()
            model.reshape({0: list(batch.shape)})
            compiled = self._core.compile_model(
                model,
                "CPU",
                {
                    "INFERENCE_PRECISION_HINT": self.precision,
                    "INFERENCE_NUM_THREADS": THREADS,
                    "NUM_STREAMS": 1,
                    "ENABLE_CPU_PINNING": False,  # a shared machine: let the OS place it
                },
            )
            try:
                request = compiled.create_infer_request()
                out = np.array(request.infer({0: np.ascontiguousarray(batch)})[0])  # a copy
            finally:
                del compiled, model  # its buffers go now, not at the next page
        return [out]


def detector_for(rapid_ocr) -> str:
    """Give ``rapid_ocr`` (a loaded ``RapidOCR``) the OpenVINO detector; what runs it now."""
    det = rapid_ocr.text_det
    try:
        path = det.infer.session._model_path
        ov_det = OpenVinoDetector(path)
        probe = np.zeros((1, 3, 64, 64), dtype=np.float32)
        if ov_det(probe)[0].shape[-2:] != (64, 64):
            raise ValueError("unexpected output shape")
    except Exception as exc:  # missing OpenVINO, an older RapidOCR: keep ONNX Runtime
        log.info("OCR text detection stays on ONNX Runtime (%s)", exc)
        return "onnxruntime"
    det.infer = ov_det  # the ONNX Runtime session is dropped with it
    return f"openvino {ov_det.precision}"
