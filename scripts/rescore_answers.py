"""Scores the answers of a ``papertrail eval --mode extractive --json`` run both ways.

``papertrail eval`` scores a figure answer strictly: 1 / (1 + k) for k other
figures it states. Earlier releases scored it leniently: 1 when the
reference's figure appears anywhere in the answer. To compare a run with
figures published under the lenient scoring, this prints both, per data set,
from the same answers, with the refusals (though answerable) and the
"answered, verified, and wrong" count. Words are scored by F1 either way. It
reads the QA files for the reference answers and changes nothing.

    .venv/bin/python scripts/rescore_answers.py answers.json \\
        ../shared/corpus/attention/qa.jsonl ../shared/corpus/financebench/qa.jsonl
"""

from __future__ import annotations

import argparse
import json

from papertrail.measure.metrics import numbers_match, token_f1


def lenient(reference: str, candidate: str) -> float:
    """1 when the reference's figure is anywhere in the answer, else F1 of the words."""
    found = numbers_match(reference, candidate)
    return token_f1(reference, candidate) if found is None else float(found)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", help="the --json file of papertrail eval")
    parser.add_argument("qa", nargs="+", help="the QA JSONL files it ran on")
    args = parser.parse_args(argv)
    references = {}
    for path in args.qa:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    item = json.loads(line)
                    references[item["question"]] = item["answer"]
    with open(args.results, encoding="utf-8") as f:
        datasets = json.load(f)["datasets"]
    print(
        f"{'data set':28} {'n':>3} {'strict':>7} {'lenient':>8} {'refused':>8} {'verif.wrong':>12}"
    )
    for name, ds in datasets.items():
        items = [r for r in ds["items"] if r.get("answerable") and "answer" in r]
        if not items:
            continue
        strict = [0.0 if r["refusal"] else r["correctness"] for r in items]
        loose = [0.0 if r["refusal"] else lenient(references[r["question"]], r["answer"])
                 for r in items]  # fmt: skip
        refused = sum(r["refusal"] for r in items)
        wrong = sum(1 for r in items if not r["refusal"] and r["grounded"] and r.get("wrong"))
        n = len(items)
        scores = f"{sum(strict) / n:>7.3f} {sum(loose) / n:>8.3f}"
        print(f"{name:28} {n:>3} {scores} {refused:>8} {wrong:>12}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
