"""A table's or figure's caption, for a question that asks what it shows (``Caption``).

"What does Figure 2 depict?", "What is Table 4 about?", "What is the title of
Figure 7?": the document answers in the caption it prints with the label
(``text.labels.caption``), which the quoting rule never quotes (a caption reads as a
heading). The best-ranked excerpt printing that caption is quoted, label and all,
so the citation is checked like any quote. A question asking something of the table
("What BLEU does Table 2 report for the big model?") is not this rule's
(``Ask.caption`` is empty for it).
"""

from __future__ import annotations

from collections.abc import Sequence

from papertrail.answer.quote import cite
from papertrail.text.labels import caption
from papertrail.types import Ask, Draft, Hit

MAX_HITS = 5  # excerpts searched for the caption, best first


class Caption:
    """The caption of the table or figure the question asks about."""

    name = "caption"

    def answer(self, ask: Ask, hits: Sequence[Hit]) -> Draft | None:
        if not ask.caption:
            return None
        for n, hit in enumerate(hits[:MAX_HITS], 1):
            if found := caption(hit.chunk.text, ask.caption):
                return Draft(cite(found, n), "extractive")
        return None
