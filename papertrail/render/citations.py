"""The pictures of an answer: one per verified citation, one PDF open per document.

``render_citations`` groups an answer's citations by document, merges the
evidence of sentences that cite the same number, loads each PDF's stored
bytes once and draws each distinct (chunk, evidence) pair as
``render.render_snippet`` does, reading the next region from the PDF while the
last one's pixels are marked and packed on a drawing thread. A missing PDF or a
failed picture costs only its own pictures, never the answer. It leaves out how
a picture is drawn.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor

import pymupdf

from papertrail.render.render import draw, read_region
from papertrail.types import Chunk, Citation, Evidence, Snippet

log = logging.getLogger(__name__)
DRAWERS = max(1, min(4, os.cpu_count() or 1))  # threads drawing pictures at once
_DRAWER: ThreadPoolExecutor | None = None
_DRAWER_LOCK = threading.Lock()


def render_snippets(
    data: bytes,
    chunks_by_n: Mapping[int, Chunk],
    *,
    password: str | None = None,
    zoom: float = 2.0,
    max_width: int = 1600,
    context: float = 36.0,
    evidence_by_n: Mapping[int, Evidence | None] | None = None,
    claims_by_n: Mapping[int, str] | None = None,
) -> list[Snippet]:
    """One snippet per distinct (chunk, evidence) pair, numbered by its lowest ``n``.

    Opens the PDF once. ``evidence_by_n`` gives the span to mark for citation ``n``,
    ``claims_by_n`` the sentence it supports.
    """
    return _drawn(
        _submit(
            data,
            chunks_by_n,
            password=password,
            zoom=zoom,
            max_width=max_width,
            context=context,
            evidence_by_n=evidence_by_n,
            claims_by_n=claims_by_n,
        )
    )


def _submit(
    data: bytes,
    chunks_by_n: Mapping[int, Chunk],
    *,
    password: str | None = None,
    zoom: float = 2.0,
    max_width: int = 1600,
    context: float = 36.0,
    evidence_by_n: Mapping[int, Evidence | None] | None = None,
    claims_by_n: Mapping[int, str] | None = None,
) -> list[tuple[Chunk, Future]]:
    """``render_snippets``' regions read from the PDF, each handed to a drawing thread."""
    pending: list[tuple[Chunk, Future]] = []
    seen: set[tuple[str, Evidence | None]] = set()
    evidence_by_n = evidence_by_n or {}
    claims_by_n = claims_by_n or {}
    with _open(data, password) as doc:
        for n in sorted(chunks_by_n):
            chunk, evidence = chunks_by_n[n], evidence_by_n.get(n)
            if (chunk.id, evidence) in seen:
                continue
            seen.add((chunk.id, evidence))
            try:
                region = read_region(
                    doc,
                    chunk,
                    n=n,
                    zoom=zoom,
                    max_width=max_width,
                    context=context,
                    evidence=evidence,
                    claim=claims_by_n.get(n, ""),
                )
            except Exception:  # a missing picture must not cost the other citations
                log.exception("rendering page %d of %s failed", chunk.page, chunk.doc_name)
                continue
            # drawn on a thread while the next region is read from the PDF
            pending.append((chunk, _drawer().submit(draw, region)))
    return pending


def _drawn(pending: list[tuple[Chunk, Future]]) -> list[Snippet]:
    """The pictures of ``pending``, in order; one that failed is logged and left out."""
    out: list[Snippet] = []
    for chunk, drawn in pending:
        try:
            out.append(drawn.result())
        except Exception:
            log.exception("rendering page %d of %s failed", chunk.page, chunk.doc_name)
    return out


def _drawer() -> ThreadPoolExecutor:
    """The threads pictures are drawn on: long-lived (a fresh thread per picture would
    grow a malloc arena each), one per core, shared by every answer of the process."""
    global _DRAWER
    with _DRAWER_LOCK:
        if _DRAWER is None:
            _DRAWER = ThreadPoolExecutor(DRAWERS, thread_name_prefix="papertrail-draw")
        return _DRAWER


def _open(data: bytes, password: str | None) -> pymupdf.Document:
    """Stored PDF bytes (checked when read, kept decrypted; ``password``: an encrypted copy)."""
    doc = pymupdf.open(stream=data, filetype="pdf")
    if doc.needs_pass and not doc.authenticate(password or ""):
        raise ValueError("the password did not open the PDF")
    return doc


def render_citations(
    citations: Sequence[Citation],
    pdf: Callable[[str], bytes | None],
    *,
    zoom: float = 2.0,
    max_width: int = 1600,
) -> list[Snippet]:
    """One snippet per verified citation, its evidence marked, in citation order.

    Citations with the same chunk and evidence share one picture (the lowest
    ``n``). ``pdf`` returns a document's bytes by id, None when it is gone; a
    document that is missing or fails to render costs only its own pictures.
    """
    by_doc: dict[str, dict[int, Chunk]] = {}
    evidence: dict[int, Evidence | None] = {}
    claims: dict[int, str] = {}
    for c in citations:
        if c.chunk is None:
            continue
        by_doc.setdefault(c.chunk.doc_id, {})[c.n] = c.chunk
        claims[c.n] = f"{claims[c.n]} {c.sentence}" if c.n in claims else c.sentence
        had = evidence.get(c.n)
        if had is not None and c.evidence is not None and had != c.evidence:
            # two sentences cite the same number: mark both spans in its one picture
            c_ev = c.evidence
            evidence[c.n] = Evidence(f"{had.text} {c_ev.text}", (*had.rects, *c_ev.rects))
        else:
            evidence[c.n] = had or c.evidence
    pending: list[tuple[Chunk, Future]] = []  # every document's, drawn meanwhile
    for doc_id, chunks in by_doc.items():
        data = pdf(doc_id)
        if data is None:
            log.warning("PDF for %s missing on disk; no snippet", doc_id[:12])
            continue
        try:
            pending += _submit(
                data,
                chunks,
                zoom=zoom,
                max_width=max_width,
                evidence_by_n=evidence,
                claims_by_n=claims,
            )
        except Exception:  # a snippet is a bonus: never lose the answer over it
            log.exception("rendering snippets of %s failed", doc_id[:12])
    return sorted(_drawn(pending), key=lambda s: s.n)
