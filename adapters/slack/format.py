"""Turns a platform-neutral ``Reply`` into Slack Block Kit messages.

Everything shown comes from PDFs, an LLM or users, so every string is escaped
(``&``, ``<``, ``>``) before it reaches Slack: nothing can become a
``<!channel>``, ``<!everyone>`` or ``<@U…>`` mention, or a link. Limits applied
here: a section's text <= 3,000 characters, a message's fallback ``text`` <=
4,000, at most 50 blocks, and a conservative cap on the total block text of
one message (Slack's undocumented ``msg_blocks_too_long``); a longer reply is
split into several messages. Talking to the Web API and uploading images is
left to ``adapters/slack/reply.py``.
"""

from __future__ import annotations

from dataclasses import dataclass

from adapters.chat.replies import Reply, Source
from adapters.chat.text import clip, split_text
from adapters.slack.actions import feedback_block, suggestion_block

SECTION_LIMIT = 3000  # characters in one section block's text (Slack's limit)
TEXT_LIMIT = 4000  # characters in a message's fallback ``text`` (Slack truncates later)
MAX_BLOCKS = 50  # blocks per message (Slack's limit)
MESSAGE_CHARS = 12_000  # block text per message: well under where msg_blocks_too_long starts


@dataclass(frozen=True)
class SlackMessage:
    """One message: the notification fallback ``text`` and its blocks."""

    text: str
    blocks: tuple[dict, ...] = ()

    def plain(self) -> str:
        """The blocks' text joined, for when Slack rejects the blocks."""
        return "\n\n".join(t for b in self.blocks if (t := block_text(b))) or self.text

    def payload(self) -> dict:
        """Keyword arguments for chat.postMessage / chat.update."""
        # parse=none and link_names=False: Slack must not turn names into mentions.
        return {
            "text": self.text,
            "blocks": list(self.blocks),
            "parse": "none",
            "link_names": False,
            "unfurl_links": False,
            "unfurl_media": False,
        }


def escape(text: str) -> str:
    """Slack's three control characters, as entities (the order matters: & first)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _section(text: str) -> dict:
    # verbatim: Slack must not auto-link URLs or channel names in document text.
    return {"type": "section", "text": {"type": "mrkdwn", "text": text, "verbatim": True}}


def _context(text: str) -> dict:
    return {"type": "context", "elements": [{"type": "mrkdwn", "text": text, "verbatim": True}]}


_ICON = {"error": ":warning: ", "answer": "", "help": "", "list": "", "forget": ""}


def reply_blocks(reply: Reply) -> list[dict]:
    """All blocks of ``reply`` in display order: warnings, text, sources, footer."""
    blocks: list[dict] = []
    for warning in reply.warnings:  # above the answer, so an ungrounded answer reads as such
        icon = "" if warning.startswith(("⚠", ":warning:")) else ":warning: "
        for piece in split_text(icon + escape(warning), SECTION_LIMIT):
            blocks.append(_section(piece))
    body = _ICON.get(reply.kind, "") + escape(reply.text) if reply.text.strip() else ""
    for piece in split_text(body, SECTION_LIMIT):
        blocks.append(_section(piece))
    if reply.sources:
        listing = "*Sources*\n" + "\n".join(source_text(s) for s in reply.sources)
        for piece in split_text(listing, SECTION_LIMIT):
            blocks.append(_context(piece))
    if reply.footer.strip():
        blocks.append(_context(clip(escape(reply.footer), SECTION_LIMIT)))
    return blocks


def source_text(source: Source) -> str:
    """A source's title ("[1] report.pdf, page 3") and its evidence quoted below.

    In curly quotes rather than mrkdwn's ``>`` quote: every ``<`` and ``>`` that
    reaches Slack is escaped, so no raw ``>`` is ever sent.
    """
    line = escape(source.title)
    if source.evidence:
        line += f"\n“{escape(source.evidence)}”"
    return line


def reply_messages(reply: Reply) -> list[SlackMessage]:
    """``reply`` as one or more messages, each within Slack's limits."""
    blocks = reply_blocks(reply)
    if not blocks:
        blocks = [_section("(empty reply)")]
    groups: list[list[dict]] = [[]]
    size = 0
    for block in blocks:
        n = len(block_text(block))
        if groups[-1] and (len(groups[-1]) >= MAX_BLOCKS or size + n > MESSAGE_CHARS):
            groups.append([])
            size = 0
        groups[-1].append(block)
        size += n
    extra = action_blocks(reply)
    if extra and len(groups[-1]) + len(extra) > MAX_BLOCKS:
        groups.append([])
    groups[-1] += extra  # the buttons go under the last message of the reply
    first_text = escape(reply.text) if reply.text.strip() else block_text(blocks[0])
    messages = []
    for i, group in enumerate(groups):
        fallback = first_text if i == 0 else block_text(group[0])
        messages.append(SlackMessage(clip(fallback, TEXT_LIMIT), tuple(group)))
    return messages


def action_blocks(reply: Reply) -> list[dict]:
    """The interactive blocks under a reply: suggested questions, then 👍/👎."""
    blocks = []
    if reply.suggestions:
        blocks.append(suggestion_block(reply.suggestions))
    if reply.answer_id:
        blocks.append(feedback_block(reply.answer_id))
    return blocks


def progress_message(line: str) -> SlackMessage:
    text = ":hourglass_flowing_sand: " + escape(line)
    return SlackMessage(clip(text, TEXT_LIMIT), (_context(clip(text, SECTION_LIMIT)),))


def notice_message(line: str) -> SlackMessage:
    """A one-line notice from the adapter itself, e.g. a missing-scope fix."""
    text = ":warning: " + escape(line)
    return SlackMessage(clip(text, TEXT_LIMIT), (_section(clip(text, SECTION_LIMIT)),))


def block_text(block: dict) -> str:
    """The text a section or context block shows ("" for buttons)."""
    if block.get("type") == "section":
        return block["text"]["text"]
    if block.get("type") != "context":
        return ""
    return "".join(e.get("text", "") for e in block.get("elements", ()))


def explain_api_error(error: str, doing: str, needed: str = "") -> str:
    """A Web API error code as a sentence that tells the admin how to fix it."""
    if error == "missing_scope":
        scope = f"the `{needed}` scope" if needed else "a scope it needs"
        return (
            f"I could not {doing}: the Slack app lacks {scope}. An admin should add it under "
            "OAuth & Permissions and reinstall the app."
        )
    if error in ("not_in_channel", "channel_not_found"):
        return (
            f"I could not {doing}: I am not a member of this channel. "
            "Invite me with /invite @PaperTrail and ask again."
        )
    if error == "ratelimited":
        return f"I could not {doing}: Slack is rate-limiting me. Please try again in a minute."
    return f"I could not {doing}: Slack answered `{error}`."
