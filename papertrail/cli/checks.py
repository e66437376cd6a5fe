"""Command lines refused before anything loads: what ``papertrail`` checks first.

``check_args`` reads only the parsed arguments and the file system (is the PDF
there and readable, is the question empty, is a count below one, can the
``--json`` file be written where asked), so a mistake costs milliseconds, not a
model load or an hour of eval. It leaves settings to ``Settings`` and PDFs'
contents to the reader.
"""

from __future__ import annotations

import os

from papertrail.errors import PaperTrailError


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
    out = getattr(args, "json_out", None)  # checked now, not after an hour of eval
    if out is not None and (out.is_dir() or not out.parent.is_dir()):
        where = (
            "is a folder" if out.is_dir() else f"is in a folder that does not exist ({out.parent})"
        )
        raise PaperTrailError(f"--json {out} {where}: give a file path.", code="usage")
    timeout = getattr(args, "timeout", None)
    if timeout is not None and timeout <= 0:
        raise PaperTrailError(f"--timeout must be more than 0 s (got {timeout:g}).", code="usage")
