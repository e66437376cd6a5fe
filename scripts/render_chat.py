"""Draw the chat surfaces of docs/chat.md from the payloads the bots really send.

Runs the real pipeline (hash embedder, in-memory Chroma, offline answers, a
scripted "LLM" for the streamed answer) on a small generated statement, takes
the Slack blocks (``reply_messages``) and the Discord messages
(``render_reply``) the adapters build for each reply, and draws them with
Pillow as plain mock-ups: sections as text, context blocks in grey, buttons
as boxes. Emoji the bundled font lacks are drawn as words. Usage:
``python scripts/render_chat.py docs/`` (writes chat-*.png there).
"""

from __future__ import annotations

import sys
import tempfile
import textwrap
from dataclasses import replace
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
WIDTH = 760
EMOJI = {"👍": "+1", "👎": "-1", "⚠️": "(!)", "❓": "?", "✅": "ok"}


def _font(size: int):
    try:
        return ImageFont.truetype(FONT, size)
    except OSError:
        return ImageFont.load_default(size)


def _plain(text: str) -> str:
    for emoji, word in EMOJI.items():
        text = text.replace(emoji, word)
    return text.replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")


def draw(title: str, rows: list[tuple[str, str]], path: Path) -> None:
    """``rows`` of (kind, text): "title", "text", "grey", "status" or "buttons" ("a|b")."""
    font, small, bold = _font(15), _font(13), _font(16)
    lines: list[tuple[str, str]] = [("title", _plain(title))]
    for kind, text in rows:
        if kind == "buttons":  # one row, or one button a row when they would not fit
            fits = len(text) < 80
            lines += [(kind, text)] if fits else [(kind, b) for b in text.split("|")]
            continue
        for para in _plain(text).split("\n"):
            for line in textwrap.wrap(para, 92 if kind == "grey" else 84) or [""]:
                lines.append((kind, line))
    height = 30 + sum(40 if k == "buttons" else 22 for k, _ in lines)
    img = Image.new("RGB", (WIDTH, height), "white")
    d = ImageDraw.Draw(img)
    y = 14
    for kind, text in lines:
        if kind == "buttons":
            x = 20
            for label in _plain(text).split("|"):
                w = int(d.textlength(label, font=small)) + 20
                d.rounded_rectangle((x, y + 4, x + w, y + 32), 6, outline="#1264a3", width=1)
                d.text((x + 10, y + 10), label, fill="#1264a3", font=small)
                x += w + 10
            y += 40
            continue
        colour = {"grey": "#616061", "status": "#8a6d00", "title": "#1d1c1d"}.get(kind, "black")
        face = {"grey": small, "title": bold, "status": small}.get(kind, font)
        d.text((20, y), text, fill=colour, font=face)
        y += 22
    img.save(path)


def slack_rows(message) -> list[tuple[str, str]]:
    rows = []
    for b in message.blocks:
        if b["type"] == "section":
            rows.append(("text", b["text"]["text"]))
        elif b["type"] == "context":
            rows.append(("grey", "".join(e.get("text", "") for e in b["elements"])))
        elif b["type"] == "actions":
            rows.append(("buttons", "|".join(e["text"]["text"] for e in b["elements"])))
        elif b["type"] == "context_actions":
            e = b["elements"][0]
            labels = [e["positive_button"]["text"]["text"], e["negative_button"]["text"]["text"]]
            rows.append(("buttons", "|".join(labels)))
    return rows


def main(out: Path) -> None:
    from adapters.chat.replies import Reply, answer_reply
    from adapters.chat.suggest import suggest
    from adapters.discord.format import render_reply
    from adapters.slack.format import reply_messages
    from papertrail.settings import Settings
    from tests.fakes import ScriptedGenerator, gated_pipeline
    from tests.pdfs import table_pdf

    settings = Settings(data_dir=Path(tempfile.mkdtemp()), ocr=False)
    draft = "Net revenue was $1,577 million in 2023 [1]. It employs 9,000 people on Mars [1]."
    pipeline = gated_pipeline(settings, generator=ScriptedGenerator(draft, mode="llama-3.3-70b"))
    pipeline.ingest("c", "statement.pdf", table_pdf())
    offline = gated_pipeline(Settings(data_dir=Path(tempfile.mkdtemp()), ocr=False))
    doc = offline.ingest("c", "statement.pdf", table_pdf()).document
    asks = tuple(suggest(offline, "c", doc.doc_id))  # each one answered offline first
    dropped = Reply(kind="list", text="Indexed statement.pdf.", suggestions=asks)
    statuses = [
        ("status", "PaperTrail is indexing statement.pdf — 1/1 pages"),
        ("status", "PaperTrail is finding questions this document can answer…"),
    ]
    prompts = [("grey", "Suggested prompts (assistant panel):"), ("buttons", "|".join(asks))]
    draw(
        "Slack assistant thread: a PDF dropped",
        statuses + slack_rows(reply_messages(dropped)[0]) + prompts,
        out / "chat-slack-drop.png",
    )
    answer = pipeline.ask("c", "What was net revenue in 2023?", render=False)
    reply = answer_reply(answer)
    reply = replace(reply, answer_id="a1b2c3d4e5f6")
    draw(
        "Slack: an LLM answer, streamed (verified text), closed with sources and 👍/👎",
        slack_rows(reply_messages(reply)[0]),
        out / "chat-slack-answer.png",
    )
    (last,) = render_reply(reply)[-1:]
    rows = [("text", last.content)]
    rows += [("grey", f"{e.title}\n{e.description or ''}") for e in last.embeds]
    rows.append(("buttons", "|".join(label for label, _ in last.buttons)))
    draw("Discord forum post: the answer and its buttons", rows, out / "chat-discord-forum.png")
    print("\n".join(str(p) for p in sorted(out.glob("chat-*.png"))))


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "docs"))
