"""The channels of an evaluation: one per PDF or folder, indexed once, maybe under neutral names.

``index_all`` ingests each distinct ``doc`` of a data file (a PDF, or a folder
whose PDFs share one channel); with ``opaque`` every PDF goes in as
``document-NN.pdf`` (numbered in the order of the files' hashes, so the number
says nothing either), in a channel of its own, and the neutral names are mapped
back to the real ones for scoring. It leaves out scoring (``evaluate``,
``metrics``).
"""

from __future__ import annotations

import hashlib
import sys
import time
from pathlib import Path

from papertrail.pipeline import PaperTrail


def pdfs_of(doc: Path) -> list[Path]:
    return sorted(doc.glob("*.pdf")) if doc.is_dir() else [doc]


def channel_of(doc: Path, opaque: bool = False) -> str:
    tag = f"{doc}|opaque" if opaque else str(doc)  # neutral names: a channel of their own
    return "eval:" + hashlib.sha256(tag.encode()).hexdigest()[:16]


def neutral_names(pdfs: list[Path]) -> dict[Path, str]:
    """``document-NN.pdf`` per PDF, numbered in the order of the files' hashes (not names)."""
    digests = sorted(pdfs, key=lambda p: hashlib.sha256(p.read_bytes()).hexdigest())
    return {pdf: f"document-{n:02d}.pdf" for n, pdf in enumerate(digests, 1)}


def index_all(
    pt: PaperTrail, items: list, opaque: bool = False
) -> tuple[dict[Path, str], dict[str, str]]:
    """Each item's channel, and (with ``opaque``) neutral name -> real file name."""
    channels, real = {}, {}
    for doc in sorted({i.doc for i in items}):
        channel = channel_of(doc, opaque)
        pdfs = pdfs_of(doc)
        names = neutral_names(pdfs) if opaque else {pdf: pdf.name for pdf in pdfs}
        for pdf in pdfs:
            real[names[pdf]] = pdf.name
            t0 = time.perf_counter()
            result = pt.ingest(channel, names[pdf], pdf.read_bytes())
            if result.new:
                print(
                    f"  indexed {pdf.name}: {result.document.chunks} chunks "
                    f"in {time.perf_counter() - t0:.0f} s",
                    file=sys.stderr,
                )
        channels[doc] = channel
    return channels, real
