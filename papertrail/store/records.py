"""Chroma metadata <-> PaperTrail values: how chunks and documents are stored.

Chroma metadata values are flat scalars, so tuples (rectangles, page lists)
are JSON strings; JSON keeps every float exactly (repr round-trips). These
functions are the only place that knows the stored field names; the store
decides where records go and when they become visible.
"""

from __future__ import annotations

import dataclasses
import json
import time

from papertrail.types import Chunk, Document, Identity, Rect


def chunk_meta(c: Chunk) -> dict:
    return {
        "doc_id": c.doc_id,
        "doc_name": c.doc_name,
        "index": int(c.index),
        "page": int(c.page),
        "section": c.section,
        "rects": json.dumps([[r.x0, r.y0, r.x1, r.y1] for r in c.rects]),
        "lines": json.dumps(list(c.lines)),  # where each line starts in the text
    }


def chunk(text: str, m: dict) -> Chunk:
    return Chunk(
        doc_id=m["doc_id"],
        doc_name=m["doc_name"],
        index=int(m["index"]),
        page=int(m["page"]),
        text=text or "",
        rects=tuple(Rect(*r) for r in json.loads(m["rects"])),
        section=m.get("section", ""),
        lines=tuple(json.loads(m.get("lines", "[]"))),
    )


def rows(got: dict) -> list[tuple[Chunk, float]]:
    """(chunk, cosine similarity) pairs of a one-vector Chroma query, best first."""
    found = zip(got["documents"][0], got["metadatas"][0], got["distances"][0], strict=True)
    return best_first([(chunk(text, meta), 1.0 - float(dist)) for text, meta, dist in found])


def best_first(found: list[tuple[Chunk, float]]) -> list[tuple[Chunk, float]]:
    """(chunk, score) pairs by score, equal scores by document and place. A passage printed
    twice (the same boilerplate in two filings) has the same vector and the same score,
    and Chroma returns such ties in an order that changes from one process to the next;
    ordered here, one question gets the same results every time."""
    return sorted(found, key=lambda pair: (-pair[1], pair[0].doc_id, pair[0].index))


def document_meta(doc: Document, *, status: str, space: str) -> dict:
    """The registry record of ``doc`` in collection ``space``."""
    return {
        "space": space,
        "channel": doc.channel,
        "doc_id": doc.doc_id,
        "name": doc.name,
        "pages": int(doc.pages),
        "chunks": int(doc.chunks),
        "status": status,
        "no_text_pages": json.dumps(list(doc.no_text_pages)),
        "ocr_pages": json.dumps(list(doc.ocr_pages)),
        "created": float(doc.created),
        "updated": time.time(),  # unix seconds; lets ``cleanup`` spare fresh work
        "identity": json.dumps(dataclasses.asdict(doc.identity)) if doc.identity else "",
    }


def identity(raw: str) -> Identity | None:
    """The stored identity, or None when it was never stored (or a field is unknown)."""
    if not raw:
        return None
    try:
        fields = json.loads(raw)
        fields["aliases"] = tuple(fields.get("aliases", ()))
        return Identity(**fields)
    except (ValueError, TypeError):
        return None


def document(m: dict) -> Document:
    return Document(
        channel=m["channel"],
        doc_id=m["doc_id"],
        name=m["name"],
        pages=int(m["pages"]),
        chunks=int(m["chunks"]),
        status=m["status"],
        no_text_pages=tuple(json.loads(m.get("no_text_pages", "[]"))),
        ocr_pages=tuple(json.loads(m.get("ocr_pages", "[]"))),
        created=float(m.get("created", 0.0)),
        identity=identity(m.get("identity", "")),
    )
