"""Time the page pictures alone: CPU and wall per picture on random passages of PDFs.

    python scripts/bench_render.py FILE.pdf [FILE.pdf ...] [--per-file 15] [--rounds 3]

Each passage is drawn as a cited answer's picture is (``render_snippets``, the
stored PDF opened per answer) with evidence that starts mid-line, so the
snap-to-words path runs too. CPU time (``time.process_time``) is printed beside
the wall time because it depends much less on other jobs sharing the cores.
Passages are chosen with a fixed seed: two checkouts time the same pictures.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from pathlib import Path

from papertrail.read.chunking import chunk_blocks
from papertrail.read.pdf import read_pdf
from papertrail.render.citations import render_snippets
from papertrail.settings import Settings
from papertrail.types import Evidence, Rect


def cases(paths: list[Path], per_file: int) -> list[tuple[bytes, object, Evidence]]:
    rng = random.Random(1)
    out = []
    for path in paths:
        data = path.read_bytes()
        chunks = chunk_blocks(read_pdf(data, Settings()).blocks, doc_id="x", doc_name=path.name)
        for c in rng.sample(chunks, min(per_file, len(chunks))):
            rects = list(c.rects[:2])
            a = rects[0]
            rects[0] = Rect(a.x0 + a.width * 0.3, a.y0, a.x1, a.y1)  # evidence starts mid-line
            out.append((data, c, Evidence(c.text[:80], tuple(rects))))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pdfs", nargs="+", type=Path)
    ap.add_argument("--per-file", type=int, default=15)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    todo = cases(args.pdfs, args.per_file)
    wall, cpu = [], []
    for r in range(args.rounds + 1):  # the first round warms imports and caches: not counted
        for data, chunk, evidence in todo:
            t0, c0 = time.perf_counter(), time.process_time()
            render_snippets(data, {1: chunk}, evidence_by_n={1: evidence})
            if r:
                wall.append((time.perf_counter() - t0) * 1000)
                cpu.append((time.process_time() - c0) * 1000)
    load = "/".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"{len(todo)} pictures x {args.rounds}: CPU p50 {statistics.median(cpu):.1f} ms, "
        f"wall p50 {statistics.median(wall):.1f} ms, p95 "
        f"{statistics.quantiles(wall, n=20)[-1]:.1f} ms; load average {load}"
    )


if __name__ == "__main__":
    main()
