"""A call trace of questions through ``PaperTrail.ask``: each text is read once.

``sys.setprofile`` records every Python call while the pipeline answers; the
reader of question text (``text.ask.read``) must be entered once per question
(its parts, read inside it, aside), whatever answers: the offline rules, the
question check of the verifier, a worked-out figure. What a text is made of
(its tokens, stems, word keys, figures, sentences: ``text.memo.KEPT`` and the
word caches) is worked out once per distinct text while the question is
answered, however many claim-excerpt pairs the text is compared in.
"""

from __future__ import annotations

import sys
from collections import Counter

from papertrail.text import ask as ask_module
from papertrail.text import memo
from papertrail.text.figures import claim_figures
from papertrail.text.words import is_content, rarity, stem
from tests import pdfs
from tests.papertrail.test_pipeline import make

QUESTIONS = (
    "How many identical layers is the encoder composed of?",
    "According to the paper, what optimizer was used, and how long did training take?",
    "What does BLEU stand for?",
)


def traced(call) -> tuple[object, Counter]:
    """``call()``'s result and how often each function of ``text.ask`` was entered, by
    the name of the function that called it (a compound question's parts aside)."""
    entered: Counter = Counter()
    mine = ask_module.__file__

    def profile(frame, event, _arg):
        if event == "call" and frame.f_code.co_filename == mine:
            if frame.f_locals.get("whole", True) is False:
                return  # a part of a compound question, read inside the one reading
            caller = frame.f_back.f_code.co_name if frame.f_back else ""
            entered[(frame.f_code.co_name, caller)] += 1

    return _profiled(call, profile), entered


def test_a_question_is_read_once_through_the_whole_pipeline(tmp_path):
    pt = make(tmp_path)
    pt.ingest("c", "paper.pdf", pdfs.paper_pdf())
    for question in QUESTIONS:
        answer, entered = traced(lambda q=question: pt.ask("c", q, render=False))
        reads = {caller: n for (name, caller), n in entered.items() if name == "read"}
        assert reads == {"ask": 1}, (question, reads)
        assert answer.text


def test_the_trace_sees_a_second_reading():
    # the instrument itself: reading the text again elsewhere shows up as a second caller
    def twice():
        ask_module.read("What optimizer was used?")
        return ask_module.as_ask("What optimizer was used?")

    _, entered = traced(twice)
    assert entered[("read", "twice")] == 1 and entered[("read", "as_ask")] == 1


# what a text is made of: each function kept per question, and the words kept for good
PER_TEXT = (*memo.KEPT, *(f.__wrapped__ for f in (stem, rarity, is_content)))


def entries(call) -> tuple[object, Counter]:
    """``call()``'s result and how often each per-text function was entered, by its name
    and the arguments it was entered with."""
    names = {f.__code__: f"{f.__module__}.{f.__qualname__}" for f in PER_TEXT}
    entered: Counter = Counter()

    def profile(frame, event, _arg):
        if event == "call" and frame.f_code in names:
            code = frame.f_code
            params = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
            args = tuple(repr(frame.f_locals[p]) for p in params)
            entered[(names[code], args)] += 1

    return _profiled(call, profile), entered


def test_each_text_is_read_once_per_question_however_many_pairs_it_is_in(tmp_path):
    pt = make(tmp_path)
    pt.ingest("c", "paper.pdf", pdfs.paper_pdf())
    seen, cited = set(), 0
    for question in QUESTIONS:
        answer, entered = entries(lambda q=question: pt.ask("c", q, render=False))
        again = {key: n for key, n in entered.items() if n > 1}
        assert again == {}, (question, again)
        seen |= {name for name, _ in entered}
        cited += len(answer.citations)
    assert cited  # claims were judged against excerpts
    # the trace sees the readings the pairs share: words, keys, figures, claims, sentences
    assert {
        f"papertrail.text.{name}"
        for name in (
            "words.tokens", "words.word_keys", "words.content_words", "figures.claim_figures",
            "figures.excerpt_numbers", "coverage.parse", "sentences.split_sentences",
            "sentences.normalize", "periods.named",
        )
    } <= seen  # fmt: skip


def test_the_trace_sees_a_text_read_again_outside_a_question():
    def twice():
        claim_figures("It paid $4.2 billion.")
        return claim_figures("It paid $4.2 billion.")

    _, outside = entries(twice)
    assert outside[("papertrail.text.figures.claim_figures", ("'It paid $4.2 billion.'",))] == 2
    with memo.scope():
        _, inside = entries(twice)
    assert inside[("papertrail.text.figures.claim_figures", ("'It paid $4.2 billion.'",))] == 1


def _profiled(call, profile):
    """``call()`` with ``profile`` told of every Python call and return meanwhile."""
    sys.setprofile(profile)
    try:
        return call()
    finally:
        sys.setprofile(None)
