"""The OpenVINO path: the ONNX export's vectors (bfloat16 where the CPU has it), checked
against the export on probes, with ONNX Runtime as the fallback."""

from __future__ import annotations

import subprocess
import sys
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
    # bfloat16 passes compile from a float16-weight copy of it (less memory), made once
    halves = list(tmp_path.glob("*.f16.xml"))
    assert len(halves) == (1 if cpu_precision() == "bf16" else 0)
    assert not [p for p in tmp_path.iterdir() if "tmp" in p.name]


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


def test_padding_to_a_multiple_of_tokens_leaves_the_vectors_alone(tiny_model, tmp_path):
    from tokenizers import Tokenizer

    from papertrail.embed.onnx import token_arrays

    tokenizer = Tokenizer.from_file(str(Path(tiny_model) / "tokenizer.json"))
    tokenizer.no_padding()  # as the encoders load it
    encs = tokenizer.encode_batch(["one", "a few more words than one"])
    tight, padded = token_arrays(encs), token_arrays(encs, 16)
    assert tight["input_ids"].shape[1] == max(len(e.ids) for e in encs)
    assert padded["input_ids"].shape == (2, 16)
    assert padded["attention_mask"].sum() == tight["attention_mask"].sum()
    # the OpenVINO encoder pads every pass to a multiple of 16 tokens (fewer shapes for
    # the CPU plugin to keep kernels and buffers for); the rows match the unpadded pass
    auto = SentenceTransformerEmbedder(tiny_model, batch_size=1, backend="auto", cache_dir=tmp_path)
    onnx = SentenceTransformerEmbedder(tiny_model, batch_size=1, backend="onnx", cache_dir=tmp_path)
    assert _cosines(auto.embed(TEXTS), onnx.embed(TEXTS)).min() >= AGREE


def test_each_runtime_runs_the_batch_size_it_runs_best(tiny_model, tmp_path, monkeypatch):
    from papertrail.embed import model, openvino_encoder

    sizes: list[int] = []
    auto = SentenceTransformerEmbedder(tiny_model, backend="auto", cache_dir=tmp_path)
    encoder = auto._load()  # shared by every embedder of this model, backend and cache
    run = encoder.encode
    monkeypatch.setattr(encoder, "encode", lambda texts: sizes.append(len(texts)) or run(texts))
    texts = [f"text {i}" for i in range(200)]  # a document's call: full batches
    auto.embed(texts)
    assert set(sizes) == {openvino_encoder.BATCH}
    sizes.clear()
    explicit = SentenceTransformerEmbedder(
        tiny_model, batch_size=10, backend="auto", cache_dir=tmp_path
    )
    explicit.embed(texts)
    assert set(sizes) == {10}  # an explicit batch size wins
    assert model.BATCH == 8  # what torch and ONNX Runtime run


def test_a_cache_it_cannot_write_to_still_runs_on_openvino(tiny_model, tmp_path):
    import os

    from papertrail.embed.onnx import exported

    target = exported(Path(tiny_model), tmp_path)  # the export a build step made
    # what this process would write beside it is in the way (as in a read-only folder)
    (target.with_suffix(f".{os.getpid()}.probes.tmp")).mkdir()
    (target.with_suffix(f".{os.getpid()}.f16tmp.xml")).mkdir()
    encoder = load_openvino(Path(tiny_model), tmp_path, streams=1)
    assert encoder is not None  # probes computed and the export compiled, nothing kept
    assert not list(tmp_path.glob("*.probes.npy")) and not list(tmp_path.glob("*.f16.xml"))
    onnx = SentenceTransformerEmbedder(tiny_model, backend="onnx", cache_dir=tmp_path)
    assert _cosines(encoder.encode(TEXTS), onnx.embed(TEXTS)).min() >= AGREE


def test_openvino_is_imported_with_its_telemetry_shut_out():
    # ``import openvino`` alone sends a usage event unless the user opted out; a fresh
    # interpreter, so no earlier import in this test process hides what happens
    code = (
        "import sys\n"
        "from papertrail.embed.openvino_encoder import openvino\n"
        "ov = openvino()\n"
        "import openvino.tools.ovc.telemetry_utils as t\n"
        "print(t.tm.__name__, sys.modules.get('openvino_telemetry'))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert out.stdout.split() == ["openvino.tools.ovc.telemetry_stub", "None"]
