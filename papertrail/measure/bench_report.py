"""The ingest side-by-side of ``papertrail bench`` as text lines and as a markdown table.

``rows`` turns the figures ``bench.bench_ingest`` measured (and, when run, the
drop of many PDFs) into (measure, PaperTrail, LangChain) rows; ``ingest_lines``
prints them, ``write_markdown`` writes them as the speed table of
``docs/results.md``: between the ``<!-- bench:speed -->`` and
``<!-- /bench:speed -->`` markers when the file has them, else as a new file.
No figure is typed by hand. It leaves out measuring.
"""

from __future__ import annotations

from pathlib import Path

BEGIN, END = "<!-- bench:speed -->", "<!-- /bench:speed -->"


def rows(f: dict) -> list[tuple[str, str, str]]:
    i, s = f["ingest"], f["ingest"]["stages"]
    lc = f.get("langchain")
    ls = lc["stages"] if lc else {}

    def sec(v) -> str:
        return "–" if v is None else f"{v:.2f} s"

    def theirs(key: str) -> str:
        return sec(ls.get(key)) if lc else "not run"

    embed_rate = i["embedded"] / s["embed"] if s.get("embed") else 0.0
    lc_rate = lc["chunks"] / ls["embed"] if lc and ls.get("embed") else None
    out = [
        (
            "wall, fresh process to index ready (median)",
            sec(i["seconds"]),
            sec(lc["seconds"]) if lc else "not run",
        ),
        ("peak RSS", f"{i['peak_rss_mb']:.0f} MB", f"{lc['peak_rss_mb']:.0f} MB" if lc else ""),
        ("CPU time (user + system)", sec(i.get("cpu_s")), sec(lc.get("cpu_s")) if lc else ""),
        (
            "chunks; per second of wall",
            f"{i['chunks']:,}; {i['chunks_per_s']}",
            f"{lc['chunks']:,}; {lc['chunks_per_s']}" if lc else "",
        ),
        ("— start-up: Python, imports, model", sec(s.get("start")), theirs("start")),
        ("— read (text layer)", sec(s.get("read")), theirs("read") + " (read + split)"),
        (
            f"— OCR, {s.get('ocr_pages', 0):.0f} page(s){_pictures(s)}, beside embedding",
            sec(s.get("ocr")),
            "none",
        ),
        ("— waiting for OCR once the text pages were embedded", sec(s.get("wait_ocr")), "–"),
        ("— chunk", sec(s.get("chunk")), "(in read)"),
        ("— embed", sec(s.get("embed")), theirs("embed")),
        ("— embedding rate, chunks/s", f"{embed_rate:.1f}", f"{lc_rate:.1f}" if lc_rate else "–"),
        ("— cores busy while embedding (process CPU s per s)", f"{s.get('embed_cpu', 0):.2f}", "–"),
        ("— store (beside embedding)", sec(s.get("store")), theirs("store") + " (numpy array)"),
        ("— lexical index warm-up (BM25)", sec(s.get("lexical")), "none"),
    ]
    if lc:
        q = f["ratios"]
        out.append(
            (
                "PaperTrail / LangChain: wall, RSS, CPU",
                f"{q['seconds']:.2f}×, {q['peak_rss']:.2f}×, {q.get('cpu', 0):.2f}×",
                "",
            )
        )
    d = f.get("drop")
    if d:
        out.append(
            (
                f"{d['files']} PDFs dropped at once ({d['chunks']:,} chunks): first answerable "
                "/ all indexed",
                f"{d['first_ready_s']:.1f} s / {d['all_ready_s']:.1f} s",
                "",
            )
        )
    return out


def _load(f: dict) -> str:
    load = f.get("load", {})
    before, after = load.get("before"), load.get("after")
    if not before:
        return "load not recorded"
    return (
        f"load average (1/5/15 min) {before[0]}/{before[1]}/{before[2]} at the start, "
        f"{after[0]}/{after[1]}/{after[2]} at the end"
    )


def ingest_lines(f: dict) -> list[str]:
    i = f["ingest"]
    head = (
        f"ingest of {Path(f.get('pdf', '')).name}: {i['pages']} pages, {i['chunks']} chunks "
        f"({i['embedded']} embedded, {i['backend']}), runs {i['runs_seconds']}; {_load(f)}"
    )
    r = f["reingest"]
    lines = [head]
    width = max(len(m) for m, _, _ in rows(f))
    lines.append(f"  {'':{width}}  {'PaperTrail':>22}  {'LangChain':>22}")
    lines += [f"  {m:{width}}  {a:>22}  {b:>22}" for m, a, b in rows(f)]
    lines.append(
        f"re-ingest: {r['ms']:.1f} ms, {r['embedded']} embeddings; in another channel "
        f"{r['other_channel_ms']:.0f} ms, {r['other_channel_embedded']} embeddings"
    )
    return lines


def markdown(f: dict) -> str:
    lines = [
        f"Measured {f.get('measured', '')} by `papertrail bench {Path(f.get('pdf', '')).name}"
        f" --ingest`; {_load(f)}. {len(f['ingest']['runs_seconds'])} run(s) of each pipeline, "
        "each in a fresh child process, alternated; medians shown.",
        "",
        "| measure | PaperTrail | LangChain twin |",
        "|---|---:|---:|",
    ]
    lines += [f"| {m} | {a} | {b} |" for m, a, b in rows(f)]
    return "\n".join(lines) + "\n"


def write_markdown(path: Path, f: dict) -> None:
    """The table into ``path`` between the markers, or as the whole file when it has none."""
    table = markdown(f)
    text = path.read_text() if path.exists() else ""
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        text = f"{head}{BEGIN}\n{table}{END}{rest.split(END, 1)[1]}"
    else:
        text = table
    path.write_text(text)


def _pictures(stages: dict) -> str:
    """ " and the pictures of N" when OCR read pictures on pages with text too."""
    n = stages.get("picture_pages", 0)
    return f" and the pictures of {n:.0f}" if n else ""
