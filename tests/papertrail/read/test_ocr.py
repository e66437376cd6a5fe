"""OCR of image-only pages, upright and turned, plus the geometry helpers.

Pages are built here: text drawn with Pillow, turned if asked, and embedded
as the only content of a PyMuPDF page, so the real RapidOCR model (marked
``model``) reads a scan whose words and their place are known.
"""

from __future__ import annotations

import io

import numpy as np
import pymupdf
import pytest
from PIL import Image, ImageDraw, ImageFont

from papertrail.measure.ocr_cer import cer
from papertrail.read.ocr import _order, decode, get_ocr, rotate
from papertrail.types import Rect

LINES = ["Quarterly revenue grew by twelve percent", "Invoices are payable within thirty days"]
W, H = 1100, 600  # a page image 8.5 inches wide at ~130 dpi: the top of a letter page
TEXT_BOX = (100, 150, 1000, 330)  # where LINES are drawn on the upright page (x0, y0, x1, y1)


def scan(turn: int = 0) -> bytes:
    """A one-page PDF whose only content is a picture of LINES, turned ``turn`` degrees CCW."""
    img = Image.new("RGB", (W, H), "white")
    draw = ImageDraw.Draw(img)
    font = ImageFont.load_default(size=44)
    for i, line in enumerate(LINES):
        draw.text((TEXT_BOX[0], TEXT_BOX[1] + 100 * i), line, fill="black", font=font)
    img = img.rotate(turn, expand=True)
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    doc = pymupdf.open()
    page = doc.new_page(width=img.width * 72 / 130, height=img.height * 72 / 130)
    page.insert_image(page.rect, stream=buf.getvalue())
    return doc.tobytes()


def page_png(pdf: bytes, dpi: int = 130) -> bytes:
    with pymupdf.open(stream=pdf, filetype="pdf") as doc:
        assert doc[0].get_text().strip() == ""  # really image-only
        return doc[0].get_pixmap(dpi=dpi).tobytes("png")


def text_region(turn: int) -> Rect:
    """TEXT_BOX after the page was turned ``turn`` degrees counter-clockwise."""
    corners = np.array([TEXT_BOX[:2], TEXT_BOX[2:]], dtype=float)
    pts = rotate(corners, turn // 90, W, H)
    return Rect(*pts.min(axis=0), *pts.max(axis=0))


def overlaps(a: Rect, b: Rect) -> bool:
    return min(a.x1, b.x1) > max(a.x0, b.x0) and min(a.y1, b.y1) > max(a.y0, b.y0)


@pytest.mark.model
@pytest.mark.parametrize("turn", [0, 90, 270])
def test_reads_words_and_boxes_of_a_scan(turn):
    engine = get_ocr()
    assert engine is not None  # rapidocr_onnxruntime is a dependency
    png = page_png(scan(turn))
    turns, lines = engine.read_scored(png)
    assert turns == (4 - turn // 90) % 4  # the quarter turns that undo the scan's
    text = " ".join(t for t, _, _ in lines)
    assert cer(text, " ".join(LINES)) < 0.1, text
    assert [t for t, _, _ in lines][0].startswith("Quarterly")  # reading order kept
    region = text_region(turn)
    width, height = Image.open(io.BytesIO(png)).size
    for _, box, score in lines:
        assert 0 <= box.x0 < box.x1 <= width and 0 <= box.y0 < box.y1 <= height
        assert overlaps(box, region), (box, region)
        assert score >= 0.5
        if turn in (90, 270):
            assert box.height > box.width  # the line runs down the page image


def stamped(pdf: bytes, stamp: str) -> bytes:
    """``pdf`` with a line of real text over its first page, as an e-filing system stamps."""
    with pymupdf.open(stream=pdf, filetype="pdf") as doc:
        doc[0].insert_text((20, 14), stamp, fontsize=7)
        return doc.tobytes()


@pytest.mark.model
def test_a_scan_stamped_with_a_line_of_text_is_read_by_ocr_too():
    from papertrail.read.pdf import read_pdf
    from papertrail.settings import Settings

    stamp = "Case 4:21-cv-00077 Document 12 Filed 03/02/21 Page 3 of 9"
    parsed = read_pdf(stamped(scan(0), stamp), Settings(), ocr=get_ocr())
    assert parsed.ocr_pages == (1,)
    text = " ".join(b.text for b in parsed.blocks)
    assert "Case 4:21-cv-00077" in text  # the stamp is kept
    assert "Invoices" in text and "thirty" in text  # and the page's own words are read


@pytest.mark.model
def test_a_page_of_text_beside_a_picture_is_not_sent_to_ocr():
    from papertrail.read.pdf import read_pdf
    from papertrail.settings import Settings

    with pymupdf.open(stream=scan(0), filetype="pdf") as doc:
        words = "The warranty covers parts and labour for two years from delivery. " * 6
        doc[0].insert_textbox(doc[0].rect + (20, 20, -20, -20), words, fontsize=9)
        pdf = doc.tobytes()
    parsed = read_pdf(pdf, Settings(), ocr=get_ocr())
    assert parsed.ocr_pages == ()  # a text page with an illustration keeps its own text


@pytest.mark.model
def test_read_pdf_uses_the_engine_for_pages_without_text():
    from papertrail.read.pdf import read_pdf
    from papertrail.settings import Settings

    parsed = read_pdf(scan(0), Settings(), ocr=get_ocr())
    assert parsed.ocr_pages == (1,)
    assert all(b.ocr for b in parsed.blocks)
    text = " ".join(b.text for b in parsed.blocks)
    assert "Invoices" in text and "thirty" in text
    # boxes come back in points on the page: the text sits in its upper part
    top = min(b.rect.y0 for b in parsed.blocks)
    assert 0 < top < 200


@pytest.mark.model
def test_blank_page_has_no_lines():
    png = page_png(_blank_pdf())
    engine = get_ocr()
    assert engine.read(png) == []


def _blank_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=300, height=400)
    img = Image.new("RGB", (300, 400), "white")
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    page.insert_image(page.rect, stream=buf.getvalue())
    return doc.tobytes()


@pytest.mark.parametrize("turns", [0, 1, 2, 3])
def test_rotate_follows_numpy_rot90(turns):
    h, w = 5, 8
    img = np.zeros((h, w), dtype=int)
    img[1, 6] = 1  # row 1, column 6: pixel centre (6.5, 1.5)
    turned = np.rot90(img, turns)
    row, col = np.argwhere(turned == 1)[0]
    got = rotate(np.array([[6.5, 1.5]]), turns, w, h)[0]
    assert tuple(got) == pytest.approx((col + 0.5, row + 0.5))


def test_order_puts_corners_clockwise_from_top_left():
    pts = np.array([[10, 50], [10, 0], [200, 0], [200, 50]], dtype=np.float32)
    assert _order(pts).tolist() == [[10, 0], [200, 0], [200, 50], [10, 50]]


def test_decode_reads_dpi_and_makes_bgr():
    img = Image.new("RGB", (4, 3), (255, 0, 0))
    buf = io.BytesIO()
    img.save(buf, format="PNG", dpi=(150, 150))
    arr, dpi = decode(buf.getvalue())
    assert arr.shape == (3, 4, 3) and tuple(arr[0, 0]) == (0, 0, 255)
    assert dpi == pytest.approx(150, abs=0.1)
