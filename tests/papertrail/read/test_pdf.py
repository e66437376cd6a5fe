"""papertrail.read.pdf with pagetext and layout: checks, errors, reading order, boxes, OCR seam."""

from __future__ import annotations

import re
import unicodedata

import numpy as np
import pymupdf
import pytest

from papertrail.errors import PaperTrailError
from papertrail.read.pagetext import clean_text, has_text
from papertrail.read.pdf import ParsedPdf, open_document, page_list, read_pdf
from papertrail.settings import Settings
from papertrail.types import Rect
from tests import pdfs

SETTINGS = Settings()


def read(data: bytes, **kw) -> ParsedPdf:
    return read_pdf(data, kw.pop("settings", SETTINGS), **kw)


def page_text(parsed: ParsedPdf, page: int = 1) -> str:
    return " ".join(b.text for b in parsed.blocks if b.page == page)


def error(data: bytes, **kw) -> PaperTrailError:
    with pytest.raises(PaperTrailError) as info:
        read(data, **kw)
    return info.value


# -- reading order ---------------------------------------------------------------------


def test_two_columns_are_read_one_after_the_other():
    parsed = read(pdfs.two_column_pdf())
    text = page_text(parsed)
    assert text.startswith("Reading Order in Two Columns")
    assert text.rindex("Left sentence") < text.index("Right sentence")
    assert text.index("Left sentence 0") < text.index("Left sentence 13")
    assert text.endswith(" 1")  # the page number comes last, after both columns
    lines = [ln.text for b in parsed.blocks for ln in b.lines]
    assert not [t for t in lines if "Left" in t and "Right" in t]  # baselines align, rows don't


def test_three_columns_and_a_full_width_paragraph_split_the_flow():
    text = page_text(read(pdfs.three_column_pdf()))
    words = ["Alpha", "Beta", "Gamma", "Middle", "Delta", "Epsilon", "Zeta"]
    for before, after in zip(words, words[1:], strict=False):
        assert text.rindex(f"{before} sentence") < text.index(f"{after} sentence"), (before, after)


def test_table_cells_of_a_row_stay_on_one_line():
    lines = [ln.text for b in read(pdfs.table_pdf()).blocks for ln in b.lines]
    assert "Net revenue $ 1,577 $ 1,432 $ 1,301" in lines
    assert "Research and development 201 187 166" in lines
    assert "(In millions) 2023 2022 2021" in lines


def test_headings_are_marked_and_body_text_is_not():
    blocks = read(pdfs.paper_pdf()).blocks
    headings = [b.text for b in blocks if b.heading]
    assert pdfs.PAPER_TITLE in headings
    assert "2.1 Encoder and Decoder Stacks" in headings
    assert not [b.text for b in blocks if b.heading and len(b.text) > 80]


def test_paper_facts_are_on_their_pages():
    parsed = read(pdfs.paper_pdf())
    for phrase, page in pdfs.PAPER_FACTS:
        assert phrase in page_text(parsed, page), phrase


# -- text cleaning ---------------------------------------------------------------------


def test_text_keeps_ligatures_and_norm_is_nfkc():
    blocks = read(pdfs.unicode_pdf()).blocks
    by_text = {ln.text: b for b in blocks for ln in b.lines}
    for _, text, norm in pdfs.UNICODE_LINES:
        assert text in by_text, (text, list(by_text))
        if norm:
            assert norm in by_text[text].norm
    arabic = by_text["ﺍﻟﻌﺮﺑﻴﺔ"]
    assert unicodedata.normalize("NFKC", arabic.text) == arabic.norm == "العربية"


def test_clean_text_strips_control_characters_and_collapses_space():
    assert clean_text("ab\x03c\x00d\tef\n g\ufffdh \x07 ") == "abcd ef g h"
    assert clean_text("soft\u00adhyphen") == "softhyphen"
    assert clean_text("\x19\x12") == ""


@pytest.mark.parametrize(
    ("text", "usable"),
    [
        ("Reduced test-case", True),
        ("pdf.js", False),
        ("2021 3 31", False),
        ("あいうえお日本語", True),
        ("54", False),
        ("", False),
    ],
)
def test_has_text_threshold(text, usable):
    assert has_text(text) is usable


# -- rotation --------------------------------------------------------------------------


def dark_share(data: bytes, rect: Rect, zoom: float = 2.0) -> tuple[float, int]:
    """Share of the page's dark pixels inside ``rect`` (displayed-page points), and their count."""
    page = pymupdf.open("pdf", data)[0]
    pix = page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), alpha=False)
    img = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width, pix.n)
    dark = img.min(axis=2) < 128
    x0, y0 = int(rect.x0 * zoom) - 1, int(rect.y0 * zoom) - 1
    x1, y1 = int(rect.x1 * zoom) + 2, int(rect.y1 * zoom) + 2
    inside = dark[max(0, y0) : y1, max(0, x0) : x1].sum()
    return inside / max(1, dark.sum()), int(dark.sum())


@pytest.mark.parametrize("upright", [True, False])
@pytest.mark.parametrize("rotation", [0, 90, 180, 270])
def test_rects_on_rotated_pages_land_on_the_text(rotation, upright):
    data = pdfs.rotated_pdf(rotation, "Rotated page text sample", upright=upright)
    parsed = read(data)
    (line,) = [ln for b in parsed.blocks for ln in b.lines]
    assert line.text == "Rotated page text sample"
    share, total = dark_share(data, line.rect)
    assert total > 500  # the text was drawn
    assert share > 0.97
    page = pymupdf.open("pdf", data)[0].rect
    assert line.rect.width * line.rect.height < 0.05 * page.width * page.height
    if upright:  # reads left to right on screen, where the builder put it
        assert line.rect.width > line.rect.height
        assert abs(line.rect.x0 - 72) < 2 and 110 < line.rect.y1 < 152
    else:
        assert (line.rect.width > line.rect.height) == (rotation in (0, 180))


# -- errors ----------------------------------------------------------------------------


def test_empty_bytes():
    assert error(b"").code == "empty"


def test_not_a_pdf():
    err = error(b"PK\x03\x04 this is a zip file, not a PDF")
    assert err.code == "not_pdf" and "%PDF" in err.message


def test_html_is_named_without_any_platforms_advice():
    err = error(b"<!DOCTYPE html><html><head><title>Sign in</title></head></html>")
    assert err.code == "not_pdf" and "web page (HTML)" in err.message
    # Slack's sign-in pages are explained by the Slack adapter, with its scope
    assert "files:read" not in err.message and "Slack" not in err.message


def test_too_large_names_limit_value_and_variable():
    data = pdfs.simple_pdf(["A page of text that is long enough to count as text."])
    err = error(data, settings=Settings(max_pdf_mb=0.0001))
    assert err.code == "too_large"
    assert "PAPERTRAIL_MAX_PDF_MB" in err.message and "0.0001 MB" in err.message
    assert re.search(r"\d\.\d MB", err.message)


def test_too_many_pages_names_limit_and_variable():
    data = pdfs.simple_pdf(["One page of text here."] * 3)
    err = error(data, settings=Settings(max_pages=2))
    assert err.code == "too_many_pages"
    assert "PAPERTRAIL_MAX_PAGES" in err.message and "3 pages" in err.message
    assert "limit of 2" in err.message


def test_corrupt():
    assert error(pdfs.corrupt_bytes()).code == "corrupt"


def test_zero_pages():
    assert error(pdfs.zero_page_like()).code == "no_pages"


def test_scanned_pdf_has_no_text():
    err = error(pdfs.image_only_pdf(2))
    assert err.code == "no_text" and "scanned" in err.message


def test_no_text_after_ocr_does_not_advise_ocr():
    err = error(pdfs.image_only_pdf(1), ocr=FakeOcr([]))
    assert err.code == "no_text" and "even after OCR" in err.message
    assert "OCR first" not in err.message and "run it through OCR" not in err.message


def test_a_blank_pdf_is_not_called_scanned():
    err = error(pdfs.simple_pdf([""]))
    assert err.code == "no_text" and "scanned" not in err.message


@pytest.mark.parametrize("password", [None, "s3cret"])
def test_a_pdf_whose_only_text_is_short_is_read_not_refused(password):
    data = pdfs.simple_pdf(["Issue 6010"])  # below the has_text bar, but real words
    if password:
        doc = pymupdf.open("pdf", data)
        data = doc.tobytes(encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw=password)
    parsed = read(data, password=password)
    assert page_text(parsed) == "Issue 6010" and parsed.no_text_pages == ()


def test_encrypted_without_password_explains_the_fix():
    err = error(pdfs.encrypted_pdf("s3cret"))
    assert err.code == "encrypted"
    assert "password-protected" in err.message
    assert "unprotected copy" in err.message and "--password" in err.message


def test_encrypted_with_wrong_password():
    err = error(pdfs.encrypted_pdf("s3cret"), password="guess")
    assert err.code == "encrypted" and "did not open" in err.message


@pytest.mark.parametrize(
    "method",
    [pymupdf.PDF_ENCRYPT_AES_256, pymupdf.PDF_ENCRYPT_AES_128, pymupdf.PDF_ENCRYPT_RC4_128],
)
def test_password_opens_it(method):
    parsed = read(pdfs.encrypted_pdf("s3cret", method=method), password="s3cret")
    assert "heliotrope" in page_text(parsed)


def test_unicode_password():
    parsed = read(pdfs.encrypted_pdf("æøå"), password="æøå")
    assert "heliotrope" in page_text(parsed)


def test_unicode_password_in_another_normal_form():
    nfc = unicodedata.normalize("NFC", "åland")
    nfd = unicodedata.normalize("NFD", nfc)
    assert nfc != nfd
    parsed = read(pdfs.encrypted_pdf(nfc), password=nfd)
    assert "heliotrope" in page_text(parsed)


# -- pages without text, repair, progress ----------------------------------------------


def test_pages_without_text_are_listed_and_warned_about():
    parsed = read(pdfs.mixed_pdf())
    assert parsed.pages == 3
    assert parsed.no_text_pages == (2,)
    assert {b.page for b in parsed.blocks} == {1, 3}
    assert any("2" in w and "no usable text" in w for w in parsed.warnings)


def test_repaired_file_is_read_and_flagged():
    data = pdfs.simple_pdf(["Some text that is long enough to count as text on a page."])
    broken = re.sub(rb"startxref\s+\d+", b"startxref\n999999", data)
    parsed = read(broken)
    assert parsed.repaired
    assert "long enough" in page_text(parsed)
    assert any("repaired" in w for w in parsed.warnings)


def test_progress_is_reported_per_page():
    calls = []
    data = pdfs.simple_pdf(["First page of text.", "Second page of text.", "Third page."])
    read(data, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(1, 3), (2, 3), (3, 3)]


def test_page_list_compresses_runs():
    assert page_list([8, 3, 4, 5, 1]) == "1, 3-5, 8"


def test_open_document_returns_an_open_document():
    with open_document(pdfs.encrypted_pdf("pw"), password="pw") as doc:
        assert doc.page_count == 1 and "heliotrope" in doc[0].get_text()


# -- OCR seam --------------------------------------------------------------------------


class FakeOcr:
    """Returns fixed lines in pixel coordinates; records the images it was given."""

    def __init__(self, lines: list[tuple[str, Rect]]) -> None:
        self.lines = lines
        self.images: list[bytes] = []

    def read(self, png: bytes) -> list[tuple[str, Rect]]:
        self.images.append(png)
        return self.lines


def test_ocr_reads_pages_without_text():
    ocr = FakeOcr(
        [
            ("First line of the scanned page", Rect(200, 200, 1000, 240)),
            ("Second line of the scanned page", Rect(200, 300, 1000, 340)),
        ]
    )
    parsed = read(pdfs.mixed_pdf(), ocr=ocr)
    assert len(ocr.images) == 1 and ocr.images[0].startswith(b"\x89PNG")
    assert parsed.ocr_pages == (2,) and parsed.no_text_pages == ()
    page2 = [b for b in parsed.blocks if b.page == 2]
    assert [b.page for b in parsed.blocks] == sorted(b.page for b in parsed.blocks)
    assert all(b.ocr for b in page2) and not any(b.ocr for b in parsed.blocks if b.page != 2)
    lines = [ln for b in page2 for ln in b.lines]
    # the engine's reading order is kept (it knows the upright frame of a turned scan)
    assert [ln.text for ln in lines][0] == "First line of the scanned page"
    first = lines[0].rect  # pixels at 200 dpi -> points
    assert first.x0 == pytest.approx(72) and first.y0 == pytest.approx(72)
    assert any("OCR" in w for w in parsed.warnings)


def test_ocr_that_finds_nothing_leaves_no_text():
    err = error(pdfs.image_only_pdf(), ocr=FakeOcr([("~", Rect(0, 0, 10, 10))]))
    assert err.code == "no_text" and "OCR" in err.message


def _with_page(draw) -> bytes:
    """A text page, then a page that ``draw(page)`` fills, then a text page."""
    doc = pymupdf.open("pdf", pdfs.simple_pdf(["Opening page of ordinary prose text.", ""]))
    doc.delete_page(1)
    page = doc.new_page(width=612, height=792)
    draw(page)
    doc.insert_pdf(pymupdf.open("pdf", pdfs.simple_pdf(["Closing page of ordinary prose."])))
    return doc.tobytes()


def _title_only(page: pymupdf.Page) -> None:
    page.insert_text((250, 380), "PIRACY", fontsize=20)  # a part title, as books have
    page.draw_line((200, 400), (412, 400))


def _small_logo(page: pymupdf.Page) -> None:
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 40, 40), False)
    pix.clear_with(90)
    page.insert_image(pymupdf.Rect(500, 700, 560, 760), pixmap=pix)  # under 1% of the page


def _outlined_type(page: pymupdf.Page) -> None:
    for row in range(20):  # glyph-sized paths, as "convert text to outlines" leaves
        for col in range(10):
            page.draw_rect(pymupdf.Rect(72 + col * 12, 72 + row * 14, 80 + col * 12, 82 + row * 14))


@pytest.mark.parametrize("draw", [_title_only, _small_logo, lambda page: None])
def test_blank_or_title_pages_are_not_ocred_nor_called_scanned(draw):
    ocr = FakeOcr([("Text that must never be asked for", Rect(200, 200, 1000, 240))])
    parsed = read(_with_page(draw), ocr=ocr)
    assert ocr.images == []  # nothing on the page for OCR to read
    assert parsed.no_text_pages == (2,) and parsed.ocr_pages == ()
    assert not any("scanned" in w or "OCR" in w for w in parsed.warnings)


def test_outlined_type_is_handed_to_ocr():
    ocr = FakeOcr([("Words drawn as vector outlines", Rect(200, 200, 1000, 240))])
    parsed = read(_with_page(_outlined_type), ocr=ocr)
    assert len(ocr.images) == 1 and parsed.ocr_pages == (2,)
    assert "vector outlines" in page_text(parsed, 2)


def test_unmapped_glyphs_count_as_scanned():
    from papertrail.read.scans import _unmapped

    assert _unmapped("\x19") and _unmapped("\ufffd") and _unmapped("\ue000")
    assert not any(_unmapped(c) for c in "PIRACY \n\t❚ 247")


def test_page_numbers_alone_are_not_a_document():
    err = error(pdfs.simple_pdf(["3", "4"]))
    assert err.code == "no_text"
