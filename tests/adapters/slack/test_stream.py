"""Streaming cuts the verified text at sentence ends and keeps each ⚠️ with its sentence."""

from __future__ import annotations

from adapters.chat.replies import UNSUPPORTED
from adapters.slack.stream import pieces


def test_pieces_keep_the_text_and_each_mark_with_its_sentence():
    text = (
        "Net revenue was $1,577 million in 2023 [1]. The company employs 9,000 engineers on "
        f"Mars.{UNSUPPORTED} Cost of sales was $912 million [2]!\nGross margin rose."
    )
    cut = pieces(text, size=30)
    assert "".join(cut) == text
    assert len(cut) >= 3
    for piece in cut:
        if "Mars." in piece:
            assert UNSUPPORTED.strip() in piece
    assert not any(p.lstrip().startswith("⚠") for p in cut)
