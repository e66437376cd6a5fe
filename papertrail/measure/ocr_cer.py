"""How well OCR reads: the character error rate, and a per-page report for a PDF.

``cer`` scores OCR text against a reference (Levenshtein distance over the
reference length, whitespace collapsed); ``python -m papertrail.measure.ocr_cer
PDF [--ref TXT]`` renders each page, reads it with the pipeline's RapidOCR
engine and prints lines, characters, the turn found, wall and CPU time, and
the CER when a reference is given. The OCR itself is ``papertrail/read/ocr.py``;
per-page references and word-level scores are left out.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pymupdf

from papertrail.read.ocr import DEFAULT_DPI, get_ocr


def cer(hyp: str, ref: str) -> float:
    """Character error rate: Levenshtein distance / reference length, whitespace collapsed."""
    a, b = " ".join(hyp.split()), " ".join(ref.split())
    if not b:
        return float(bool(a))
    return levenshtein(a, b) / len(b)


def levenshtein(a: str, b: str) -> int:
    """Edit distance in O(len(a) * len(b)) time, one numpy row at a time."""
    if not a or not b:
        return len(a) or len(b)
    bb = np.frombuffer(b.encode("utf-32-le"), dtype=np.uint32)
    steps = np.arange(len(b) + 1)
    row = steps.copy()
    for i, ch in enumerate(a, 1):
        sub = row[:-1] + (bb != ord(ch))  # substitute (or match)
        new = np.empty_like(row)
        new[0] = i
        new[1:] = np.minimum(sub, row[1:] + 1)  # ... or delete ch
        # insertions run along the row: new[j] = min_k(new[k] + j - k)
        row = np.minimum.accumulate(new - steps) + steps
    return int(row[-1])


def main(argv: list[str] | None = None) -> int:
    """``python -m papertrail.measure.ocr_cer PDF [--ref TXT]``: each page's time, turn, CER."""
    p = argparse.ArgumentParser(prog="python -m papertrail.measure.ocr_cer")
    p.add_argument("pdf", type=Path, help="PDF whose pages are rendered and read")
    p.add_argument("--ref", type=Path, help="reference text of each page, for the CER")
    p.add_argument(
        "--dpi", type=int, default=int(DEFAULT_DPI), help="resolution the pages are rendered at"
    )
    args = p.parse_args(argv)
    engine = get_ocr()
    if engine is None:
        print("rapidocr_onnxruntime is not installed")
        return 1
    ref = args.ref.read_text() if args.ref else None
    with pymupdf.open(args.pdf) as doc:
        for page in doc:
            png = page.get_pixmap(dpi=args.dpi).tobytes("png")
            start, cpu = time.perf_counter(), time.process_time()
            turns, lines = engine.read_scored(png)
            wall, cpu = time.perf_counter() - start, time.process_time() - cpu
            text = "\n".join(t for t, _, _ in lines)
            score = f"  CER {cer(text, ref):.3f}" if ref is not None else ""
            print(
                f"page {page.number + 1}: {len(lines)} lines, {len(text)} chars, "
                f"turned {90 * turns} deg, {wall:.1f} s ({cpu:.1f} s CPU){score}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
