"""Block Kit rendering: escaping, splitting, and Slack's size limits."""

from hypothesis import given
from hypothesis import strategies as st

from adapters.chat.service import Reply
from adapters.chat.text import clip as truncate
from adapters.chat.text import split_text
from adapters.slack.format import (
    MAX_BLOCKS,
    SECTION_LIMIT,
    TEXT_LIMIT,
    block_text,
    escape,
    explain_api_error,
    progress_message,
    reply_messages,
)
from tests.fakes import source


def test_escape_neutralises_mentions_and_links():
    assert escape("<!channel> <@U1> a & b <http://x|y>") == (
        "&lt;!channel&gt; &lt;@U1&gt; a &amp; b &lt;http://x|y&gt;"
    )
    assert escape("&amp;") == "&amp;amp;"  # literal text stays literal


def test_split_prefers_paragraph_then_word_boundaries():
    text = "a" * 1800 + "\n\n" + "b" * 1800
    assert split_text(text, SECTION_LIMIT) == ["a" * 1800, "b" * 1800]
    words = " ".join(["word"] * 1000)  # 4,999 characters
    pieces = split_text(words, SECTION_LIMIT)
    assert all(len(p) <= SECTION_LIMIT for p in pieces)
    assert " ".join(pieces) == words


def test_a_hard_cut_never_splits_an_entity():
    text = escape("x" * 2997 + "&&&&")
    pieces = split_text(text, SECTION_LIMIT)
    assert "".join(pieces) == text
    assert all(not p.endswith(("&", "&a", "&am", "&amp")) for p in pieces)


@given(st.text(alphabet="ab &<>\n.", max_size=9000), st.integers(20, 4000))
def test_split_keeps_every_character_within_the_limit(text, limit):
    escaped = escape(text)
    pieces = split_text(escaped, limit)
    assert all(0 < len(p) <= limit for p in pieces)
    assert "".join(escaped.split()) == "".join("".join(pieces).split())


def test_truncate_marks_the_cut():
    assert truncate("short", 10) == "short"
    cut = truncate("x" * 50, 10)
    assert len(cut) == 10 and cut.endswith("…")


def test_answer_layout_warning_first_then_text_sources_footer():
    reply = Reply(
        kind="answer",
        text="Revenue grew 12% [1].",
        sources=(source("[1] report.pdf, page 3", evidence="Revenue grew 12% to <b>"),),
        warnings=("⚠️ Ungrounded: treat it as unverified.",),
        footer="Mode: extractive · 1 citation verified",
    )
    (message,) = reply_messages(reply)
    kinds = [b["type"] for b in message.blocks]
    assert kinds == ["section", "section", "context", "context"]
    assert block_text(message.blocks[0]).startswith("⚠️ Ungrounded")  # no double icon
    assert block_text(message.blocks[2]) == (
        "*Sources*\n[1] report.pdf, page 3\n“Revenue grew 12% to &lt;b&gt;”"
    )  # the evidence quoted under its source, escaped
    assert "extractive" in block_text(message.blocks[3])
    assert message.text == "Revenue grew 12% [1]."
    assert message.payload()["parse"] == "none" and message.payload()["link_names"] is False


def test_a_huge_reply_becomes_several_messages_within_limits():
    reply = Reply(
        kind="answer",
        text="A sentence to repeat many times. " * 6000,  # ~200,000 characters
        sources=tuple(source(f"[{i}] r.pdf, page {i}") for i in range(1, 40)),
        footer="Mode: extractive",
    )
    messages = reply_messages(reply)
    assert len(messages) > 2
    for m in messages:
        assert len(m.text) <= TEXT_LIMIT and 0 < len(m.blocks) <= MAX_BLOCKS
        assert all(len(block_text(b)) <= SECTION_LIMIT for b in m.blocks)
    assert "[39] r.pdf, page 39" in block_text(messages[-1].blocks[-2])


def test_error_and_progress_messages():
    (error,) = reply_messages(Reply(kind="error", text="report.docx is not a PDF."))
    assert block_text(error.blocks[0]) == ":warning: report.docx is not a PDF."
    progress = progress_message("Indexing <b>.pdf — 3/9 pages")
    assert "&lt;b&gt;.pdf — 3/9 pages" in progress.text


def test_api_errors_are_explained_with_the_fix():
    text = explain_api_error("missing_scope", "read this thread", "channels:history")
    assert "`channels:history`" in text and "reinstall" in text
    assert "/invite @PaperTrail" in explain_api_error("not_in_channel", "post a reply")
    assert "`fatal_error`" in explain_api_error("fatal_error", "post a reply")
