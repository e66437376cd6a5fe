"""The library commands of ``papertrail``: ask, ingest, list, forget and reindex, on one
pipeline.

Each prints for people on stdout, or one JSON document with ``--json``;
indexing progress and notes go to stderr. Errors are raised as
``PaperTrailError`` and turned into exit codes by ``main.py``, which also
builds (and closes) the pipeline.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

from papertrail.cli.progress import ProgressBar
from papertrail.errors import PaperTrailError
from papertrail.text.names import image_name, safe_filename

EXIT_USAGE = 2  # a user or configuration error: the same code argparse uses


def run_library_command(pt, args) -> int:
    """Run ``args.command`` (ask, ingest, list, forget, reindex) on ``pt``; the exit code."""
    cmd = args.command
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
    if cmd in ("list", "docs"):
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
    if cmd == "reindex":
        return _reindex(pt, args)
    raise AssertionError(cmd)


def _reindex(pt, args) -> int:
    """Carry every channel's documents over to the current index key (``carry_over``) in
    the foreground: a line per document on stderr, the counts on stdout. Exit 0 even when
    some failed (each is named): the next run tries them again."""
    from papertrail.pipeline.carrying import describe_index

    def each(doc, outcome: str) -> None:
        print(f"{outcome}: {doc.name} ({doc.doc_id[:12]}) in {doc.channel}", file=sys.stderr)

    done = pt.carry_over(on_each=each)
    if args.as_json:
        print(json.dumps(dataclasses.asdict(done)))
    elif not (done.carried or done.skipped or done.failed):
        print("nothing to carry over: every document is indexed under the current settings")
    else:
        print(done.summary(describe_index(pt)))
    return 0


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
    spent = result.timings or {}
    pictured = int(spent.get("picture_pages", 0))
    if (d.ocr_pages or pictured) and result.new:
        read = [f"{len(d.ocr_pages)} page(s)"] if d.ocr_pages else []
        read += [f"the pictures of {pictured} page(s)"] if pictured else []
        print(
            f"  OCR: {' and '.join(read)} in {spent.get('ocr', 0.0):.1f} s, "
            "beside the embedding of the other pages",
            file=sys.stderr,
        )
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
        for s in answer.snippets:  # named per answer: the next question's keep their own
            path = args.out / safe_filename(f"citation-{image_name(s, answer)}", suffix=".png")
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
