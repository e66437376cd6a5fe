"""A channel's documents under the index keys other than a store's own.

A changed embedding model, chunking or contextual setting gives a channel
another collection (``keys.py``); the documents of the old one stay in Chroma
and in the registry, invisible to the new key. ``left_behind`` lists those
ready under another key only (``pipeline/carrying.py`` indexes them again),
and ``forget`` removes a document under every key, so that a roll-back or a
later carry-over cannot bring it back. ``ChromaStore`` has these methods; they
need its ``client``, ``_registry``, ``collection_name`` and ``delete``. Left
out: which key is current (``chroma.py``), and the PDFs (``pdf_files.py``).
"""

from __future__ import annotations

import logging

from papertrail.types import Document

log = logging.getLogger(__name__)


class OtherKeys:
    """``forget`` and ``left_behind`` of ``ChromaStore``."""

    def forget(self, channel: str, doc_id: str) -> bool:
        """``delete`` one document from ``channel`` under every index key, not only this
        one: a copy kept under another key (an earlier model, chunking or contextual
        setting) would come back on a roll-back or through ``left_behind``. Every record
        first, then the chunks; a collection that cannot be reached keeps its chunks,
        invisible without their record. False if no key held the document."""
        here = self.collection_name(channel)
        others = [s for s in self._registry.spaces_of(channel, doc_id) if s != here]
        known = self.delete(channel, doc_id)
        for space in others:
            self._registry.remove(f"{space}/{doc_id}")
        for space in others:
            _drop_chunks(self.client, space, doc_id)
        return known or bool(others)

    def left_behind(self, channel: str | None = None) -> list[Document]:
        """Documents ready under another index key but not under this one (of ``channel``,
        None: of every channel), oldest first: what a changed model, chunking or
        contextual setting left out of the channels' current collections. One registry
        query; a document ready under several other keys is listed once (its earliest
        record). Left out: whether its PDF is still kept (``PdfFiles``)."""
        current: dict[str, str] = {}  # channel -> its collection under this key
        here: set[tuple[str, str]] = set()
        elsewhere: dict[tuple[str, str], Document] = {}
        for space, doc in self._registry.ready_anywhere(channel):
            if doc.channel not in current:
                current[doc.channel] = self.collection_name(doc.channel)
            key = (doc.channel, doc.doc_id)
            if space == current[doc.channel]:
                here.add(key)
            elif key not in elsewhere or doc.created < elsewhere[key].created:
                elsewhere[key] = doc
        behind = [d for key, d in elsewhere.items() if key not in here]
        return sorted(behind, key=lambda d: (d.created, d.channel, d.name, d.doc_id))


def _drop_chunks(client, space: str, doc_id: str) -> None:
    """Delete ``doc_id``'s chunks from the collection ``space`` (another index key's), if
    it can be opened; a failure is logged: the caller removed their record already."""
    try:
        client.get_collection(space, embedding_function=None).delete(where={"doc_id": doc_id})
    except Exception:
        log.warning("could not delete the chunks of %s from %s", doc_id[:12], space, exc_info=True)
