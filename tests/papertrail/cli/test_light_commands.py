"""``papertrail list``, ``forget`` and ``--help`` never import torch nor load the model.

Each command runs in a fresh interpreter (what a user's shell starts), on a
data folder that already holds an indexed document; afterwards the child
reports which heavy modules were imported and whether an embedding model was
loaded. Listing and forgetting read the registry only.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests import pdfs

ROOT = Path(__file__).resolve().parents[3]
HEAVY = ("torch", "sentence_transformers", "transformers")
CHILD = r"""
import json, sys
from papertrail.cli.main import main
try:
    code = main(sys.argv[1:])
except SystemExit as done:  # --help
    code = done.code
model = sys.modules.get("papertrail.embed.model")
print(json.dumps({
    "code": code,
    "heavy": [m for m in HEAVY if m in sys.modules],
    "loaded": bool(model and model._models),
}), file=sys.stderr)
"""


def _child(args: list[str], env: dict[str, str]) -> dict:
    code = f"HEAVY = {HEAVY!r}\n" + CHILD
    done = subprocess.run(
        [sys.executable, "-c", code, "--env-file", os.devnull, *args],
        env=env, cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    return json.loads(done.stderr.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    folder = tmp_path_factory.mktemp("light")
    pdf = folder / "report.pdf"
    pdf.write_bytes(pdfs.simple_pdf(["The Kestrel bridge opened in 1998."]))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAPERTRAIL")}
    env |= {"PYTHONPATH": str(ROOT), "PAPERTRAIL_DATA_DIR": str(folder / "data")}
    env |= {"PAPERTRAIL_OCR": "false"}
    ingest = [sys.executable, "-m", "papertrail.cli", "--env-file", os.devnull, "ingest", str(pdf)]
    assert subprocess.run(ingest, env=env, cwd=ROOT, timeout=300).returncode == 0
    return env


@pytest.mark.parametrize(
    ("args", "code"),
    [(["--help"], 0), (["list"], 0), (["forget", "no-such.pdf"], 2), (["forget", "report.pdf"], 0)],
)
def test_light_commands_import_no_torch_and_load_no_model(env, args, code):
    seen = _child(args, env)
    assert seen["code"] == code
    assert seen["heavy"] == [] and not seen["loaded"], seen


def test_the_check_sees_a_model_load(env):
    seen = _child(["ask", "--channel", "other", str(Path(env["PAPERTRAIL_DATA_DIR"])), "x"], env)
    assert seen["code"] == 2  # a folder is no PDF: refused before any model work
    report = Path(env["PAPERTRAIL_DATA_DIR"]).parent / "report.pdf"
    seen = _child(["ask", str(report), "When did the Kestrel bridge open?"], env)
    assert seen["code"] == 0 and seen["loaded"]  # what the light commands must not do
