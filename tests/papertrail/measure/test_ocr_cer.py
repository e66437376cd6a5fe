"""The character error rate and the edit distance under it."""

from __future__ import annotations

import numpy as np
import pytest

from papertrail.measure.ocr_cer import cer, levenshtein


def test_levenshtein_and_cer():
    assert levenshtein("kitten", "sitting") == 3
    assert levenshtein("", "abc") == 3 and levenshtein("abc", "") == 3
    assert levenshtein("flaw", "lawn") == 2
    assert levenshtein("日本語", "日本") == 1
    assert cer("the  cat\nsat", "the cat sat") == 0.0  # whitespace is collapsed
    assert cer("the cat sad", "the cat sat") == pytest.approx(1 / 11)
    assert cer("", "") == 0.0 and cer("x", "") == 1.0


def test_levenshtein_matches_the_textbook_recurrence():
    rng = np.random.default_rng(7)
    for _ in range(50):
        a = "".join(rng.choice(list("abc"), size=rng.integers(0, 9)))
        b = "".join(rng.choice(list("abc"), size=rng.integers(0, 9)))
        assert levenshtein(a, b) == _slow(a, b)


def _slow(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]
