"""fit: the grid is scored on gathered pools, the best point kept, each source left out."""

from __future__ import annotations

from papertrail.measure import fit
from papertrail.retrieve import stages
from papertrail.retrieve.fusion import Weights
from papertrail.types import Chunk, Rect


def pool_of(doc: str, pages: int, best: float) -> stages.DocPool:
    chunks = [
        Chunk(doc * 64, f"{doc}.pdf", i, 1 + i, "", (Rect(0, 0, 1, 1),)) for i in range(pages)
    ]
    return stages.DocPool(doc * 64, [(c, best - 0.01 * i) for i, c in enumerate(chunks)], [])


def case(source: str, right_prior: float, page: int) -> fit.Case:
    """Two documents; the gold one ("a") has ``right_prior`` and its gold page at ``page``."""
    pool = stages.Pool(
        (pool_of("a", 8, 0.9), pool_of("b", 8, 0.9)),
        prior={"a" * 64: right_prior, "b" * 64: 1.0 - right_prior + 0.5},
    )
    return fit.Case(source, f"{source}/qa.jsonl", pool, ("a.pdf",), (page,))


GRID = {"doc_weight": (0.0, 8.0), "docs": (2,)}


def test_the_point_that_ranks_gold_pages_higher_is_chosen():
    cases = [case("x", 1.0, 4), case("x", 1.0, 3)]  # routing right: trust it
    table = fit.score_grid(cases, Weights(), GRID)
    point, (hit5, _) = fit.best(table, {"x/qa.jsonl"})
    assert point == {"doc_weight": 8.0, "docs": 2} and hit5 == 1.0
    flat = next(s for p, s in table if p["doc_weight"] == 0.0)["x/qa.jsonl"]
    assert flat[0] < 1.0  # the premise: interleaving the documents pushes page 4 out


def test_ties_keep_the_grid_order_and_a_source_is_scored_by_the_others_choice():
    cases = [case("x", 1.0, 4), case("y", 0.5, 1)]
    table = fit.score_grid(cases, Weights(), GRID)
    out = fit.leave_one_out(table, {"x/qa.jsonl": "x", "y/qa.jsonl": "y"})
    without_y, scores_y, _ = out["y"]
    assert without_y["doc_weight"] == 8.0  # what x wants
    assert scores_y["y/qa.jsonl"] == 1.0  # y's gold page 1 is first either way: a tie...
    without_x, scores_x, _ = out["x"]
    assert without_x["doc_weight"] == 0.0  # ... which keeps the grid's first value
    assert scores_x["x/qa.jsonl"] < 1.0
