"""Gateway events that cannot stop the bot, and reply references that cannot cross channels.

discord.py parses each gateway event (``MESSAGE_CREATE`` and the rest) in the
connection's read loop; a parser that raises, as one does on a
``message_reference`` without a ``channel_id``, ends the connection and with
it the process. ``guard_parsers`` wraps every parser of a client's connection
state: a malformed event is logged with its type and dropped, and the
gateway stays connected for the next one.

It also drops, before discord.py sees it, a message's reply reference
(``message_reference`` and the ``referenced_message`` Discord resolved) unless
the raw referenced message is in the same channel (and guild) as the message
itself. discord.py gives a resolved reference the asking channel whenever the
reference's ``channel_id`` says so, so a forged payload could otherwise bring
another channel's PDFs into this channel's answers (``files.py`` checks the
channel ids again). Routing and answering are ``client.py``'s.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

MESSAGES = ("MESSAGE_CREATE", "MESSAGE_UPDATE")  # events that carry a reply reference


def guard_parsers(state: Any) -> None:
    """Wrap each parser of ``state.parsers`` (discord.py's ``ConnectionState``) in place:
    the gateway reads that very dict."""
    parsers: dict[str, Callable[[Any], None]] = state.parsers
    for event, parse in list(parsers.items()):
        parsers[event] = _guarded(event, parse)


def _guarded(event: str, parse: Callable[[Any], None]) -> Callable[[Any], None]:
    @functools.wraps(parse)
    def guarded(data: Any) -> None:
        try:
            if event in MESSAGES and isinstance(data, dict):
                data = same_channel_reference(data)
            parse(data)
        except Exception as exc:  # one bad event: logged, dropped, the connection lives
            log.warning("ignored a malformed %s event (%s: %s)", event, type(exc).__name__, exc)

    return guarded


def same_channel_reference(data: dict) -> dict:
    """``data`` with its reply reference removed unless it points into the message's own
    channel and guild, raw ``referenced_message`` included; else ``data`` unchanged."""
    ref = data.get("message_reference")
    resolved = data.get("referenced_message")
    if ref is None and resolved is None:
        return data
    here, guild = str(data.get("channel_id", "")), _id(data.get("guild_id"))
    ok = isinstance(ref, dict) and str(ref.get("channel_id", "")) == here and here != ""
    ok = ok and _id(ref.get("guild_id")) in (None, guild)
    if isinstance(resolved, dict):
        ok = ok and str(resolved.get("channel_id", "")) == here
        ok = ok and _id(resolved.get("guild_id")) in (None, guild)
    if ok:
        return data
    log.info("dropped a reply reference outside channel %s", here or "?")
    kept = {k: v for k, v in data.items() if k not in ("message_reference", "referenced_message")}
    if kept.get("type") == 19:  # a reply without its reference is a plain message
        kept["type"] = 0
    return kept


def _id(value: object) -> str | None:
    return None if value in (None, "") else str(value)
