"""Follow-up questions made standalone: offline rewrites and LLM condensation."""

from __future__ import annotations

import pytest

from papertrail.answer.followup import condense, elliptical, standalone, wants_answer

ENCODER = "How many identical layers are in the encoder stack?"
INCOME = "What was Amazon's net income in 2017?"


@pytest.mark.parametrize(
    ("previous", "followup", "expected"),
    [
        (ENCODER, "And the decoder?", "How many identical layers are in the decoder stack?"),
        (INCOME, "And 2018?", "What was Amazon's net income in 2018?"),
        (INCOME, "What about Apple?", "What was Apple's net income in 2017?"),
        (
            "How many parallel attention heads are used?",
            "And in the big model?",
            "How many parallel attention heads are used in the big model?",
        ),
        (
            "What BLEU score does the base model get on English-to-German?",
            "And the big model?",
            "What BLEU score does the big model get on English-to-German?",
        ),
        (  # the language pair is replaced, not added beside the old one
            "What BLEU did the big model get on English-to-German?",
            "And on English-to-French?",
            "What BLEU did the big model get on English-to-French?",
        ),
        (  # the period is replaced
            "What was the operating margin in 2020?",
            "What about 2021?",
            "What was the operating margin in 2021?",
        ),
        (  # the model is replaced after a preposition too
            "How many attention heads does the base model use?",
            "And for the big model?",
            "How many attention heads does the big model use?",
        ),
        (  # nothing in the question stands for it: the phrase is added
            "How many identical layers are in the encoder stack?",
            "And in the big model?",
            "How many identical layers are in the encoder stack in the big model?",
        ),
        (
            "What is the dimension of the feed-forward layer?",
            "What is its output dimension?",
            "What is its output dimension (What is the dimension of the feed-forward layer)?",
        ),
    ],
)
def test_elliptical_follow_ups_are_rewritten_from_the_previous_question(
    previous, followup, expected
):
    assert standalone([previous], followup) == expected


def test_a_question_that_stands_alone_is_left_as_it_is():
    question = "What optimizer was used for training the model?"
    assert not elliptical(question)
    assert standalone([ENCODER], question) == question
    assert standalone([], "And the decoder?") == "And the decoder?"  # nothing to lean on


def test_the_latest_question_is_the_one_followed_up():
    assert standalone([INCOME, ENCODER], "And the decoder?").endswith("decoder stack?")


def test_an_llm_condenses_and_its_failures_fall_back_offline():
    asked = []

    def complete(messages):
        asked.append(messages)
        return "  How many layers does the decoder stack have?\n"

    assert condense(complete, [ENCODER], "And the decoder?") == (
        "How many layers does the decoder stack have?"
    )
    assert "Earlier question: " + ENCODER in asked[0][1]["content"]
    assert asked[0][1]["content"].endswith("Last message: And the decoder?")

    def broken(messages):
        raise TimeoutError

    assert condense(broken, [ENCODER], "And the decoder?") == (
        "How many identical layers are in the decoder stack?"
    )
    assert condense(lambda m: "", [ENCODER], "And the decoder?").endswith("decoder stack?")
    assert condense(complete, [], "A new question?") == "A new question?"  # no history: no call
    assert len(asked) == 1


@pytest.mark.parametrize("text", ["thanks!", "Thank you so much", "ok 👍", "great", "👍"])
def test_acknowledgements_want_no_answer(text):
    assert not wants_answer(text)


@pytest.mark.parametrize("text", ["And the decoder?", "no, the decoder", "What about 2018?"])
def test_questions_want_an_answer(text):
    assert wants_answer(text)


def test_a_reply_with_files_wants_an_answer_only_when_it_asks():
    assert not wants_answer("here is the other report", with_files=True)
    assert wants_answer("what does this one say about revenue?", with_files=True)
