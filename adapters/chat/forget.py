"""``forget``: shares, not bytes, are what people own and make the bot forget.

A share is one platform file as someone posted it into a channel
(``library.py``); the same bytes posted twice are two shares of one
document. ``forget <name>`` means the shares posted under that name, and the
asker must have posted one of them (their own are removed, an admin's
``forget`` removes them all); failing that, a document's name or hash prefix
means every share of it here, and the asker must have posted each one.
``forget all`` is for admins. The document leaves the library when its last
share in the channel is gone, and what was removed is buried
(``forgotten.py``) so that history does not bring it back. Who is an admin is
the adapter's answer (``Mention.admin``), asked only when ownership does not
settle it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from adapters.chat.forgotten import Forgotten
from adapters.chat.intake import Intake
from adapters.chat.library import Share, Shares
from adapters.chat.replies import Reply
from papertrail.pipeline import PaperTrail
from papertrail.types import Document


class Asker(Protocol):
    """What forgetting needs of a ``Mention``: where, who, and whether they are an admin."""

    channel: str
    user: str
    admin: Callable[[], bool] | None


class Library(Protocol):
    """What forgetting needs of the ``ChatService``: its shares, pipeline, intake and
    tombstones (a Protocol, so this module does not import the service that calls it)."""

    shares: Shares
    pipeline: PaperTrail
    intake: Intake
    forgotten: Forgotten


def forget_command(service: Library, mention: Asker, target: str) -> Reply:
    """The reply to ``forget <target>``, after removing what this person may remove."""
    channel = mention.channel
    if not target:
        return Reply(
            kind="error", text="Say which file to forget: `forget report.pdf`, or `forget all`."
        )
    if target.lower() in ("all", "everything", "*"):
        if not _is_admin(mention):
            return Reply(
                kind="error",
                text="Only a workspace admin (or, on Discord, someone who may manage "
                "messages) can forget every document of this channel.",
            )
        shares = service.shares.of_channel(channel)
        service.shares.remove([s.file for s in shares], channel)
        gone = service.pipeline.forget(channel, None)
        service.forgotten.bury(channel, shares, ids_of(gone))
        names = ", ".join(d.name for d in gone) or "nothing: the library was empty"
        return Reply(kind="forget", text=f"Forgot {names}.", documents=tuple(gone))
    chosen = _chosen(service, mention, target)
    if isinstance(chosen, Reply):
        return chosen
    shares, unshared = chosen
    removed = service.shares.remove([s.file for s in shares], channel)
    gone = service.intake.forget(channel, removed)
    for doc in unshared:  # indexed without a share on record (e.g. the console)
        gone += service.pipeline.forget(channel, doc.doc_id)
    gone_ids = ids_of(gone)
    service.forgotten.bury(channel, removed, gone_ids)
    names = ", ".join(dict.fromkeys([s.name for s in removed] + [d.name for d in unshared]))
    text = f"Forgot {names}."
    kept = [s.name for s in removed if s.doc_id not in gone_ids]
    if kept:
        text += (
            " The same file is still shared here in another post, so I keep answering "
            "from that copy."
        )
    return Reply(kind="forget", text=text, documents=tuple(gone))


def _chosen(service: Library, mention: Asker, target: str):
    """(shares to remove, documents without shares) that ``forget target`` means and this
    person may remove; or a Reply saying why not.

    A target naming shares (the file as someone posted it) means those shares, and
    the asker must have posted one of them; otherwise a document's name or hash
    prefix means all its shares here, and the asker must have posted every one.
    Admins may forget anything.
    """
    channel, key = mention.channel, target.strip().lower()
    named = [s for s in service.shares.of_channel(channel) if s.name.lower() == key]
    if named:
        mine = [s for s in named if mention.user and s.owner == mention.user]
        if mine:
            return mine, []
        if _is_admin(mention):
            return named, []
        return Reply(kind="error", text=_not_yours(named[0].name))
    docs = service.pipeline.find(channel, target)
    if not docs:
        return Reply(
            kind="forget",
            text=f"No document called {target} is indexed here. `list` shows what is.",
        )
    shares: list[Share] = []
    unshared: list[Document] = []
    for d in docs:
        of_doc = service.shares.of_document(channel, d.doc_id)
        owners = {s.owner for s in of_doc}
        owned = bool(of_doc and mention.user and owners == {mention.user})
        if not owned and not _is_admin(mention):
            return Reply(kind="error", text=_not_yours(d.name))
        shares += of_doc
        if not of_doc:
            unshared.append(d)
    return shares, unshared


def _is_admin(mention: Asker) -> bool:
    return mention.admin is not None and bool(mention.admin())


def ids_of(docs: Sequence[Document]) -> set[str]:
    return {d.doc_id for d in docs}


def _not_yours(name: str) -> str:
    return (
        f"Only the person who shared {name} or an admin can make me forget it. "
        "Deleting the file from the channel also removes it."
    )
