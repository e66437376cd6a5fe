"""The ``papertrail`` command: ask, ingest, docs, forget, and the measuring commands.

Reads ``Settings`` once from the environment, builds the pipeline, and turns a
``PaperTrailError`` into one line on stderr with exit code 2 (1 is a bug).
The measuring commands (eval, eval-verifier, check, bench) live in
``papertrail.measure`` and are only dispatched from here.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from papertrail.cli.progress import ProgressBar
from papertrail.errors import PaperTrailError
from papertrail.names import safe_filename
from papertrail.offline import offline_env
from papertrail.settings import Settings

DEFAULT_CHANNEL = "cli"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="papertrail",
        description="Answers about PDFs with every citation checked against its sentence.",
    )
    sub = p.add_subparsers(dest="command", required=True)

    a = sub.add_parser("ask", help="index a PDF (once) and answer a question about it")
    a.add_argument("pdf", type=Path)
    a.add_argument("question", nargs="+")
    a.add_argument("--password", help="password of an encrypted PDF")
    a.add_argument("--out", type=Path, default=Path("out"), help="folder for snippet PNGs")
    a.add_argument("--all", action="store_true", help="ask every document of the channel")
    _common(a)

    i = sub.add_parser("ingest", help="index PDFs without asking anything")
    i.add_argument("pdfs", type=Path, nargs="+")
    i.add_argument("--password")
    _common(i)

    d = sub.add_parser("docs", help="list the documents indexed for a channel")
    _common(d)

    f = sub.add_parser("forget", help="remove a document (file name or sha256 prefix) or 'all'")
    f.add_argument("target")
    _common(f)

    e = sub.add_parser("eval", help="measure retrieval and answers on a QA JSONL file")
    e.add_argument("data", type=Path)
    e.add_argument("--k", type=int, default=5)
    e.add_argument("--mode", choices=("retrieval", "extractive", "groq"), default="retrieval")
    e.add_argument("--json", type=Path, dest="json_out")
    e.add_argument("--limit", type=int, help="only the first N questions")
    e.add_argument("--ablation", action="store_true", help="also vector-only and BM25-only")
    e.add_argument(
        "--baseline", action="store_true", help="also the LangChain 800/100 + MiniLM pipeline"
    )
    e.add_argument(
        "--chunk-size", type=int, help="index at this chunk size instead (own cached index)"
    )

    v = sub.add_parser("eval-verifier", help="measure the citation verifier on labelled pairs")
    v.add_argument("pairs", type=Path)
    v.add_argument("--json", type=Path, dest="json_out")

    c = sub.add_parser("check", help="run every PDF of a folder through ingest + a question")
    c.add_argument("folder", type=Path)
    c.add_argument("--json", type=Path, dest="json_out")
    c.add_argument("--timeout", type=float, default=60.0, help="seconds per file")

    b = sub.add_parser("bench", help="print ingest and query timings for a PDF")
    b.add_argument("pdf", type=Path)
    b.add_argument("--channel-folder", type=Path, help="PDFs to load into the query channel")
    b.add_argument("--queries", type=int, default=40)

    sub.add_parser("demo", help="build a sample PDF, ask it questions offline, write PNGs")
    return p


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--channel", default=DEFAULT_CHANNEL, help="index namespace (default: cli)")
    p.add_argument("--json", action="store_true", dest="as_json", help="machine-readable output")


def main(argv: list[str] | None = None, *, pipeline=None) -> int:
    """Run one command; ``pipeline`` replaces the real one (tests pass a small one)."""
    offline_env()
    args = build_parser().parse_args(argv)
    try:
        settings = Settings.from_env()
        return _dispatch(args, settings, pipeline)
    except PaperTrailError as e:
        print(f"papertrail: {e.message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("papertrail: interrupted", file=sys.stderr)
        return 130


def _dispatch(args, settings: Settings, pipeline=None) -> int:
    cmd = args.command
    if cmd == "eval":
        from papertrail.measure.evaluate import run_eval

        return run_eval(args, settings)
    if cmd == "eval-verifier":
        from papertrail.measure.verifier_eval import run

        return run(args.pairs, json_out=args.json_out)
    if cmd == "check":
        from papertrail.measure.check import run_check

        return run_check(args.folder, settings, json_out=args.json_out, timeout=args.timeout)
    if cmd == "bench":
        from papertrail.measure.bench import run_bench

        return run_bench(args, settings)
    if cmd == "demo":
        from papertrail.cli.demo import run_demo

        return run_demo(settings)

    from papertrail.pipeline import PaperTrail

    pt = pipeline or PaperTrail.from_settings(settings)
    if cmd == "ask":
        return _ask(pt, args)
    if cmd == "ingest":
        for path in args.pdfs:
            result = _ingest(pt, args.channel, path, args.password)
            _print_ingest(result, path, as_json=args.as_json)
        return 0
    if cmd == "docs":
        docs = pt.documents(args.channel)
        if args.as_json:
            print(json.dumps([_doc_json(d) for d in docs], indent=2))
        for d in docs:
            print(f"{d.doc_id[:12]}  {d.pages:>4} pages  {d.chunks:>5} chunks  {d.name}")
        if not docs and not args.as_json:
            print(f"no documents in channel {args.channel!r}")
        return 0
    if cmd == "forget":
        gone = pt.forget(args.channel, None if args.target == "all" else args.target)
        for d in gone:
            print(f"forgot {d.name} ({d.doc_id[:12]})")
        if not gone:
            print(f"papertrail: no document matches {args.target!r}", file=sys.stderr)
            return 2
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


def _print_ingest(result, path: Path, *, as_json: bool = False) -> None:
    d = result.document
    if as_json:
        print(json.dumps({**_doc_json(d), "new": result.new, "embedded": result.embedded}))
        return
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
