"""The evidence of a claim is the sentence that says it, not a neighbour the heading helps."""

from __future__ import annotations

from papertrail.types import Chunk, Hit
from papertrail.verify.verify import verify_answer

TEXT = (
    "Encoder: The encoder is composed of a stack of N = 6 identical layers. Each layer has "
    "two sub-layers. Decoder: The decoder is also composed of a stack of N = 6 layers."
)


def test_the_heading_does_not_make_the_neighbour_sentence_the_evidence():
    chunk = Chunk("e" * 64, "paper.pdf", 4, 3, TEXT, (), section="3.1 Encoder and Decoder Stacks")
    checked = verify_answer(
        "The encoder is composed of a stack of N = 6 layers [1].", [Hit(chunk, 1.0)]
    )
    (cited,) = checked.citations
    assert cited.evidence.text.startswith("The encoder is composed")  # the label left out too
