"""confidence: the document stage's signals as one probability per document."""

from __future__ import annotations

import math

import pytest

from papertrail.retrieve import confidence

NONE = (0.0, 0.0, 0.0, 0.0)  # no evidence parts


def test_signals_are_the_prior_its_parts_and_each_rankings_first_documents():
    prior = {"a": 1.0, "b": 0.5, "c": 0.2}
    evidence = {"a": (1.0, 0.5, 0.9, 0.0, 0.3), "b": (0.1, 1.0, 1.0, 0.0, 0.05)}
    got = confidence.signals(prior, evidence, [["b", "c"], ["a"]])
    assert len(got["a"]) == len(confidence.SIGNALS)
    assert got == {  # the share (the fifth part) comes last: the prior does not mix it
        "a": (1.0, 1.0, 0.5, 0.9, 0.0, 0.0, 1.0, 0.0, 0.3),
        "b": (0.5, 0.1, 1.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.05),
        "c": (0.2, *NONE, 0.0, 0.0, 1.0, 0.0),
    }
    assert confidence.firsts(got) == ["a", "b"]
    assert confidence.signals({"a": 1.0}, {}, []) == {"a": (1.0, *NONE, 0.0, 0.0, 0.0, 0.0)}


def test_probabilities_sum_to_one_and_follow_the_coefficients():
    signals = {"a": (1.0, *NONE, 0.0, 0.0, 0.0), "b": (0.5, *NONE, 1.0, 0.0, 0.0)}
    by_prior = confidence.probabilities(signals, (4.0, *NONE, 0.0, 0.0, 0.0))
    assert sum(by_prior.values()) == pytest.approx(1.0)
    assert by_prior["a"] == pytest.approx(1 / (1 + math.exp(-2.0)), rel=1e-6)
    by_dense = confidence.probabilities(signals, (4.0, *NONE, 4.0, 0.0, 0.0))
    assert by_dense["b"] > by_dense["a"]
    assert confidence.ranked(by_dense) == ["b", "a"]
    assert confidence.probabilities({}, (1.0,)) == {}
