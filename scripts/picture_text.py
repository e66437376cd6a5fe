"""How much text sits in the pictures of pages that have a text layer: what indexing does not read.

    python scripts/picture_text.py PDF... [--min-share 0.15] [--json out.json]

A page with a text layer is indexed from that layer alone; OCR reads only pages
without one (or a scan under a stamped line). A chart, a diagram or an
infographic embedded as a picture on such a page keeps its words to itself.
For every page whose pictures cover at least ``--min-share`` of it, this
renders the page, reads it with the bundled OCR and counts the lines OCR reads
(six letters or more) that the page's text layer does not hold: fewer than
half of the line's letter trigrams occur in the layer (letters only, as OCR
often drops the spaces between words; a trigram share, as OCR and a scan's own
text layer misread a letter here and there). Pages the indexer reads by OCR
anyway (a scan under a stamped line of text) are left out.
It prints, per document, the pages with a text layer, those with pictures,
those whose pictures hold lines the index misses, how many such lines and
letters, with a few examples. A vector chart's labels are text and are indexed; they are not
counted here. It measures; it changes nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pymupdf

from papertrail.read.ocr import get_ocr
from papertrail.read.pagetext import has_text
from papertrail.read.scans import picture_share, stamped_scan

MIN_LETTERS = 6  # a shorter OCR line (a tick label, a stray mark) is not counted
HELD = 0.5  # share of a line's letter trigrams the layer holds for the line to be in it
DPI = 150  # what OCR reads a page at here: enough for a chart's labels


def letters(text: str) -> str:
    return "".join(c for c in text.lower() if c.isalpha())


def trigrams(text: str) -> set[str]:
    t = letters(text)
    return {t[i : i + 3] for i in range(len(t) - 2)}


def held(line: str, layer: set[str]) -> bool:
    """The text layer holds ``line``: most of its letter trigrams occur in ``layer``'s."""
    own = trigrams(line)
    return len(own & layer) >= HELD * len(own)


def missed(path: Path, min_share: float, engine) -> dict:
    pages = with_pictures = holding = chars = 0
    new: list[str] = []
    with pymupdf.open(path) as doc:
        for page in doc:
            layer = page.get_text()
            if not has_text(layer) or stamped_scan(page, layer):
                continue  # indexing reads this page by OCR already (as ``read_text_layer`` decides)
            pages += 1
            if picture_share(page) < min_share:
                continue
            with_pictures += 1
            png = page.get_pixmap(dpi=DPI).tobytes("png")
            known = trigrams(layer)
            found = [t for t, _ in engine.read(png) if len(letters(t)) >= MIN_LETTERS]
            found = [t for t in found if not held(t, known)]
            if found:
                holding += 1
                chars += sum(len(letters(t)) for t in found)
                new += [f"p{page.number + 1}: {t[:40]}" for t in found]
    return {
        "document": path.name,
        "pages with text": pages,
        "with pictures": with_pictures,
        "pictures holding missed lines": holding,
        "missed lines": len(new),
        "missed letters": chars,
        "examples": new[:8],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("pdfs", nargs="+", type=Path)
    parser.add_argument("--min-share", type=float, default=0.15, help="of a page pictures cover")
    parser.add_argument("--json", type=Path, help="also write the rows here")
    args = parser.parse_args(argv)
    engine = get_ocr()
    if engine is None:
        print("no OCR engine: install the project's OCR extra", file=sys.stderr)
        return 2
    rows = [missed(p, args.min_share, engine) for p in args.pdfs]
    for r in rows:
        print(
            f"{r['document'][:40]:40} {r['pages with text']:4} pages, {r['with pictures']:3} with "
            f"pictures, {r['pictures holding missed lines']:3} holding {r['missed lines']:5} "
            f"missed lines ({r['missed letters']} letters)  | {' | '.join(r['examples'][:3])}"
        )
    total = {k: sum(r[k] for r in rows) for k in list(rows[0])[1:6]} if rows else {}
    print("all:", ", ".join(f"{v} {k}" for k, v in total.items()))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
