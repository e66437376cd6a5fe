"""The check runner classifies real child processes: refused, crashed, timed out, indexed.

The children are tiny scripts that call ``child_main`` with a work function
chosen by the file name, so each outcome comes from a real process exit
(a signal, ``os._exit``, a sleep) rather than from a mock.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

from papertrail.measure.check import FileResult, run_check, run_one, summary
from papertrail.settings import Settings

CHILD = textwrap.dedent(
    """
    import os, signal, sys, time
    from pathlib import Path
    from papertrail.measure.check_child import child_main
    from papertrail.errors import PaperTrailError

    def work(path):
        kind = path.stem
        if kind == "locked":
            raise PaperTrailError("This PDF is password-protected. Give the password.",
                                  code="encrypted")
        if kind == "segfault":
            os.kill(os.getpid(), signal.SIGSEGV)
        if kind == "exits":
            print("disk on fire", file=sys.stderr)
            os._exit(3)
        if kind == "sleeps":
            time.sleep(60)
        if kind == "bug":
            raise ValueError("boom")
        if kind == "hollow":
            return {"message": "indexed", "pages": 0, "chunks": 0, "ocr_pages": 0}
        return {"message": "2 pages, 3 chunks.", "pages": 2, "chunks": 3, "ocr_pages": 1,
                "cited": 1, "timings": {"read": 0.5}}

    child_main(Path(sys.argv[1]), Path(sys.argv[2]), work)
    """
)


@pytest.fixture
def command(tmp_path):
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    return lambda pdf, result: [sys.executable, str(script), str(pdf), str(result)]


def folder_with(tmp_path: Path, *stems: str) -> Path:
    folder = tmp_path / "pdfs"
    folder.mkdir()
    for stem in stems:
        (folder / f"{stem}.pdf").write_bytes(b"%PDF-1.4\n")
    (folder / "notes.txt").write_text("not a pdf: skipped")
    return folder


def test_outcomes_and_json(tmp_path, command, capsys):
    folder = folder_with(tmp_path, "good", "locked", "segfault", "exits", "bug")
    out = tmp_path / "report.json"
    code = run_check(folder, Settings(), json_out=out, timeout=30, command=command)
    assert code == 1  # crashes fail the check
    rows = {r["file"]: r for r in json.loads(out.read_text())}
    assert sorted(rows) == ["bug.pdf", "exits.pdf", "good.pdf", "locked.pdf", "segfault.pdf"]
    for r in rows.values():
        assert {"file", "outcome", "message", "pages", "chunks", "ocr_pages", "seconds"} <= set(r)
        assert r["peak_rss_mb"] > 1  # a Python process uses some memory
        assert 0 < r["seconds"] < 30
    assert rows["good.pdf"]["outcome"] == "indexed"
    assert (rows["good.pdf"]["pages"], rows["good.pdf"]["chunks"]) == (2, 3)
    assert rows["good.pdf"]["ocr_pages"] == 1
    assert rows["good.pdf"]["cited"] == 1 and rows["good.pdf"]["timings"] == {"read": 0.5}
    assert rows["locked.pdf"]["outcome"] == "refused"
    assert "password-protected" in rows["locked.pdf"]["message"]
    assert rows["locked.pdf"]["code"] == "encrypted"
    assert rows["segfault.pdf"]["outcome"] == "crashed"
    assert "SIGSEGV" in rows["segfault.pdf"]["message"]
    assert rows["exits.pdf"]["outcome"] == "crashed"
    assert "code 3" in rows["exits.pdf"]["message"]
    assert "disk on fire" in rows["exits.pdf"]["message"]
    assert rows["bug.pdf"]["outcome"] == "crashed"
    assert "ValueError: boom" in rows["bug.pdf"]["message"]
    printed = capsys.readouterr().out
    assert "2/5 handled (1 indexed, 1 refused), 3 crashed, 0 timeouts" in printed
    assert "FAIL segfault.pdf: crashed" in printed


def test_clean_run_exits_zero(tmp_path, command, capsys):
    folder = folder_with(tmp_path, "good", "locked")
    assert run_check(folder, Settings(), timeout=30, command=command) == 0
    assert "2/2 handled (1 indexed, 1 refused), 0 crashed" in capsys.readouterr().out


def test_progress_is_reported_before_each_file_and_at_the_end(tmp_path, command, capsys):
    folder = folder_with(tmp_path, "good", "locked")
    seen = []
    run_check(
        folder, Settings(), timeout=30, command=command, on_progress=lambda *a: seen.append(a)
    )
    assert seen == [(0, 2), (1, 2), (2, 2)]


def test_timeout_kills_the_child(tmp_path, command):
    pdf = folder_with(tmp_path, "sleeps") / "sleeps.pdf"
    result = run_one(pdf, command, tmp_path / "r.json", timeout=1.5)
    assert result.outcome == "timeout"
    assert result.seconds < 10  # killed, not waited for
    assert "1.5 s" in result.message


def test_indexed_into_nothing_fails(tmp_path, command, capsys):
    folder = folder_with(tmp_path, "hollow")
    assert run_check(folder, Settings(), timeout=30, command=command) == 1
    assert "empty index" in capsys.readouterr().out


def test_targets_and_summary():
    ok = FileResult("a.pdf", "indexed", "fine", pages=1, chunks=2, seconds=3.0, peak_rss_mb=500)
    slow = FileResult("b.pdf", "refused", "locked", seconds=75.0, peak_rss_mb=400)
    fat = FileResult("c.pdf", "indexed", "ok", pages=1, chunks=1, seconds=5, peak_rss_mb=2000)
    assert ok.problems() == []
    assert "75.0 s" in slow.problems()[0]
    assert "2000 MB" in fat.problems()[0]
    line = summary([ok, slow, fat, FileResult("d.pdf", "timeout", "killed", seconds=60.2)])
    assert line == (
        "3/4 handled (2 indexed, 1 refused), 0 crashed, 1 timeouts, slowest 75.0 s, peak 2000 MB"
    )


def test_refuses_a_folder_without_pdfs(tmp_path):
    from papertrail.errors import PaperTrailError

    with pytest.raises(PaperTrailError, match="no .pdf files"):
        run_check(tmp_path, Settings(), command=lambda p, r: [])


def test_the_time_limit_grows_with_pages_and_scanned_pages(tmp_path):
    from papertrail.measure.check import PER_PAGE, PER_PICTURE_PAGE, PER_READ_PICTURES, time_limit
    from tests import pdfs
    from tests.papertrail.read.test_pictures import page_with_picture

    text = tmp_path / "text.pdf"
    text.write_bytes(pdfs.simple_pdf(["A page of ordinary text, long enough to count."] * 40))
    scans = tmp_path / "scans.pdf"
    scans.write_bytes(pdfs.image_only_pdf(3))
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.4 nothing else")
    assert time_limit(text, 60) == pytest.approx(60 + 40 * PER_PAGE)
    assert time_limit(scans, 60) == pytest.approx(60 + 3 * (PER_PAGE + PER_PICTURE_PAGE))
    assert time_limit(broken, 60) == 60
    charts = tmp_path / "charts.pdf"  # pages of text whose pictures OCR reads
    charts.write_bytes(page_with_picture(pages=2))
    assert time_limit(charts, 60) == pytest.approx(60 + 2 * (PER_PAGE + PER_READ_PICTURES))


def test_a_slow_file_fails_against_its_own_limit():
    long = FileResult("book.pdf", "indexed", "ok", pages=352, chunks=9, seconds=150, limit=272)
    assert long.problems() == []
    assert (
        "its limit of 60 s"
        in FileResult("a.pdf", "indexed", "ok", chunks=1, seconds=61).problems()[0]
    )


def test_a_small_child_of_a_large_parent_is_measured_at_its_own_size():
    # Linux's ru_maxrss of a child counts its parent's peak at the start: a test run
    # holding models made every file of `check` look 1.6 GB
    import subprocess
    import time

    import numpy as np

    from papertrail.measure.check import _wait

    ballast = np.ones(300 * 1024 * 1024 // 8)  # 300 MB, touched: this parent's peak
    sizes = {}
    for name, code in {
        "small": "import time; time.sleep(0.3)",
        "large": "b = bytearray(200 * 1024 * 1024); import time; time.sleep(0.3)",
    }.items():
        proc = subprocess.Popen([sys.executable, "-c", code])
        _, sizes[name], timed_out = _wait(proc, time.monotonic() + 30)
        assert not timed_out
    del ballast
    assert sizes["small"] < 100
    assert 200 <= sizes["large"] < 300


def test_a_child_that_ends_fast_reports_its_own_peak_not_its_parents(tmp_path, command):
    """Polling every 50 ms can miss a child that ends within one poll; ``ru_maxrss`` then
    counts this (large) parent's peak. The child's result carries its own ``VmHWM``."""
    import numpy as np

    ballast = np.ones(400 * 1024 * 1024 // 8)  # 400 MB, touched: this parent's peak
    pdf = folder_with(tmp_path, "good") / "good.pdf"
    result = run_one(pdf, command, tmp_path / "r.json", timeout=30)
    del ballast
    own = json.loads((tmp_path / "r.json").read_text())["own_peak_mb"]
    assert 1 < own < 300  # a small Python process, not the 400 MB parent
    assert result.outcome == "indexed" and result.peak_rss_mb == own
