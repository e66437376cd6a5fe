"""Many PDFs dropped at once: time to the first answerable document and to all indexed.

``bench_drop`` indexes the first ``count`` PDFs of a folder (smallest first,
so a drop of quarterly reports is what it times) into a fresh channel with
``PaperTrail.ingest_many``, in a fresh child process, and notes when each
document became answerable (listed as ready) and when the last did.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

from papertrail.settings import Settings


def bench_drop(folder: Path, count: int, run_child) -> dict:
    """``run_child(name, arg)``: the bench's fresh-process runner, which calls ``child_drop``."""
    print(f"dropping {count} PDFs of {folder} at once ...", flush=True)
    out = run_child("_child_drop", json.dumps([str(folder), count]))
    print(
        f"drop of {out['files']} PDFs ({out['chunks']:,} chunks): first answerable after "
        f"{out['first_ready_s']:.1f} s, all indexed after {out['all_ready_s']:.1f} s "
        f"(each: {out['ready_s']})"
    )
    return out


def child_drop(arg: str, launched: float) -> None:
    from papertrail.pipeline import PaperTrail

    folder, count = json.loads(arg)
    pdfs = sorted(Path(folder).glob("*.pdf"), key=lambda p: p.stat().st_size)[:count]
    files = [(p.name, p.read_bytes()) for p in pdfs]
    ready: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        pt = PaperTrail.from_settings(Settings.from_env().replace(data_dir=Path(tmp)))
        t0 = time.perf_counter()

        def on_ready(result) -> None:
            if getattr(result, "document", None) is not None:
                listed = {d.doc_id for d in pt.documents("drop")}  # what a question can see
                if result.document.doc_id not in listed:
                    raise RuntimeError(f"{result.document.name} was indexed but not listed")
            ready.append(round(time.perf_counter() - t0, 1))

        results = pt.ingest_many("drop", files, on_ready=on_ready)
        chunks = sum(r.document.chunks for r in results if hasattr(r, "document"))
        pt.close()
    print(
        json.dumps(
            {
                "files": len(files),
                "chunks": chunks,
                "first_ready_s": ready[0],
                "all_ready_s": ready[-1],
                "ready_s": ready,
            }
        )
    )
