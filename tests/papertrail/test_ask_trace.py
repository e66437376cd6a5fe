"""A call trace of questions through ``PaperTrail.ask``: the question's text is read once.

``sys.setprofile`` records every Python call while the pipeline answers; the
reader of question text (``text.ask.read``) must be entered once per question
(its parts, read inside it, aside), whatever answers: the offline rules, the
question check of the verifier, a worked-out figure.
"""

from __future__ import annotations

import sys
from collections import Counter

from papertrail.text import ask as ask_module
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

    sys.setprofile(profile)
    try:
        result = call()
    finally:
        sys.setprofile(None)
    return result, entered


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
