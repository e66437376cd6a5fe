"""SIGKILL in the middle of indexing, then a restart, with real processes.

Each step runs in its own Python process on the same on-disk Chroma index,
as the bot would across a crash and a restart.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests import pdfs

ROOT = Path(__file__).resolve().parents[2]

CHILD = r"""
import json, sys, time
from pathlib import Path

from tests import pdfs
from papertrail.pipeline import PaperTrail
from papertrail.settings import Settings
from papertrail.store.chroma import ChromaStore
from tests.fakes import HashEmbedder

class SlowEmbedder(HashEmbedder):
    def embed(self, texts):
        out = super().embed(texts)
        print("batch", flush=True)
        time.sleep(float(sys.argv[3]))
        return out

data_dir, action = Path(sys.argv[1]), sys.argv[2]
embedder = SlowEmbedder()
pt = PaperTrail(Settings(data_dir=data_dir), embedder=embedder,
                store=ChromaStore.persistent(data_dir / "chroma", model=embedder.name))
pt.embed_batch = 2
data = (data_dir / "paper.pdf").read_bytes()  # the same bytes in every process
if action == "ingest":
    r = pt.ingest("c1", "paper.pdf", data)
    print(json.dumps({"new": r.new, "embedded": r.embedded}), flush=True)
else:
    docs = pt.documents("c1")
    chunks = len(pt.store.chunks("c1"))
    print(json.dumps({"docs": [d.status for d in docs], "chunks": chunks}), flush=True)
"""


def run_child(data_dir: Path, action: str, delay: float = 0.0) -> subprocess.Popen:
    pdf = data_dir / "paper.pdf"
    if not pdf.exists():  # pymupdf stamps each save with new ids: write the bytes once
        pdf.write_bytes(pdfs.paper_pdf())
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-c", CHILD, str(data_dir), action, str(delay)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    )


def last_json(proc: subprocess.Popen) -> dict:
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err[-2000:]
    return json.loads(out.strip().splitlines()[-1])


def test_sigkill_mid_ingest_then_restart_reindexes(tmp_path):
    child = run_child(tmp_path, "ingest", delay=0.5)
    for line in child.stdout:  # wait until at least one batch of chunks was stored
        if line.startswith("batch"):
            break
    time.sleep(0.7)  # the first add_chunks has happened by now
    child.send_signal(signal.SIGKILL)
    child.wait(30)
    assert child.returncode == -signal.SIGKILL

    after_crash = last_json(run_child(tmp_path, "inspect"))
    assert after_crash == {"docs": [], "chunks": 0}  # nothing half-indexed is served

    redo = last_json(run_child(tmp_path, "ingest"))
    assert redo["new"] and redo["embedded"] > 0
    state = last_json(run_child(tmp_path, "inspect"))
    assert state["docs"] == ["ready"] and state["chunks"] == redo["embedded"]


def test_index_survives_an_ordinary_restart_without_reembedding(tmp_path):
    first = last_json(run_child(tmp_path, "ingest"))
    assert first["new"] and first["embedded"] > 0
    second = last_json(run_child(tmp_path, "ingest"))
    assert second == {"new": False, "embedded": 0}
