"""Which pages OCR should read: scans without text, and scans stamped with a line of it.

``looks_scanned`` tells a page with no usable text that still holds something
OCR could read (pictures, unmapped glyphs, type turned into outlines) from a
blank one; ``stamped_scan`` tells a scan that carries a line of real text (an
e-filing header, a fax header, a Bates number) from a page whose text is the
page. Reading the pages is ``pdf.py``'s and ``ocr.py``'s.
"""

from __future__ import annotations

import logging
import unicodedata

import pymupdf

log = logging.getLogger(__name__)

MIN_IMAGE_COVER = 0.1  # share of a page that pictures must cover for it to look scanned
MIN_OUTLINE_PATHS = 100  # vector paths on a page without text that look like outlined type
# A scan stamped with a line of real text (a court's e-filing header, a fax header, a Bates
# number) has text, but its content is the picture: OCR it too.
STAMP_LETTERS = 200  # fewer letters than this in the text layer is a stamp, not the page
STAMPED_COVER = 0.5  # ... on a page a picture covers at least this much of


def picture_share(page: pymupdf.Page) -> float:
    """The share of ``page`` that pictures cover (overlaps counted twice; at most 1)."""
    area = abs(page.rect) or 1.0
    covered = sum(abs(pymupdf.Rect(im["bbox"]) & page.rect) for im in page.get_image_info())
    return min(1.0, covered / area)


def stamped_scan(page: pymupdf.Page, text: str) -> bool:
    """True when a page with a text layer is still a scan: a picture covers most of it
    and its text is only a stamp (a header line, a page or Bates number)."""
    if sum(c.isalpha() for c in text) >= STAMP_LETTERS:
        return False
    try:
        return picture_share(page) >= STAMPED_COVER
    except Exception:  # an unreadable image list: keep the text layer as it is
        return False


def looks_scanned(page: pymupdf.Page) -> bool:
    """True when a page without usable text still holds something OCR could read.

    That is pictures over a tenth of the page, glyphs the text layer cannot map
    to characters (control codes, U+FFFD, private use: Type3 fonts without a
    Unicode map) or many vector paths (type converted to outlines). A page with
    only a title, a page number or rules has none of these: OCR would spend
    about a second on it for nothing, and calling it "scanned" would be wrong.
    """
    try:
        if picture_share(page) >= MIN_IMAGE_COVER:
            return True
        raw = page.get_text()
        if any(_unmapped(c) for c in raw):
            return True
        return len(page.get_drawings()) >= MIN_OUTLINE_PATHS
    except Exception:  # when in doubt, let OCR have a look
        log.debug("could not inspect page %d", page.number + 1, exc_info=True)
        return True


def _unmapped(c: str) -> bool:
    cat = unicodedata.category(c)
    return c == "\ufffd" or cat == "Co" or (cat == "Cc" and not c.isspace())
