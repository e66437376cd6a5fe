"""Bad command lines and settings are refused before any model, pipeline or PDF loads.

Each case runs the real ``papertrail`` command in a fresh interpreter and
checks exit 2, the one-line message, and that neither the pipeline nor an
inference runtime was imported: what makes these answers come back in well
under a second (the figures are in docs/reliability.md), without a timed
assertion.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PROBE = r"""
import sys
from papertrail.cli.main import main
code = main(sys.argv[1:])
heavy = [m for m in ("papertrail.pipeline", "pymupdf", "onnxruntime", "torch") if m in sys.modules]
print("EXIT", code, "LOADED", ",".join(heavy) or "-", file=sys.stderr)
"""


def run(args: list[str], tmp_path: Path, **env: str) -> tuple[int, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("PAPERTRAIL")}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        env=base | {"PYTHONPATH": str(ROOT), "PAPERTRAIL_DATA_DIR": str(tmp_path / "d"), **env},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done.returncode, done.stderr


@pytest.fixture
def pdf(tmp_path) -> Path:
    from tests.pdfs import simple_pdf

    path = tmp_path / "real.pdf"
    path.write_bytes(simple_pdf(["The warranty lasts 24 months."]))
    return path


@pytest.mark.parametrize(
    ("args", "env", "message"),
    [
        (["ask", "missing.pdf", "what is it?"], {}, "Cannot read missing.pdf: no such file."),
        (["ask", "{pdf}", "   "], {}, "the question is empty"),
        (["ingest", "{pdf}", "missing.pdf"], {}, "Cannot read missing.pdf"),
        (
            ["ask", "{pdf}", "what?"],
            {"PAPERTRAIL_TOP_K": "0"},
            "PAPERTRAIL_TOP_K=0 is out of range",
        ),
        (["--env-file", "nowhere.env", "docs"], {}, "--env-file nowhere.env: no such file"),
        (
            ["eval", "{pdf}", "--json", "no/such/dir/out.json"],
            {},
            "is in a folder that does not exist (no/such/dir)",
        ),
        (["eval-verifier", "{pdf}", "--json", "."], {}, "--json . is a folder"),
    ],
    ids=[
        "missing-file",
        "empty-question",
        "one-missing-of-two",
        "top-k-0",
        "missing-env-file",
        "json-in-missing-folder",
        "json-is-a-folder",
    ],
)
def test_refused_with_exit_2_before_anything_heavy_loads(tmp_path, pdf, args, env, message):
    code, err = run([a.replace("{pdf}", str(pdf)) for a in args], tmp_path, **env)
    assert code == 0, err  # the probe itself finished
    assert "EXIT 2 LOADED -" in err, err
    assert message in err
