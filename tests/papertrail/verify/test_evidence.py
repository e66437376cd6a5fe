"""Evidence spans: the sentence or table row that states a claim, with its boxes."""

import pymupdf

from papertrail.read.chunking import chunk_blocks
from papertrail.read.pdf import read_pdf
from papertrail.settings import Settings
from papertrail.types import Chunk, Rect
from papertrail.verify.evidence import locate, units, windows
from papertrail.verify.judge import judge
from papertrail.verify.verify import verify_answer
from tests import pdfs
from tests.fakes import HashEmbedder
from tests.papertrail.test_pipeline import make
from tests.papertrail.verify.test_verify import hits


def inside(r: Rect, boxes) -> bool:
    return any(
        b.x0 - 0.01 <= r.x0 and r.x1 <= b.x1 + 0.01 and b.y0 - 0.01 <= r.y0 and r.y1 <= b.y1 + 0.01
        for b in boxes
    )


def lines_chunk(lines: list[str]) -> Chunk:
    """A chunk of one line per entry, 12 pt apart, as ``chunk_blocks`` would build it."""
    text = " ".join(lines)
    starts, pos = [], 0
    for line in lines:
        starts.append(pos)
        pos += len(line) + 1
    rects = tuple(
        Rect(72, 100 + 12 * i, 72 + 5 * len(t), 110 + 12 * i) for i, t in enumerate(lines)
    )
    return Chunk("d" * 64, "doc.pdf", 0, 1, text, rects, lines=tuple(starts))


def test_chunks_record_where_each_line_starts():
    parsed = read_pdf(pdfs.paper_pdf(), Settings())
    for c in chunk_blocks(parsed.blocks, doc_id="x", doc_name="p.pdf"):
        assert len(c.lines) == len(c.rects) and c.lines[0] == 0
        assert list(c.lines) == sorted(c.lines) and c.lines[-1] < len(c.text)


def test_evidence_is_the_supporting_sentence_and_its_line_parts():
    chunk = lines_chunk(
        [
            "The survey covered forty stations along the",
            "main channel. Each station recorded water level",
            "every hour. The encoder is composed of a stack",
            "of N = 6 identical layers. Each layer has two",
            "sub-layers. We used the Adam optimizer with",
            "beta2 = 0.98 during the warmup steps.",
        ]
    )
    j = judge("The encoder is a stack of 6 identical layers.", chunk.text)
    ev = locate(chunk, j.span)
    assert ev.text == "The encoder is composed of a stack of N = 6 identical layers."
    assert len(ev.rects) == 2 and all(inside(r, chunk.rects) for r in ev.rects)
    assert ev.rects[0].x0 > chunk.rects[2].x0  # starts mid-line, after "every hour."
    assert ev.rects[1].x1 < chunk.rects[3].x1  # ends before "Each layer has two"


def test_evidence_covers_at_most_half_of_the_chunk_lines():
    chunk = lines_chunk(
        [
            "The encoder is composed",
            "of a stack of N = 6",
            "identical layers, each",
            "with two sub-layers.",
        ]
    )
    j = judge("The encoder is a stack of 6 identical layers.", chunk.text)
    assert j.span.text == chunk.text  # one sentence over all four lines
    ev = locate(chunk, j.span, lambda t: ("6" in t) + ("identical" in t))
    assert len(ev.rects) == 2 and "N = 6" in ev.text and "identical" in ev.text


def test_a_table_row_comes_with_its_column_headings():
    text = (
        "(In millions) 2023 2022 2021 Net revenue 1,577 1,402 1,250 Cost of sales 901 822 "
        "700 Operating income 230 201 180 Net income 154 120 99"
    )
    us = units(text)
    assert [text[a:b] for a, b, _ in us][:2] == [
        "(In millions) 2023 2022 2021",
        "Net revenue 1,577 1,402 1,250",
    ]
    row = next(s for s in windows(text) if s.text.startswith("Cost of sales") and s.also)
    assert [text[a:b] for a, b in row.also] == ["(In millions) 2023 2022 2021"]


def test_verified_citations_carry_evidence_inside_their_chunk(tmp_path):
    pt = make(tmp_path)
    pt.ingest("c1", "paper.pdf", pdfs.paper_pdf())
    answer = pt.ask("c1", "How many identical layers is the encoder composed of?", render=False)
    assert answer.citations
    for c in answer.citations:
        assert c.evidence is not None and c.evidence.rects
        assert all(inside(r, c.chunk.rects) for r in c.evidence.rects)
        if len(c.chunk.rects) >= 3:
            assert len(c.evidence.rects) <= len(c.chunk.rects) // 2
        with pymupdf.open(stream=pdfs.paper_pdf()) as doc:
            page = doc[c.chunk.page - 1]
            words = " ".join(
                page.get_text("text", clip=pymupdf.Rect(*_union(c.evidence.rects))).split()
            )
        assert c.evidence.text.split()[1] in words


def _union(rects):
    u = rects[0]
    for r in rects[1:]:
        u = u.union(r)
    return u.x0, u.y0, u.x1, u.y1


def test_answers_without_boxes_still_get_evidence_text():
    out = verify_answer(
        "The encoder is a stack of 6 identical layers [1].",
        hits("The encoder has N = 6 identical layers. Other text follows here."),
        embedder=HashEmbedder(),
    )
    (c,) = out.citations
    assert c.evidence.text == "The encoder has N = 6 identical layers." and c.evidence.rects == ()


def test_evidence_adds_the_row_of_the_claims_figure_and_its_column_headings():
    chunk = lines_chunk(
        [
            "Table 3: Net revenue by segment grew strongly in 2023.",
            "Stores opened in many new places this year.",
            "(In millions) 2023 2022 2021",
            "Net revenue 1,577 1,402 1,250",
            "Cost of sales 901 822 700",
            "Operating income 230 201 180",
            "Net income 154 120 99",
            "Other items 12 10 9",
        ]
    )
    j = judge("Net revenue by segment grew strongly to $1,577 million in 2023.", chunk.text)
    assert j.supported and j.span.text.startswith("Net revenue by segment")  # label left out
    ev = locate(chunk, j.span)
    assert "2023 2022 2021" in ev.text and "Net revenue 1,577" in ev.text
    assert "Cost of sales" not in ev.text
    assert [r.y0 for r in ev.rects] == [chunk.rects[i].y0 for i in (0, 2, 3)]
