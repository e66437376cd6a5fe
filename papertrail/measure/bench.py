"""``papertrail bench PDF``: where the time and memory go, printed, not asserted.

1. Ingest PDF into a fresh index: read / chunk / embed / store seconds, pages
   per second, and the overhead beyond embedding.
2. Ingest it again: seconds and embeddings (should be 0).
3. With ``--channel-folder``: load every PDF of the folder into one channel
   (vectors cached in ``PAPERTRAIL_EVAL_DIR`` so repeated runs are quick) and
   time questions end to end in offline mode: retrieve, answer, verify, render,
   with the bot's in-memory sentence cache starting empty.
4. Peak RSS of ingesting PDF in a fresh child process (model load included).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from papertrail.embed import get_embedder
from papertrail.embed_cache import CachingEmbedder, MemoEmbedder
from papertrail.pipeline import PaperTrail
from papertrail.settings import Settings
from papertrail.store import open_store
from papertrail.verify import verify_answer


def _pipeline(settings: Settings, data_dir: Path, embedder=None) -> PaperTrail:
    settings = settings.replace(data_dir=data_dir)
    embedder = embedder or get_embedder(settings)
    return PaperTrail(settings, embedder=embedder, store=open_store(settings))


class Counting:
    """Counts the texts an embedder is asked to embed."""

    def __init__(self, inner) -> None:
        self.inner, self.name, self.count = inner, inner.name, 0

    def embed(self, texts):
        self.count += len(texts)
        return self.inner.embed(texts)


def bench_ingest(settings: Settings, pdf: Path) -> None:
    data = pdf.read_bytes()
    embedder = Counting(get_embedder(settings))
    embedder.embed(["warm-up"])  # load the model outside the timings
    with tempfile.TemporaryDirectory() as tmp:
        pt = _pipeline(settings, Path(tmp), embedder)
        first = pt.ingest("bench", pdf.name, data)
        t = first.timings
        pages = first.document.pages
        overhead = (t["total"] - t["embed"]) / t["embed"] if t["embed"] else float("nan")
        print(f"ingest {pdf.name}: {pages} pages, {first.document.chunks} chunks")
        for stage in ("read", "chunk", "embed", "store", "total"):
            print(f"  {stage:<6} {t[stage]:8.2f} s")
        print(f"  pages/s {pages / t['total']:8.1f}   chunks/s {first.embedded / t['total']:.1f}")
        print(
            f"  overhead beyond embedding: {overhead:.1%} of embedding time "
            f"({(t['total'] - t['embed']) / t['total']:.1%} of the total)"
        )
        before = embedder.count
        t0 = time.perf_counter()
        again = pt.ingest("bench", pdf.name, data)
        ms = (time.perf_counter() - t0) * 1000
        print(f"re-ingest: {ms:.1f} ms, {embedder.count - before} embeddings, new={again.new}")


def bench_queries(settings: Settings, folder: Path, n: int, on_progress=None) -> None:
    cache = Path(os.environ.get("PAPERTRAIL_EVAL_DIR", "eval-cache")).resolve()
    embedder = CachingEmbedder(get_embedder(settings), cache / "embeddings.sqlite")
    pt = _pipeline(settings, cache / "bench-index", embedder)
    pdfs = sorted(folder.glob("*.pdf"))
    t0 = time.perf_counter()
    for pdf in pdfs:
        pt.ingest("bench-folder", pdf.name, pdf.read_bytes())
    chunks = sum(d.chunks for d in pt.documents("bench-folder"))
    print(
        f"channel: {len(pdfs)} PDFs, {chunks} chunks (loaded in {time.perf_counter() - t0:.0f} s)"
    )
    # Questions go through what the bot uses: the in-memory sentence cache, cold at
    # start. (The on-disk cache above would hold every sentence of an earlier run.)
    pt = PaperTrail(pt.settings, embedder=MemoEmbedder(get_embedder(settings)), store=pt.store)
    questions = _questions(folder, n)
    stages: dict[str, list[float]] = {"retrieve": [], "answer": [], "verify": [], "render": []}
    totals = []
    pt.ask("bench-folder", questions[0])  # warm caches (BM25 index, model)
    for q in questions:
        t = [time.perf_counter()]
        hits = pt.retriever.search("bench-folder", q, k=settings.top_k)
        t.append(time.perf_counter())
        draft = pt.generator.generate(q, hits)
        t.append(time.perf_counter())
        checked = verify_answer(draft.text, hits, embedder=pt.embedder)
        t.append(time.perf_counter())
        pt._render("bench-folder", checked.citations)
        t.append(time.perf_counter())
        for name, a, b in zip(stages, t, t[1:], strict=False):
            stages[name].append((b - a) * 1000)
        totals.append((t[-1] - t[0]) * 1000)
        if on_progress is not None:  # (done, total), after the clock stopped
            on_progress(len(totals), len(questions))
    print(f"query latency over {len(questions)} questions (ms):")
    for name, values in [*stages.items(), ("total", totals)]:
        print(f"  {name:<8} p50 {_pct(values, 50):7.1f}   p95 {_pct(values, 95):7.1f}")


def _questions(folder: Path, n: int) -> list[str]:
    qa = folder.parent / "qa.jsonl"
    if qa.exists():
        qs = [json.loads(line)["question"] for line in qa.read_text().splitlines() if line]
    else:
        qs = ["What is this document about?", "What were the total revenues?"]
    return (qs * (n // len(qs) + 1))[:n]


def _pct(values: list[float], p: int) -> float:
    if len(values) < 2:
        return values[0] if values else float("nan")
    return statistics.quantiles(values, n=100, method="inclusive")[p - 1]


def bench_peak(pdf: Path) -> None:
    """Ingest in a child process and read its peak resident memory (VmHWM)."""
    code = (
        "import sys,tempfile,pathlib\n"
        "from papertrail.measure.bench import _child_ingest\n"
        "_child_ingest(pathlib.Path(sys.argv[1]))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(pdf)], capture_output=True, text=True, check=False
    )
    print(out.stdout.strip() or out.stderr.strip()[-500:])


def _child_ingest(pdf: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings.from_env().replace(data_dir=Path(tmp))
        pt = PaperTrail.from_settings(settings)
        t0 = time.perf_counter()
        r = pt.ingest("peak", pdf.name, pdf.read_bytes())
        secs = time.perf_counter() - t0
    status = Path("/proc/self/status").read_text().splitlines()
    hwm = next(line.split()[1] for line in status if line.startswith("VmHWM"))
    print(
        f"peak RSS ingesting {pdf.name} ({r.document.pages} pages, {r.document.chunks} chunks, "
        f"{secs:.0f} s): {int(hwm) / 1024:.0f} MB"
    )


def run_bench(args, settings: Settings, on_progress=None) -> int:
    bench_ingest(settings, args.pdf)
    if args.channel_folder:
        bench_queries(settings, args.channel_folder, args.queries, on_progress)
    bench_peak(args.pdf)
    return 0
