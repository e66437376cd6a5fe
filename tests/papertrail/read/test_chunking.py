"""papertrail.read.chunking: size limits, pages, overlap, exact line boxes, sections."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from papertrail.read.chunking import chunk_blocks, join_lines, split_line
from papertrail.read.pdf import read_pdf
from papertrail.settings import Settings
from papertrail.types import Block, Chunk, Line, Rect
from tests import pdfs

DOC = "d" * 64


def chunks_of(data: bytes, **kw) -> tuple[list[Chunk], list[Block]]:
    blocks = list(read_pdf(data, Settings()).blocks)
    return chunk_blocks(blocks, doc_id=DOC, doc_name="t.pdf", **kw), blocks


def make_blocks(pages: list[list[str]], *, heading: set[str] = frozenset()) -> list[Block]:
    """One block per line, each line with its own box (distinct y per line)."""
    out = []
    for page, lines in enumerate(pages, start=1):
        for i, text in enumerate(lines):
            r = Rect(72, 72 + 14 * i, 72 + 5 * min(len(text), 90), 84 + 14 * i)
            out.append(Block(page, text, text, r, (Line(text, r),), heading=text in heading))
    return out


def line_index(blocks: list[Block]) -> dict[tuple[int, Rect], str]:
    return {(b.page, ln.rect): ln.text for b in blocks for ln in b.lines}


def test_long_paragraph_respects_the_size_limit_and_overlaps():
    chunks, blocks = chunks_of(pdfs.long_block_pdf(), size=800, overlap=100)
    assert sum(len(b.text) for b in blocks) > 2500
    assert len(chunks) >= 4
    assert all(len(c.text) <= 800 for c in chunks)
    assert all(len(c.text) > 400 for c in chunks[:-1])  # packed, not tiny
    for a, b in zip(chunks, chunks[1:], strict=False):
        shared = set(a.rects) & set(b.rects)
        assert shared, "neighbours share their overlap lines"
        assert a.rects[-len(shared) :] == b.rects[: len(shared)]


def test_rects_are_exactly_the_lines_in_the_text():
    chunks, blocks = chunks_of(pdfs.paper_pdf(), size=400, overlap=80)
    lines = line_index(blocks)
    for c in chunks:
        texts = [lines[(c.page, r)] for r in c.rects]  # KeyError: a rect that is not a line
        assert join_lines(texts) == c.text


def test_every_line_is_in_some_chunk_and_chunks_never_cross_a_page():
    chunks, blocks = chunks_of(pdfs.paper_pdf(), size=300, overlap=60)
    covered = {(c.page, r) for c in chunks for r in c.rects}
    assert covered == set(line_index(blocks))  # page, rect pairs: no chunk borrows a line
    by_page = {}
    for b in blocks:
        by_page.setdefault(b.page, set()).update(ln.rect for ln in b.lines)
    for c in chunks:
        assert set(c.rects) <= by_page[c.page]


def test_chunks_are_numbered_and_labelled():
    chunks, _ = chunks_of(pdfs.paper_pdf())
    assert [c.index for c in chunks] == list(range(len(chunks)))
    assert all(c.doc_id == DOC and c.doc_name == "t.pdf" for c in chunks)
    assert chunks[3].id == f"{DOC}:3"
    assert [c.page for c in chunks] == sorted(c.page for c in chunks)


def test_section_is_the_nearest_heading_above():
    chunks, _ = chunks_of(pdfs.paper_pdf(), size=300, overlap=50)
    layers = next(c for c in chunks if "N = 6 identical layers" in c.text)
    assert layers.section == "2.1 Encoder and Decoder Stacks"
    gpus = next(c for c in chunks if "eight NVIDIA P100 GPUs" in c.text)
    assert gpus.section == "3.1 Hardware and Schedule"
    assert chunks[0].section == pdfs.PAPER_TITLE


def test_section_carries_across_pages_and_ignores_running_headers():
    header = "Journal of Tests 12"
    pages = [
        [header.replace("12", str(p)), *(["Results"] if p == 1 else []), f"Body text {p}."]
        for p in range(1, 5)
    ]
    blocks = make_blocks(pages, heading={"Results", *(p[0] for p in pages)})
    chunks = chunk_blocks(blocks, doc_id=DOC, doc_name="t.pdf", size=100, overlap=0)
    body = [c for c in chunks if "Body text" in c.text]
    assert [c.section for c in body] == ["Results"] * 4
    assert not [c for c in chunks if c.section.startswith("Journal")]


def test_a_line_longer_than_size_is_split_at_sentences_with_proportional_boxes():
    text = " ".join(f"Sentence number {i} is here to make the line long." for i in range(60))
    rect = Rect(0, 0, 3000, 12)
    blocks = [Block(1, text, text, rect, (Line(text, rect),))]
    chunks = chunk_blocks(blocks, doc_id=DOC, doc_name="t.pdf", size=200, overlap=0)
    assert all(len(c.text) <= 200 for c in chunks)
    assert all(c.text.endswith("long.") for c in chunks)  # cut at sentence ends
    assert " ".join(c.text for c in chunks) == text
    xs = [(c.rects[0].x0, c.rects[0].x1) for c in chunks]
    assert xs[0][0] == 0 and abs(xs[-1][1] - 3000) < 1e-6
    assert all(a[1] <= b[0] + 1e-6 for a, b in zip(xs, xs[1:], strict=False))


def test_split_line_falls_back_to_words_then_characters():
    words = "word " * 100
    pieces = split_line(words.strip(), Rect(0, 0, 500, 10), 48)
    assert all(len(t) <= 48 for t, _ in pieces) and all(t.startswith("word") for t, _ in pieces)
    blob = "x" * 130
    assert [len(t) for t, _ in split_line(blob, Rect(0, 0, 130, 10), 50)] == [50, 50, 30]


def test_vertical_line_box_is_kept_whole_when_split():
    rect = Rect(10, 0, 22, 900)  # text running down the displayed page
    pieces = split_line("abc. " * 100, rect, 60)
    assert len(pieces) > 1 and all(r == rect for _, r in pieces)


def test_overlap_zero_partitions_the_lines():
    chunks, blocks = chunks_of(pdfs.long_block_pdf(), size=500, overlap=0)
    rects = [r for c in chunks for r in c.rects]
    assert len(rects) == len(set(rects)) == sum(len(b.lines) for b in blocks)


def test_a_pictures_words_get_passages_of_their_own_without_overlap():
    from dataclasses import replace

    text = [
        f"Budget line {i}: the department spent {i} crore on launch services." for i in range(4)
    ]
    labels = ["Prime Minister", "Space Commission", "Department of Space"]
    blocks = make_blocks([text + labels])
    blocks = [replace(b, ocr=True, picture=True) if b.text in labels else b for b in blocks]
    chunks = chunk_blocks(blocks, doc_id=DOC, doc_name="t.pdf", size=800, overlap=100)
    assert [c.text for c in chunks] == [" ".join(text), " ".join(labels)]
    # a page's text after its picture's words starts afresh too
    chunks = chunk_blocks(blocks[4:] + blocks[:4], doc_id=DOC, doc_name="t.pdf", size=120)
    assert chunks[0].text == " ".join(labels)
    assert not any("Budget" in c.text and "Space" in c.text for c in chunks)
    assert [c.text for c in chunks[1:]][:1] == [text[0]]  # no overlap carried from the labels


def test_dehyphenation():
    assert join_lines(["a pos-", "sible case"]) == "a possible case"
    assert join_lines(["the state-of-the-", "art result"]) == "the state-of-the-art result"
    assert join_lines(["Trace-", "Monkey runs"]) == "Trace- Monkey runs"
    assert join_lines(["from 1990-", "to now"]) == "from 1990- to now"
    assert join_lines(["ends here.", "Next"]) == "ends here. Next"


def test_chunks_without_any_letter_or_digit_are_dropped():
    blocks = make_blocks([["* * *", "— —"], ["Real text on page two."]])
    chunks = chunk_blocks(blocks, doc_id=DOC, doc_name="t.pdf")
    assert [c.page for c in chunks] == [2]


@settings(max_examples=60, deadline=None)
@given(
    lengths=st.lists(
        st.lists(st.integers(1, 400), min_size=1, max_size=25), min_size=1, max_size=4
    ),
    size=st.integers(40, 500),
    overlap=st.integers(0, 150),
)
def test_invariants_hold_for_any_line_lengths(lengths, size, overlap):
    pages = [
        [(f"w{p}x{i} " * n)[:n].strip() or "z" for i, n in enumerate(page)]
        for p, page in enumerate(lengths)
    ]
    blocks = make_blocks(pages)
    chunks = chunk_blocks(blocks, doc_id=DOC, doc_name="t.pdf", size=size, overlap=overlap)
    for c in chunks:
        assert 0 < len(c.text) <= size
        assert {r.y0 for r in c.rects} <= {b.rect.y0 for b in blocks if b.page == c.page}
    for p in range(1, len(pages) + 1):  # every line's text ends up in a chunk of its page
        text = " ".join(c.text for c in chunks if c.page == p)
        for line in pages[p - 1]:
            for word in line.split():
                assert word in text
