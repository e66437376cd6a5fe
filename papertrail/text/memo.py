"""What one question reads, kept for that question: each text is tokenised, stemmed and
searched for figures once, however many pairs it is compared in.

Answering a question compares the same few texts pair by pair: every sentence
of the answer against every retrieved excerpt, every candidate sentence against
the question. The comparisons (``coverage.share``, ``figures.figure_in``) are
per pair; what each side is made of (its words, stems, keys, figures,
sentences) is not. ``per_text`` marks a function of its arguments alone; while
a ``scope`` is open (``PaperTrail.ask`` opens one per question, ``scoped``) its
result is kept per distinct arguments and handed back again, a fresh copy when
it is a list, set or dict, so a caller gets exactly what a new call gives. With
no scope open, or with an argument that cannot be a key, it calls through.
Nothing outlives the question, so memory is bounded by one question's texts;
a scope belongs to the thread or task that opened it (``contextvars``).
``KEPT`` lists the functions marked (the call trace test counts their entries).
It leaves out caching across questions (``functools.lru_cache`` does that where
a text recurs between questions, as a word's stem does).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

_MEMO: ContextVar[dict | None] = ContextVar("papertrail_per_text", default=None)
KEPT: list[Callable[..., Any]] = []  # the functions marked, as written (unwrapped)
_MUTABLE = (list, set, dict)


def _fresh(value: Any) -> Any:
    """A copy a caller may change without changing what is kept (a shallow one: the items
    kept are strings, numbers and frozen dataclasses)."""
    return type(value)(value) if type(value) in _MUTABLE else value


def per_text(fn: F) -> F:
    """``fn``, computed once per distinct arguments within a ``scope``."""
    KEPT.append(fn)

    @functools.wraps(fn)
    def kept(*args: Any, **kwargs: Any) -> Any:
        memo = _MEMO.get()
        if memo is None:
            return fn(*args, **kwargs)
        key = (fn, args, tuple(sorted(kwargs.items()))) if kwargs else (fn, args)
        try:
            hash(key)
        except TypeError:  # an unhashable argument: nothing to key the result by
            return fn(*args, **kwargs)
        if key not in memo:
            memo[key] = fn(*args, **kwargs)
        return _fresh(memo[key])

    return kept  # type: ignore[return-value]


@contextmanager
def scope() -> Iterator[None]:
    """Keep what ``per_text`` functions compute until the block ends; inside an open scope
    (a question asked while answering another), the outer one keeps."""
    if _MEMO.get() is not None:
        yield
        return
    token = _MEMO.set({})
    try:
        yield
    finally:
        _MEMO.reset(token)


def scoped(fn: F) -> F:
    """``fn`` with each call in a ``scope`` of its own (``PaperTrail.ask``: one question)."""

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        with scope():
            return fn(*args, **kwargs)

    return run  # type: ignore[return-value]
