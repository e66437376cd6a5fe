"""fit: confidence and gains fitted on gathered pools, the grid's best point kept, each
source left out."""

from __future__ import annotations

import math

import pytest

from papertrail.measure import calibrate, fit
from papertrail.retrieve import stages
from papertrail.retrieve.fusion import Weights
from papertrail.types import Chunk, Rect

A, B = "a" * 64, "b" * 64
NAMES = {A: "a.pdf", B: "b.pdf"}


def pool_of(doc: str, pages: int, best: float) -> stages.DocPool:
    chunks = [
        Chunk(doc * 64, f"{doc}.pdf", i, 1 + i, "", (Rect(0, 0, 1, 1),)) for i in range(pages)
    ]
    return stages.DocPool(doc * 64, [(c, best - 0.01 * i) for i, c in enumerate(chunks)], [])


def case(
    source: str, right_prior: float, page: int, dense_first: str = B, gold: str = "a.pdf"
) -> fit.Case:
    """Two documents; "a" has ``right_prior`` against b's 1.0; the ``gold`` one has its gold
    page at ``page`` of its own ranking; ``dense_first`` is dense search's first."""
    none = (0.0, 0.0, 0.0, 0.0)  # no evidence parts
    signals = {
        A: (right_prior, *none, float(dense_first == A), 0.0, 0.0),
        B: (1.0, *none, float(dense_first == B), 0.0, 0.0),
    }
    pool = stages.Pool((pool_of("a", 8, 0.9), pool_of("b", 8, 0.9)), signals=signals)
    return fit.Case(source, f"{source}/qa.jsonl", pool, (gold,), (page,), NAMES)


def test_confidence_learns_which_signal_finds_the_right_document():
    # the right document is dense search's first, never routing's favourite
    cases = [case("x", 0.5, 1, dense_first=A) for _ in range(6)]
    cases += [case("x", 0.9, 1, dense_first=A) for _ in range(3)]
    coef = fit.fit_confidence(cases)
    assert coef[5] > 0 and coef[0] < coef[5]  # dense first counts, the prior less
    assert fit.fit_confidence(cases) == coef  # reproducible: a refit gives the same numbers


def test_a_fit_sure_beyond_what_it_earns_on_another_source_is_softened():
    # x: dense search's first is always right; y: a coin toss. A fit on x alone is sure
    # of dense search, and wrong on half of y: its probabilities must be softened.
    xs = [case("x", 1.0, 1, dense_first=A) for _ in range(4)]
    ys = [case("y", 1.0, 1, dense_first=A, gold=g) for g in ("a.pdf", "b.pdf") * 2]
    t = calibrate.temperature(xs + ys)
    assert t > 1.0 and t in calibrate.TEMPERATURES
    raw = calibrate._likeliest(calibrate._rows(xs + ys))
    assert fit.fit_confidence(xs + ys) == tuple(round(float(v) / t, 2) + 0.0 for v in raw)
    # where every source agrees, nothing is softened; one source cannot be checked
    agree = xs + [case("y", 1.0, 1, dense_first=A) for _ in range(4)]
    assert calibrate.temperature(agree) == 1.0
    assert calibrate.temperature(xs) == 1.0


def test_gains_count_where_the_first_gold_page_sits_and_never_rise():
    cases = [case("x", 1.0, page) for page in (1, 1, 1, 2, 4, 3, 4, 4)]
    fused = [fit.heads(c.pool, Weights()) for c in cases]
    gains = fit.fit_gains(cases, fused)
    assert len(gains) == fit.DEPTH
    assert gains[0] == max(gains) and list(gains) == sorted(gains, reverse=True)
    assert gains[2] == gains[3]  # 1 at place 3 and 3 at place 4: pooled
    assert sum(gains) < 1.0 and min(gains) > 0
    assert gains[0] == pytest.approx((3 + 0.5) / (8 + 0.5 * 11), abs=1e-3)


def test_the_point_that_ranks_gold_pages_higher_is_chosen_and_each_source_left_out():
    grid = {"docs": (2, 1), "guard": (0,)}
    # x: nothing tells the two documents apart and either may be right: both need a place
    xs = [case("x", 1.0, 1, dense_first="", gold=g) for g in ("a.pdf", "b.pdf") * 2]
    # y: a single right document read alone ranks page 1 first either way
    ys = [case("y", 1.0, 1, dense_first=A) for _ in range(2)]
    fitter = fit.Fitter(xs + ys, Weights(), grid)
    table = fitter.table({"x", "y"})
    point, w, (hit5, _, doc5) = fit.best(table, {"x/qa.jsonl", "y/qa.jsonl"})
    assert point == {"docs": 2, "guard": 0} and hit5 == doc5 == 1.0
    one = next(s for p, _, s in table if p["docs"] == 1)["x/qa.jsonl"]
    assert one[0] < 1.0  # the premise: reading one document only loses x's pages
    out = fit.leave_one_out(fitter, {"x/qa.jsonl": "x", "y/qa.jsonl": "y"})
    w_without_y, scores_y, at_all = out["y"]
    assert w_without_y.docs == 2 and scores_y["y/qa.jsonl"] == at_all["y/qa.jsonl"] == (1.0, 1.0)
    assert one[3] == 0.5  # and doc_hit@5: the document not read is never shown


def test_a_documents_own_ranking_is_chosen_on_questions_asked_of_it_alone():
    def row(alpha, docs, one, channel):
        point = {"alpha": alpha, "docs": docs}
        scores = {"one/qa.jsonl": (one, 0.5, 10.0, 1.0), "ch/qa.jsonl": (channel, 0.5, 10.0, 1.0)}
        return point, Weights(alpha=alpha, docs=docs), scores

    # alpha 0.6 wins the channel by how it reshuffles places, and ranks pages worse alone
    table = [row(0.5, 2, 0.9, 0.5), row(0.6, 2, 0.8, 0.9), row(0.5, 3, 0.9, 0.6)]
    both = {"one/qa.jsonl", "ch/qa.jsonl"}
    point, w, (hit5, _, _) = fit.best(table, both, alone={"one/qa.jsonl"})
    assert point == {"alpha": 0.5, "docs": 3} and hit5 == pytest.approx(0.75)
    assert fit.best(table, both)[0] == {"alpha": 0.6, "docs": 2}  # the premise: jointly, 0.6
    # ties on hit@5 go to doc_hit@5 before mrr@10
    a, b = row(0.5, 2, 0.9, 0.9), row(0.5, 3, 0.9, 0.9)
    a[2]["ch/qa.jsonl"] = (0.9, 0.9, 10.0, 0.8)
    assert fit.best([a, b], both)[0]["docs"] == 3


def test_settings_of_a_documents_own_ranking_that_tie_on_hit5_are_reported():
    def row(alpha, docs, one, mrr):
        point = {"alpha": alpha, "docs": docs}
        scores = {"one/qa.jsonl": (one, mrr, 10.0, 1.0), "ch/qa.jsonl": (0.5, 0.5, 10.0, 1.0)}
        return point, Weights(alpha=alpha, docs=docs), scores

    table = [
        row(0.5, 2, 0.9, 0.6),
        row(0.5, 3, 0.9, 0.6),
        row(0.6, 2, 0.9, 0.7),
        row(0.7, 2, 0.8, 0.9),
    ]
    tied = fit.ties(table, {"one/qa.jsonl"})
    assert [p for p, _ in tied] == [{"alpha": 0.5}, {"alpha": 0.6}]  # 0.7 ranks pages worse
    assert tied[1][1] == pytest.approx((0.9, 1.0, 0.7))
    assert (
        fit.best(table, {"one/qa.jsonl", "ch/qa.jsonl"}, alone={"one/qa.jsonl"})[0]["alpha"] == 0.6
    )
    assert len(fit.ties([row(0.5, 2, 0.9, 0.6), row(0.6, 2, 0.8, 0.7)], {"one/qa.jsonl"})) == 1


def test_each_channel_source_is_scored_under_coefficients_fitted_without_it():
    # x and y: dense search's first is the right document; z (the most questions): never
    xs = [case("x", 1.0, 1, dense_first=A) for _ in range(4)]
    ys = [case("y", 1.0, 1, dense_first=A) for _ in range(3)]
    zs = [case("z", 1.0, 1, dense_first=B) for _ in range(8)]
    got = calibrate.left_out(xs + ys + zs)
    assert sorted(got) == ["x", "y", "z"]
    assert got["y"].questions == 3 and got["z"].questions == 8
    # fitted on every source, z's many questions teach distrust of dense search, which
    # is right for z; left out, z is judged by x and y, which trust it
    everything = calibrate._likeliest(calibrate._rows(xs + ys + zs))
    assert everything[5] < 0
    assert got["z"].first == 0.0 and got["z"].log_likelihood < math.log(0.5)
    assert got["z"].top3 == 1.0  # two documents: both are in the top 3
    # x left out: y and z together still distrust it (3 against 8)
    assert got["x"].first == 0.0
    # without z, x and y judge each other well
    alone = calibrate.left_out(xs + ys)
    assert alone["y"].first == 1.0 and alone["y"].log_likelihood > math.log(0.5)
    assert calibrate.left_out(xs) == {}  # one source: nothing to leave out
