"""Fits the verifier's calibrated decision on labelled pairs and writes its weights.

Reads every pair (claim, cited chunk, supported) of the given JSONL files with
the bundled embedding model, keeps the pairs no hard check vetoes, and fits
the two logistic models (with meaning similarity, and words-only for when no
embedder is at hand) with ``papertrail.verify.calibrated.fit``: class-balanced,
L2-regularised, Newton's method from zero, so the same pairs give the same
weights. Writes ``papertrail/verify/weights.json`` (or ``--out``); with
``--check`` it only compares a fresh fit with the shipped file and exits 1 if
they differ. The pairs live outside the repository, so this is a script.

    .venv/bin/python scripts/fit_verifier.py ../shared/corpus/verifier/pairs.jsonl \\
        ../shared/corpus/verifier/pairs-v2.jsonl ../shared/corpus/verifier/pairs-v3.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from papertrail.measure.verifier_eval import load_pairs  # noqa: E402
from papertrail.measure.verifier_fit import collect, fit_weights, training_rows  # noqa: E402
from papertrail.verify.calibrated import WEIGHTS  # noqa: E402


def weights_for(paths: list[Path]) -> dict:
    from papertrail.embed.model import SentenceTransformerEmbedder

    pairs = [p for path in paths for p in load_pairs(path)]
    reads = collect(pairs, SentenceTransformerEmbedder())
    out = fit_weights(pairs, reads)
    rows, labels, _ = training_rows(pairs, reads, True)
    out["fitted_on"] = {
        "files": [Path(p).name for p in paths],
        "pairs": len(pairs),
        "pairs_reaching_the_decision": len(rows),
        "supported": sum(labels),
        "sources": dict(sorted(Counter(p.get("source", "") for p in pairs).items())),
    }
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pairs", nargs="+", type=Path, help="labelled pairs (JSONL)")
    ap.add_argument("--out", type=Path, default=WEIGHTS, help="where to write the weights")
    ap.add_argument("--check", action="store_true", help="compare with --out, write nothing")
    args = ap.parse_args(argv)
    text = json.dumps(weights_for(args.pairs), indent=2, sort_keys=True) + "\n"
    if args.check:
        same = args.out.exists() and args.out.read_text(encoding="utf-8") == text
        print("weights reproduced exactly" if same else f"weights differ from {args.out}")
        return 0 if same else 1
    args.out.write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
