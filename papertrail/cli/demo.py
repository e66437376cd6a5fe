"""``papertrail demo``: the main job end to end, offline, on a generated report.

Builds the sample report, indexes it (once: a second run embeds nothing),
asks the sample questions, prints verified answers and writes the snippet
PNGs to ``demo-out/``. Then it shows the verifier at work on a draft with a
changed figure and a citation to the wrong passage, the two mistakes that
"chat with your PDF" tools print without noticing.
"""

from __future__ import annotations

import contextlib
import sys
import time
from pathlib import Path

from papertrail.cli.progress import ProgressBar
from papertrail.cli.report import format_answer
from papertrail.cli.sample import QUESTIONS, sample_report
from papertrail.pipeline import PaperTrail
from papertrail.settings import Settings
from papertrail.verify.verify import verify_answer

CHANNEL = "demo"
OUT = Path("demo-out")


def run_demo(settings: Settings, out: Path = OUT) -> int:
    out.mkdir(parents=True, exist_ok=True)
    pdf = sample_report()
    (out / "sample-report.pdf").write_bytes(pdf)
    mode = "Groq / LLM" if settings.llm_configured else "offline extractive answers (no key set)"
    print(f"PaperTrail demo — {mode}; index in {settings.data_dir}/, images in {out}/\n")

    t0 = time.perf_counter()
    with contextlib.closing(PaperTrail.from_settings(settings)) as pt:
        return _run(pt, pdf, out, t0)


def _run(pt: PaperTrail, pdf: bytes, out: Path, t0: float) -> int:
    bar = ProgressBar("sample-report.pdf")
    result = pt.ingest(CHANNEL, "sample-report.pdf", pdf, progress=bar)
    bar.close()
    doc = result.document
    how = f"embedded {result.embedded} chunks" if result.new else "already indexed, 0 embeddings"
    print(
        f"Indexed sample-report.pdf: {doc.pages} pages, {doc.chunks} chunks ({how}, "
        f"{time.perf_counter() - t0:.1f} s including model load)\n"
    )

    for i, question in enumerate(QUESTIONS, 1):
        answer = pt.ask(CHANNEL, question, doc_ids=[doc.doc_id])
        paths = []
        for s in answer.snippets:
            path = out / f"q{i}-citation-{s.n}-p{s.page}.png"
            path.write_bytes(s.png)
            paths.append(path)
        print(f"Q{i}. {question}")
        print(_indent(format_answer(answer, paths)))
        print()

    _show_verifier(pt, doc.doc_id)
    return 0


def _show_verifier(pt: PaperTrail, doc_id: str) -> None:
    """Verify a hand-written draft with one right, one altered and one misplaced claim."""
    hits = pt.retriever.search(CHANNEL, "net income revenue turbines", k=5, doc_ids=[doc_id])
    good = next((i for i, h in enumerate(hits, 1) if "1,577,000" in h.chunk.text), None)
    wrong = next(
        (i for i, h in enumerate(hits, 1) if i != good and "38 turbines" not in h.chunk.text),
        None,
    )
    if good is None or wrong is None:
        print("(verifier showcase skipped: retrieval did not return the finance passage)")
        return
    draft = (
        f"Net income was £1,577,000 [{good}]. "
        f"Revenue rose to £9.72 million [{good}]. "
        f"The array has 38 turbines [{wrong}]."
    )
    checked = verify_answer(draft, hits, embedder=pt.embedder, domains=pt.domains)
    print("Verifier at work on a draft an LLM might write:")
    print(_indent(draft))
    print("  after verification:")
    print(_indent(checked.text, 4))
    for c in checked.citations:
        moved = f" — {c.reason}" if c.reason.startswith("moved") else ""
        print(f"    kept    [{c.n}] excerpt {c.marker}, page {c.chunk.page}: {c.sentence}{moved}")
    for c in checked.dropped:
        print(f"    dropped [{c.marker}]: {c.sentence} — {c.reason}")


def _indent(text: str, n: int = 2) -> str:
    return "\n".join(" " * n + line for line in text.splitlines())


if __name__ == "__main__":
    sys.exit(run_demo(Settings.from_env()))
