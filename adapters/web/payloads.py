"""Replies and documents as the page's JSON, and the reply images it loads by URL.

Images are kept in memory, per workspace, for the most recent replies only
(``ImageShelf``): the page shows them inline right after an answer, and a
reload asks again. An image is served only under the workspace that asked
for it, so a URL copied into another workspace finds nothing. Wording is not
made here: texts come from ``adapters/chat/replies.py`` unchanged.
"""

from __future__ import annotations

import dataclasses
import secrets
import threading
from collections import OrderedDict

from adapters.chat.replies import Reply, understood
from papertrail.types import Document

MAX_IMAGES = 400  # images kept across all workspaces (~150 KB each: ~60 MB at most)


class ImageShelf:
    """The last ``capacity`` reply images, each under a random name and its workspace."""

    def __init__(self, capacity: int = MAX_IMAGES) -> None:
        self.capacity = capacity
        self._images: OrderedDict[str, tuple[str, bytes]] = OrderedDict()
        self._guard = threading.Lock()

    def put(self, workspace: str, png: bytes) -> str:
        name = secrets.token_urlsafe(12)  # unguessable: the URL is the only way to it
        with self._guard:
            self._images[name] = (workspace, png)
            while len(self._images) > self.capacity:
                self._images.popitem(last=False)
        return name

    def get(self, workspace: str, name: str) -> bytes | None:
        with self._guard:
            found = self._images.get(name)
        if found is None or found[0] != workspace:
            return None
        return found[1]


def document_json(doc: Document) -> dict:
    """Every field the pipeline knows of a document as JSON values, its identity as an
    object of its own (title, kind, period...), and ``about``: what the bot read it to
    be, "title · kind · period" as the ``list`` command says it ("" when unknown)."""
    out = {f.name: _plain(getattr(doc, f.name)) for f in dataclasses.fields(doc)}
    out["about"] = understood(doc)
    return out


def _plain(value):
    """``value`` as JSON: tuples as lists, dataclasses as objects of their fields."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)


def reply_json(reply: Reply, workspace: str, shelf: ImageShelf, base: str) -> dict:
    """``reply`` for the page; each source's image goes on the shelf and becomes a URL."""
    sources = []
    for s in reply.sources:
        image = None
        if s.image is not None:
            image = {
                "url": f"{base}/img/{shelf.put(workspace, s.image.png)}.png",
                "title": s.image.title,
                "filename": s.image.filename,
            }
        sources.append(
            {
                "n": s.n,
                "title": s.title,
                "document": s.document,
                "page": s.page,
                "evidence": s.evidence,
                "image": image,
            }
        )
    return {
        "kind": reply.kind,
        "text": reply.text,
        "sources": sources,
        "warnings": list(reply.warnings),
        "footer": reply.footer,
        "documents": [document_json(d) for d in reply.documents],
        "suggestions": list(reply.suggestions),  # questions checked answerable, after a drop
        "answer_id": reply.answer_id,  # what a 👍/👎 names ("" = not votable)
    }
