"""Replies in the habits of small local models, replayed through the whole bot.

A replay server (tests/fake_openai.py) answers the Groq client with replies
written here the way small instruction-tuned models write them: no ``[n]``
markers at all, a paper's own reference brackets copied into the answer,
wrong figures taken from the right excerpt, refusals in their own words, and
slowly. Behind the chat service runs the real pipeline (PyMuPDF, chunking,
in-memory Chroma, retrieval, verification) on a paper written here.
"""

from __future__ import annotations

import re

import pytest

from adapters.chat.replies import UNGROUNDED, UNSUPPORTED
from adapters.chat.service import Attachment, ChatService, Mention
from papertrail.answer.budget import TokenBudget
from papertrail.answer.extractive import ExtractiveGenerator
from papertrail.answer.llm import GroqGenerator
from papertrail.pipeline import PaperTrail
from papertrail.settings import Settings
from papertrail.store.chroma import ChromaStore
from tests.fake_openai import FakeOpenAI, Recorded, replayer
from tests.fakes import HashEmbedder
from tests.pdfs import simple_pdf

PAPER = [
    "3.2 Attention Heads. In this work the Lattice network employs h = 8 parallel attention "
    "layers, or heads. For each of these we use dk = dv = dmodel/h = 64. The decoder attends "
    "over the encoder output, which mimics the typical encoder-decoder attention mechanisms "
    "in sequence-to-sequence models such as [38, 2, 9].",
    "5.3 Optimizer. We used the Adam optimizer [20] with beta1 = 0.9, beta2 = 0.98 and "
    "epsilon = 10^-9. We varied the learning rate over the course of training.",
    "6 Results. On the WMT 2014 English-to-German translation task, the big Lattice model "
    "establishes a new state-of-the-art BLEU score of 28.4. Training took 3.5 days on 8 P100 "
    "GPUs. On the WMT 2014 English-to-French translation task, our big model achieves a BLEU "
    "score of 41.0, outperforming all of the previously published single models.",
    "6.3 English Constituency Parsing. To evaluate if the Lattice network can generalize to "
    "other tasks we performed experiments on English constituency parsing. Our model reaches "
    "an F1 score of 91.3 on the WSJ test set.",
]
MODEL = "tiny-local-model-q4"
HEADS_Q = "How many parallel attention heads does the Lattice network use?"
OPTIMIZER_Q = "Which optimizer was used?"
DECODER_Q = "What does the decoder attention mimic?"
PARSING_Q = "What score did the Lattice network reach on English constituency parsing?"
GERMAN_Q = "What BLEU score does the big model achieve on WMT 2014 English-to-German?"
WARMUP_Q = "How many warmup steps were used?"
SLOW_Q = "What F1 score does the model reach on the WSJ test set?"
RECORDED = [
    Recorded(
        MODEL,
        HEADS_Q,
        "The Lattice network employs h = 8 parallel attention layers, or heads. "
        "For each of these we use dk = dv = dmodel/h = 64.",
    ),
    Recorded(MODEL, OPTIMIZER_Q, "Adam [20] with beta1 = 0.9, beta2 = 0.98 and epsilon = 10^-9."),
    Recorded(
        MODEL,
        DECODER_Q,
        "The decoder attention mimics the typical encoder-decoder attention mechanisms in "
        "sequence-to-sequence models such as [38, 2, 9].",
    ),
    Recorded(MODEL, PARSING_Q, "The Lattice network reached a BLEU score of 28.4 on parsing."),
    Recorded(
        MODEL,
        GERMAN_Q,
        "The big model achieves a BLEU score of 41.0, outperforming all of the previous models.",
    ),
    Recorded(MODEL, WARMUP_Q, "The document contains no information about warmup steps."),
    Recorded(MODEL, SLOW_Q, "The model reaches an F1 score of 91.3 on the WSJ test set.", 0.6),
]


@pytest.fixture
def bot(tmp_path):
    with FakeOpenAI(respond=replayer(RECORDED, speed=1.0)) as server:
        settings = Settings(
            data_dir=tmp_path,
            groq_base_url=server.url,  # a local server: no key
            groq_model="whatever-is-loaded",
            llm_timeout=10.0,
        )
        embedder = HashEmbedder()
        extractive = ExtractiveGenerator(embedder)
        generator = GroqGenerator(settings, fallback=extractive, budget=TokenBudget(None, 0))
        pipeline = PaperTrail(
            settings,
            embedder=embedder,
            store=ChromaStore.ephemeral(model=embedder.name),
            generator=generator,
        )
        service = ChatService(pipeline)
        service.slow_answer_after = 0.3
        paper = simple_pdf(PAPER)
        attachment = Attachment("lattice.pdf", lambda: paper, size=len(paper))
        service.handle(Mention("ch", "", (attachment,), user="u1"))
        yield service, server


def ask(service: ChatService, question: str, lines: list[str] | None = None):
    reply = service.handle(
        Mention("ch", question, user="u1"), lines.append if lines is not None else None
    )
    assert reply.kind == "answer", reply.text
    return reply


def markers(text: str) -> list[str]:
    return re.findall(r"\[[^\]]*\]", text)


def test_sentences_without_markers_are_cited_by_the_checker(bot):
    service, _ = bot
    reply = ask(service, HEADS_Q)
    assert reply.text == (
        "The Lattice network employs h = 8 parallel attention layers, or heads [1]. "
        "For each of these we use dk = dv = dmodel/h = 64 [1]."
    )
    (source,) = reply.sources
    assert source.page == 1
    assert reply.answer.citations[0].reason.startswith("cited by the checker")
    assert "1 citation verified (1 added by the checker)" in reply.footer
    assert "Mode: tiny-local-model-q4" in reply.footer  # the model the server named
    assert reply.warnings == ()


@pytest.mark.parametrize(
    ("question", "page", "copied"), [(OPTIMIZER_Q, 2, "[20]"), (DECODER_Q, 1, "[38, 2, 9]")]
)
def test_copied_reference_brackets_never_survive_as_citations(bot, question, page, copied):
    service, server = bot
    reply = ask(service, question)
    assert copied not in reply.text and markers(reply.text) == ["[1]"]
    assert [s.page for s in reply.sources] == [page]
    (c,) = reply.answer.citations
    assert c.reason.startswith(f"moved from [{copied[1:3].rstrip(',')}], which points at no")
    sent = server.requests[-1].prompt
    assert copied not in sent and copied.replace("[", "(").replace("]", ")") in sent


@pytest.mark.parametrize("question", [PARSING_Q, GERMAN_Q])
def test_wrong_figures_end_with_no_citation(bot, question):
    service, _ = bot
    reply = ask(service, question)
    assert markers(reply.text) == [] and reply.sources == ()
    assert UNGROUNDED in reply.warnings
    assert not reply.answer.grounded and not reply.answer.refusal


def test_a_reworded_refusal_is_a_refusal(bot):
    service, _ = bot
    reply = ask(service, WARMUP_Q)
    assert reply.answer.mode == MODEL  # the model's own words, not an offline refusal
    assert reply.answer.refusal and reply.answer.grounded
    assert UNGROUNDED not in reply.warnings and UNSUPPORTED not in reply.text


def test_a_slow_model_gets_a_progress_line_and_its_answer_is_cited(bot):
    service, _ = bot
    lines: list[str] = []
    reply = ask(service, SLOW_Q, lines)
    assert [line.split(":")[0] for line in lines] == ["Still writing the answer"]
    assert reply.text == "The model reaches an F1 score of 91.3 on the WSJ test set [1]."
    assert reply.answer.notes == ()  # answered within the deadline: no fallback
    quick: list[str] = []
    ask(service, HEADS_Q, quick)
    assert quick == []
