"""The pictures of an answer: one per verified citation, one PDF open per document.

``render_citations`` groups an answer's citations by document, merges the
evidence of sentences that cite the same number, loads each PDF's stored
bytes once and draws each distinct (chunk, evidence) pair with
``render.render_snippet``. A missing PDF or a failed picture costs only its
own pictures, never the answer. It leaves out how a picture is drawn.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence

import pymupdf

from papertrail.render.render import render_snippet
from papertrail.types import Chunk, Citation, Evidence, Snippet

log = logging.getLogger(__name__)


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
    out: list[Snippet] = []
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
                out.append(
                    render_snippet(
                        doc,
                        chunk,
                        n=n,
                        zoom=zoom,
                        max_width=max_width,
                        context=context,
                        evidence=evidence,
                        claim=claims_by_n.get(n, ""),
                    )
                )
            except Exception:  # a missing picture must not cost the other citations
                log.exception("rendering page %d of %s failed", chunk.page, chunk.doc_name)
    return out


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
    out: list[Snippet] = []
    for doc_id, chunks in by_doc.items():
        data = pdf(doc_id)
        if data is None:
            log.warning("PDF for %s missing on disk; no snippet", doc_id[:12])
            continue
        try:
            out.extend(
                render_snippets(
                    data,
                    chunks,
                    zoom=zoom,
                    max_width=max_width,
                    evidence_by_n=evidence,
                    claims_by_n=claims,
                )
            )
        except Exception:  # a snippet is a bonus: never lose the answer over it
            log.exception("rendering snippets of %s failed", doc_id[:12])
    return sorted(out, key=lambda s: s.n)
