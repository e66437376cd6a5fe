"""The ``papertrail`` command: ask, ingest, list, forget, reindex, help, and the measuring
commands.

Reads ``Settings`` once from the environment over ``.env`` (the environment
wins, as for the bots), builds the pipeline and runs one command. Exit codes:
0 done (or stopped by SIGTERM); 2 a user or configuration error (a
``PaperTrailError`` or a bad command line), one line on stderr; 1 a bug
(any other exception), one line naming ``PAPERTRAIL_DEBUG``, which re-raises
it with its traceback. A ``--json`` that is a flag prints exactly one JSON
document on stdout and nothing else there. The measuring commands (eval, eval-verifier, check,
bench) live in ``papertrail.measure`` and are only dispatched from here, with
a progress bar on a terminal.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Mapping
from pathlib import Path

from papertrail.cli.checks import check_args
from papertrail.cli.commands import EXIT_USAGE
from papertrail.cli.progress import ProgressBar
from papertrail.envvars import dotenv_file, environment
from papertrail.errors import PaperTrailError
from papertrail.exits import Stop, finish
from papertrail.offline import offline_env
from papertrail.settings import Settings

DEFAULT_CHANNEL = "cli"
DEBUG_ENV = "PAPERTRAIL_DEBUG"  # set (non-empty) to see a bug's traceback instead of one line
EXIT_BUG = 1
EXIT_STATUS = (
    "Exit status: 0 done (or stopped by SIGTERM); 2 a user or configuration error "
    "(one line on stderr); "
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

    # ask, list, forget, help: the chat commands' words (``docs`` is the older name of list)
    d = sub.add_parser("list", aliases=["docs"], help="list the documents indexed for a channel")
    _common(d)

    f = sub.add_parser("forget", help="remove a document (file name or sha256 prefix) or 'all'")
    f.add_argument("target", help="file name, sha256 prefix, or 'all'")
    _common(f)

    r = sub.add_parser(
        "reindex",
        help="index again, from their kept PDFs, every channel's documents indexed under "
        "other settings (embedding model, chunk size, PAPERTRAIL_CONTEXTUAL); the bots do "
        "it at start",
    )
    r.add_argument(
        "--json", action="store_true", dest="as_json", help="print the counts as one JSON document"
    )

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
        choices=("retrieval", "extractive", "llm", "groq"),
        default="retrieval",
        help="retrieval only, or also answers offline or with an LLM: Groq or any "
        "OpenAI-compatible server (groq is another name for llm) (default: retrieval)",
    )
    e.add_argument(
        "--json", type=Path, dest="json_out", help="also write metrics and items to this file"
    )
    e.add_argument("--limit", type=int, help="only the first N questions")
    e.add_argument("--ablation", action="store_true", help="also vector-only and BM25-only")
    e.add_argument(
        "--opaque-names",
        action="store_true",
        help="ingest every PDF under a neutral name (document-07.pdf): routing from content alone",
    )
    e.add_argument(
        "--baseline", action="store_true", help="also the LangChain 800/100 + MiniLM pipeline"
    )
    e.add_argument(
        "--chunk-size", type=int, help="index at this chunk size instead (own cached index)"
    )
    e.add_argument(
        "--without",
        action="append",
        default=[],
        metavar="NAME",
        help="switch off an answerer, a retrieval rule or a check by name, to measure what it "
        "adds (repeatable)",
    )

    v = sub.add_parser("eval-verifier", help="measure the citation verifier on labelled pairs")
    v.add_argument(
        "pairs",
        type=Path,
        nargs="+",
        help="JSONL files, one {claim, chunk_text, supported, kind} per line",
    )
    v.add_argument("--json", type=Path, dest="json_out", help="also write the scores to this file")
    v.add_argument(
        "--halves",
        action="store_true",
        help="also score two halves of each file's claims (a stable hash of the claim id)",
    )
    v.add_argument(
        "--by-source",
        action="store_true",
        help="also fit on all sources but one and score the one left out, for each source",
    )
    v.add_argument(
        "--without",
        action="append",
        default=[],
        metavar="CHECK",
        help="switch a check off by name (repeatable): figures, asks, negation, contrast, "
        "period, period-length, direction, qualifier, superlative, clauses, answer-name",
    )

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
    b.add_argument(
        "--ingest",
        action="store_true",
        dest="ingest_only",
        help="only the ingest side by side with LangChain (no questions)",
    )
    b.add_argument("--drop", type=Path, help="time a drop of --drop-count PDFs of this folder")
    b.add_argument("--drop-count", type=int, default=10, help="PDFs in the drop (default: 10)")
    b.add_argument(
        "--markdown",
        type=Path,
        help="write the speed table here (between its bench:speed markers, if any)",
    )

    fb = sub.add_parser("feedback", help="people's 👍/👎 on the bots' answers, as test cases")
    fe = fb.add_subparsers(dest="action", required=True).add_parser(
        "export", help="write a channel's voted answers as JSONL on stdout"
    )
    fe.add_argument("--channel", required=True, help="the library, e.g. slack:T0123:C0456")
    fe.add_argument(
        "--format",
        choices=("eval", "verifier"),
        default="eval",
        help="eval: QA cases for `papertrail eval`; verifier: pairs for `eval-verifier`",
    )

    sub.add_parser("demo", help="build a sample PDF, ask it questions offline, write PNGs")
    sub.add_parser(
        "export-model",
        help="export the embedding model to ONNX in PAPERTRAIL_MODEL_CACHE now (a build step)",
    )
    sub.add_parser("help", help="show this help")
    return p


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--channel", default=DEFAULT_CHANNEL, help="index namespace (default: cli)")
    p.add_argument(
        "--json", action="store_true", dest="as_json", help="print one JSON document on stdout"
    )


def main(argv: list[str] | None = None, *, pipeline=None) -> int:
    """Run one command; ``pipeline`` replaces the real one (tests pass a small one).

    SIGTERM stops it like Ctrl-C, through the clean-up, but exits 0: a stop that was
    asked for (documents indexed before it are kept; run the command again to finish)."""
    stop = Stop().install()
    try:
        return _main(argv, pipeline)
    except KeyboardInterrupt:  # each step's clean-up (``finally``) has run on the way out
        if stop.requested:
            print("papertrail: stopped (SIGTERM)", file=sys.stderr)
            return 0
        print("papertrail: interrupted", file=sys.stderr)
        return 130
    finally:
        stop.restore()


def _main(argv: list[str] | None, pipeline) -> int:
    offline_env()
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "help":
        parser.print_help()
        return 0
    env: Mapping[str, str] = os.environ  # until .env is read
    try:
        env = environment(dotenv_path=dotenv_file(args.env_file))
        settings = Settings.from_env(env)
        check_args(args)  # before any model loads or any PDF is read
        return _dispatch(args, settings, pipeline)
    except PaperTrailError as e:
        print(f"papertrail: {e.message}", file=sys.stderr)
        return EXIT_USAGE
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


def _dispatch(args, settings: Settings, pipeline=None) -> int:
    cmd = args.command
    if cmd == "eval":
        from papertrail.measure.answerers import warn_unknown
        from papertrail.measure.evaluate import run_eval

        warn_unknown(args.without)
        settings = settings.replace(without=(*settings.without, *args.without))
        label = ", ".join(f"{d.parent.name}/{d.name}" for d in args.data)
        bar = ProgressBar(label, verb="eval", unit="questions", transient=True)
        with contextlib.closing(bar):
            return run_eval(args, settings, pipeline=pipeline, on_progress=bar)
    if cmd == "eval-verifier":
        from papertrail.measure.verifier_eval import run

        return run(
            args.pairs,
            json_out=args.json_out,
            halves=args.halves,
            without=args.without,
            by_source=args.by_source,
        )
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
    if cmd == "export-model":
        from papertrail.embed.model import get_embedder

        embedder = get_embedder(settings)
        print(f"{embedder.name}: runs on {embedder.runs_on} (cache: {settings.model_cache})")
        return 0
    if cmd == "feedback":
        from papertrail.measure.feedback import run_export

        return run_export(settings, args.channel, args.format)
    if cmd == "demo":
        from papertrail.cli.demo import run_demo

        return run_demo(settings)

    if pipeline is None and cmd == "ask":
        _warm_model(settings)  # loads while the pipeline's libraries import (~1/3 s saved)
    from papertrail.cli.commands import run_library_command
    from papertrail.pipeline import PaperTrail

    pt = pipeline or PaperTrail.from_settings(settings)
    try:
        return run_library_command(pt, args)
    finally:
        if pipeline is None:  # ours: its store client and LLM connection end with the command
            pt.close()


def _warm_model(settings: Settings) -> None:
    """Start loading the embedding model in a daemon thread (shared with the pipeline's)."""
    import threading

    def load() -> None:
        from papertrail.embed.model import get_embedder

        with contextlib.suppress(Exception):  # the first embed reports it to the user
            get_embedder(settings).warm()

    threading.Thread(target=load, name="papertrail-warm", daemon=True).start()


def command() -> None:
    """The ``papertrail`` command: run ``main`` on the command line, then end the process
    at once (``papertrail.exits.finish``: no interpreter teardown that could abort)."""
    finish(main())


if __name__ == "__main__":
    command()
