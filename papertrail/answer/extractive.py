"""The offline answerer: the first of its rules (``answerers.registry``) that answers.

``ExtractiveGenerator`` implements the ``Generator`` protocol without an LLM:
it tries each ``Answerer`` in order (a domain's worked-out metric, an acronym's
long form, the name beside a code, a labelled value, a definition, a table
figure, the quoted sentences) and returns the first ``Draft``, with ``by``
naming the rule. When none answers it returns the refusal sentence, with the
closest passages as notes (passages to read, not an answer). It never
paraphrases prose, so its citations pass verification by construction; apart
from a domain's metrics it does not compute, compare or summarise, and it
leaves the "extractive" label to the caller. Whether a quote states what was
asked is checked by the verifier (``verify.question``), as for any answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from papertrail.answer.answerers import registry
from papertrail.answer.quotable import closest_passages
from papertrail.answer.quote import SHORTLIST
from papertrail.protocols import Embedder
from papertrail.settings import REFUSAL
from papertrail.text.ask import read
from papertrail.types import Ask, Draft, Hit

__all__ = ["SHORTLIST", "ExtractiveGenerator"]


class ExtractiveGenerator:
    """Answers with the first registered rule that finds an answer in ``hits``."""

    mode = "extractive"

    def __init__(
        self,
        embedder: Embedder | None = None,
        max_sentences: int = 3,
        domains: Sequence = (),
        without: Sequence[str] = (),
    ) -> None:
        self.embedder = embedder
        self.domains = tuple(domains)  # ``protocols.Domain``s: their metrics and wording
        self.answerers = registry(
            embedder, self.domains, max_sentences=max_sentences, without=without
        )

    def generate(self, question: Ask | str, hits: Sequence[Hit]) -> Draft:
        ask = self.read(question)
        for answerer in self.answerers:
            draft = answerer.answer(ask, hits)
            if draft is not None:
                return replace(draft, by=answerer.name)
        # say so, and show where the documents come closest
        return Draft(text=REFUSAL, mode=self.mode, notes=closest_passages(hits))

    def figure(self, question: Ask | str, hits: Sequence[Hit]) -> Draft | None:
        """A figure a domain's metric works out from the rows of ``hits`` (the pipeline
        answers those in code whatever the generator), else None."""
        ask = self.read(question)
        for answerer in self.answerers:
            if answerer.name.endswith(" metric") and (draft := answerer.answer(ask, hits)):
                return replace(draft, by=answerer.name)
        return None

    def read(self, question: Ask | str) -> Ask:
        """``question`` as read once (a caller holding only its text gets it read here)."""
        return question if isinstance(question, Ask) else read(question, self.domains)
