"""The OCR text detector on OpenVINO: same boxes as ONNX Runtime's, a fallback, no leftovers."""

from __future__ import annotations

import numpy as np
import pytest

from papertrail.read import ocr_detect
from papertrail.read.ocr import RapidOcrEngine, decode, get_ocr
from tests.papertrail.read.test_ocr import page_png, scan


def _rapid_ocr():
    from rapidocr_onnxruntime import RapidOCR

    return RapidOCR(intra_op_num_threads=1)


@pytest.mark.model
def test_the_engine_detects_on_openvino():
    engine = get_ocr()
    engine._model()
    assert engine.detector.startswith("openvino")


@pytest.mark.model
@pytest.mark.parametrize("turn", [0, 90])
def test_openvino_finds_the_lines_onnx_runtime_finds(turn):
    img, _ = decode(page_png(scan(turn)))
    ort = RapidOcrEngine()
    ort._ocr = _rapid_ocr()  # as loaded, before the detector is swapped
    ov = RapidOcrEngine()
    ov._ocr = _rapid_ocr()
    assert ocr_detect.detector_for(ov._ocr).startswith("openvino")
    want, got = ort.detect(img), ov.detect(img)
    assert len(got) == len(want) == 2  # the two lines of the scan

    def top(box):
        return box[:, 1].min()

    for a, b in zip(sorted(want, key=top), sorted(got, key=top), strict=True):
        assert np.abs(a - b).max() <= 4  # pixels: the same boxes up to the threshold's edge


@pytest.mark.model
def test_each_page_shape_is_compiled_and_dropped():
    rapid = _rapid_ocr()
    assert ocr_detect.detector_for(rapid).startswith("openvino")
    det = rapid.text_det.infer
    for h, w in [(64, 96), (96, 64), (64, 96)]:
        (out,) = det(np.zeros((1, 3, h, w), dtype=np.float32))
        assert out.shape[-2:] == (h, w)  # a new shape each time: no fixed input size
    assert det._model.get_parameters()[0].get_partial_shape().is_dynamic  # the original kept


def test_without_openvino_detection_stays_on_onnx_runtime(monkeypatch):
    def missing():
        raise ImportError("no openvino")

    monkeypatch.setattr(ocr_detect, "openvino", missing)
    rapid = _rapid_ocr()
    session = rapid.text_det.infer
    assert ocr_detect.detector_for(rapid) == "onnxruntime"
    assert rapid.text_det.infer is session
