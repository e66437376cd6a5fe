"""The ONNX Runtime path: same vectors as PyTorch, one export per model, safe fallbacks."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from papertrail.embed.model import SentenceTransformerEmbedder, get_embedder
from papertrail.embed.onnx import load_onnx
from papertrail.errors import PaperTrailError
from papertrail.settings import Settings
from tests.tiny_model import save_tiny_model

TEXTS = ["one", "two words", "Net income was 1,577 in 2023.", "четыре 四 " * 40, "x " * 400]


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory) -> str:
    """Two layers, 64 tokens: the long texts above are truncated."""
    return save_tiny_model(tmp_path_factory.mktemp("tiny-onnx"), layers=2, max_seq_length=64)


def test_onnx_gives_the_torch_vectors_and_exports_once(tiny_model, tmp_path):
    onnx = SentenceTransformerEmbedder(tiny_model, batch_size=2, backend="onnx", cache_dir=tmp_path)
    torch_rows = SentenceTransformerEmbedder(tiny_model, batch_size=2).embed(TEXTS)
    assert onnx.runs_on == "onnx"
    got = onnx.embed(TEXTS)
    assert got.shape == (len(TEXTS), 16) and got.dtype == np.float32
    # padding, truncation at the model's 64 tokens and pooling all as in PyTorch
    np.testing.assert_allclose(got, torch_rows, atol=1e-5)
    exported = list(tmp_path.glob("*.onnx"))
    assert len(exported) == 1 and not list(tmp_path.glob("*.tmp"))
    stamp = exported[0].stat().st_mtime_ns
    assert load_onnx(Path(tiny_model), tmp_path) is not None
    assert exported[0].stat().st_mtime_ns == stamp  # loaded from the cache, not exported again


@pytest.mark.parametrize("backend", ["onnx", "openvino"])
def test_concurrent_callers_get_their_own_rows(tiny_model, tmp_path, backend):
    embedder = SentenceTransformerEmbedder(
        tiny_model, batch_size=1, backend=backend, cache_dir=tmp_path
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


def test_a_model_onnx_cannot_run_falls_back_or_is_refused(tiny_model, tmp_path):
    cls_model = tmp_path / "cls"
    shutil.copytree(tiny_model, cls_model)
    pooling = next(cls_model.glob("1_*")) / "config.json"
    config = json.loads(pooling.read_text())
    config["pooling_mode"] = "cls"
    pooling.write_text(json.dumps(config))
    cache = tmp_path / "cache"
    auto = SentenceTransformerEmbedder(str(cls_model), backend="auto", cache_dir=cache)
    assert auto.runs_on == "torch" and auto.embed(["hello"]).shape == (1, 16)
    assert not cache.exists()  # nothing was exported
    with pytest.raises(PaperTrailError) as err:
        SentenceTransformerEmbedder(str(cls_model), backend="onnx", cache_dir=cache).embed(["x"])
    assert err.value.code == "model" and "PAPERTRAIL_EMBED_BACKEND" in err.value.message


def test_the_backend_setting_is_checked():
    with pytest.raises(PaperTrailError) as err:
        get_embedder(Settings(embed_backend="gpu"))
    assert err.value.code == "config"
    assert get_embedder(Settings()).backend == "auto"


def test_a_process_with_an_exported_model_never_imports_torch(tiny_model, tmp_path):
    SentenceTransformerEmbedder(tiny_model, backend="onnx", cache_dir=tmp_path).embed(["warm"])
    code = (
        "import sys, pathlib\n"
        "from papertrail.embed.model import SentenceTransformerEmbedder\n"
        "cache = pathlib.Path(sys.argv[2])\n"
        "e = SentenceTransformerEmbedder(sys.argv[1], backend='onnx', cache_dir=cache)\n"
        "e.embed(['a question', 'a chunk of text'])\n"
        "print('torch' in sys.modules, e.runs_on)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, tiny_model, str(tmp_path)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.split() == ["False", "onnx"]
