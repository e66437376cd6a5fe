"""One table of questions and what ``text.ask.read`` reads in each."""

from __future__ import annotations

import dataclasses

import pytest

from papertrail.domains import KNOWN
from papertrail.text.ask import as_ask, read
from papertrail.types import Ask

# question -> the fields of its ``Ask`` that matter for it
TABLE = [
    (
        "According to the paper, which hardware was used, and how long did training take?",
        {"preamble": "According to the paper", "kind": "list", "one": False},
    ),
    ("What does NARL stand for?", {"kind": "definition", "acronym": "NARL"}),
    ("What is meant by checksum?", {"kind": "definition", "term": "checksum"}),
    ("Is market CA03 part of the Bay Area? Answer yes or no.", {"kind": "yes-no", "code": ""}),
    ("What's the geographic market name for EPS Code AR01?", {"code": "AR01"}),
    ("What is the definition of 'firmware' in this manual?", {"quoted": "firmware"}),
    ("What is the CA Bar no of the report?", {"field": "CA Bar no"}),
    ("What were net sales in FY2017?", {"years": (2017,), "code": "", "field": ""}),
    ("What was revenue in Q3 2023, in millions?", {"years": (2023,), "quarters": (3,)}),
    ("What was the operating margin, in percent, for FY19?", {"unit": "percent", "years": (2019,)}),
    ("What dropout rate was used for the base model?", {"kind": "figure", "figures": True}),
    ("How many attention heads does the base model use?", {"kind": "figure", "amount": True}),
    ("What optimizer was used?", {"kind": "name", "name": True, "tail": True}),
    ("Which temperature suits it?", {"name": False}),
    ("Why did margins fall?", {"kind": "explain", "explains": True, "figures": False}),
    ("Which is larger, CA19 or Covina?", {"kind": "comparison", "code": ""}),
    ("List the error codes.", {"kind": "list", "one": False}),
    ("What are the uses of the satellites?", {"one": False}),
    ("Who founded the cooperative?", {"kind": "name", "subject": "founded the cooperative"}),
    ("How many brewing strength levels can be chosen?", {"counted": "levels", "change": False}),
    ("How many times did sales double?", {"counted": ""}),  # a ratio, not a count
    ("By how much did revenue increase in 2023?", {"change": True, "which_year": False}),
    ("In which fiscal year did the company go public?", {"which_year": True, "who": False}),
    ("How does the model attend to positions?", {"who": False, "counted": ""}),
    ("What does Figure 2 of the paper depict?", {"caption": "figure 2"}),
    ("What is shown in Table III?", {"caption": "table III"}),
    ("What is the title of Fig. 7?", {"caption": "figure 7"}),
    ("What BLEU does Table 2 report for the big model?", {"caption": ""}),  # asks of it
    ("What do Figures 2 and 3 show?", {"caption": ""}),
    (
        "What is the FY2019 asset ratio? The asset ratio is defined as: net income / total assets.",
        {"defined": "net income / total assets", "years": (2019,)},
    ),
]


@pytest.mark.parametrize(("question", "expected"), TABLE)
def test_a_question_is_read_once_into_its_ask(question, expected):
    ask = read(question, KNOWN)
    assert {k: getattr(ask, k) for k in expected} == expected


def test_a_compound_question_has_its_parts_each_read():
    ask = read("What hardware was used, and how long did training take?")
    assert [p.body for p in ask.parts] == ["What hardware was used", "how long did training take"]
    assert ask.parts[1].figures and not ask.parts[0].figures
    assert ask.questions == ask.parts and read("What hardware?").questions[0].body == (
        "What hardware?"
    )


def test_the_preamble_is_stripped_from_the_body_only():
    ask = read("  According to the   annual report,  what was the dividend?")
    assert ask.text == "According to the annual report, what was the dividend?"
    assert ask.body == "what was the dividend?" and ask.preamble == "According to the annual report"


def test_a_domain_drops_its_instructions_and_names_its_amounts():
    question = "What is the FY2018 revenue? Round your answer to two decimal places."
    assert "Round" in read(question).plain and "Round" not in read(question, KNOWN).plain
    assert read("What was the revenue in 2019?", KNOWN).figures
    assert not read("What was the revenue in 2019?").figures  # a finance word: the domain's


def test_an_ask_is_frozen_and_as_ask_keeps_one():
    ask = read("What optimizer was used?")
    with pytest.raises(dataclasses.FrozenInstanceError):
        ask.kind = "figure"  # type: ignore[misc]
    assert as_ask(ask) is ask and isinstance(as_ask("Why?"), Ask)
