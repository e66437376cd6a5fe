"""The OpenVINO path: the ONNX export's vectors (bfloat16 where the CPU has it), checked
against the export on probes, with ONNX Runtime as the fallback."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest

from papertrail.embed.model import SentenceTransformerEmbedder
from papertrail.embed.onnx import PROBES
from papertrail.embed.openvino_encoder import AGREE, cpu_precision, load_openvino
from papertrail.errors import PaperTrailError
from tests.tiny_model import save_tiny_model

TEXTS = ["one", "two words", "Net income was 1,577 in 2023.", "четыре 四 " * 40, "x " * 400]


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory) -> str:
    return save_tiny_model(tmp_path_factory.mktemp("tiny-ov"), layers=2, max_seq_length=64)


def _cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a * b).sum(axis=1)


def test_auto_runs_on_openvino_with_the_onnx_vectors(tiny_model, tmp_path):
    auto = SentenceTransformerEmbedder(tiny_model, batch_size=2, backend="auto", cache_dir=tmp_path)
    onnx = SentenceTransformerEmbedder(tiny_model, batch_size=2, backend="onnx", cache_dir=tmp_path)
    assert auto.runs_on == f"openvino {cpu_precision()}"
    got, want = auto.embed(TEXTS), onnx.embed(TEXTS)
    assert got.shape == (len(TEXTS), 16) and got.dtype == np.float32
    # padding, truncation at 64 tokens and pooling as on ONNX Runtime; bf16 rounding only
    assert _cosines(got, want).min() >= AGREE
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    # one export, shared by both runtimes, and its probe vectors kept beside it
    assert len(list(tmp_path.glob("*.onnx"))) == 1
    assert len(list(tmp_path.glob("*.probes.npy"))) == 1 and not list(tmp_path.glob("*.tmp"))


def test_a_compiled_model_that_disagrees_with_the_export_is_not_used(tiny_model, tmp_path):
    assert load_openvino(Path(tiny_model), tmp_path, streams=2) is not None
    kept = next(tmp_path.glob("*.probes.npy"))
    wrong = np.random.default_rng(0).normal(size=(len(PROBES), 16)).astype(np.float32)
    np.save(kept, wrong / np.linalg.norm(wrong, axis=1, keepdims=True))
    assert load_openvino(Path(tiny_model), tmp_path, streams=2) is None
    auto = SentenceTransformerEmbedder(tiny_model, backend="auto", cache_dir=tmp_path)
    assert auto.runs_on == "onnx"  # the next runtime down, still the export's vectors
    with pytest.raises(PaperTrailError) as err:
        SentenceTransformerEmbedder(tiny_model, backend="openvino", cache_dir=tmp_path).embed(["x"])
    assert err.value.code == "model" and "OpenVINO" in err.value.message


def test_concurrent_openvino_callers_get_their_own_rows(tiny_model, tmp_path):
    embedder = SentenceTransformerEmbedder(
        tiny_model, batch_size=1, backend="openvino", cache_dir=tmp_path
    )
    texts = [
        [f"caller {i} text {j} " + "pad " * ((i + j) % 7) for j in range(12)] for i in range(6)
    ]
    expected = [embedder.embed(t) for t in texts]
    results: list = [None] * len(texts)
    threads = [
        threading.Thread(target=lambda i=i: results.__setitem__(i, embedder.embed(texts[i])))
        for i in range(len(texts))
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for got, want in zip(results, expected, strict=True):
        np.testing.assert_allclose(got, want, atol=1e-6)
