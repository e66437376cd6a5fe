"""A cited table row's picture shows the years heading its columns and outlines that row
alone, even when its passage starts below them or its quote runs over several rows; a
sentence's picture is left as it was."""

from __future__ import annotations

import io
import random
import struct

import pymupdf
from PIL import Image

from papertrail.render.headings import SAME_ROW, _rows, column_heading, page_words, table_row
from papertrail.render.render import render_snippet
from papertrail.types import Chunk, Evidence, Rect
from tests import pdfs

YEARS = ("2015", "2016", "2017")
RIGHT = (380, 460, 540)  # right edges of the figure columns, points


def long_statement() -> tuple[bytes, list[Rect]]:
    """One page: a title, the years heading three columns, then 30 rows of figures
    ("Line item 0" ... "Line item 29"); also the box of each row."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 70), "Consolidated Statements of Operations (in millions)", fontsize=11)
    for x, year in zip(RIGHT, YEARS, strict=True):
        page.insert_text((x - pymupdf.get_text_length(year, fontsize=9), 100), year, fontsize=9)
    boxes = []
    for k in range(30):
        y = 118 + 18 * k
        page.insert_text((72, y), f"Line item {k}", fontsize=9)
        for c, x in enumerate(RIGHT):
            cell = f"{(k + 1) * 1000 + c * 37:,}"
            page.insert_text((x - pymupdf.get_text_length(cell, fontsize=9), y), cell, fontsize=9)
        boxes.append(Rect(72, y - 9, 540, y + 3))
    return doc.tobytes(), boxes


def test_a_row_below_its_passage_start_gets_the_years_over_its_figures():
    data, rows = long_statement()
    with pymupdf.open(stream=data, filetype="pdf") as doc:
        page = doc[0]
        heading = column_heading(page, [rows[25]])
        assert heading is not None and 90 < heading.y0 < heading.y1 < 103
        # all three years, from the first column's to the last's
        assert heading.x0 < RIGHT[0] - 15 and heading.x1 > RIGHT[2] - 2
        assert column_heading(page, [heading, rows[25]]) is None  # shown already
        sentence = Rect(72, 60, 400, 73)  # the title: no figures, not a table row
        assert column_heading(page, [sentence]) is None

        chunk = Chunk("d" * 64, "statement.pdf", 3, 1, "Line items 20 to 29", tuple(rows[20:]))
        snippet = render_snippet(doc, chunk, n=1, evidence=Evidence("Line item 25", (rows[25],)))
    image = Image.open(io.BytesIO(snippet.png)).convert("RGB")
    zoom = snippet.width / (chunk.rects[0].width + 36)  # pixels per point, roughly
    # the crop reaches up to the headings: row 25 is 18 * 25 points below them
    assert image.height > 18 * 25 * zoom * 0.9
    # the marks: the strong fill is on the headings' line and on row 25, and on no row between
    strong = _strong_rows(image)
    assert strong and min(strong) < image.height * 0.2, "the headings are marked"
    assert max(strong) > image.height * 0.8, "the row is marked"
    between = [y for y in strong if image.height * 0.2 < y < image.height * 0.8]
    assert not between, "only the row and its headings are marked"


def _strong_rows(image: Image.Image) -> list[int]:
    """Rows of the picture with a run of the strong (orange-yellow) evidence fill."""
    px = image.load()
    out = []
    for y in range(image.height):
        run = sum(1 for x in range(0, image.width, 4) if _is_fill(px[x, y]))
        if run > image.width / 40:
            out.append(y)
    return out


def _is_fill(rgb: tuple[int, int, int]) -> bool:
    r, g, b = rgb
    return r > 230 and 170 < g < 225 and b < 150


def test_a_quote_over_several_rows_is_narrowed_to_the_row_of_the_claimed_figure():
    data, rows = long_statement()
    with pymupdf.open(stream=data, filetype="pdf") as doc:
        page = doc[0]
        quote = [rows[24], rows[25], rows[26]]  # a flattened table cut into one "sentence"
        marked = table_row(page, quote, "Line item 25 in 2017 was $26,074 million.")
        heading = column_heading(page, [rows[25]])
        assert marked == [rows[25], heading]
        # no figure of the claim in the quote, or in two of its rows: all rows are kept
        assert table_row(page, quote, "It was 12 million.")[:3] == quote
        twice = table_row(page, quote, "They were 25,000 and 26,000.")
        assert twice[:3] == quote
        # the page's words read by the caller give the same rows
        claim = "Line item 25 in 2017 was $26,074 million."
        assert table_row(page, quote, claim, page_words(page)) == marked


def test_prose_with_figures_is_not_taken_for_a_table_row():
    from papertrail.cli.sample import sample_report

    with pymupdf.open(stream=sample_report(), filetype="pdf") as doc:
        for page in doc:
            hits = page.search_for("Net income was")
            if hits:
                break
        line = hits[0]
        sentence = [Rect(72, line.y0, 540, line.y1), Rect(72, line.y1 + 1, 540, line.y1 + 14)]
        assert table_row(page, sentence, "Net income was £1,577,000.") == sentence
    prose = (
        "Revenue rose from 12,400 to 13,900 in 2023, and costs were 8,100 and 9,050, while the "
        "cooperative kept its membership fees unchanged for the whole of the year under review."
    )
    with pymupdf.open(stream=pdfs.simple_pdf([prose]), filetype="pdf") as doc:
        first, second = doc[0].search_for("Revenue rose")[0], doc[0].search_for("review")[0]
        assert second.y0 > first.y1  # the sentence runs over two lines, figures on the first
        sentence = [Rect(72, first.y0, 540, first.y1), Rect(72, second.y0, 540, second.y1)]
        assert table_row(doc[0], sentence, "Revenue rose to 13,900 [1].") == sentence


class _Page:
    """Just what ``_rows`` reads of a page: its turn and its words."""

    def __init__(self, words, rotation=0) -> None:
        self.words, self.rotation = words, rotation
        self.rotation_matrix = pymupdf.Matrix(rotation)

    def get_text(self, kind):
        assert kind == "words"
        return self.words


def _single(box):
    """Coordinates as MuPDF gives them: single-precision values."""
    return tuple(float(struct.unpack("f", struct.pack("f", v))[0]) for v in box)


def _rows_as_written(page) -> dict:
    """The grouping rule read literally: the first row met whose middle is near enough."""
    rows: dict = {}
    for w in page.get_text("words"):
        box = pymupdf.Rect(w[:4]) * page.rotation_matrix
        mid = (box.y0 + box.y1) / 2
        key = next((k for k in rows if abs(k - mid) <= SAME_ROW), mid)
        rows.setdefault(key, []).append((box.x0, box.y0, box.x1, box.y1, w[4]))
    return rows


def test_words_are_grouped_into_rows_as_the_rule_says_on_any_layout():
    rng = random.Random(7)
    for rotation in (0, 0, 0, 90):
        words = []
        for i in range(300):  # rows close enough to chain, jitter, words out of order
            y = rng.choice([rng.uniform(0, 800), 100 + 2.5 * (i % 9)]) + rng.uniform(-2, 2)
            x = rng.uniform(0, 500)
            box = (x, y, x + rng.uniform(5, 40), y + rng.uniform(6, 12))
            words.append((*_single(box), f"w{i}", 0, 0, i))
        page = _Page(words, rotation)
        assert _rows(page) == _rows_as_written(page)
