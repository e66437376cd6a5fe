"""Topically close wrong citations: the excerpt shares the claim's words but says otherwise.

Every fixture is written here, in the style of papers, filings and manuals. Each
wrong pair shares most of its words with the claim (word overlap alone accepts
it); each right pair next to it words the same fact differently and must pass.
"""

import numpy as np
import pytest

from papertrail.domains import KNOWN
from papertrail.verify import contrast, mentions, periods, rivals
from papertrail.verify.judge import judge
from tests.fakes import HashEmbedder

# (kind, claim, excerpt that does not state it)
WRONG = [
    (
        "variant: trained without the objective",
        "The encoder was pre-trained with the sentence ordering objective.",
        "To measure its effect, we pre-train a second encoder without the sentence ordering "
        "objective and report accuracy on the reading benchmarks.",
    ),
    (
        "negated claim, plain excerpt",
        "The company does not expect gross margin to expand next year.",
        "We expect gross margin to expand next year as freight costs ease.",
    ),
    (
        "plain claim, negated excerpt",
        "Adding the auxiliary loss improved parsing accuracy.",
        "Adding the auxiliary loss did not improve parsing accuracy in any setting.",
    ),
    (
        "antonym beside the same word",
        "Operating expenses decreased in the second half of the year.",
        "Operating expenses increased in the second half of the year, driven by hiring.",
    ),
    (
        "the other part of the model",
        "The decoder stack applies masked attention to previous positions.",
        "The encoder stack applies attention to all positions of the input.",
    ),
    (
        "another model size",
        "The base configuration was trained on the filtered corpus for two weeks.",
        "The large configuration was trained on the filtered corpus for two weeks.",
    ),
    (
        "another year",
        "Gross margin improved in fiscal 2021 on lower freight costs.",
        "Gross margin improved in fiscal 2023 on lower freight costs, compared with fiscal 2022.",
    ),
    (
        "another quarter",
        "Subscription revenue in the third quarter grew on new enterprise contracts.",
        "Subscription revenue in Q2 grew on new enterprise contracts.",
    ),
    (
        "a question states nothing",
        "Customers moved analytics workloads to the platform because storage became cheaper.",
        "Did customers move analytics workloads to the platform because storage became cheaper?",
    ),
    (
        "a mention states nothing",
        "There is strong demand for the compression feature among large customers.",
        "Next, an analyst asked about demand for the compression feature among large customers.",
    ),
    (
        "a variant without a common-word objective",
        "The encoder is pre-trained with the next sentence prediction task.",
        "To test it, we pre-train a second encoder without the next sentence prediction task.",
    ),
    (
        "the excerpt cannot, the claim can",
        "Users can replace the battery themselves.",
        "The battery cannot be replaced by the user; contact an authorised service centre.",
    ),
    (
        "an open question states nothing",
        "The method is robust to noisy labels.",
        "Whether the method is robust to noisy labels is an open question we leave to future work.",
    ),
    (
        "a study announced states nothing",
        "Performance changes with the number of encoder layers.",
        "We study how performance changes with the number of encoder layers in Section 5.",
    ),
    (
        "the other part, named elsewhere in the claim",
        "The decoder attends over the encoder output with multi-head attention.",
        "The encoder attends over its own output with multi-head self-attention in every layer.",
    ),
]

# (kind, claim, excerpt that states it in other words)
# Softer signs (a ranking, a joined statement, an answer's name the span lacks): each is a
# soft check, so it weakens the citation by its fitted weight instead of vetoing it.
SOFTENED = [
    (
        "the claim ranks, the excerpt does not",
        "superlative",
        "The retail segment was the largest contributor to revenue growth.",
        "The retail segment was a contributor to revenue growth, alongside wholesale.",
    ),
    (
        "one of the claim's two statements is not there",
        "clauses",
        "We replace the sinusoidal encoding with learned embeddings, and observe equal results.",
        "In row (E) we replace the sinusoidal positional encoding with learned positional "
        "embeddings of the same size.",
    ),
    (
        "an abbreviated degree is a name",
        "answer-name",
        "The lead author has an M.S. degree.",
        "The lead author has shown that the error grows to a large degree with noise.",
    ),
]


RIGHT = [
    (
        "negation said by a prefix",
        "The survey finds that small models are not effective few-shot rankers.",
        "We find that small models are ineffective few-shot rankers in general.",
    ),
    (
        "both directions beside one word, the claim restates both",
        "Q3 widget sales rose 4% to $2.0 billion, while Q2 widget sales had fallen 1%.",
        "Third quarter widget sales increased 4% to $2.0 billion. In the second quarter, "
        "widget sales decreased 1%.",
    ),
    (
        "negation said another way",
        "The model does not use recurrence.",
        "The model dispenses with recurrence entirely and relies on attention alone.",
    ),
    (
        "both negate",
        "The company is not involved in material litigation.",
        "Management believes pending litigation will not have a material effect on the company.",
    ),
    (
        "the period written another way",
        "Revenue in Q3 FY23 grew on enterprise demand.",
        "In the third quarter of fiscal 2023, revenue grew on enterprise demand.",
    ),
    (
        "the same word in both, antonym elsewhere",
        "Net revenue increased on higher volume.",
        "Net revenue increased on higher volume, while costs decreased slightly.",
    ),
    (
        "a superlative said as outperforming",
        "The ensemble is the best system on the benchmark.",
        "The ensemble outperforms every other system on the benchmark.",
    ),
    (
        "a question answered",
        "Storage costs fell after the compression release.",
        "Did storage costs change? Yes: storage costs fell after the compression release.",
    ),
    (
        "a table row with its headings, in other units",
        "Total revenue in fiscal 2022 was $1.5 billion.",
        "(in millions) Fiscal 2022 Fiscal 2021 Total revenue $ 1,500 $ 1,320 Cost of sales 610 577",
    ),
    (
        "lakh and crore",
        "The plant's output was worth Rs 2.4 crore in the second half of 2021.",
        "In H2 2021 the plant produced goods worth Rs 2,40,00,000, up from Rs 1,90,00,000.",
    ),
    (
        "model names written as one word",
        "Corvid-large clearly outperforms Corvid-base on every task.",
        "We find that CORVIDLARGE clearly outperforms CORVIDBASE on every task we tried.",
    ),
    (
        "an acronym that holds the claim's",
        "The masked LM objective fuses left and right context.",
        "Unlike left-to-right training, the MLM objective fuses the left and right context.",
    ),
    (
        "a generic subject and an irregular verb",
        "The company does not pay a dividend.",
        "We have never paid cash dividends on our common stock.",
    ),
    (
        "a name the claim uses itself, beside another word",
        "The model reaches 30.1 BLEU on the WMT 2016 English-to-Czech task.",
        "It reaches 30.1 BLEU on English-to-Czech and 22.5 BLEU on Czech-to-English.",
    ),
    (
        "a degree written with its letters",
        "The lead author has an M.S. degree.",
        "J. Doe, M.S., lead author, joined the laboratory in the spring.",
    ),
]


@pytest.mark.parametrize("kind,claim,excerpt", WRONG, ids=[w[0] for w in WRONG])
def test_a_close_excerpt_that_says_otherwise_fails(kind, claim, excerpt):
    for emb in (None, HashEmbedder()):
        verdict = judge(claim, excerpt, embedder=emb)
        assert not verdict.supported, (kind, verdict.reason)


@pytest.mark.parametrize("kind,check,claim,excerpt", SOFTENED, ids=[w[0] for w in SOFTENED])
def test_a_softer_sign_weakens_and_never_reads_verified(kind, check, claim, excerpt):
    for emb in (None, HashEmbedder()):
        verdict = judge(claim, excerpt, embedder=emb)
        assert verdict.level != "verified", (kind, verdict.reason)
        assert verdict.confidence < judge(claim, excerpt, embedder=emb, without=(check,)).confidence
        if not verdict.supported:
            assert verdict.decided_by in (check, "calibrated")


@pytest.mark.parametrize("kind,claim,excerpt", RIGHT, ids=[r[0] for r in RIGHT])
def test_the_same_fact_in_other_words_passes(kind, claim, excerpt):
    verdict = judge(claim, excerpt, embedder=HashEmbedder())
    assert verdict.supported, (kind, verdict.reason)
    assert contrast.conflict(claim, excerpt, excerpt) is None


def test_reasons_name_what_differs():
    neg = contrast.negation_conflict(WRONG[0][1], WRONG[0][2])
    assert neg == "the excerpt negates 'sentence', the sentence does not"
    swap = contrast.substitution(WRONG[3][1], WRONG[3][2])
    assert swap == "the excerpt says 'increased' beside 'expenses', not 'decreased'"
    _, year_claim, year_excerpt = next(w for w in WRONG if w[0] == "another year")
    period = periods.period_conflict(year_claim, year_excerpt)
    assert period == "the excerpt is about year 2022, 2023, not 2021"


def test_periods_read_fiscal_and_quarter_forms():
    assert periods.periods("Q3 FY23") == {"year": {2023}, "quarter": {3}}
    assert periods.periods("the third quarter of fiscal 2023") == {
        "year": {2023},
        "quarter": {3},
    }
    assert periods.periods("H2 2021 and the first half of 2022") == {
        "year": {2021, 2022},
        "half": {1, 2},
    }
    assert periods.periods("$2,023 million, 2022.5 units") == {}  # amounts are not years
    assert periods.periods("In Q4 12 new customers joined; Q1 '24 and FY 22") == {
        "year": {2024, 2022},
        "quarter": {4, 1},
    }
    # an excerpt that names no period of the kind neither confirms nor contradicts
    assert periods.period_conflict("Revenue grew in 2021.", "Revenue grew strongly.") is None
    assert periods.period_conflict("Revenue grew.", "Revenue grew in 2020.") is None


def test_asserted_blanks_questions_and_mentions_keeping_offsets():
    text = "Is churn rising? Churn fell. He asked about pricing, and margins rose."
    said = mentions.asserted(text)
    assert len(said) == len(text)
    assert "churn rising" not in said and "Churn fell." in said
    assert "pricing" not in said and "margins rose" in said


def test_superlatives_are_adjectives_not_words_ending_in_est():
    assert contrast.missing_superlative("Margins were the highest in ten years.", "Margins rose.")
    assert contrast.missing_superlative("It is the earliest model.", "It is a model.")
    for claim in ("Interest income rose.", "The test set was held out.", "The latest filing."):
        assert contrast.missing_superlative(claim, "Nothing ranks here.") is None


class Cosine:
    """Embeds the first text (the claim) as e1 and every other at cosine ``c`` to it."""

    def __init__(self, c: float) -> None:
        self.c = c

    def embed(self, texts):
        other = [self.c, (1 - self.c**2) ** 0.5]
        return np.array([[1.0, 0.0]] + [other] * (len(texts) - 1), dtype=np.float32)


def test_meaning_raises_confidence_and_a_loose_paraphrase_is_not_kept():
    claim = "The new compression format lowered storage bills for enterprise customers."
    excerpt = "Storage bills for enterprise customers are billed monthly in arrears."
    close = judge(claim, excerpt, embedder=Cosine(0.5))  # on the subject, not the relation
    assert not close.supported and "similarity 0.50" in close.reason
    assert close.decided_by == "calibrated" and close.level == "not stated"
    assert judge(claim, excerpt, embedder=Cosine(0.9)).confidence > close.confidence


def test_a_claim_that_itself_mentions_or_contracts_reads_the_whole_excerpt():
    said = "Well, we talked about this on previous calls: public sector revenue is growing."
    assert judge("We talked about this on previous calls.", said).supported
    words = "I don't see us getting into the 80s, and we're fine with that."
    assert judge(words, words).supported  # "don", "re" are no words of their own


def test_another_name_in_the_same_place_is_no_veto_and_never_reads_verified():
    # words alone cannot tell another company from the same one written short or long
    # ("GM" / "General Motors"), so a name in the claim's place vetoes nothing; the
    # missing name still weighs in the calibrated decision
    claim = "Contoso revenue in the services segment grew steadily."
    other = "Fabrikam revenue in the services segment grew steadily."
    assert contrast.substitution(claim, other) is None
    for emb in (None, HashEmbedder()):
        verdict = judge(claim, other, embedder=emb)
        assert verdict.decided_by != "contrast" and verdict.level != "verified"
        assert verdict.confidence < judge(claim, claim, embedder=emb).confidence
    short = "GM revenue in the services segment grew steadily."
    long = "General Motors revenue in the services segment grew steadily."
    assert judge(short, long, embedder=HashEmbedder()).supported


def test_words_on_the_same_side_of_a_contrast_are_not_rivals():
    fell = "Operating income fell because of higher raw material costs."
    decreased = "Operating income decreased, mainly because of higher costs for raw materials."
    assert contrast.substitution(fell, decreased) is None
    assert contrast.substitution(fell, decreased.replace("decreased", "increased"))


class Ledger:
    """A domain of its own (``protocols.Domain``'s words): its contrasting words only."""

    name = "ledger"
    amounts = frozenset()
    contrasts = ("basic | diluted", "debit card | credit card")


def test_a_domain_adds_its_contrasting_words():
    claim = "Basic earnings per share were $1.27 in 2019."
    span = "Diluted earnings per share were $1.27 in 2019, up from $1.10."
    assert contrast.substitution(claim, span) is None  # no general contrast
    extra = rivals.domain_contrasts([Ledger()])
    assert extra == ("basic | diluted", "debit card | credit card")
    swap = contrast.substitution(claim, span, extra)
    assert swap == "the excerpt says 'diluted' beside 'earnings', not 'basic'"
    assert judge(claim, span).supported != judge(claim, span, domains=[Ledger()]).supported
    assert judge(claim, span, domains=[Ledger()]).decided_by == "contrast"
    # the finance domain holds the per-share contrast the generic lexicon leaves out
    assert "basic | diluted" in rivals.domain_contrasts(KNOWN)


def test_a_fiscal_year_ending_early_in_the_year_goes_by_either_name():
    ended = "For the fiscal year ended January 28, 2024, net revenue was $5.1 billion."
    assert periods.period_conflict("FY2023 net revenue was $5.1 billion.", ended) is None
    assert periods.period_conflict("FY2024 net revenue was $5.1 billion.", ended) is None
    assert periods.period_conflict("FY2022 net revenue was $5.1 billion.", ended)
    december = "For the year ended December 31, 2023, net revenue was $5.1 billion."
    assert periods.period_conflict("FY2022 net revenue was $5.1 billion.", december)
