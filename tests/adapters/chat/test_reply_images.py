"""adapters.chat.replies: each answer's pictures get names of their own."""

from __future__ import annotations

from adapters.chat.replies import answer_reply
from papertrail.types import Answer, Chunk, Citation, Rect, Snippet

CHUNK = Chunk("d" * 64, "report.pdf", 4, 3, "Net income was $5 million.", (Rect(0, 0, 9, 9),))


def answer(question: str, text: str) -> Answer:
    cite = Citation(1, 1, text, CHUNK, True, "states it")
    snip = Snippet(1, CHUNK.id, "report.pdf", 3, b"\x89PNG", 1, 1)
    return Answer(question, f"{text} [1]", (cite,), (), True, False, "extractive", (), (snip,))


def test_two_answers_citing_the_same_page_name_their_pictures_apart():
    first = answer_reply(answer("What was net income?", "Net income was $5 million."))
    second = answer_reply(answer("How much did it earn?", "Net income was $5 million."))
    (a,), (b,) = ([s.image.filename for s in r.sources] for r in (first, second))
    assert a != b
    assert a.startswith("1-p3-") and a.endswith("-report.png")  # still says what it shows
