"""Unit tests for adapters/discord/format.py: splitting, embeds, files, per-message limits."""

from __future__ import annotations

import re

from adapters.chat.replies import answer_reply
from adapters.chat.service import Reply
from adapters.chat.text import split_text
from adapters.discord.format import (
    MAX_CONTENT,
    MAX_EMBEDS,
    render_reply,
    safe_filename,
)
from papertrail.types import Answer, Chunk, Citation, Evidence
from tests.fakes import source


def _png(tag: str, size: int = 100) -> bytes:
    return b"\x89PNG\r\n\x1a\n" + tag.encode().ljust(size, b"\0")


def _cited_reply(n: int, *, png_size: int = 100) -> Reply:
    sources = tuple(
        source(
            f"[{i}] report.pdf, page {i + 1}",
            _png(str(i), png_size),
            filename=f"{i}-p{i + 1}-report.png",
        )
        for i in range(1, n + 1)
    )
    return Reply(kind="answer", text="An answer [1].", sources=sources)


def test_split_prefers_paragraphs_then_sentences_then_words():
    para = "First paragraph sentence. " * 30  # ~780 characters
    text = "\n\n".join([para.strip()] * 4)
    pieces = split_text(text, 2000)
    assert all(len(p) <= 2000 for p in pieces)
    assert all(p.endswith("sentence.") for p in pieces)  # cut between paragraphs
    assert " ".join(p for p in pieces).split() == text.split()

    one_paragraph = "A sentence that keeps going on. " * 100  # 3,200 characters, no newline
    pieces = split_text(one_paragraph, 2000)
    assert len(pieces) == 2 and pieces[0].endswith("on.")

    words = "word " * 600  # no sentence end at all
    pieces = split_text(words, 2000)
    assert all(len(p) <= 2000 and not p.endswith(" ") for p in pieces)
    assert all(set(p.split()) == {"word"} for p in pieces)


def test_split_hard_cuts_a_string_without_boundaries():
    blob = "x" * 4500
    pieces = split_text(blob, 2000)
    assert [len(p) for p in pieces] == [2000, 2000, 500]
    assert "".join(pieces) == blob


def test_split_keeps_short_text_whole_and_drops_empty():
    assert split_text("  short  ", 2000) == ["short"]
    assert split_text("   ", 2000) == []


def test_reply_text_has_warnings_first_and_footer_as_subtext_last():
    reply = Reply(
        kind="answer",
        text="The answer.",
        warnings=("⚠️ Ungrounded: could not verify.", "Pages 3 have no text."),
        footer="Mode: extractive · 0 citations verified",
    )
    [msg] = render_reply(reply)
    lines = msg.content.split("\n\n")
    assert lines[0] == "⚠️ Ungrounded: could not verify."  # no doubled sign
    assert lines[1] == "⚠️ Pages 3 have no text."
    assert lines[2] == "The answer."
    assert lines[3] == "-# Mode: extractive · 0 citations verified"


def test_error_reply_is_marked():
    [msg] = render_reply(Reply(kind="error", text="report.txt is not a PDF."))
    assert msg.content.startswith("❌ report.txt is not a PDF.")


def test_one_embed_per_source_showing_its_png():
    reply = _cited_reply(3)
    [msg] = render_reply(reply)
    assert [e.title for e in msg.embeds] == [s.title for s in reply.sources]
    names = [img.filename for img in msg.images]
    assert [e.image.url for e in msg.embeds] == [f"attachment://{n}" for n in names]
    assert [img.png for img in msg.images] == [img.png for img in reply.images]
    files = msg.files()
    assert [f.filename for f in files] == names
    assert files[0].fp.read() == reply.images[0].png


def test_each_source_shows_its_own_image_and_one_without_shows_none():
    reply = Reply(
        kind="answer",
        text="x",
        sources=(
            source("[1] a.pdf, page 1"),
            source("[2] a.pdf, page 9", _png("2"), filename="two.png"),
        ),
    )
    [msg] = render_reply(reply)
    assert [e.title for e in msg.embeds] == ["[1] a.pdf, page 1", "[2] a.pdf, page 9"]
    assert msg.embeds[0].image.url is None  # no picture for [1]
    assert msg.embeds[1].image.url == "attachment://two.png"


def test_more_than_ten_sources_continue_in_another_message():
    reply = _cited_reply(13)
    msgs = render_reply(reply)
    assert len(msgs) == 2
    assert len(msgs[0].embeds) == MAX_EMBEDS and len(msgs[0].images) == MAX_EMBEDS
    assert msgs[0].content.startswith("An answer")
    assert msgs[1].content == "" and len(msgs[1].embeds) == 3
    assert [e.title for m in msgs for e in m.embeds] == [s.title for s in reply.sources]


def test_upload_limit_splits_files_by_bytes():
    msgs = render_reply(_cited_reply(4, png_size=400), upload_limit=1000)
    assert [len(m.images) for m in msgs] == [2, 2]
    for m in msgs:  # each embed's picture travels with it
        names = {i.filename for i in m.images}
        assert {e.image.url.removeprefix("attachment://") for e in m.embeds} == names


def test_embed_text_stays_under_discords_per_message_total():
    long_title = "[{}] " + "a very long document name " * 12
    reply = Reply(
        kind="answer", text="x", sources=tuple(source(long_title.format(i)) for i in range(1, 41))
    )
    msgs = render_reply(reply)
    assert all(sum(len(e) for e in m.embeds) <= 6000 for m in msgs)
    assert all(len(m.embeds) <= MAX_EMBEDS for m in msgs)
    assert sum(len(m.embeds) for m in msgs) == 40


def test_long_text_and_sources_put_sources_after_the_last_piece():
    reply = Reply(
        kind="answer",
        text="Sentence number one here. " * 200,
        sources=(source("[1] a.pdf, page 1"),),
    )
    msgs = render_reply(reply)
    assert all(len(m.content) <= MAX_CONTENT for m in msgs)
    assert len(msgs) == 3 and not msgs[0].embeds and not msgs[1].embeds
    assert msgs[2].embeds[0].title == "[1] a.pdf, page 1"


def test_filenames_are_safe_and_unique_for_attachment_urls():
    assert safe_filename("1 p3 rapport été.png") == "1_p3_rapport_t_.png"
    assert re.fullmatch(r"[A-Za-z0-9._-]+\.png", safe_filename("../../etc/passwd"))
    reply = Reply(
        kind="answer",
        text="x",
        sources=(
            source("[1] a.pdf, page 1", _png("1"), filename="same.png"),
            source("[2] a.pdf, page 1", _png("2"), filename="same.png"),
        ),
    )
    [msg] = render_reply(reply)
    assert [i.filename for i in msg.images] == ["same.png", "same-2.png"]
    assert [e.image.url for e in msg.embeds] == ["attachment://same.png", "attachment://same-2.png"]


def test_empty_reply_still_renders_a_message():
    [msg] = render_reply(Reply(kind="answer", text=""))
    assert msg.content


def test_embed_quotes_the_citations_evidence_and_nothing_without_one():
    chunk = Chunk("d" * 64, "a.pdf", 0, 2, "Intro text here. Revenue grew 12% in 2023. Outro.", ())
    span = Evidence("Revenue grew 12%\n in 2023.", ())
    cites = (
        Citation(1, 1, "Revenue grew 12%", chunk, True, "supported", evidence=span),
        Citation(2, 2, "Intro", chunk, True, "supported"),  # no evidence computed
    )
    answer = Answer("q", "Revenue grew 12% [1]. Intro [2].", cites, (), True, False, "extractive")
    [msg] = render_reply(answer_reply(answer))
    assert msg.embeds[0].description == "> Revenue grew 12% in 2023."
    assert msg.embeds[1].description is None


def test_a_png_over_the_upload_limit_is_left_out_not_the_message():
    reply = _cited_reply(2, png_size=5000)
    [msg] = render_reply(reply, upload_limit=1000)
    assert [e.title for e in msg.embeds] == [s.title for s in reply.sources]  # still shown
    assert msg.images == () and all(e.image.url is None for e in msg.embeds)
