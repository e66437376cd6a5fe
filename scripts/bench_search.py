"""Time a search of a whole channel: exact over the vectors held against Chroma's index.

    PAPERTRAIL_EVAL_DIR=eval-cache python scripts/bench_search.py DATA.jsonl [DATA.jsonl ...]

Each data file's channel is indexed as ``papertrail eval`` indexes it (into the same
cache), its vectors are held as a BM25 index build holds them, and every question of
the file is searched both ways, 50 nearest chunks: the store's search (exact, in
memory) and Chroma's approximate index alone (50 plus the store's over-fetch). Prints
the medians, their ratio, how many of the exact 50 Chroma's index found, and the load.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

import numpy as np

from papertrail.measure.channels import index_all
from papertrail.measure.evaluate import build, load_items
from papertrail.settings import Settings
from papertrail.store.searches import OVERFETCH

K = 50  # as the first stage asks (``Retriever.candidates``)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("data", nargs="+", type=Path)
    args = parser.parse_args()
    cache = Path(os.environ.get("PAPERTRAIL_EVAL_DIR", "eval-cache")).resolve()
    pt = build(Settings.from_env(), "retrieval", cache)
    store = pt.store
    for path in args.data:
        items = load_items(path)
        channels, _ = index_all(pt, items)
        for channel in sorted(set(channels.values())):
            asked = [i for i in items if channels[i.doc] == channel]
            docs = store.documents(channel)
            store.chunks(channel)  # held, as a BM25 index build holds them
            col = store._chunks_of(channel)
            vectors = pt.retriever.embedder.embed([i.question for i in asked])
            exact, index, found = [], [], []
            for vec in np.asarray(vectors, dtype=np.float32):
                t = time.perf_counter()
                best = store.query(channel, vec, K, documents=docs)
                exact.append(time.perf_counter() - t)
                t = time.perf_counter()
                got = col.query(
                    query_embeddings=vec.reshape(1, -1),
                    n_results=K + OVERFETCH,
                    include=["distances"],
                )
                index.append(time.perf_counter() - t)
                found.append(len({c.id for c, _ in best} & set(got["ids"][0][:K])) / K)
            ms = [1000 * statistics.median(t) for t in (exact, index)]
            print(
                f"{path.parent.name}/{path.name}: {len(docs)} documents, {col.count()} chunks, "
                f"{len(asked)} questions: exact {ms[0]:.1f} ms, Chroma's index {ms[1]:.1f} ms "
                f"(median; ratio {ms[0] / ms[1]:.1f}); the index found {np.mean(found):.1%} "
                f"of the exact {K} (worst question {min(found):.0%})"
            )
    print("load average (1, 5, 15 min):", " ".join(f"{v:.2f}" for v in os.getloadavg()))


if __name__ == "__main__":
    main()
