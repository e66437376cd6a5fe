"""papertrail.cli.report: the evidence of each citation, quoted in the terminal and in JSON."""

from __future__ import annotations

import json

from papertrail.cli.report import answer_json, format_answer, quote_evidence
from papertrail.types import Answer, Chunk, Citation, Evidence, Rect
from papertrail.verify.evidence import SHOWN_CHARS as EVIDENCE_CHARS

LINES = (Rect(72, 100, 540, 112), Rect(72, 114, 540, 126), Rect(72, 128, 300, 140))
CHUNK = Chunk("a" * 64, "paper.pdf", 3, 2, "Intro. The encoder has N = 6 layers. More.", LINES)


def answer(evidence: Evidence | None) -> Answer:
    cited = Citation(
        n=1,
        marker=1,
        sentence="The encoder has N = 6 layers.",
        chunk=CHUNK,
        supported=True,
        reason="supported",
        evidence=evidence,
    )
    return Answer(
        question="How many layers?",
        text="The encoder has N = 6 layers [1].",
        citations=(cited,),
        dropped=(),
        grounded=True,
        refusal=False,
        mode="extractive",
    )


def test_json_gives_the_evidence_text_and_boxes_in_the_chunk_frame():
    ev = Evidence("The encoder has N = 6 layers.", (Rect(72, 114, 400.5, 126),))
    (c,) = json.loads(json.dumps(answer_json(answer(ev))))["citations"]
    assert c["evidence"] == {"text": ev.text, "boxes": [[72, 114, 400.5, 126]]}
    assert c["boxes"] == [[r.x0, r.y0, r.x1, r.y1] for r in LINES]
    assert json.loads(json.dumps(answer_json(answer(None))))["citations"][0]["evidence"] is None


def test_terminal_quotes_the_evidence_under_its_citation():
    ev = Evidence("The encoder has\nN = 6 layers.", (LINES[1],))
    lines = format_answer(answer(ev)).splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("  [1] verified"))
    assert lines[at + 1].strip() == "“The encoder has N = 6 layers.”"
    assert "“" not in format_answer(answer(None))


def test_long_evidence_is_cut_at_a_word_with_an_ellipsis():
    words = " ".join(f"word{i}" for i in range(200))
    quote = quote_evidence(answer(Evidence(words, LINES)).citations[0])
    assert quote.endswith("…”") and len(quote) <= EVIDENCE_CHARS + 3
    assert quote[1:-2] == words[: len(quote) - 3]  # whole words from the start
    assert words.startswith(quote[1:-2].rsplit(" ", 1)[0] + " ")
