"""``papertrail check FOLDER``: each PDF of a folder through ingest + a question, in a child.

Each file runs in a fresh child (``python -m papertrail.measure.check --one``) with a
scratch data dir, so a crash, hang or memory blow-up in one file is caught,
named and measured instead of taking the run down. The parent reaps the
child with ``os.wait4`` (its own peak RSS), kills its process group after
``timeout`` seconds, prints a table and a summary, and exits non-zero when
any file crashed, timed out, broke the 60 s / 1.5 GB targets, or was
"indexed" into nothing. Answers are offline (extractive) so the check is
repeatable and spends no LLM tokens. It does not try passwords: an encrypted
file is expected to be refused with a message saying how to fix it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import pickle
import re
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from papertrail.errors import PaperTrailError
from papertrail.offline import offline_env
from papertrail.settings import Settings

QUESTION = "What is this document about?"
TIME_TARGET = 60.0  # seconds per file, ingest + question, model loading included
MEMORY_TARGET_MB = 1536.0  # peak resident memory of one child
CHANNEL = "check"
OUTCOMES = ("indexed", "refused", "crashed", "timeout")

START = time.perf_counter()  # when this module was imported: in a child, close to its start
Command = Callable[[Path, Path], list[str]]  # (pdf, result file) -> child argv


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

    def problems(self) -> list[str]:
        """Why this file fails the check (empty when it passes)."""
        out = []
        if self.outcome in ("crashed", "timeout"):
            out.append(self.outcome)
        if self.outcome == "indexed" and self.chunks == 0:
            out.append("reported indexed with an empty index")
        if self.seconds > TIME_TARGET and self.outcome != "timeout":
            out.append(f"took {self.seconds:.1f} s (> {TIME_TARGET:g} s)")
        if self.peak_rss_mb > MEMORY_TARGET_MB:
            out.append(f"used {self.peak_rss_mb:.0f} MB (> {MEMORY_TARGET_MB:g} MB)")
        return out


MEASURED = ("file", "seconds", "peak_rss_mb")  # by the parent; a child reports the rest
REPORTED = tuple(f.name for f in fields(FileResult) if f.name not in MEASURED)


def run_check(
    folder: Path,
    settings: Settings,
    *,
    json_out: Path | None = None,
    timeout: float = 60.0,
    command: Command | None = None,
) -> int:
    """Check every ``*.pdf`` of ``folder``; print a table; 0 only when every file passed.

    ``command`` builds the child's argv (tests pass small fake children); by
    default it is this module's ``--one`` mode with ``settings``.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise PaperTrailError(f"{folder} is not a folder.", code="io")
    files = sorted(p for p in folder.iterdir() if p.is_file() and p.suffix.lower() == ".pdf")
    if not files:
        raise PaperTrailError(f"{folder} has no .pdf files to check.", code="io")
    with tempfile.TemporaryDirectory(prefix="papertrail-check-") as tmp:
        if command is None:
            command = _real_command(settings, Path(tmp) / "settings.pickle")
        results = []
        print(_row("file", "outcome", "pages", "chunks", "ocr", "s", "MB", "message"))
        for i, path in enumerate(files):
            result = run_one(path, command, Path(tmp) / f"result-{i}.json", timeout=timeout)
            results.append(result)
            print(_row_of(result), flush=True)
    if json_out is not None:
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(json.dumps([asdict(r) for r in results], indent=2, ensure_ascii=False))
    print(summary(results))
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
        status, rusage, timed_out = _wait(proc, start + timeout)
        seconds = time.monotonic() - start
        err.seek(0)
        stderr = err.read().decode("utf-8", "replace")
    peak = rusage.ru_maxrss / 1024  # Linux reports KiB
    base = {"file": path.name, "seconds": round(seconds, 2), "peak_rss_mb": round(peak, 1)}
    if timed_out:
        msg = f"killed after {timeout:g} s without finishing"
        return FileResult(outcome="timeout", message=msg, **base)
    report = _read_result(result_path)
    code = os.waitstatus_to_exitcode(status)
    if report is None or code != 0:
        return FileResult(outcome="crashed", message=_crash_message(code, stderr, report), **base)
    keep = {k: report[k] for k in REPORTED if k in report}
    return FileResult(**keep, **base)


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


# -- the child side -------------------------------------------------------


def child_main(path: Path, result_path: Path, work: Callable[[Path], dict]) -> None:
    """Run ``work(path)`` and write its result; refusals and bugs are results too.

    A ``PaperTrailError`` is a refusal (its message is what the user sees);
    any other exception is a bug and reported as a crash with its last line.
    Exits only by returning, so a missing result file means the process died.
    """
    try:
        report = {"outcome": "indexed", **work(path)}
    except PaperTrailError as e:
        report = {"outcome": "refused", "message": e.message, "code": e.code}
    except Exception as e:
        traceback.print_exc()
        report = {"outcome": "crashed", "message": f"bug: {type(e).__name__}: {e}"}
    tmp = result_path.with_suffix(".tmp")
    tmp.write_text(json.dumps(report, ensure_ascii=False))
    tmp.replace(result_path)  # all or nothing: a half-written result is no result


def ingest_and_ask(path: Path, settings: Settings) -> dict:
    """The real work: index ``path`` into a scratch dir and ask QUESTION about it."""
    from papertrail.names import safe_filename
    from papertrail.pipeline import PaperTrail

    with tempfile.TemporaryDirectory(prefix="papertrail-check-data-") as tmp:
        local = settings.replace(
            data_dir=Path(tmp), chroma_host="", groq_api_key="", llm_base_url=""
        )
        t0 = time.perf_counter()
        pt = PaperTrail.from_settings(local)
        t1 = time.perf_counter()
        got = pt.ingest(CHANNEL, safe_filename(path.name), path.read_bytes())
        t2 = time.perf_counter()
        doc = got.document
        question = QUESTION
        answer = pt.ask(CHANNEL, question, doc_ids=[doc.doc_id])
        if not answer.citations and answer.hits:  # too vague for it: ask about its own words
            question = question_about(answer.hits[0].chunk.text)
            answer = pt.ask(CHANNEL, question, doc_ids=[doc.doc_id])
        t3 = time.perf_counter()
    parts = [f"{_n(doc.pages, 'page')}, {_n(doc.chunks, 'chunk')}."]
    if doc.ocr_pages:
        parts.append(f"OCR on {_n(len(doc.ocr_pages), 'page')}.")
    parts.extend(got.warnings)
    first = _first_sentence(answer.text)
    parts.append(f"Answer: {first}" if answer.citations else f"No cited answer: {first}")
    if question != QUESTION:
        parts.append(f"(asked: {question})")
    return {
        "message": " ".join(parts),
        "pages": doc.pages,
        "chunks": doc.chunks,
        "ocr_pages": len(doc.ocr_pages),
        "cited": len(answer.citations),
        "question": question,
        "timings": {
            "start": round(t0 - START, 2),  # interpreter and imports, before the pipeline
            "load": round(t1 - t0, 2),  # embedding model, store, OCR engine (lazy)
            **{k: round(v, 2) for k, v in (got.timings or {}).items()},
            "ask": round(t3 - t2, 2),
        },
    }


def question_about(text: str) -> str:
    """A question about the first words of ``text``, which the document can answer."""
    # words with letters first: a table's first "words" are its figures; at most 60
    # characters, because scripts without spaces (Chinese) make one long "word"
    words = re.findall(r"\w+", text)
    lettered = [w for w in words if not w.isdigit()]
    topic = " ".join((lettered if len(lettered) >= 3 else words)[:8])[:60]
    return f"What does the document say about {topic}?"


def main(argv: list[str] | None = None) -> int:
    """Child entry: ``python -m papertrail.measure.check --one PDF --result J --settings P``."""
    p = argparse.ArgumentParser(prog="python -m papertrail.measure.check")
    p.add_argument("--one", type=Path, required=True)
    p.add_argument("--result", type=Path, required=True)
    p.add_argument("--settings", type=Path, required=True)
    args = p.parse_args(argv)
    settings = pickle.loads(args.settings.read_bytes())  # written by our own parent
    child_main(args.one, args.result, lambda path: ingest_and_ask(path, settings))
    return 0


# -- helpers --------------------------------------------------------------


def _real_command(settings: Settings, settings_path: Path) -> Command:
    settings_path.write_bytes(pickle.dumps(settings))

    def command(path: Path, result: Path) -> list[str]:
        return [
            sys.executable,
            "-m",
            "papertrail.measure.check",
            *("--one", str(path), "--result", str(result), "--settings", str(settings_path)),
        ]

    return command


def _wait(proc: subprocess.Popen, deadline: float):
    """(wait status, rusage of this child, timed out?) — kills the group at the deadline."""
    timed_out = False
    while True:
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
    return status, rusage, timed_out


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


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _first_sentence(text: str, limit: int = 160) -> str:
    text = re.sub(r"\s*\[\d+(?:,\s*\d+)*\]", "", " ".join(text.split()))
    head = re.split(r"(?<=[.!?])\s", text, maxsplit=1)[0]
    return head if len(head) <= limit else head[: limit - 1] + "…"


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


if __name__ == "__main__":
    sys.exit(main())
