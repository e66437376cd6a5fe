"""``papertrail eval DATA.jsonl...``: retrieval and answer quality on gold evidence pages.

Each distinct ``doc`` (a PDF, or a folder whose PDFs share one channel) is indexed
once, as the bots index it (OCR included), into a cache that survives runs
(``PAPERTRAIL_EVAL_DIR``, default ``eval-cache/``). Every question is retrieved at depth
10 and, in the answer modes, answered and verified; records go to a progress file as they
finish, so an interrupted run resumes. Scoring is ``metrics.py``'s, the baseline ``baseline.py``'s.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from papertrail.answer.extractive import ExtractiveGenerator
from papertrail.domains import KNOWN
from papertrail.embed.cache import CachingEmbedder
from papertrail.embed.model import get_embedder
from papertrail.errors import PaperTrailError
from papertrail.measure import baseline
from papertrail.measure.answerers import print_tally
from papertrail.measure.channels import index_all
from papertrail.measure.metrics import (
    DEPTH,
    correctness,
    is_wrong,
    per_source,
    relevant,
    retrieval_record,
    summarise,
)
from papertrail.pipeline import PaperTrail
from papertrail.read.ocr import get_ocr
from papertrail.settings import Settings
from papertrail.store.chroma import open_store

LLM_MODES = ("llm", "groq")  # "groq" is the older name of "llm"


@dataclass(frozen=True)
class Item:
    id: str
    doc: Path  # a PDF, or a folder of PDFs sharing one channel
    question: str
    answer: str
    evidence_pages: tuple[int, ...]
    answerable: bool
    gold_docs: tuple[str, ...]  # file names holding the answer (folder docs)
    source: str = ""  # where it comes from and the kind of document, for per-source tables


def load_items(path: Path) -> list[Item]:
    items = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
            doc = (path.parent / raw["doc"]).resolve()
            meta = raw.get("meta") or {}
            gold = meta.get("gold_docs") or ([doc.name] if doc.is_file() else [])
            items.append(
                Item(
                    id=str(raw["id"]),
                    doc=doc,
                    question=raw["question"],
                    answer=str(raw.get("answer", "")),
                    evidence_pages=tuple(raw.get("evidence_pages") or ()),
                    answerable=bool(raw.get("answerable", True)),
                    gold_docs=tuple(Path(g).name for g in gold),
                    source="/".join(filter(None, (raw.get("source"), meta.get("doc_type")))),
                )
            )
        except (KeyError, ValueError, TypeError) as e:
            raise PaperTrailError(f"{path}:{n}: not a QA record ({e}).", code="eval") from None
    return items


def build(settings: Settings, mode: str, cache: Path, chunk_size: int | None = None):
    size = chunk_size or settings.chunk_size
    index = f"index-{size}" + ("-context" * settings.contextual)  # other vectors: own index
    cut = dict(chunk_size=size, chunk_overlap=min(100, size // 8))
    settings = settings.replace(data_dir=cache / index, **cut)
    embedder = CachingEmbedder(get_embedder(settings), cache / "embeddings.sqlite")
    generator = extractive = ExtractiveGenerator(embedder, domains=KNOWN, without=settings.without)
    if mode in LLM_MODES:
        if not settings.llm_configured:
            raise PaperTrailError(
                "--mode llm needs GROQ_API_KEY (Groq), or PAPERTRAIL_LLM_BASE_URL or "
                "GROQ_BASE_URL (an OpenAI-compatible server; a key is optional there).",
                code="config",
            )
        from papertrail.answer.llm import get_generator

        generator = get_generator(settings, fallback=extractive)
    ocr = get_ocr() if settings.ocr else None  # as the bots read scans: measure what they do
    store = open_store(settings)
    return PaperTrail(settings, embedder=embedder, store=store, generator=generator, ocr=ocr)


def answer_record(pt: PaperTrail, item: Item, channel: str, real: dict | None = None) -> dict:
    real = real or {}
    answer = pt.ask(channel, item.question, render=False)
    score, how = correctness(item.answer, answer.text, item.question)
    return {
        "answer": answer.text,
        "mode": answer.mode,
        "by": answer.by,
        "notes": list(answer.notes),
        "grounded": answer.grounded,
        "refusal": answer.refusal,
        "answerable": item.answerable,
        "correctness": score,
        "correctness_method": how,
        "wrong": is_wrong(item.answer, answer.text, item.question),
        "citation_on_evidence": [
            relevant(item, real.get(c.chunk.doc_name, c.chunk.doc_name), c.chunk.page)
            for c in answer.citations
            if c.chunk
        ],
        "dropped": [c.reason for c in answer.dropped],
    }


def run_eval(
    args, settings: Settings, *, pipeline: PaperTrail | None = None, on_progress=None
) -> int:
    """Run the evaluation ``args`` describe on each of its data files, one shared pipeline.

    ``args.data`` is one path or a list of them; with several, ``--json`` holds
    one result per file under ``"datasets"`` (keyed by folder/file name) and a
    summary table of every file's rows is printed last. ``pipeline`` replaces
    the cached real one; ``on_progress(done, total)``, if given, is called as
    each question of a file is scored.
    """
    paths = args.data if isinstance(args.data, list) else [args.data]
    cache = Path(os.environ.get("PAPERTRAIL_EVAL_DIR", "eval-cache")).resolve()
    pt = pipeline
    results = {}
    for path in paths:
        items = load_items(path)[: args.limit or None]
        if not items:
            raise PaperTrailError(f"{path} holds no questions.", code="eval")
        pt = pt or build(settings, args.mode, cache, getattr(args, "chunk_size", None))
        name = f"{path.parent.name}/{path.name}"
        results[name] = _eval_file(args, path, items, pt, cache, on_progress)
    if len(results) > 1:
        rows = {
            f"{name} {label.split()[0]}": m
            for name, out in results.items()
            for label, m in out.get("ablation", {"ours": out["metrics"]}).items()
        }
        _print_table(rows, "every data file", 0)
    if args.json_out:
        out = next(iter(results.values())) if len(results) == 1 else {"datasets": results}
        args.json_out.write_text(json.dumps(out, indent=2), encoding="utf-8")
    return 0


def _eval_file(args, path: Path, items: list[Item], pt, cache: Path, on_progress) -> dict:
    """Index, retrieve (and answer) every item of one data file; print its table."""
    multi_doc = any(i.doc.is_dir() for i in items)
    mode = "extractive" if args.mode == "extractive" else args.mode
    opaque = bool(getattr(args, "opaque_names", False))
    names = ", neutral file names" * opaque
    head = f"eval {path.name}: {len(items)} questions, mode {mode}, k {args.k}"
    print(head + names, file=sys.stderr)
    channels, real = index_all(pt, items, opaque)

    progress = cache / "progress" / f"{_run_key(args, path, pt.settings)}.jsonl"
    # Resuming pays off where answers cost money and quota; retrieval is recomputed
    # every run so that a code change is always measured.
    llm = args.mode in LLM_MODES
    done = _load_progress(progress) if llm else {}
    records = []
    configs = ["hybrid"] + (["dense", "bm25"] if args.ablation else [])

    def one(item: Item) -> dict:
        if item.id in done:
            return done[item.id]
        rec = {
            "id": item.id,
            "source": item.source,
            "question": item.question,
            "gold": {"docs": list(item.gold_docs), "pages": list(item.evidence_pages)},
            "scored": bool(item.evidence_pages),
            "doc_scored": item.answerable and bool(item.gold_docs),
        }
        try:
            for cfg in configs:
                hits = pt.retriever.search(channels[item.doc], item.question, k=DEPTH, mode=cfg)
                ranked = [
                    (real.get(h.chunk.doc_name, h.chunk.doc_name), h.chunk.page) for h in hits
                ]
                rec["retrieval" if cfg == "hybrid" else cfg] = retrieval_record(item, ranked)
            rec.update(rec["retrieval"])
            if args.mode != "retrieval":
                rec.update(answer_record(pt, item, channels[item.doc], real))
                if llm and rec["mode"] == "extractive":
                    rec["error"] = "provider unavailable: " + "; ".join(rec["notes"])
        except PaperTrailError as e:
            rec["error"] = e.message
        if "error" not in rec and llm:
            with progress.open("a", encoding="utf-8") as f:
                f.write(json.dumps(rec) + "\n")
        return rec

    progress.parent.mkdir(parents=True, exist_ok=True)
    # Groq's hosted API: a small concurrency limit (see budget); a local server works on one
    # request at a time, and a second would only queue behind the first
    hosted = bool(pt.settings.groq_api_key) and not pt.settings.groq_base_url
    workers = 2 if llm and hosted else 1
    with ThreadPoolExecutor(workers) as pool:
        for rec in pool.map(one, items):
            records.append(rec)
            if on_progress is not None:
                on_progress(len(records), len(items))

    metrics = summarise(records, multi_doc)
    table = {"ours (hybrid)": metrics}
    for cfg in configs[1:]:
        table[f"{cfg} only"] = summarise([{**r, **r.get(cfg, {})} for r in records], multi_doc)
    want_baseline = getattr(args, "baseline", False)
    if want_baseline and baseline.available():
        table["baseline (LangChain 800/100 + MiniLM, dense)"] = baseline.scored(items, pt.embedder)
    elif want_baseline:
        print("baseline skipped: pip install -e '.[eval]' for langchain-text-splitters")
    _print_table(table, f"{path.parent.name}/{path.name}", len(items))
    by_source = per_source(records, multi_doc)
    if len(by_source) > 1:  # a set mixing sources (one channel of every kind): each apart
        _print_table(by_source, f"{path.parent.name}/{path.name}, ours (hybrid) per source", 0)
    if args.mode != "retrieval":
        print_tally(f"{path.parent.name}/{path.name}", records)
    out = {"n": len(items), "metrics": metrics, "items": records}
    if len(table) > 1:
        out["ablation"] = table
    if len(by_source) > 1:
        out["by_source"] = by_source
    return out


def _run_key(args, path: Path, settings: Settings) -> str:
    size = getattr(args, "chunk_size", None)
    mode = "llm" if args.mode in LLM_MODES else args.mode
    if mode == "llm":  # another model or server answers differently: its own progress file
        s = settings
        mode += f"|{s.groq_base_url}|{s.llm_base_url}|{s.groq_model}|{s.llm_model}"
    opaque = getattr(args, "opaque_names", False)
    key = f"{path.resolve()}|{mode}|{args.k}|{args.ablation}|{args.limit}|{size}|{opaque}"
    key += "".join(f"|-{n}" for n in settings.without)  # rules switched off answer otherwise
    return hashlib.sha256(key.encode()).hexdigest()[:16]


def _load_progress(path: Path) -> dict[str, dict]:
    done: dict[str, dict] = {}
    for line in path.read_text(encoding="utf-8").splitlines() if path.exists() else ():
        try:
            rec = json.loads(line)
        except ValueError:  # a line cut short by a crash: redo that item
            continue
        done[rec["id"]] = rec
    return done


def _print_table(table: dict[str, dict], name: str, n: int) -> None:
    cols = [c for c in dict.fromkeys(k for m in table.values() for k in m) if c != "failed"]
    print(f"\n{name}: {n} questions" if n else f"\n{name}")
    width = {c: max(9, len(c)) + 2 for c in cols}
    print(f"{'configuration':<46}" + "".join(f"{c:>{width[c]}}" for c in cols))
    for label, m in table.items():
        cells = "".join(f"{_fmt(m.get(c)):>{width[c]}}" for c in cols)
        print(f"{label:<46}{cells}")
    failed = next(iter(table.values())).get("failed") or 0
    if failed:
        print(f"failed items: {int(failed)} (see --json for their errors)")


def _fmt(v) -> str:
    return "n/a" if v is None else f"{v:.3f}"
