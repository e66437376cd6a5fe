"""Answer replies: sentences no passage states are marked where they end."""

from adapters.chat.replies import UNGROUNDED, UNSUPPORTED, UNSUPPORTED_NOTE, answer_reply
from papertrail.types import Answer, Chunk, Citation, Unsupported

CHUNK = Chunk("a" * 64, "paper.pdf", 0, 3, "The model uses 8 heads.", ())


def answer(text, unsupported=(), citations=(), grounded=True) -> Answer:
    return Answer(
        "q?", text, tuple(citations), (), grounded, False, "local-model", (), (), (), unsupported
    )


def test_each_unsupported_sentence_is_marked_after_its_full_stop():
    text = "The model uses 8 heads [1]. Training took 12 days. It has 6 layers"
    kept = Citation(1, 1, "The model uses 8 heads.", CHUNK, True, "cited by the checker: ok")
    reply = answer_reply(
        answer(
            text,
            (
                Unsupported("Training took 12 days.", text.index(".", 30)),
                Unsupported("It has 6 layers", len(text)),
            ),
            (kept,),
        )
    )
    assert reply.text == (
        f"The model uses 8 heads [1]. Training took 12 days.{UNSUPPORTED} "
        f"It has 6 layers{UNSUPPORTED}"
    )
    assert UNSUPPORTED_NOTE in reply.warnings and UNGROUNDED not in reply.warnings
    assert "1 citation verified (1 added by the checker)" in reply.footer


def test_an_ungrounded_answer_carries_its_warning_not_marks():
    text = "Training took 12 days."
    reply = answer_reply(answer(text, (Unsupported(text, len(text) - 1),), grounded=False))
    assert reply.text == text and UNGROUNDED in reply.warnings


def test_the_footer_says_how_sure_the_checker_is_in_words():
    sure = Citation(1, 1, "The model uses 8 heads.", CHUNK, True, "ok", level="verified")
    partly = Citation(2, 1, "It has heads.", CHUNK, True, "ok", level="partly supported")
    both = answer_reply(answer("The model uses 8 heads [1]. It has heads [2].", (), (sure, partly)))
    assert "2 citations: 1 verified, 1 partly supported" in both.footer
    one = answer_reply(answer("It has heads [1].", (), (partly,)))
    assert "1 citation: 1 partly supported" in one.footer and "0 verified" not in one.footer
    plain = answer_reply(answer("The model uses 8 heads [1].", (), (sure,)))
    assert "1 citation verified" in plain.footer
