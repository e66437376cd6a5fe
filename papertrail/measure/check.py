"""``papertrail check FOLDER``: each PDF of a folder through ingest + a question, in a child.

Each file runs in a fresh child (``papertrail.measure.check_child``) with a
scratch data dir, so a crash, hang or memory blow-up in one file is caught,
named and measured instead of taking the run down. The parent reaps the
child with ``os.wait4`` and takes its peak RSS from the child's own result (its
``VmHWM`` as it ends), else from polling (``_peak_mb``), kills its process group after
its time limit, prints a table and a summary, and exits non-zero when any
file crashed, timed out, took longer than its limit or over 1.5 GB, or was
"indexed" into nothing. The time limit grows with the file (``time_limit``):
``timeout`` (60 s: model loading, one question) plus 0.6 s a page plus 30 s
a page that looks like a scan (a picture and almost no text: OCR) plus 10 s
a page of text whose pictures OCR reads, counted by
the parent before the child starts, so a 352-page book or a scanned sample
keeps a margin of several times its time on a busy shared machine while a
hang on a small file is still caught within a minute. What the child does with a file (ingest, ask,
summarise) is ``check_child``'s; this module is the parent: running, timing,
killing and classifying.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from papertrail.errors import PaperTrailError
from papertrail.measure.check_child import OUTCOMES, Command, child_command, high_water_mb
from papertrail.offline import offline_env
from papertrail.read.pictures import picture_boxes
from papertrail.settings import Settings

TIME_TARGET = 60.0  # seconds per file, ingest + question, model loading included
# Measured on the shared 2-core host: the 352-page book took 27 s idle and 146 s at load 11
# (niced), the 4 scanned pages of a rotated sample 19 s and 86 s. These give both 2x that.
PER_PAGE = 0.6  # more seconds a page (read + embed: ~0.07 s a page idle)
PER_PICTURE_PAGE = 30.0  # more seconds a page that looks scanned (OCR: ~5 s a page idle)
PER_READ_PICTURES = 10.0  # more seconds a page of text whose pictures OCR reads (~1 s idle)
PICTURE_COVER = 0.1  # share of a page a picture must cover to count (as the OCR rule)
FEW_CHARACTERS = 50  # text on a picture page below which it counts as a scan
MEMORY_TARGET_MB = 1536.0  # peak resident memory of one child


@dataclass(frozen=True)
class FileResult:
    """What happened to one file, as the JSON report and the table show it."""

    file: str
    outcome: str  # one of OUTCOMES
    message: str  # what a user would see: the refusal, or a summary of the answer
    pages: int = 0
    chunks: int = 0
    ocr_pages: int = 0
    seconds: float = 0.0  # wall time of the child, start to exit
    peak_rss_mb: float = 0.0
    code: str = ""  # PaperTrailError.code when refused
    cited: int = 0  # verified citations in the answer
    question: str = ""  # what was asked (QUESTION, or one about the document's own words)
    timings: dict | None = None  # child's seconds per stage: start, load, read, embed, ask...
    limit: float = TIME_TARGET  # seconds this file was allowed (``time_limit``)

    def problems(self) -> list[str]:
        """Why this file fails the check (empty when it passes)."""
        out = []
        if self.outcome in ("crashed", "timeout"):
            out.append(self.outcome)
        if self.outcome == "indexed" and self.chunks == 0:
            out.append("reported indexed with an empty index")
        if self.seconds > self.limit and self.outcome != "timeout":
            out.append(f"took {self.seconds:.1f} s (> its limit of {self.limit:g} s)")
        if self.peak_rss_mb > MEMORY_TARGET_MB:
            out.append(f"used {self.peak_rss_mb:.0f} MB (> {MEMORY_TARGET_MB:g} MB)")
        return out


MEASURED = ("file", "seconds", "peak_rss_mb", "limit")  # by the parent; a child the rest
REPORTED = tuple(f.name for f in fields(FileResult) if f.name not in MEASURED)


def run_check(
    folder: Path,
    settings: Settings,
    *,
    json_out: Path | None = None,
    timeout: float = 60.0,
    command: Command | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> int:
    """Check every ``*.pdf`` of ``folder``; print a table; 0 only when every file passed.

    ``command`` builds the child's argv (tests pass small fake children); by
    default it is ``check_child`` with ``settings``. ``on_progress(done, total)``
    is called before each file and once at the end (files done so far).
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise PaperTrailError(f"{folder} is not a folder.", code="io")
    files = sorted(p for p in folder.iterdir() if p.is_file() and p.suffix.lower() == ".pdf")
    if not files:
        raise PaperTrailError(f"{folder} has no .pdf files to check.", code="io")
    with tempfile.TemporaryDirectory(prefix="papertrail-check-") as tmp:
        if command is None:
            command = child_command(settings, Path(tmp) / "settings.pickle")
        results = []
        print(_row("file", "outcome", "pages", "chunks", "ocr", "s", "MB", "message"))
        for i, path in enumerate(files):
            if on_progress is not None:
                on_progress(i, len(files))
            limit = time_limit(path, timeout)
            result = run_one(path, command, Path(tmp) / f"result-{i}.json", timeout=limit)
            results.append(result)
            print(_row_of(result), flush=True)
        if on_progress is not None:
            on_progress(len(files), len(files))
    if json_out is not None:
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(json.dumps([asdict(r) for r in results], indent=2, ensure_ascii=False))
    print(summary(results))
    print(
        f"time limit per file: {timeout:g} s + {PER_PAGE:g} s a page + "
        f"{PER_PICTURE_PAGE:g} s a page that looks scanned (OCR) + "
        f"{PER_READ_PICTURES:g} s a page whose pictures OCR reads"
    )
    for r in results:
        for why in r.problems():
            print(f"FAIL {r.file}: {why} — {r.message}")
    return 1 if any(r.problems() for r in results) else 0


def run_one(path: Path, command: Command, result_path: Path, *, timeout: float) -> FileResult:
    """Run the child for ``path``, kill it after ``timeout`` s, and classify what happened."""
    result_path.unlink(missing_ok=True)
    env = offline_env(dict(os.environ))
    with tempfile.TemporaryFile() as err:
        start = time.monotonic()
        proc = subprocess.Popen(
            command(path, result_path),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
            env=env,
            start_new_session=True,  # its own process group, so a kill takes its helpers too
        )
        status, peak, timed_out = _wait(proc, start + timeout)
        seconds = time.monotonic() - start
        err.seek(0)
        stderr = err.read().decode("utf-8", "replace")
    base = {"file": path.name, "seconds": round(seconds, 2), "peak_rss_mb": round(peak, 1)}
    base["limit"] = round(timeout, 1)
    if timed_out:
        msg = f"killed after {timeout:g} s without finishing"
        return FileResult(outcome="timeout", message=msg, **base)
    report = _read_result(result_path)
    own = float((report or {}).get("own_peak_mb") or 0.0)
    if own > 0:  # its own last word: exact, where polling can miss a child that ends fast
        base["peak_rss_mb"] = round(own, 1)
    code = os.waitstatus_to_exitcode(status)
    if report is None or code != 0:
        return FileResult(outcome="crashed", message=_crash_message(code, stderr, report), **base)
    keep = {k: report[k] for k in REPORTED if k in report}
    return FileResult(**keep, **base)


def time_limit(path: Path, base: float) -> float:
    """Seconds ``path`` may take: ``base`` plus ``PER_PAGE`` a page plus
    ``PER_PICTURE_PAGE`` a page that looks scanned plus ``PER_READ_PICTURES`` a
    page of text whose pictures OCR reads; ``base`` alone for a file that does
    not open (it is refused in seconds anyway)."""
    import pymupdf

    try:
        with pymupdf.open(path) as doc:
            if doc.needs_pass:
                return base
            pages = doc.page_count
            scans = [_looks_scanned(page) for page in doc]
            pictured = sum(
                not s and bool(picture_boxes(page)) for s, page in zip(scans, doc, strict=True)
            )
    except Exception:  # corrupt, empty, not a PDF: the child reports it
        return base
    return base + PER_PAGE * pages + PER_PICTURE_PAGE * sum(scans) + PER_READ_PICTURES * pictured


def _looks_scanned(page) -> bool:
    area = abs(page.rect) or 1.0
    try:
        covered = sum(abs(page.rect & im["bbox"]) for im in page.get_image_info())
    except Exception:
        return True
    if covered / area < PICTURE_COVER:
        return False
    return len(page.get_text().strip()) < FEW_CHARACTERS  # a scan: OCR will read it


def summary(results: list[FileResult]) -> str:
    """One line: how many files were handled, crashed, timed out; slowest; peak memory."""
    n = {o: sum(r.outcome == o for r in results) for o in OUTCOMES}
    slow = max((r.seconds for r in results), default=0.0)
    peak = max((r.peak_rss_mb for r in results), default=0.0)
    handled = n["indexed"] + n["refused"]
    return (
        f"{handled}/{len(results)} handled ({n['indexed']} indexed, {n['refused']} refused), "
        f"{n['crashed']} crashed, {n['timeout']} timeouts, slowest {slow:.1f} s, peak {peak:.0f} MB"
    )


# -- helpers --------------------------------------------------------------


def _wait(proc: subprocess.Popen, deadline: float):
    """(wait status, the child's peak RSS in MB, timed out?) — kills the group at the deadline."""
    timed_out, hwm, polls = False, 0.0, 0
    while True:
        if polls:  # the first read can come before the exec: a vfork'd copy reads ~0.2 MB
            hwm = max(hwm, high_water_mb(proc.pid))  # before wait4: then it is gone
        polls += 1
        pid, status, rusage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() >= deadline:
            _kill_group(proc.pid)
            _, status, rusage = os.wait4(proc.pid, 0)
            timed_out = True
            break
        time.sleep(0.05)
    proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here: tell Popen
    _kill_group(proc.pid)  # helpers it left behind
    return status, _peak_mb(hwm, rusage.ru_maxrss / 1024), timed_out  # Linux: KiB


def _peak_mb(high_water: float, maxrss: float) -> float:
    """The child's own peak RSS. Linux's ``ru_maxrss`` of a child is at least its parent's
    peak when it was started (exec keeps the larger of the old and new memory's marks),
    so a large parent (a test run holding models: 1.6 GB) made every small child look
    that large. Its program's own high-water mark (``VmHWM``, read while it ran, from 50 ms
    after its start to 50 ms before it ended) is used when read; else ``ru_maxrss``, an
    upper bound (a child that ended within 50 ms). A child that writes a result reports
    its own ``VmHWM`` in it, which ``run_one`` prefers: polling can miss a fast child."""
    return high_water if high_water > 0 else maxrss


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):  # already gone
        os.killpg(pgid, signal.SIGKILL)


def _read_result(path: Path) -> dict | None:
    try:
        report = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return report if isinstance(report, dict) and report.get("outcome") in OUTCOMES else None


def _crash_message(code: int, stderr: str, report: dict | None) -> str:
    if report is not None and report.get("outcome") == "crashed":
        return report.get("message", "bug")
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        how = f"killed by {name}"
    else:
        how = f"exited with code {code} without a result"
    last = [ln for ln in stderr.strip().splitlines() if ln.strip()][-1:]
    return f"{how}: {last[0].strip()}" if last else how


def _row(file, outcome, pages, chunks, ocr, secs, mb, message) -> str:
    return (
        f"{file[:44]:<44} {outcome:<8} {pages:>5} {chunks:>6} {ocr:>4} {secs:>6} {mb:>6}  "
        f"{message[:90]}"
    )


def _row_of(r: FileResult) -> str:
    return _row(
        r.file,
        r.outcome,
        str(r.pages),
        str(r.chunks),
        str(r.ocr_pages),
        f"{r.seconds:.1f}",
        f"{r.peak_rss_mb:.0f}",
        r.message,
    )
