"""What reading the pictures of pages with a text layer adds to the index, and what it costs.

    python scripts/picture_text.py PDF... [--json out.json]

A page with a text layer is indexed from that layer; a chart, a diagram or an
infographic embedded in it as a picture keeps its words to itself unless OCR
reads it. This runs the indexer's own picture reading (``papertrail.read.
pictures``: the same choice of pictures, the same OCR, the same filter against
the layer's text) on every page of each PDF that indexing reads from its text
layer, and prints per document the pages with a text layer, those whose
pictures are read, those where reading adds lines, how many lines and letters,
the OCR time, and a few examples. Pages read by OCR as a whole (no text layer,
or a scan under a stamped line) are left out: their pictures are their text
already. It measures; it changes nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import pymupdf

from papertrail.read.ocr import get_ocr
from papertrail.read.pdf import read_text_layer
from papertrail.read.pictures import letters, read_pictures
from papertrail.settings import Settings


def added(path: Path, engine) -> dict:
    data = path.read_bytes()
    layer = read_text_layer(data, Settings())  # the pages and pictures indexing would read
    texts: dict[int, list[str]] = {}
    for b in layer.blocks:
        texts.setdefault(b.page, []).append(b.text)
    holding = chars = 0
    new: list[str] = []
    started = time.perf_counter()
    with pymupdf.open(stream=data, filetype="pdf") as doc:
        for pno, boxes in layer.pictures:
            found = read_pictures(doc[pno - 1], pno, boxes, " ".join(texts[pno]), engine)
            if found:
                holding += 1
                chars += sum(len(letters(b.text)) for b in found)
                new += [f"p{pno}: {b.text[:40]}" for b in found]
    pages = len(layer.text_pages - set(layer.stamped))  # OCR reads a stamped scan whole
    return {
        "document": path.name,
        "pages with text": pages,
        "with pictures read": len(layer.pictures),
        "pages gaining lines": holding,
        "lines added": len(new),
        "letters added": chars,
        "ocr seconds": round(time.perf_counter() - started, 1),
        "examples": new[:8],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("pdfs", nargs="+", type=Path)
    parser.add_argument("--json", type=Path, help="also write the rows here")
    args = parser.parse_args(argv)
    engine = get_ocr()
    if engine is None:
        print("no OCR engine: install the project's OCR extra", file=sys.stderr)
        return 2
    rows = [added(p, engine) for p in args.pdfs]
    for r in rows:
        print(
            f"{r['document'][:40]:40} {r['pages with text']:4} pages, {r['with pictures read']:3} "
            f"with pictures read, {r['pages gaining lines']:3} gaining {r['lines added']:5} "
            f"lines ({r['letters added']} letters) in {r['ocr seconds']} s"
            f"  | {' | '.join(r['examples'][:3])}"
        )
    total = {k: round(sum(r[k] for r in rows), 1) for k in list(rows[0])[1:7]} if rows else {}
    print("all:", ", ".join(f"{v} {k}" for k, v in total.items()))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
