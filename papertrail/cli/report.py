"""Answers as terminal text and as JSON, for the CLI, the demo and the local console.

Shows what a chat reply shows (the answer, each citation with the evidence it
rests on, quoted and trimmed) plus what chat hides: every dropped citation
with its reason, and the scores behind each verdict. Evidence is trimmed
by ``evidence.shown``, the same wording every chat reply uses.
Chat markup is the adapters' job.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from papertrail.types import Answer, Citation
from papertrail.verify.evidence import shown


def format_answer(answer: Answer, images: Sequence[Path] = ()) -> str:
    mode = "extractive (offline)" if answer.mode == "extractive" else answer.mode
    lines = [answer.text.strip(), ""]
    if answer.refusal:
        lines.append("(The documents do not answer this; a refusal is a grounded answer.)")
    elif not answer.grounded:
        lines.append("UNGROUNDED: no sentence kept a verified citation.")
    for c in answer.citations:
        lines.append(f"  [{c.n}] verified  {_where(c)}  ({_scores(c)})")
        if quote := quote_evidence(c):
            lines.append(f"      {quote}")
    for c in answer.dropped:
        lines.append(f"  [{c.marker}] dropped   {_where(c)}  — {c.reason}")
    for u in answer.unsupported:
        lines.append(f"  no excerpt states: {u.sentence}")
    for note in answer.notes:
        lines.append(f"note: {note}")
    for path in images:
        lines.append(f"image: {path}")
    lines.append(f"mode: {mode}" + (f", answered by: {answer.by}" if answer.by else ""))
    return "\n".join(lines)


def quote_evidence(c: Citation) -> str:
    """The citation's evidence in quotes on one line (``evidence.shown``); "" if none."""
    text = shown(c.evidence)
    return f"“{text}”" if text else ""


def _where(c: Citation) -> str:
    if c.chunk is None:
        return "(no such excerpt)"
    return f"{c.chunk.doc_name}, page {c.chunk.page}"


def _scores(c: Citation) -> str:
    return ", ".join(f"{k} {v:.2f}" for k, v in c.scores) or "—"


def citation_json(c: Citation) -> dict:
    return {
        "n": c.n,
        "marker": c.marker,
        "sentence": c.sentence,
        "supported": c.supported,
        "reason": c.reason,
        "scores": dict(c.scores),
        "doc": c.chunk.doc_name if c.chunk else None,
        "page": c.chunk.page if c.chunk else None,
        "chunk_id": c.chunk.id if c.chunk else None,
        "boxes": _boxes(c.chunk.rects) if c.chunk else [],
        "evidence": (
            {"text": c.evidence.text, "boxes": _boxes(c.evidence.rects)} if c.evidence else None
        ),
    }


def _boxes(rects) -> list[list[float]]:
    """[x0, y0, x1, y1] in PDF points on the displayed page, origin top-left."""
    return [[r.x0, r.y0, r.x1, r.y1] for r in rects]


def answer_json(answer: Answer, images: Sequence[Path] = ()) -> dict:
    return {
        "question": answer.question,
        "answer": answer.text,
        "grounded": answer.grounded,
        "refusal": answer.refusal,
        "mode": answer.mode,
        "by": answer.by,
        "citations": [citation_json(c) for c in answer.citations],
        "dropped": [citation_json(c) for c in answer.dropped],
        "unsupported": [u.sentence for u in answer.unsupported],
        "notes": list(answer.notes),
        "images": [str(p) for p in images],
        "retrieved": [
            {"doc": h.chunk.doc_name, "page": h.chunk.page, "score": h.score} for h in answer.hits
        ],
    }
