"""memo: a function of text alone, computed once per distinct text while a question is
answered, and handed back as a fresh copy."""

from __future__ import annotations

import threading

from papertrail.text import memo

calls: list[tuple] = []


@memo.per_text
def _keys(text: str, *, lower: bool = True) -> set[str]:
    calls.append((text, lower))
    return set((text.lower() if lower else text).split())


def test_outside_a_scope_each_call_computes():
    calls.clear()
    assert _keys("A b") == _keys("A b") == {"a", "b"}
    assert len(calls) == 2


def test_inside_a_scope_each_distinct_text_computes_once_and_nothing_outlives_it():
    calls.clear()
    with memo.scope():
        assert _keys("A b") == {"a", "b"} and _keys("A b") == {"a", "b"}
        assert _keys("A b", lower=False) == {"A", "b"} and _keys("C") == {"c"}
        assert calls == [("A b", True), ("A b", False), ("C", True)]
    _keys("A b")
    assert len(calls) == 4  # the scope is gone: computed again


def test_a_kept_result_is_handed_back_as_a_copy():
    with memo.scope():
        first = _keys("x y")
        first.add("z")  # a caller changing its result changes nothing kept
        assert _keys("x y") == {"x", "y"}


def test_an_inner_scope_keeps_in_the_outer_one():
    calls.clear()
    with memo.scope():
        _keys("q")
        with memo.scope():
            _keys("q")
        _keys("q")
    assert calls == [("q", True)]


def test_scoped_opens_one_scope_per_call():
    calls.clear()

    @memo.scoped
    def ask(text: str) -> set[str]:
        return _keys(text) | _keys(text)

    ask("m n")
    ask("m n")
    assert calls == [("m n", True), ("m n", True)]


def test_an_unhashable_argument_calls_through():
    seen = []

    @memo.per_text
    def size(items) -> int:
        seen.append(1)
        return len(items)

    with memo.scope():
        assert size([1, 2]) == size([1, 2]) == 2 and size((1, 2)) == size((1, 2)) == 2
    assert len(seen) == 3  # the list twice, the tuple once


def test_a_scope_belongs_to_its_thread():
    calls.clear()
    with memo.scope():
        _keys("t")
        other = threading.Thread(target=lambda: (_keys("t"), _keys("t")))
        other.start()
        other.join()
        _keys("t")
    assert calls.count(("t", True)) == 3  # once here, twice in the thread with no scope


def test_the_readings_pairs_share_are_kept():
    from papertrail.text import coverage, figures, words  # noqa: F401  (they mark theirs)

    names = {f"{f.__module__}.{f.__qualname__}" for f in memo.KEPT}
    assert {
        "papertrail.text.words.word_keys",
        "papertrail.text.figures.claim_figures",
        "papertrail.text.figures.excerpt_numbers",
        "papertrail.text.coverage.parse",
    } <= names
