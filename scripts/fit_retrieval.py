"""Fit retrieval's fusion weights on development sets, with leave-one-source-out figures.

    export PAPERTRAIL_EVAL_DIR=eval-cache C=../shared/corpus
    python scripts/fit_retrieval.py $C/attention/qa.jsonl $C/financebench/qa.jsonl \\
        $C/mmlongbench/qa.jsonl $C/financebench/qa-channel.jsonl \\
        $C/mmlongbench/qa-channel.jsonl $C/docugami-earnings-calls/qa-channel.jsonl \\
        evals/dev/tuning.jsonl evals/dev/tuning-channel.jsonl [--check]

Each data file is indexed as ``papertrail eval`` indexes it (the same cache);
every question's candidates are gathered once (``Retriever.gather``, kept in
``$PAPERTRAIL_EVAL_DIR/fit-pools/`` so a second run only re-scores), then each
point of ``papertrail.measure.fit.GRID`` is scored on every data file. A data
file's source is its folder (``financebench`` holds the one-document and the
channel file: they share questions, so they are left out together). Prints the
figures per data file at the shipped and at the fitted weights, the
leave-one-source-out table and the fitted weights; ``--check`` exits 1 when
these differ from the shipped ``papertrail.retrieve.fusion.Weights``.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import pickle
import re
import sys
from dataclasses import replace
from pathlib import Path

from papertrail.measure import calibrate, fit
from papertrail.measure.channels import index_all
from papertrail.measure.evaluate import build, load_items
from papertrail.retrieve import stages
from papertrail.retrieve.fusion import Weights
from papertrail.settings import Settings


def slim(pool: stages.Pool) -> stages.Pool:
    """``pool`` without passage text and boxes: ranking reads ids, pages and scores only."""

    def c(chunk):
        return replace(chunk, text="", rects=(), lines=(), section="")

    docs = tuple(
        replace(
            d,
            dense=[(c(x), s) for x, s in d.dense],
            lexical=[(c(x), s) for x, s in d.lexical],
            extra=[c(x) for x in d.extra],
            sections=[c(x) for x in d.sections],
        )
        for d in pool.docs
    )
    return replace(pool, docs=docs)


SHIPPED = re.compile(r"(?ms)^class Weights:.*?(?=^\S)")


def gathering_code() -> list[Path]:
    """The modules a gathering runs: the retriever's and what it reads with (the text
    readings, the domains' section titles, the store, reading and embedding), so that a
    change to any of them gathers again."""
    package = Path(stages.__file__).parents[1]
    folders = ("retrieve", "text", "domains", "store", "read", "embed")
    inside = [p for folder in folders for p in package.glob(f"{folder}/**/*.py")]
    return sorted([*package.glob("*.py"), *inside])


def index_settings(settings: Settings) -> tuple:
    """What of ``settings`` decides the index a gathering searches."""
    return (settings.embedding_model, settings.chunk_size, settings.contextual)


def gather(paths: list[Path], cache: Path) -> list[fit.Case]:
    """Every question's candidates, from the pool cache when the code and data match."""
    digest = hashlib.sha256()
    for part in gathering_code():  # the weights' values do not change a gathering
        digest.update(SHIPPED.sub("", part.read_text(encoding="utf-8")).encode())
    settings = Settings.from_env()  # another index (chunking, context, model) gathers anew
    digest.update(repr(index_settings(settings)).encode())
    if settings.without:  # retrieval rules switched off (``--without``) gather otherwise
        digest.update(repr(sorted(settings.without)).encode())
    pt, cases = None, []
    for path in paths:
        digest_path = hashlib.sha256(digest.digest() + path.read_bytes()).hexdigest()[:16]
        saved = cache / "fit-pools" / f"{path.parent.name}-{path.stem}-{digest_path}.pkl"
        if saved.exists():
            cases += pickle.loads(saved.read_bytes())
            continue
        pt = pt or build(settings, "retrieval", cache)
        items = [i for i in load_items(path) if i.answerable and i.gold_docs]
        channels, _ = index_all(pt, items)
        mine = []
        for item in items:
            channel = channels[item.doc]
            docs = pt.store.documents(channel)
            pool = pt.retriever.gather(
                channel,
                item.question,
                docs,
                {d.doc_id for d in docs},
                depth=fit.DEPTH,
                leading=max(int(v) for v in fit.GRID["docs"]) + 2,
            )
            source = "own" if path.parent.parent.name == "evals" else path.parent.name
            name = f"{path.parent.name}/{path.name}"
            names = {d.doc_id: d.name for d in docs}
            case = fit.Case(source, name, slim(pool), item.gold_docs, item.evidence_pages, names)
            mine.append(case)
        print(f"gathered {name}: {len(mine)} questions", file=sys.stderr)
        saved.parent.mkdir(parents=True, exist_ok=True)
        saved.write_bytes(pickle.dumps(mine))
        cases += mine
    return cases


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("data", nargs="+", type=Path)
    parser.add_argument("--check", action="store_true", help="exit 1 unless shipped = fitted")
    args = parser.parse_args()
    cache = Path(os.environ.get("PAPERTRAIL_EVAL_DIR", "eval-cache")).resolve()
    cases = gather(args.data, cache)
    shipped = Weights()
    fitter = fit.Fitter(cases, shipped)
    sources = {c.dataset: c.source for c in cases}
    table = fitter.table(set(sources.values()))
    _, fitted, value = fit.best(table, set(sources), fitter.alone)
    inner = tuple(getattr(shipped, n) for n in fitter.inner)
    at_shipped = fit.per_dataset(cases, fitter.fused(inner), shipped)
    at_fitted = next(s for _, w, s in table if w == fitted)
    print("\n| data file | source | questions | shipped hit@5 (doc_hit@5) | fitted |")
    print("|---|---|---:|---:|---:|")
    for name in sorted(sources):
        n = sum(1 for c in cases if c.dataset == name)
        print(
            f"| {name} | {sources[name]} | {n} | {at_shipped[name][0]:.3f} "
            f"({at_shipped[name][3]:.3f}) | {at_fitted[name][0]:.3f} ({at_fitted[name][3]:.3f}) |"
        )
    print(
        f"\nover every question, fitted: hit@5 {value[0]:.3f}, mrr@10 {value[1]:.3f}, "
        f"doc_hit@5 {value[2]:.3f}"
    )
    tied = fit.ties(table, fitter.alone & set(sources))
    if len(tied) > 1:  # the within-document weights were chosen by a tie-break
        print("\nwithin-document weights tied on hit@5 over the one-document questions")
        print("(chosen by doc_hit@5, then mrr@10, then the grid's order):")
        for point, (hit5, doc5, mrr) in tied:
            shown = ", ".join(f"{n} {v:g}" for n, v in point.items())
            print(f"  {shown}: hit@5 {hit5:.3f}, doc_hit@5 {doc5:.3f}, mrr@10 {mrr:.3f}")
    print("\n| left out | fitted without it | its hit@5 (doc_hit@5) then | with every source |")
    print("|---|---|---|---|")
    for source, (w, alone, every) in fit.leave_one_out(fitter, sources, table).items():
        then = ", ".join(f"{d.split('/')[1]} {v:.3f} ({h:.3f})" for d, (v, h) in alone.items())
        whole = ", ".join(f"{d.split('/')[1]} {v:.3f} ({h:.3f})" for d, (v, h) in every.items())
        print(f"| {source} | {_show(w)} | {then} | {whole} |")
    print("\nThe document stage, each channel source left out (its coefficients fitted on the")
    print("others, no temperature; log-likelihood of the right document per question):\n")
    print("| left out | questions | log-likelihood | right document first | in the top 3 |")
    print("|---|---:|---:|---:|---:|")
    for source, row in calibrate.left_out(cases).items():
        print(
            f"| {source} | {row.questions} | {row.log_likelihood:.3f} | {row.first:.3f} "
            f"| {row.top3:.3f} |"
        )
    print(f"\nfitted:  {_show(fitted)}")
    print(f"shipped: {_show(shipped)}")
    same = all(getattr(fitted, n) == getattr(shipped, n) for n in NAMES)
    print("the shipped weights are the fitted ones" if same else "shipped != fitted")
    return 0 if same or not args.check else 1


NAMES = (*fit.GRID, "confidence", "gains")


def _show(w: Weights) -> str:
    def value(v):
        return "(" + ", ".join(f"{x:g}" for x in v) + ")" if isinstance(v, tuple) else f"{v:g}"

    return ", ".join(f"{n} {value(getattr(w, n))}" for n in NAMES)


if __name__ == "__main__":
    sys.exit(main())
