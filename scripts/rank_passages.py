"""A learned ranking of one document's passages, measured against the shipped fusion.

    export PAPERTRAIL_EVAL_DIR=eval-cache C=../shared/corpus
    python scripts/rank_passages.py $C/attention/qa.jsonl $C/financebench/qa.jsonl \\
        $C/mmlongbench/qa.jsonl evals/dev/tuning.jsonl

The fusion (``papertrail.retrieve.fusion``) adds five signals under weights chosen
on a small grid (``scripts/fit_retrieval.py``). This fits a ranking instead: the
same conditional logit the document stage uses (``papertrail.measure.calibrate``),
over each question's candidate passages, the ones on a gold page the right ones,
on the fusion's signals and on each ranking's reciprocal rank (``FEATURES``). It
prints hit@5 per source (first passage per page, as the fusion is scored) for the
shipped fusion, for the logit fitted on the other sources (leave one source out)
and fitted on all of them. The candidates are those ``fit_retrieval.py`` gathers
(the same cache). It changes nothing that ships: it is how that choice was checked.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from fit_retrieval import gather  # noqa: E402

from papertrail.measure.calibrate import _likeliest  # noqa: E402
from papertrail.retrieve.fusion import Weights, _minmax  # noqa: E402
from papertrail.retrieve.stages import DocPool  # noqa: E402

FEATURES = ("dense", "BM25", "page", "figure", "section", "1/dense rank", "1/BM25 rank")


def features(pool: DocPool) -> tuple[np.ndarray, list]:
    """(one row of ``FEATURES`` per candidate, the candidates' chunks), as ``fuse`` sees them."""
    chunks = {c.id: c for c in [*pool.sections, *pool.extra]}
    dense = {c.id: r for r, (c, _) in enumerate(pool.dense, 1)}
    lexical = {c.id: r for r, (c, _) in enumerate(pool.lexical, 1)}
    chunks |= {c.id: c for c, _ in [*pool.dense, *pool.lexical]}
    scaled_d, scaled_l = _minmax(pool.dense, 1.0), _minmax(pool.lexical, 1.0)
    named = {c.id for c in pool.sections}
    rows = []
    for cid in chunks:
        d, lex = dense.get(cid), lexical.get(cid)
        rows.append(
            [
                scaled_d(d) if d else 0.0,
                scaled_l(lex) if lex else 0.0,
                pool.page.get(cid, 0.0),
                float(cid in pool.figures),
                float(cid in named),
                1 / (d + 1) if d else 0.0,
                1 / (lex + 1) if lex else 0.0,
            ]
        )
    return np.array(rows, np.float64), list(chunks.values())


def hit5(x: np.ndarray, chunks: list, pages: set[int], coef: np.ndarray) -> float:
    """1.0 if a gold page is among the first five pages of the ranking ``x @ coef``."""
    shown: list[int] = []
    for i in np.lexsort((np.arange(len(x)), -(x @ coef))):
        if chunks[i].page not in shown:
            shown.append(chunks[i].page)
        if len(shown) == 5:
            break
    return float(bool(pages & set(shown)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("data", nargs="+", type=Path, help="one-document data files")
    args = parser.parse_args()
    cache = Path(os.environ.get("PAPERTRAIL_EVAL_DIR", "eval-cache")).resolve()
    cases = [c for c in gather(args.data, cache) if c.pages and not c.pool.signals]
    rows = []  # (source, features, chunks, gold pages, gold rows)
    for case in cases:
        x, chunks = features(case.pool.docs[0])
        gold = [i for i, c in enumerate(chunks) if c.page in case.pages]
        rows.append((case.source, x, chunks, set(case.pages), gold))
    w = Weights()
    fusion = np.array([w.alpha, 1 - w.alpha, w.page, w.figure_boost, w.section_boost, 0, 0])
    every = _likeliest([(x, g) for _, x, _, _, g in rows if g])
    print("| source | questions | fusion, shipped | logit, fitted without it | fitted on all |")
    print("|---|---:|---:|---:|---:|")
    for source in sorted({r[0] for r in rows}):
        left = _likeliest([(x, g) for s, x, _, _, g in rows if g and s != source])
        mine = [r for r in rows if r[0] == source]
        scores = [
            np.mean([hit5(x, c, p, coef) for _, x, c, p, _ in mine])
            for coef in (fusion, left, every)
        ]
        print(f"| {source} | {len(mine)} | " + " | ".join(f"{v:.3f}" for v in scores) + " |")
    fitted = ", ".join(f"{n} {v:.2f}" for n, v in zip(FEATURES, every, strict=True))
    print(f"\nfitted on all: {fitted}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
