"""The ``papertrail`` command: ask, ingest, docs, forget, and the measuring commands.

Reads ``Settings`` once from the environment over ``.env`` (the environment
wins, as for the bots), builds the pipeline and runs one command. Exit codes:
0 done; 2 a user or configuration error (a ``PaperTrailError`` or a bad
command line), as one line on stderr; 1 a bug (any other exception), as one
line naming ``PAPERTRAIL_DEBUG``, which re-raises it with its traceback. A
``--json`` that is a flag prints exactly one JSON document on stdout and
nothing else there. The measuring commands (eval, eval-verifier, check,
bench) live in ``papertrail.measure`` and are only dispatched from here, with
a progress bar on a terminal.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path

from papertrail.cli.progress import ProgressBar
from papertrail.envvars import dotenv_file, environment
from papertrail.errors import PaperTrailError
from papertrail.offline import offline_env
from papertrail.settings import Settings
from papertrail.text.names import safe_filename

DEFAULT_CHANNEL = "cli"
DEBUG_ENV = "PAPERTRAIL_DEBUG"  # set (non-empty) to see a bug's traceback instead of one line
EXIT_USAGE = 2  # a user or configuration error: the same code argparse uses
EXIT_BUG = 1
EXIT_STATUS = (
    "Exit status: 0 done; 2 a user or configuration error (one line on stderr); "
    f"1 a bug (rerun with {DEBUG_ENV}=1 for the traceback)."
)
CHECK_STATUS = (
    "Exit status: 0 when every file passed; 1 when any file crashed, timed out, took longer "
    "than its time limit or over 1.5 GB, or was indexed into nothing (each is listed as "
    "FAIL); 2 when the folder is missing or holds no PDFs. A file refused with a clear "
    "message passes. A file's time limit is --timeout plus 0.6 s a page plus 30 s a page "
    "that looks scanned (OCR)."
)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="papertrail",
        description="Answers about PDFs with every citation checked against its sentence.",
        epilog=EXIT_STATUS,
    )
    p.add_argument(
        "--env-file",
        help="file of VAR=value lines read under the environment (default: .env, if present)",
    )
    sub = p.add_subparsers(dest="command", required=True)

    a = sub.add_parser("ask", help="index a PDF (once) and answer a question about it")
    a.add_argument("pdf", type=Path, help="the PDF to read")
    a.add_argument("question", nargs="+", help="the question (quotes optional)")
    a.add_argument("--password", help="password of an encrypted PDF")
    a.add_argument("--out", type=Path, default=Path("out"), help="folder for snippet PNGs")
    a.add_argument("--all", action="store_true", help="ask every document of the channel")
    _common(a)

    i = sub.add_parser("ingest", help="index PDFs without asking anything")
    i.add_argument("pdfs", type=Path, nargs="+", help="PDFs to index")
    i.add_argument("--password", help="password of encrypted PDFs")
    _common(i)

    d = sub.add_parser("docs", help="list the documents indexed for a channel")
    _common(d)

    f = sub.add_parser("forget", help="remove a document (file name or sha256 prefix) or 'all'")
    f.add_argument("target", help="file name, sha256 prefix, or 'all'")
    _common(f)

    e = sub.add_parser("eval", help="measure retrieval and answers on a QA JSONL file")
    e.add_argument(
        "data",
        type=Path,
        nargs="+",
        help="QA JSONL files, one question per line (id, doc, question); several run in one go",
    )
    e.add_argument(
        "--k",
        type=int,
        default=5,
        help="a label of the run only: hits are scored at 1, 3, 5 and 10, and answers use "
        "PAPERTRAIL_TOP_K (default: 5)",
    )
    e.add_argument(
        "--mode",
        choices=("retrieval", "extractive", "groq"),
        default="retrieval",
        help="retrieval only, or also answers offline or with Groq (default: retrieval)",
    )
    e.add_argument(
        "--json", type=Path, dest="json_out", help="also write metrics and items to this file"
    )
    e.add_argument("--limit", type=int, help="only the first N questions")
    e.add_argument("--ablation", action="store_true", help="also vector-only and BM25-only")
    e.add_argument(
        "--baseline", action="store_true", help="also the LangChain 800/100 + MiniLM pipeline"
    )
    e.add_argument(
        "--chunk-size", type=int, help="index at this chunk size instead (own cached index)"
    )

    v = sub.add_parser("eval-verifier", help="measure the citation verifier on labelled pairs")
    v.add_argument(
        "pairs", type=Path, help="JSONL, one {claim, chunk_text, supported, kind} per line"
    )
    v.add_argument("--json", type=Path, dest="json_out", help="also write the scores to this file")

    c = sub.add_parser(
        "check",
        help="run every PDF of a folder through ingest + a question",
        description="Run every PDF of a folder through ingest + a question, each in a "
        "child process, and print a table. " + CHECK_STATUS,
    )
    c.add_argument("folder", type=Path, help="folder whose *.pdf files are checked")
    c.add_argument(
        "--json", type=Path, dest="json_out", help="also write one result per file to this file"
    )
    c.add_argument(
        "--timeout",
        type=float,
        default=60.0,
        help="base seconds per file; the limit grows with its pages (default: 60)",
    )

    b = sub.add_parser("bench", help="print ingest and query timings for a PDF")
    b.add_argument("pdf", type=Path, help="the PDF whose ingest is timed")
    b.add_argument("--channel-folder", type=Path, help="PDFs to load into the query channel")
    b.add_argument(
        "--queries", type=int, default=40, help="questions timed on that channel (default: 40)"
    )
    b.add_argument("--json", type=Path, dest="json_out", help="also write the figures to this file")
    b.add_argument(
        "--repeat", type=int, default=3, help="ingest runs per pipeline, median (default: 3)"
    )
    b.add_argument(
        "--copies", type=int, default=4, help="folder copies in the large channel (default: 4)"
    )

    sub.add_parser("demo", help="build a sample PDF, ask it questions offline, write PNGs")
    return p


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--channel", default=DEFAULT_CHANNEL, help="index namespace (default: cli)")
    p.add_argument(
        "--json", action="store_true", dest="as_json", help="print one JSON document on stdout"
    )


def main(argv: list[str] | None = None, *, pipeline=None) -> int:
    """Run one command; ``pipeline`` replaces the real one (tests pass a small one)."""
    offline_env()
    args = build_parser().parse_args(argv)
    env: Mapping[str, str] = os.environ  # until .env is read
    try:
        env = environment(dotenv_path=dotenv_file(args.env_file))
        settings = Settings.from_env(env)
        check_args(args)  # before any model loads or any PDF is read
        return _dispatch(args, settings, pipeline)
    except PaperTrailError as e:
        print(f"papertrail: {e.message}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("papertrail: interrupted", file=sys.stderr)
        return 130
    except Exception as e:
        if env.get(DEBUG_ENV, "").strip():
            raise
        what = " ".join(f"{type(e).__name__}: {e}".split())[:300]
        print(
            f"papertrail: unexpected error ({what}). This is a bug: rerun with "
            f"{DEBUG_ENV}=1 to see the traceback, and report it.",
            file=sys.stderr,
        )
        return EXIT_BUG


def check_args(args) -> None:
    """Refuse a command line that cannot work, in milliseconds: unreadable PDFs, an
    empty question, counts below one."""
    paths = [args.pdf] if args.command == "ask" else []
    paths += list(getattr(args, "pdfs", None) or []) if args.command == "ingest" else []
    for path in paths:
        if not path.is_file():
            what = "a folder, not a PDF" if path.is_dir() else "no such file"
            raise PaperTrailError(f"Cannot read {path}: {what}.", code="io")
        if not os.access(path, os.R_OK):
            raise PaperTrailError(f"Cannot read {path}: permission denied.", code="io")
    if args.command == "ask" and not " ".join(args.question).strip():
        raise PaperTrailError("Ask a question about your PDF: the question is empty.", code="usage")
    if args.command == "check" and not args.folder.is_dir():
        raise PaperTrailError(f"{args.folder} is not a folder.", code="io")
    for name in ("limit", "queries", "repeat", "copies", "chunk_size"):
        value = getattr(args, name, None)
        if value is not None and value < 1:
            option = "--" + name.replace("_", "-")
            raise PaperTrailError(f"{option} must be at least 1 (got {value}).", code="usage")
    timeout = getattr(args, "timeout", None)
    if timeout is not None and timeout <= 0:
        raise PaperTrailError(f"--timeout must be more than 0 s (got {timeout:g}).", code="usage")


def _dispatch(args, settings: Settings, pipeline=None) -> int:
    cmd = args.command
    if cmd == "eval":
        from papertrail.measure.evaluate import run_eval

        label = ", ".join(f"{d.parent.name}/{d.name}" for d in args.data)
        bar = ProgressBar(label, verb="eval", unit="questions", transient=True)
        with contextlib.closing(bar):
            return run_eval(args, settings, pipeline=pipeline, on_progress=bar)
    if cmd == "eval-verifier":
        from papertrail.measure.verifier_eval import run

        return run(args.pairs, json_out=args.json_out)
    if cmd == "check":
        from papertrail.measure.check import run_check

        bar = ProgressBar(args.folder.name, verb="checking", unit="files", transient=True)
        with contextlib.closing(bar):
            return run_check(
                args.folder, settings, json_out=args.json_out, timeout=args.timeout, on_progress=bar
            )
    if cmd == "bench":
        from papertrail.measure.bench import run_bench

        bar = ProgressBar("queries", verb="bench", unit="questions", transient=True)
        with contextlib.closing(bar):
            return run_bench(args, settings, on_progress=bar)
    if cmd == "demo":
        from papertrail.cli.demo import run_demo

        return run_demo(settings)

    from papertrail.pipeline import PaperTrail

    pt = pipeline or PaperTrail.from_settings(settings)
    if cmd == "ask":
        return _ask(pt, args)
    if cmd == "ingest":
        results = []
        for path in args.pdfs:
            result = _ingest(pt, args.channel, path, args.password)
            _print_ingest(result, path)  # on stderr
            doc = _doc_json(result.document)
            results.append({**doc, "new": result.new, "embedded": result.embedded})
        if args.as_json:
            print(json.dumps(results, indent=2, ensure_ascii=False))
        return 0
    if cmd == "docs":
        docs = pt.documents(args.channel)
        if args.as_json:
            print(json.dumps([_doc_json(d) for d in docs], indent=2, ensure_ascii=False))
            return 0
        for d in docs:
            print(f"{d.doc_id[:12]}  {d.pages:>4} pages  {d.chunks:>5} chunks  {d.name}")
        if not docs:
            print(f"no documents in channel {args.channel!r}")
        return 0
    if cmd == "forget":
        gone = pt.forget(args.channel, None if args.target == "all" else args.target)
        if not gone:
            print(f"papertrail: no document matches {args.target!r}", file=sys.stderr)
            return EXIT_USAGE
        if args.as_json:
            print(json.dumps([_doc_json(d) for d in gone], indent=2, ensure_ascii=False))
            return 0
        for d in gone:
            print(f"forgot {d.name} ({d.doc_id[:12]})")
        return 0
    raise AssertionError(cmd)


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as e:
        raise PaperTrailError(f"Cannot read {path}: {e.strerror}.", code="io") from None


def _ingest(pt, channel: str, path: Path, password: str | None):
    data = _read(path)
    bar = ProgressBar(path.name)
    try:
        return pt.ingest(channel, safe_filename(path.name), data, password=password, progress=bar)
    finally:
        bar.close()


def _print_ingest(result, path: Path) -> None:
    d = result.document
    state = "indexed" if result.new else "already indexed"
    print(f"{state}: {path.name} — {d.pages} pages, {d.chunks} chunks", file=sys.stderr)
    for w in result.warnings:
        print(f"  note: {w}", file=sys.stderr)


def _ask(pt, args) -> int:
    result = _ingest(pt, args.channel, args.pdf, args.password)
    if result.new or result.warnings:
        _print_ingest(result, args.pdf)
    doc_ids = None if args.all else [result.document.doc_id]
    answer = pt.ask(args.channel, " ".join(args.question), doc_ids=doc_ids)
    paths = []
    if answer.snippets:
        args.out.mkdir(parents=True, exist_ok=True)
        for s in answer.snippets:
            stem = safe_filename(s.doc_name, suffix="").rsplit(".", 1)[0]
            path = args.out / f"citation-{s.n}-p{s.page}-{stem}.png"
            path.write_bytes(s.png)
            paths.append(path)
    if args.as_json:
        from papertrail.cli.report import answer_json

        print(json.dumps(answer_json(answer, paths), indent=2, ensure_ascii=False))
    else:
        from papertrail.cli.report import format_answer

        print(format_answer(answer, paths))
    return 0


def _doc_json(d) -> dict:
    return {
        "name": d.name,
        "sha256": d.doc_id,
        "pages": d.pages,
        "chunks": d.chunks,
        "no_text_pages": list(d.no_text_pages),
        "ocr_pages": list(d.ocr_pages),
    }


if __name__ == "__main__":
    sys.exit(main())
