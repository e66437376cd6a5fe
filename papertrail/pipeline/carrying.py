"""Carrying the libraries over to a new index key: indexing again what another key holds.

A channel's chunks live in a collection named from the index key (``store/keys.py``:
the embedding model, the chunking and, through the model's name, the contextual
setting), so changing any of them opens empty collections and every library
would look empty. ``carry_over`` indexes again, from the kept PDF bytes
(``PdfFiles``), each document that is ready under another key and not under the
current one, into its own channel, as the same document under its original name.
A document whose PDF is no longer kept (forgotten) is skipped and never comes back,
also when it is forgotten while it is being carried (its PDF is looked for again once
it is indexed, and ``forget`` deletes the PDF before the index entries);
one that fails is logged and tried again on the next run, and the rest go on. A
second run finds nothing to carry; several workers may run it at once (with leases
one indexes a file while the others wait, ``indexing.py``).

It leaves out the other keys' collections (kept: a roll-back finds them as they
were), the original upload times (documents are carried oldest first, so lists
keep their order) and when it runs (the bot: in a thread at start,
``bot/wiring.py``; the CLI: ``papertrail reindex``).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from papertrail.types import Document

if TYPE_CHECKING:
    from papertrail.pipeline import PaperTrail

log = logging.getLogger(__name__)

# what became of one document: "carried", "skipped" (no PDF kept), "failed" (logged),
# or "already" (another worker carried it meanwhile)
Outcome = Callable[[Document, str], None]


@dataclass(frozen=True)
class CarryOver:
    """What one ``carry_over`` did: documents carried, the channels they went to, those
    skipped (no PDF kept) and those that failed (tried again on the next run)."""

    carried: int = 0
    channels: int = 0
    skipped: int = 0
    failed: int = 0

    def summary(self, index: str) -> str:
        """One line for people, e.g. "carried 12 documents of 3 channels over to the new
        index (...); 1 skipped: its PDF is no longer kept"; ``index`` says what it is."""
        text = (
            f"carried {_count(self.carried, 'document')} of {_count(self.channels, 'channel')}"
            f" over to the new index ({index})"
        )
        if self.skipped:
            its = "its PDF is" if self.skipped == 1 else "their PDFs are"
            text += f"; {self.skipped} skipped: {its} no longer kept"
        if self.failed:
            text += f"; {self.failed} failed, to be tried again on the next run"
        return text


def carry_over(pt: PaperTrail, on_each: Outcome | None = None) -> CarryOver:
    """Index again under ``pt``'s index key every document ready under another key only
    (``Store.left_behind``), oldest first; ``on_each`` hears what became of each. Logs
    the counts at INFO when there was anything to carry."""
    behind = pt.store.left_behind()
    if not behind:
        return CarryOver()
    outcomes: dict[str, int] = {}
    channels: set[str] = set()
    for doc in behind:
        if pt.stopping.is_set():  # closed (the bot stops): the rest waits for the next run
            break
        outcome = _carry(pt, doc)
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
        if outcome == "carried":
            channels.add(doc.channel)
        if on_each is not None:
            on_each(doc, outcome)
    done = CarryOver(
        carried=outcomes.get("carried", 0),
        channels=len(channels),
        skipped=outcomes.get("skipped", 0),
        failed=outcomes.get("failed", 0),
    )
    log.info("%s", done.summary(describe_index(pt)))
    return done


def _carry(pt: PaperTrail, doc: Document) -> str:
    """Index ``doc`` again in its channel from its kept bytes; what became of it."""
    data = pt.files.load(doc.channel, doc.doc_id)
    if data is None:  # forgotten (or its file lost): it must not come back
        log.info("not carrying %s over in %s: its PDF is no longer kept", doc.name, doc.channel)
        return "skipped"
    try:
        result = pt.ingest_kept(doc.channel, doc.doc_id, doc.name, data)
    except Exception:  # this one stays behind until the next run; the others go on
        with contextlib.suppress(Exception):  # cannot tell: reported as a failure below
            if _forgotten_meanwhile(pt, doc):  # the store refused the rest of a forgotten one
                return "skipped"
        log.exception("carrying %s (%s) over in %s failed", doc.name, doc.doc_id[:12], doc.channel)
        return "failed"
    try:
        if _forgotten_meanwhile(pt, doc):
            return "skipped"
    except Exception:  # cannot tell: this key's copy goes, the next run carries it again
        log.exception("checking %s (%s) in %s failed", doc.name, doc.doc_id[:12], doc.channel)
        pt.store.delete(doc.channel, doc.doc_id)
        return "failed"
    return "carried" if result.new else "already"


def _forgotten_meanwhile(pt: PaperTrail, doc: Document) -> bool:
    """Whether ``doc`` was forgotten while it was carried (``PaperTrail.forget`` deletes the
    PDF first, then the document under every key); if so, what the carry stored of it
    under this key goes too. Only that: should the PDF merely be unreadable in the shared
    store, the other keys' copy stays, to be carried on the next run."""
    if pt.files.kept(doc.channel, doc.doc_id):
        return False
    log.info("%s was forgotten in %s while it was carried over", doc.name, doc.channel)
    pt.store.delete(doc.channel, doc.doc_id)
    return True


def describe_index(pt: PaperTrail) -> str:
    """What the current index key is made of, for people: model, chunking, contextual."""
    s = pt.settings
    how = "contextual embedding" if s.contextual else "plain embedding"
    return f"{pt.embedder.name}, chunks {s.chunk_size}/{s.chunk_overlap}, {how}"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"
