"""Text inside pictures on pages with a text layer: which pictures are read, what is kept, where.

Pages are built here: a line of text drawn into a picture with PyMuPDF, the
picture placed on a page that has its own text layer. The real RapidOCR model
(marked ``model``) reads it; fake engines pin the filtering and the geometry.
"""

from __future__ import annotations

import time

import pymupdf
import pytest

from papertrail.read.ocr import get_ocr
from papertrail.read.pdf import read_pdf
from papertrail.read.pictures import MAX_PICTURES, held, picture_boxes, read_pictures, trigrams
from papertrail.settings import Settings
from papertrail.types import Rect

BODY = "Annual report body text about the company and its results."
CHART = pymupdf.Rect(36, 100, 576, 400)  # where the picture sits on the (A4) page


def picture(words: str, width: int = 300, height: int = 150) -> pymupdf.Pixmap:
    """A picture of ``words``, one line per "|"."""
    art = pymupdf.open()
    page = art.new_page(width=width, height=height)
    lines = words.split("|")
    for i, line in enumerate(lines):
        page.insert_text((10, height * (i + 1) / (len(lines) + 1)), line, fontsize=22)
    return art[0].get_pixmap(dpi=150)


CHART_WORDS = "Quarterly revenue chart|Net sales by segment"  # 39 letters, and 5 more
CHART_WORDS += " (US)"


def page_with_picture(words: str = CHART_WORDS, *, pages: int = 1, rotate: int = 0):
    doc = pymupdf.open()
    for _ in range(pages):
        page = doc.new_page()
        page.insert_text((72, 72), BODY, fontsize=11)
        page.insert_image(CHART, pixmap=picture(words), keep_proportion=False)
        page.set_rotation(rotate)
    return doc.tobytes()


class FixedOcr:
    """Reads every image as the same lines (boxes in pixels, a score); counts its calls."""

    def __init__(self, lines, delay: float = 0.0) -> None:
        self.lines = [(t, r, 0.99) for t, r in lines] if lines and len(lines[0]) == 2 else lines
        self.delay = delay
        self.calls = 0

    def read_scored(self, png: bytes):
        self.calls += 1
        time.sleep(self.delay)
        return 0, list(self.lines)


@pytest.mark.model
def test_the_words_of_a_picture_on_a_page_with_text_are_read_and_placed_on_it():
    parsed = read_pdf(page_with_picture(), Settings(), ocr=get_ocr())
    assert parsed.picture_pages == (1,) and parsed.ocr_pages == ()  # the layer is kept
    added = [b for b in parsed.blocks if b.ocr]
    assert any("revenue" in b.text.lower() for b in added)
    for b in added:  # the picture's words, boxed inside the picture
        assert CHART.x0 <= b.rect.x0 < b.rect.x1 <= CHART.x1
        assert CHART.y0 <= b.rect.y0 < b.rect.y1 <= CHART.y1
    text = " ".join(b.text for b in parsed.blocks)
    assert text.count("Annual report body text") == 1


@pytest.mark.model
def test_a_picture_saying_what_the_layer_says_adds_nothing():
    parsed = read_pdf(page_with_picture("Annual report body text"), Settings(), ocr=get_ocr())
    assert parsed.picture_pages == () and not any(b.ocr for b in parsed.blocks)


def test_kept_lines_are_new_long_enough_and_mapped_from_pixels_to_the_page():
    doc = pymupdf.open(stream=page_with_picture(), filetype="pdf")
    engine = FixedOcr(
        [
            ("Level 5: regions, cross-region", Rect(0, 0, 200, 20), 0.99),
            ("ANNUAL REPORT BODY TEXT", Rect(0, 30, 200, 50), 0.99),  # the layer has it
            ("Q3", Rect(0, 60, 30, 80), 0.99),  # too short to find anything by
            ("Level 5: regions, cross-region", Rect(0, 90, 200, 110), 0.99),  # a legend repeats it
            ("Sidhoail Acesk Pufavanoa", Rect(0, 120, 200, 140), 0.78),  # a photo's shapes
            ("Earthquakes, floods, and wars", Rect(0, 150, 200, 170), 0.99),
        ]
    )
    box = Rect(CHART.x0, CHART.y0, CHART.x1, CHART.y1)
    blocks = read_pictures(doc[0], 1, (box,), doc[0].get_text(), engine)
    assert [b.text for b in blocks] == [
        "Level 5: regions, cross-region",
        "Earthquakes, floods, and wars",
    ]
    zoom = 200 / 72  # pixels per point at the rendering's 200 dpi
    r = blocks[0].rect
    assert (r.x0, r.y0) == pytest.approx((CHART.x0, CHART.y0))
    assert (r.x1, r.y1) == pytest.approx((CHART.x0 + 200 / zoom, CHART.y0 + 20 / zoom))
    assert blocks[0].ocr and blocks[0].page == 1


def test_held_is_a_share_of_letter_trigrams_so_dropped_spaces_and_a_misread_letter_count_as_held():
    layer = trigrams("Consolidated Statements of Cash Flows")
    assert held("ConsolidatedStatements of Cash F1ows", layer)
    assert not held("Net revenue by region", layer)


def test_which_pictures_are_read():
    doc = pymupdf.open()
    logo = doc.new_page()  # a small logo: nothing worth a second of OCR
    logo.insert_image(pymupdf.Rect(36, 36, 96, 66), pixmap=picture("ACME"), keep_proportion=False)
    assert picture_boxes(logo) == ()
    rule = doc.new_page()  # a thin band across the page is a rule
    rule.insert_image(pymupdf.Rect(0, 300, 612, 310), pixmap=picture("x"), keep_proportion=False)
    assert picture_boxes(rule) == ()
    tiles = doc.new_page()  # a chart cut into two overlapping tiles is read once
    tiles.insert_image(
        pymupdf.Rect(36, 100, 336, 400), pixmap=picture("left"), keep_proportion=False
    )
    tiles.insert_image(
        pymupdf.Rect(300, 100, 576, 400), pixmap=picture("right"), keep_proportion=False
    )
    (box,) = picture_boxes(tiles)
    assert (box.x0, box.y0, box.x1, box.y1) == pytest.approx((36, 100, 576, 400), abs=0.01)
    strips = doc.new_page(
        width=612, height=792
    )  # a scan stored as touching strips, each thinner than a rule
    for y in range(0, 792, 12):
        strip = pymupdf.Rect(0, y, 612, y + 12)
        strips.insert_image(strip, pixmap=picture("x"), keep_proportion=False)
    (box,) = picture_boxes(strips)
    assert (box.x0, box.y0, box.x1, box.y1) == pytest.approx((0, 0, 612, 792), abs=0.01)
    under = doc.new_page()  # a background photograph with the page's words over it
    under.insert_image(under.rect, pixmap=picture("x"), keep_proportion=False)
    under.insert_textbox(under.rect + (50, 50, -50, -50), BODY * 5, fontsize=11)
    assert picture_boxes(under) == ()
    apart = doc.new_page()  # two charts, one above the other: one reading, two boxes
    apart.insert_image(pymupdf.Rect(36, 100, 576, 300), pixmap=picture("a"), keep_proportion=False)
    apart.insert_image(pymupdf.Rect(36, 400, 576, 600), pixmap=picture("b"), keep_proportion=False)
    assert len(picture_boxes(apart)) == 2


def test_only_a_pages_largest_pictures_are_looked_at():
    # joining touching pictures compares each with each: a map in 10,000 tiles would stall
    doc = pymupdf.open()
    page = doc.new_page(width=600, height=600)
    xref = 0
    for i in range(250):  # 10 rows of 25 tiles of 24 x 24 pt, one image placed 250 times
        r = pymupdf.Rect(i % 25 * 24, i // 25 * 24, i % 25 * 24 + 24, i // 25 * 24 + 24)
        if xref:
            page.insert_image(r, xref=xref, keep_proportion=False)
        else:
            xref = page.insert_image(r, pixmap=picture("x"), keep_proportion=False)
    boxes = picture_boxes(page)
    assert MAX_PICTURES == 200 and len(boxes) == 1  # 200 of them, joined
    assert 200 / 25 * 24 <= boxes[0].y1 - boxes[0].y0 < 250 / 25 * 24  # not all 250


def test_a_turned_page_gets_its_pictures_boxes_on_the_page_as_displayed():
    doc = pymupdf.open(stream=page_with_picture(rotate=90), filetype="pdf")
    (box,) = picture_boxes(doc[0])
    shown = CHART * doc[0].rotation_matrix
    assert (box.x0, box.y0, box.x1, box.y1) == pytest.approx(tuple(shown), abs=0.01)
    assert box.x0 > 400  # the top of the page turned to the right


def test_without_an_engine_that_scores_its_lines_pictures_are_left_as_they_are():
    parsed = read_pdf(page_with_picture(), Settings())
    assert parsed.picture_pages == () and not any(b.ocr for b in parsed.blocks)

    class Unscored:  # reads scans, but cannot tell a photo's shapes from words
        def read(self, png):
            return [("Net revenue by geographic region, segment and channel", Rect(0, 0, 200, 20))]

    parsed = read_pdf(page_with_picture(), Settings(), ocr=Unscored())
    assert parsed.picture_pages == () and not any(b.ocr for b in parsed.blocks)


def test_only_lines_inside_a_picture_are_kept_when_one_reading_spans_two():
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 350), BODY, fontsize=11)
    for y in (100, 400):
        box = pymupdf.Rect(36, y, 576, y + 200)
        page.insert_image(box, pixmap=picture("a"), keep_proportion=False)
    boxes = picture_boxes(page)
    zoom = 200 / 72
    between = Rect(100 * zoom, 240 * zoom, 400 * zoom, 260 * zoom)  # y 340-360: the gap
    inside = Rect(100 * zoom, 20 * zoom, 400 * zoom, 40 * zoom)  # y 120-140: the first chart
    engine = FixedOcr(
        [
            ("Operating margin trend", between),
            ("Revenue by business segment, region and sales channel", inside),
        ]
    )
    blocks = read_pictures(page, 1, boxes, "", engine)
    assert [b.text for b in blocks] == ["Revenue by business segment, region and sales channel"]
    assert engine.calls == 1


def test_a_picture_adding_only_a_title_or_a_logo_adds_nothing():
    doc = pymupdf.open(stream=page_with_picture(), filetype="pdf")
    box = Rect(CHART.x0, CHART.y0, CHART.x1, CHART.y1)
    title = FixedOcr([("ANNUAL REP0RT 2015-2016", Rect(0, 0, 200, 20))])  # 16 letters
    assert read_pictures(doc[0], 1, (box,), BODY, title) == []


def test_pictures_get_at_most_a_quarter_of_the_indexing_time_limit():
    engine = FixedOcr(
        [("Net revenue by geographic region, segment and channel", Rect(0, 0, 99, 9))], delay=0.2
    )
    settings = Settings(max_index_seconds=0.4)  # a quarter: 0.1 s, spent on the first page
    parsed = read_pdf(page_with_picture(pages=3), settings, ocr=engine)
    assert parsed.picture_pages == (1,) and engine.calls == 1
    assert [b.page for b in parsed.blocks if not b.ocr] == [1, 2, 3]  # no text is lost
