"""One file of ``papertrail check``, in a child process: ingest it, ask about it, report.

``python -m papertrail.measure.check_child --one PDF --result JSON --settings
PICKLE`` indexes the PDF into a scratch data dir, asks QUESTION (or, when that
finds nothing to cite, a question about the document's own first words) and
writes one JSON result: indexed (pages, chunks, OCR pages, citations, seconds
per stage), refused (the ``PaperTrailError`` a user would see) or crashed (a
bug). Answers are offline (extractive) so the check is repeatable and spends
no LLM tokens. It does not try passwords: an encrypted file is expected to be
refused with a message saying how to fix it. Running, timing and classifying
the children is ``check.py``'s.
"""

from __future__ import annotations

import argparse
import json
import pickle
import re
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path

from papertrail.errors import PaperTrailError
from papertrail.settings import Settings

START = time.perf_counter()  # when this module was imported: in a child, close to its start
QUESTION = "What is this document about?"
CHANNEL = "check"
OUTCOMES = ("indexed", "refused", "crashed", "timeout")  # the last only the parent sees
Command = Callable[[Path, Path], list[str]]  # (pdf, result file) -> child argv


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
    report["own_peak_mb"] = round(high_water_mb("self"), 1)  # the parent's polls may miss it
    tmp = result_path.with_suffix(".tmp")
    tmp.write_text(json.dumps(report, ensure_ascii=False))
    tmp.replace(result_path)  # all or nothing: a half-written result is no result


def high_water_mb(pid: int | str) -> float:
    """``VmHWM`` of a running process (``"self"``: this one) in MB: the peak of its own
    program, not of the parent it was forked from (0.0 when gone or unreadable)."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024  # kB
    except (OSError, ValueError, IndexError):
        pass
    return 0.0


def ingest_and_ask(path: Path, settings: Settings) -> dict:
    """The real work: index ``path`` into a scratch dir and ask QUESTION about it."""
    from papertrail.pipeline import PaperTrail
    from papertrail.text.names import safe_filename

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
    """Child entry: ``--one PDF --result JSON --settings PICKLE``, as ``child_command`` builds."""
    p = argparse.ArgumentParser(prog="python -m papertrail.measure.check_child")
    p.add_argument("--one", type=Path, required=True, help="the PDF to check")
    p.add_argument("--result", type=Path, required=True, help="where to write the JSON result")
    p.add_argument("--settings", type=Path, required=True, help="pickled Settings from the parent")
    args = p.parse_args(argv)
    settings = pickle.loads(args.settings.read_bytes())  # written by our own parent
    child_main(args.one, args.result, lambda path: ingest_and_ask(path, settings))
    return 0


def child_command(settings: Settings, settings_path: Path) -> Command:
    """Argv of this module's ``main`` for each file, with ``settings`` pickled to a file."""
    settings_path.write_bytes(pickle.dumps(settings))

    def command(path: Path, result: Path) -> list[str]:
        return [
            sys.executable,
            "-m",
            "papertrail.measure.check_child",
            *("--one", str(path), "--result", str(result), "--settings", str(settings_path)),
        ]

    return command


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _first_sentence(text: str, limit: int = 160) -> str:
    text = re.sub(r"\s*\[\d+(?:,\s*\d+)*\]", "", " ".join(text.split()))
    head = re.split(r"(?<=[.!?])\s", text, maxsplit=1)[0]
    return head if len(head) <= limit else head[: limit - 1] + "…"


if __name__ == "__main__":
    sys.exit(main())
