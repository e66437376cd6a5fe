"""The checks registry: its order, who decided, switching checks off, names and short forms."""

import sys

import pytest

from papertrail.errors import PaperTrailError
from papertrail.settings import Settings
from papertrail.verify import checks
from papertrail.verify.calibrated import fit, thresholds
from papertrail.verify.judge import judge
from papertrail.verify.reading import claim_view
from papertrail.verify.verify import verify_answer
from tests.fakes import HashEmbedder
from tests.papertrail.verify.test_verify import ENCODER, hits


def test_the_registry_lists_hard_checks_before_soft_ones_in_a_fixed_order():
    assert checks.NAMES == (
        "figures", "asks", "negation", "contrast", "period", "figure-period", "figure-bound",
        "period-length", "direction", "qualifier", "superlative", "clauses", "answer-name",
    )  # fmt: skip
    hard = [c.hard for c in checks.CHECKS]
    assert hard == sorted(hard, reverse=True)  # every hard check is tried first
    assert all(c.name in checks.NAMES for c in checks.active(("figures", "some-answerer")))
    assert "figures" not in [c.name for c in checks.active(("figures",))]
    assert isinstance(checks.unknown(["figures", "nonsense"]), PaperTrailError)
    assert checks.unknown(["figures"]) is None


@pytest.mark.parametrize(
    "check,claim,excerpt",
    [
        ("figures", "The encoder is a stack of 12 identical layers.", ENCODER),
        (
            "negation",
            "The model was trained without dropout.",
            "The model was trained with dropout.",
        ),
        (
            "contrast",
            "The base configuration was trained on the filtered corpus for two weeks.",
            "The large configuration was trained on the filtered corpus for two weeks.",
        ),
        ("period", "Revenue grew 5% in fiscal 2021.", "Revenue grew 5% in fiscal 2023 over 2022."),
        (
            "figure-period",
            "Widget revenue rose 23% in the second quarter.",
            "Widget revenue rose 2% for the three months ended June 30 and rose 23% for the six "
            "months ended June 30.",
        ),
        (
            "asks",
            "Storage costs fell after the release.",
            "Did storage costs fall after the release?",
        ),
    ],
)
def test_judgement_names_the_hard_check_that_decided_and_without_it_another_decides(
    check, claim, excerpt
):
    verdict = judge(claim, excerpt)
    assert not verdict.supported and verdict.decided_by == check
    assert verdict.level == "not stated" and verdict.confidence == 0.0
    assert judge(claim, excerpt, without=(check,)).decided_by != check


def test_a_switched_off_check_lets_the_calibrated_decision_judge():
    claim = "The encoder is composed of a stack of 7 identical layers."
    assert judge(claim, ENCODER).decided_by == "figures"
    off = judge(claim, ENCODER, without=("figures",))
    assert off.decided_by != "figures" and off.confidence > 0


def test_verify_answer_and_settings_honour_without():
    answer = "The encoder is a stack of 7 identical layers [1]."
    assert not verify_answer(answer, hits(ENCODER)).citations
    assert Settings.from_env({"PAPERTRAIL_WITHOUT": "figures, contrast"}).without == (
        "figures",
        "contrast",
    )
    assert Settings().without == ()
    kept = verify_answer(answer, hits(ENCODER), without=("figures",))
    assert all(c.level for c in kept.citations + kept.dropped)


def test_a_word_inside_a_name_ranks_nothing():
    excerpt = "Best Buy reported revenue of $43.5 billion for the fiscal year."
    said = judge("Best Buy reported revenue of $43.5 billion for the fiscal year.", excerpt)
    assert said.supported
    ranked = judge("The ensemble is the best system on the benchmark.", "The ensemble is a system.")
    assert (
        ranked.confidence
        < judge(
            "The ensemble is a system on the benchmark.", "The ensemble is a system."
        ).confidence
    )


@pytest.mark.parametrize(
    "claim,excerpt",
    [
        (
            "Widget sales rose 12% in FY2022.",
            "In fiscal year 2022, widget sales increased 12% on higher volume.",
        ),
        (
            "Q3 widget revenue was $1.2 million.",
            "For the three months ended September 30, widget revenue was $1.2 million.",
        ),
        (
            "NRR was 158% at the end of the quarter.",
            "Our Net Revenue Retention (NRR) was 158% at the end of the quarter.",
        ),
        (
            "Gross margin widened by 40 bps.",
            "Gross margin widened by 40 basis points compared with last year.",
        ),
    ],
)
def test_short_forms_are_found_in_their_long_forms(claim, excerpt):
    verdict = judge(claim, excerpt, embedder=HashEmbedder())
    assert verdict.supported, verdict.reason
    assert dict(verdict.scores)["coverage"] >= 0.9


def test_direction_reversed_weakens_and_is_named():
    claim = "Widget sales rose 12% in the quarter."
    excerpt = "Widget sales decreased 12% in the quarter on lower volume."
    assert judge(claim, excerpt).decided_by == "contrast"  # "decreased" beside "sales"
    turned = judge(claim, excerpt, without=("contrast",))
    assert turned.level != "verified"
    blind = judge(claim, excerpt, without=("contrast", "direction", "qualifier"))
    assert turned.confidence < blind.confidence


def test_fit_is_deterministic_and_thresholds_keep_good_citations():
    rows = [{"bias": 1.0, "coverage": c} for c in (0.9, 0.8, 0.7, 0.3, 0.2, 0.1, 0.6, 0.4)]
    labels = [True, True, True, False, False, False, True, False]
    names = ("bias", "coverage")
    assert fit(rows, labels, names) == fit(rows, labels, names)
    assert fit(rows, labels, names)["coverage"] > 0
    keep, verified = thresholds([0.9, 0.8, 0.2, 0.1], [True, True, False, False])
    assert keep == 0.8 and verified >= keep


def test_no_text_helper_is_reentered_per_pair_of_sentences():
    """Each claim is parsed once however many excerpts it is judged against."""
    answer = "The encoder has 6 layers [1]. Each layer has two sub-layers [2]."
    excerpts = [ENCODER + f" Variant {i} adds nothing." for i in range(6)]
    counts: dict[str, int] = {}

    def trace(frame, event, arg):
        code = frame.f_code
        if event == "call" and "papertrail/text/coverage" in code.co_filename:
            counts[code.co_name] = counts.get(code.co_name, 0) + 1

    def parses(n: int) -> int:
        claim_view.cache_clear()
        counts.clear()
        sys.setprofile(trace)
        try:
            verify_answer(answer, hits(*excerpts[:n]))
        finally:
            sys.setprofile(None)
        return counts.get("parse", 0)

    assert parses(2) == parses(6) > 0
