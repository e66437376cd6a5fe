"""Refusals recognised by what they say, in the many ways models word them."""

import pytest

from papertrail.settings import REFUSAL
from papertrail.verify.refusals import is_refusal, opens_with_refusal


@pytest.mark.parametrize(
    "text",
    [
        REFUSAL,
        "The excerpts do not contain the answer to this question.",
        "The document contains no information about the size of the model.",
        "The report lists several heads, but no answer to the question of how many.",
        "The provided documents don't mention the optimizer.",
        "The learning rate is not mentioned in the provided excerpts.",
        "Unfortunately, the passages provided do not specify the learning rate.",
        "None of the excerpts mention the number of heads.",
        "There is no information about dropout in the excerpts.",
        "I could not find the answer in the documents.",
        "I cannot answer this question from the given context.",
        "The answer cannot be determined from the excerpts.",
        "The text doesn’t say how many layers there are.",
    ],
)
def test_refusals_in_other_words(text):
    assert is_refusal(text)


@pytest.mark.parametrize(
    "text",
    [
        "The encoder is composed of a stack of 6 identical layers.",
        "The Transformer does not use recurrence.",
        "The company does not provide guidance for 2018.",
        "There is no recurrence in the model.",
        "Positional encodings have no learned parameters in the sinusoidal version.",
        "The excerpts only contain the answer to this question.",
    ],
)
def test_statements_are_not_refusals(text):
    assert not is_refusal(text)


def test_only_the_exact_sentence_opens_a_refusal():
    assert opens_with_refusal(REFUSAL.upper() + " Try another question.")
    assert not opens_with_refusal("The excerpts do not contain the answer.")
