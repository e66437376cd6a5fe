"""Question latency on a channel of a folder's PDFs and on one several times its size.

The folder's PDFs go into one channel (vectors cached in
``PAPERTRAIL_EVAL_DIR`` so repeated runs embed nothing). The large channel
holds ``copies`` copies of each of those documents, each a separate document
with its own id and its chunks' stored vectors re-used (nothing is embedded
again; the output says so). Both are kept in the cache between runs.

Questions go through ``PaperTrail.ask`` as the bot calls it, offline, with the
bot's in-memory sentence cache starting empty for each channel; the channels
take turns on each question, so both see the same load; each channel gets a
fresh pipeline that warms up as a bot does at start (model, recent channels'
BM25 indexes: timed apart), then its first question is timed apart too and
printed beside the warm median. In the large channel
every passage is there ``copies`` times, so its answers differ (more are
refused: nothing to render); ``retrieve`` is the stage that grows with size. Each
question is ``ask(render=False)`` then ``PaperTrail.render``, a caller posting
the text first would; "retrieve" and "answer" are timed by wrapping the
pipeline's retriever and generator, "verify" is the rest of ``ask``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import statistics
import time
from collections import defaultdict
from pathlib import Path

from papertrail.embed.cache import CachingEmbedder, MemoEmbedder
from papertrail.embed.model import get_embedder
from papertrail.pipeline import PaperTrail
from papertrail.settings import Settings
from papertrail.store.chroma import open_store

BASE, LARGE = "bench-folder", "bench-large"


def bench_channels(settings: Settings, folder: Path, n: int, copies: int, on_progress=None) -> dict:
    cache = Path(os.environ.get("PAPERTRAIL_EVAL_DIR", "eval-cache")).resolve()
    settings = settings.replace(data_dir=cache / "bench-index")
    embedder = CachingEmbedder(get_embedder(settings), cache / "embeddings.sqlite")
    loader = PaperTrail(settings, embedder=embedder, store=open_store(settings, embedder.name))
    pdfs = sorted(folder.glob("*.pdf"))
    t0 = time.perf_counter()
    for pdf in pdfs:
        loader.ingest(BASE, pdf.name, pdf.read_bytes())
    load_s = time.perf_counter() - t0
    chunks = sum(d.chunks for d in loader.documents(BASE))
    print(
        f"channel: {len(pdfs)} PDFs, {chunks} chunks (loaded in {load_s:.0f} s, "
        f"{embedder.misses} embedded)"
    )
    t0 = time.perf_counter()
    large_chunks = _copies(loader, copies) if copies > 1 else 0
    build_s = time.perf_counter() - t0
    questions = _questions(folder, n)
    channels = [BASE, LARGE] if large_chunks else [BASE]
    timed = _time_questions(settings, loader, channels, questions, on_progress)
    out = {"query": {"channel_chunks": chunks, "documents": len(pdfs), **timed[BASE]}}
    _print("query", out["query"])
    if large_chunks:
        large = {
            "chunks": large_chunks,
            "copies": copies,
            "how": f"{copies} copies of each of the {len(pdfs)} PDFs, each a separate "
            "document; stored vectors re-used, nothing re-embedded",
            "build_s": round(build_s, 1),
            **timed[LARGE],
        }
        large["ratio_p50"] = round(large["p50_ms"] / out["query"]["p50_ms"], 2)
        large["ratio_retrieve_p50"] = round(
            large["stages"]["retrieve"] / out["query"]["stages"]["retrieve"], 2
        )
        out["large"] = large
        _print("large", large)
    return out


def _copies(loader: PaperTrail, copies: int) -> int:
    """Fill the large channel with ``copies`` copies of every base document; its chunks."""
    store = loader.store
    base = store.documents(BASE)
    have = {d.doc_id for d in store.documents(LARGE)}
    for doc in base:
        chunks = store.chunks(BASE, [doc.doc_id])
        vectors = store.chunk_vectors(BASE, [c.id for c in chunks])
        rows = [vectors[c.id] for c in chunks]
        for n in range(copies):
            new_id = hashlib.sha256(f"{doc.doc_id}/copy{n}".encode()).hexdigest()
            if new_id in have:
                continue
            copy = dataclasses.replace(
                doc, channel=LARGE, doc_id=new_id, name=f"copy{n}-{doc.name}"
            )
            store.begin(copy)
            moved = [dataclasses.replace(c, doc_id=new_id) for c in chunks]
            for i in range(0, len(moved), 1000):
                store.add_chunks(LARGE, moved[i : i + 1000], _stack(rows[i : i + 1000]))
            store.commit(copy)
            pdf = loader.files.path(LARGE, new_id)  # snippets render from the original file
            pdf.parent.mkdir(parents=True, exist_ok=True)
            pdf.unlink(missing_ok=True)
            pdf.symlink_to(loader.files.path(BASE, doc.doc_id))
    return sum(d.chunks for d in store.documents(LARGE))


def _stack(rows):
    import numpy as np

    return np.stack(rows).astype(np.float32)


class _Stopwatch:
    """Seconds spent inside wrapped callables, per stage."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = defaultdict(float)

    def wrap(self, stage: str, fn):
        def timed(*args, **kwargs):
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.spent[stage] += time.perf_counter() - t0

        return timed


def _ask(pt: PaperTrail, channel: str, question: str, watch: _Stopwatch) -> None:
    """One question as the bot answers it: the text, then its snippet pictures."""
    answer = pt.ask(channel, question, render=False)
    t0 = time.perf_counter()
    pt.render(channel, answer.citations)
    watch.spent["render"] += time.perf_counter() - t0


def _time_questions(
    settings: Settings, loader: PaperTrail, channels, questions, on_progress=None
) -> dict:
    """Per channel: latency figures; channels take turns on each question (same load).

    ``on_progress(done, total)`` after each question, outside the clock.
    """
    pts, watches, firsts, warmups = {}, {}, {}, {}
    for channel in channels:
        memo = MemoEmbedder(get_embedder(settings))  # the bot's cache, empty
        pt = PaperTrail(settings, embedder=memo, store=loader.store)
        watch = _Stopwatch()
        pt.retriever.search = watch.wrap("retrieve", pt.retriever.search)
        pt.generator.generate = watch.wrap("answer", pt.generator.generate)
        t0 = time.perf_counter()
        pt.warm_up().join()  # what a bot does at start, in the background while it connects
        warmups[channel] = time.perf_counter() - t0
        t0 = time.perf_counter()
        _ask(pt, channel, questions[0], watch)  # the first question after the start
        pts[channel], watches[channel], firsts[channel] = pt, watch, time.perf_counter() - t0
    stages = {c: defaultdict(list) for c in channels}
    totals: dict[str, list[float]] = {c: [] for c in channels}
    for q in questions[1:]:
        for channel in channels:
            watch = watches[channel]
            watch.spent.clear()
            t0 = time.perf_counter()
            _ask(pts[channel], channel, q, watch)
            total = (time.perf_counter() - t0) * 1000
            totals[channel].append(total)
            parts = {k: v * 1000 for k, v in watch.spent.items()}
            parts["verify"] = total - sum(parts.values())
            for k in ("retrieve", "answer", "verify", "render"):
                stages[channel][k].append(parts.get(k, 0.0))
        if on_progress is not None:  # (done, total), after the clock stopped
            on_progress(len(totals[channels[0]]), len(questions) - 1)
    return {
        c: {
            "questions": len(totals[c]),
            "first_s": round(firsts[c], 2),
            "warm_up_s": round(warmups[c], 1),
            "first_over_p50": round(firsts[c] * 1000 / _pct(totals[c], 50), 2),
            "p50_ms": round(_pct(totals[c], 50), 1),
            "p95_ms": round(_pct(totals[c], 95), 1),
            "stages": {k: round(_pct(v, 50), 1) for k, v in stages[c].items()},
        }
        for c in channels
    }


def _print(label: str, f: dict) -> None:
    stages = " / ".join(f"{k} {v:.0f}" for k, v in f["stages"].items())
    size = f.get("channel_chunks") or f.get("chunks")
    print(
        f"{label}: {size} chunks, {f['questions']} questions: p50 {f['p50_ms']:.0f} ms, "
        f"p95 {f['p95_ms']:.0f} ms (p50 {stages} ms)"
    )
    print(
        f"  first question after a start: {f['first_s'] * 1000:.0f} ms = "
        f"{f['first_over_p50']}x the warm p50 (start-up warm-up in the background: "
        f"{f['warm_up_s']:.1f} s)"
    )
    if "how" in f:
        print(f"  ({f['how']}; built in {f['build_s']:.0f} s; p50 {f['ratio_p50']}x the base)")


def _questions(folder: Path, n: int) -> list[str]:
    # the corpus keeps qa.jsonl beside the PDFs (attention/) or above them (financebench/pdfs/)
    qa = next((p for p in (folder / "qa.jsonl", folder.parent / "qa.jsonl") if p.exists()), None)
    if qa is not None:
        qs = [json.loads(line)["question"] for line in qa.read_text().splitlines() if line]
    else:
        qs = ["What is this document about?", "What were the total revenues?"]
    return (qs * (n // len(qs) + 1))[: n + 1]


def _pct(values: list[float], p: int) -> float:
    if len(values) < 2:
        return values[0] if values else float("nan")
    return statistics.quantiles(values, n=100, method="inclusive")[p - 1]
