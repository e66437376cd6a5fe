"""Retrieval rules switched off by name (``--without``): each takes away only what it adds."""

from __future__ import annotations

from dataclasses import replace

import pytest

from papertrail.domains import KNOWN
from papertrail.measure.answerers import warn_unknown
from papertrail.retrieve.fusion import Weights
from papertrail.retrieve.retriever import Retriever
from papertrail.retrieve.rules import RULES, on
from papertrail.store.chroma import ChromaStore
from papertrail.types import Identity
from tests.fakes import HashEmbedder
from tests.papertrail.retrieve.test_retriever import (
    BALANCE,
    FILING,
    RESULTS_PAGES,
    STATEMENT_PAGES,
    TARGET,
    add,
)

W = Weights(alpha=0.6, page=0.5)


@pytest.fixture
def emb() -> HashEmbedder:
    return HashEmbedder()


@pytest.fixture
def store(emb) -> ChromaStore:
    return ChromaStore.ephemeral(model=emb.name)


def ranked(store, emb, question, channel="C", k=4, mode="hybrid", weights=W, **kw):
    retriever = Retriever(store, emb, weights=weights, domains=KNOWN, **kw)
    return [
        (h.chunk.index, round(h.score, 6))
        for h in retriever.search(channel, question, k=k, mode=mode)
    ]


def test_every_rule_is_on_unless_switched_off_and_unknown_names_are_ignored():
    assert on() == frozenset(RULES)
    assert on(["expansion", "quote", "no-such-rule"]) == frozenset(RULES) - {"expansion"}


def test_without_sections_a_named_statement_lifts_nothing(store, emb):
    add(store, "C", STATEMENT_PAGES, b"st", identity=FILING)
    question = "Based on the balance sheet, what was year end accounts payable? Round to millions."
    flat = ranked(store, emb, question, weights=replace(W, section_boost=0.0))
    assert ranked(store, emb, question) != flat  # the premise: the statement's page is lifted
    assert ranked(store, emb, question, without=["sections"]) == flat
    assert ranked(store, emb, question, without=["labels", "figures"]) == ranked(
        store, emb, question
    )


def test_without_labels_a_named_table_lifts_nothing(store, emb):
    add(store, "C", RESULTS_PAGES, b"tb")
    question = "According to table II, which datasets have exactly three methods?"
    flat = ranked(store, emb, question, weights=replace(W, section_boost=0.0))
    assert ranked(store, emb, question) != flat
    assert ranked(store, emb, question, without=["labels"]) == flat
    assert ranked(store, emb, question, without=["sections"]) == ranked(store, emb, question)


def test_without_figures_an_exact_figure_gets_no_lift(store, emb):
    add(store, "C", [*BALANCE, TARGET], b"bs")
    question = "What were total current assets of 7,292 million?"
    lifted = dict(ranked(store, emb, question, k=9))
    plain = dict(ranked(store, emb, question, k=9, without=["figures"]))
    target = len(BALANCE)  # the chunk printing 7,292
    assert lifted[target] - plain[target] == pytest.approx(W.figure_boost)
    assert all(lifted[i] == pytest.approx(plain[i]) for i in plain if i != target)


def test_without_expansion_the_bm25_query_keeps_the_questions_own_words(store, emb):
    add(
        store,
        "C",
        ["Net sales grew 31% in 2017.", "Headcount grew in 2017."],
        b"rv",
        identity=FILING,
    )
    question = "How much did revenue grow?"
    assert ranked(store, emb, question, k=1, mode="bm25")[0][0] == 0  # "net sales": added
    assert all(
        i != 0 for i, _ in ranked(store, emb, question, k=2, mode="bm25", without=["expansion"])
    )


def test_without_instructions_an_answer_format_sentence_stays_in_the_query(store, emb):
    add(store, "C", STATEMENT_PAGES, b"st", identity=FILING)
    told = "What were accrued expenses at year end? Please use the balance sheet."
    kept = dict(ranked(store, emb, told, mode="bm25", without=["instructions"]))
    dropped = dict(ranked(store, emb, told, mode="bm25"))
    assert kept[2] > dropped.get(2, 0.0)  # "balance sheet" is searched for only when kept
    add(store, "M", STATEMENT_PAGES, b"st", identity=Identity(title="Manual"))  # no domain
    assert ranked(store, emb, told, "M", mode="bm25") == ranked(
        store, emb, told, "M", mode="bm25", without=["instructions"]
    )


def test_a_retrieval_rules_name_is_known_to_eval(capsys):
    warn_unknown(["expansion", "sections", "no-such-rule"])
    err = capsys.readouterr().err
    assert "'no-such-rule'" in err and "'expansion'" not in err and "'sections'" not in err
