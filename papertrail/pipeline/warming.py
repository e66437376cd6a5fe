"""Answering a made-up question once at start, so the first real one is not the slowest.

The first question a process answers pays for what the answerers and the
verifier do only once per process: their regular expressions compiled (one
holds several hundred alternatives), word lists and stems read and cached.
That was ~130 ms of a first question at load 5 on the 33-filing channel, on
top of its own work. ``warm_answering`` reads a question, answers it from a
small built-in excerpt (a table row and a sentence) with the offline
answerers, and verifies the answer, with no embedder: nothing is embedded,
stored or kept beyond the process-wide caches a real question fills anyway.
It leaves out the model and the BM25 indexes (``Retriever.warm_up``).
"""

from __future__ import annotations

from collections.abc import Sequence

from papertrail.answer.extractive import ExtractiveGenerator
from papertrail.text.ask import read
from papertrail.text.memo import scope
from papertrail.types import Chunk, Hit
from papertrail.verify.computed import verify_calculation
from papertrail.verify.verify import verify_answer

QUESTION = "How many visitors did the Example Museum have in 2023, in thousands?"
EXCERPT = (
    "Table 2. Visitors by site (in thousands) 2023 2022 2021 "
    "Total visitors 4,210 3,870 3,515 Main hall 2,480 2,301 2,090 "
    "Garden 612 540 498. "
    "Total visitors rose 9% to 4,210 thousand in 2023, helped by longer opening hours."
)


def warm_answering(domains: Sequence = (), without: Sequence[str] = ()) -> str:
    """Answer ``QUESTION`` from ``EXCERPT`` and verify it; the verified text (for tests)."""
    chunk = Chunk(doc_id="warm-up", doc_name="warm-up.pdf", index=0, page=1, text=EXCERPT, rects=())
    hits = [Hit(chunk, score=1.0)]
    with scope():  # as ``PaperTrail.ask`` reads each text once
        ask = read(QUESTION, domains)
        answerer = ExtractiveGenerator(None, domains=domains, without=without)
        worked = answerer.figure(ask, hits)
        if worked is not None and worked.calculation is not None:
            verify_calculation(
                worked.text, worked.calculation, hits, without=without, domains=domains
            )
        draft = answerer.generate(ask, hits)
        checked = verify_answer(draft.text, hits, question=ask, without=without, domains=domains)
    return checked.text
