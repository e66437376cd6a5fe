"""The claim's figure read where the excerpt states it: another period, comparison or bound."""

import pytest

from papertrail.verify.anchors import BOUND, PERIOD, anchor_conflicts
from papertrail.verify.judge import judge
from tests.fakes import HashEmbedder

TWO_PERIODS = (
    "Gadget revenue increased 4% for the three months ended March 31, 2024 compared to the "
    "prior year quarter and increased 19% for the six months ended March 31, 2024 compared to "
    "the prior year period."
)
SEQUENTIAL = (
    "In the quarter we added 31 enterprise customers. Subscription revenue from enterprise "
    "customers grew 27% quarter-over-quarter. Enterprise customers now represent over 27% of "
    "subscriptions."
)
GUIDANCE = (
    "For the second quarter of fiscal 2025, we expect revenue between $310 million and $315 "
    "million. For the full year fiscal 2025, we expect revenue between $1.3 billion and $1.4 "
    "billion."
)
RESPECTIVELY = (
    "Unit sales increased 3.1% and 4.4% in the first quarter and the first half, respectively."
)


@pytest.mark.parametrize(
    "claim,excerpt,kind",
    [
        ("Gadget revenue grew 19% in the first quarter of 2024.", TWO_PERIODS, "length"),
        ("Gadget revenue grew 4% in the first half of 2024.", TWO_PERIODS, "length"),
        ("Enterprise subscription revenue grew 27% year over year.", SEQUENTIAL, "comparison"),
        ("The company guided full-year fiscal 2025 revenue of $310 million to $315 million.",
         GUIDANCE, "length"),
        ("Customers above the threshold rose to 81 in Q2, up from 70 a year earlier.",
         "In Q2, customers above the threshold increased to 81, up from 70 last quarter.",
         "comparison"),
    ],
)  # fmt: skip
def test_a_figure_moved_to_another_period_is_caught(claim, excerpt, kind):
    said = anchor_conflicts(claim, excerpt)
    assert list(said) == [PERIOD]
    verdict = judge(claim, excerpt, embedder=HashEmbedder())
    assert not verdict.supported and verdict.decided_by == "figure-period"
    assert judge(claim, excerpt, without=("figure-period",)).decided_by != "figure-period"


@pytest.mark.parametrize(
    "claim,excerpt",
    [
        # the same period, in other words
        ("Gadget revenue rose 19% in H1 2024.", TWO_PERIODS),
        ("In the quarterly period ended March 31, 2024, gadget revenue grew 4% YoY.", TWO_PERIODS),
        ("Enterprise subscription revenue grew 27% QoQ.", SEQUENTIAL),
        ("Enterprise subscription revenue grew 27% sequentially.", SEQUENTIAL),
        ("Q2 FY25 revenue is guided at $310 million to $315 million.", GUIDANCE),
        # the claim or the excerpt names no period beside the figure: no evidence either way
        ("Enterprise customers are over 27% of subscriptions.", SEQUENTIAL),
        ("Gadget revenue increased 19%.", TWO_PERIODS),
        # a share is no period; a claim naming both periods keeps either
        ("Full-year cloud revenue grew 12%.",
         "Cloud revenue, now a quarter of the total, grew 12% in fiscal 2024."),
        ("In the fourth quarter, cloud revenue grew 18%, bringing full-year growth to 12%.",
         "Fourth-quarter cloud revenue grew 18%."),
        ("ARR grew 30% in Q3.", "Annual recurring revenue grew 30% to $2.1 billion."),
        # "respectively" pairs figures and periods in an order this does not read
        ("Unit sales grew 4.4% in the first half.", RESPECTIVELY),
        # a date's day is no figure of its own
        ("The probe launched on 28 September 2015 in the third quarter.",
         "The probe was launched on September 28, 2015, a year after the lander."),
    ],
)  # fmt: skip
def test_the_same_period_in_other_words_or_none_is_no_conflict(claim, excerpt):
    assert anchor_conflicts(claim, excerpt) == {}


def test_the_statement_sharing_the_claims_words_is_the_one_read():
    # "27%" twice: the claim restates the growth, not the share of subscriptions
    claim = "Subscription revenue from enterprise customers grew 27% year over year."
    assert PERIOD in anchor_conflicts(claim, SEQUENTIAL)


BOUNDS = (
    "Revenue from retail customers grew more than 60% year-over-year, and revenue from "
    "wholesale customers grew just under 60% year-over-year. We now have 2,400-plus dealers."
)


@pytest.mark.parametrize(
    "claim,caught",
    [
        ("Wholesale revenue grew more than 60% year over year.", True),
        ("Retail revenue grew just under 60% year over year.", True),
        ("Retail revenue grew more than 60% YoY.", False),
        ("Wholesale revenue grew nearly 60% year over year.", False),
        ("Wholesale revenue grew about 60%.", False),  # "about" bounds nothing
        ("There are over 2,400 dealers.", False),
        ("There are fewer than 2,400 dealers.", True),
    ],
)
def test_a_bound_on_the_other_side_of_the_figure_is_caught(claim, caught):
    assert (BOUND in anchor_conflicts(claim, BOUNDS)) is caught
    if caught:
        verdict = judge(claim, BOUNDS, embedder=HashEmbedder())
        assert not verdict.supported and verdict.decided_by == "figure-bound"


def test_the_figure_not_taken_is_not_the_figure_used():
    excerpt = "The large model used a learning rate of 0.002, instead of 0.001."
    assert BOUND in anchor_conflicts("The large model used a learning rate of 0.001.", excerpt)
    swapped = "The large model used a learning rate of 0.001 rather than 0.002."
    assert "not taken" in anchor_conflicts(swapped, excerpt)[BOUND]
    same = "The large model used a learning rate of 0.002 rather than 0.001."
    assert anchor_conflicts(same, excerpt) == {}
