"""Text inside the pictures of a page that has a text layer: which pictures to read, what they add.

A chart, a diagram, an organisation chart or an infographic embedded as a
picture keeps its words out of the text layer, so nothing in it could be found
or cited. ``picture_boxes`` says which pictures of a page are worth OCR's time
(the page's pictures cover at least ``PAGE_COVER`` of it, and a picture is at
least ``MIN_PICTURE`` of the page: smaller ones are logos, icons and rules);
``read_pictures`` renders the part of the page they span once, reads it with
``PictureOcr`` and keeps the lines inside a picture that OCR is sure of
(``MIN_CONFIDENCE``: a photograph or a drawing read as letters scores lower)
and that the text layer does not already hold, as Blocks (``ocr`` and ``picture``) with
their boxes on the displayed page, so a highlight lands on the picture's words.

"Already held" is a share of letter trigrams (letters only, as OCR often drops
the spaces between words; a share, as OCR and a scan's own text layer misread
a letter here and there): a line whose trigrams are mostly in the page's layer
adds nothing, which keeps a scan's invisible text layer, or a caption printed
over a photograph, from being indexed twice. Lines under ``MIN_LETTERS``
letters (tick labels, stray marks) are dropped, and so is what adds fewer than
``MIN_ADDED`` letters to a page (a logo, a title). It leaves out vector charts
(their labels are text, and in the layer already), pages read by OCR as a
whole (``scans.py`` decides those) and pictures with the layer's own words laid
over them (``UNDER_TEXT`` letters or more): a brochure's background photograph,
or a scan whose producer put its OCR text over it. Reading those cost seconds a
page and, on the development documents, added almost nothing; the labels of a
diagram inside such a scan that its producer's OCR missed stay unread.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Protocol, runtime_checkable

import pymupdf

from papertrail.read.layout import TextBlock, TextLine
from papertrail.read.pagetext import clean_text, to_block
from papertrail.types import Block, Rect

log = logging.getLogger(__name__)

PAGE_COVER = 0.15  # share of a page its pictures must cover for them to be read
MIN_PICTURE = 0.02  # share of the page one picture must cover to be read itself
MIN_SIDE = 24.0  # points: a thinner picture is a rule or a border
MIN_LETTERS = 6  # a shorter line (a tick label, a stray mark) adds nothing findable
# letters a page's pictures must add in all: fewer is a logo or a title ("ANNUAL REPORT
# 2015-2016"), a one-line passage that would match every question naming the document
MIN_ADDED = 40
HELD = 0.5  # share of a line's letter trigrams the layer holds for the line to be in it
MIN_CONFIDENCE = 0.9  # OCR's mean score for a line: a photo read as letters scores 0.5-0.8
MERGE_GAP = 2.0  # points: pictures closer than this are one (a scan stored as strips)
UNDER_TEXT = 200  # letters of the layer over a picture that make it a background or a scan
DPI = 200.0  # what a picture is rendered at: enough for a chart's 7-pt labels
MAX_PIXELS = 4000  # long side of a rendered picture, in pixels
MAX_PICTURES = 200  # largest pictures of a page looked at (a map in 10,000 tiles: joining is n²)


@runtime_checkable
class PictureOcr(Protocol):
    """Reads an image's lines with how sure it is of each (0-1), boxes in pixels of the image."""

    def read_scored(self, png: bytes) -> tuple[int, list[tuple[str, Rect, float]]]: ...


def letters(text: str) -> str:
    return "".join(c for c in text.lower() if c.isalpha())


def trigrams(text: str) -> set[str]:
    t = letters(text)
    return {t[i : i + 3] for i in range(len(t) - 2)}


def held(line: str, layer: set[str]) -> bool:
    """The text layer holds ``line``: most of its letter trigrams occur in ``layer``'s."""
    own = trigrams(line)
    return len(own & layer) >= HELD * len(own)


def picture_boxes(page: pymupdf.Page) -> tuple[Rect, ...]:
    """Boxes on the displayed page of the pictures worth reading; () when none are.

    Overlapping or touching pictures (a picture cut into tiles, a scan stored as
    strips, a photo under a frame) are one box, so their text is read once.
    """
    try:
        return _boxes(page)
    except Exception:  # an unreadable image list: the text layer is the page
        log.debug("could not list the pictures of page %d", page.number + 1, exc_info=True)
        return ()


def _boxes(page: pymupdf.Page) -> tuple[Rect, ...]:
    area = abs(page.rect) or 1.0
    found = [
        pymupdf.Rect(im["bbox"]) * page.rotation_matrix & page.rect for im in page.get_image_info()
    ]
    found = sorted((r for r in found if not r.is_empty), key=lambda r: -abs(r))[:MAX_PICTURES]
    found = _joined(found)
    found = [r for r in found if min(r.width, r.height) >= MIN_SIDE]
    if sum(abs(r) for r in found) < PAGE_COVER * area:
        return ()  # too little picture to read (a logo, an icon): spare the words' extraction
    if found:  # a picture under the layer's own words is a background, or a scan read already
        under = _letters_over(page, found)
        found = [r for r, n in zip(found, under, strict=True) if n < UNDER_TEXT]
    if sum(abs(r) for r in found) < PAGE_COVER * area:
        return ()
    return tuple(Rect(r.x0, r.y0, r.x1, r.y1) for r in found if abs(r) >= MIN_PICTURE * area)


def _letters_over(page: pymupdf.Page, boxes: list[pymupdf.Rect]) -> list[int]:
    """Letters of the page's text layer whose word lies (by its middle) in each of ``boxes``."""
    counts = [0] * len(boxes)
    for w in page.get_text("words"):
        r = pymupdf.Rect(w[:4]) * page.rotation_matrix
        middle = pymupdf.Point((r.x0 + r.x1) / 2, (r.y0 + r.y1) / 2)
        n = sum(c.isalpha() for c in w[4])
        for i, box in enumerate(boxes):
            if middle in box:
                counts[i] += n
    return counts


def _joined(boxes: list[pymupdf.Rect]) -> list[pymupdf.Rect]:
    """``boxes``, any two that touch (within ``MERGE_GAP``) replaced by their union."""
    out: list[pymupdf.Rect] = []
    for r in sorted(boxes, key=lambda r: (r.y0, r.x0)):
        r = pymupdf.Rect(r)
        while True:  # a union can reach boxes kept apart before it
            near = [
                m for m in out if m.intersects(r + (-MERGE_GAP, -MERGE_GAP, MERGE_GAP, MERGE_GAP))
            ]
            if not near:
                break
            for m in near:
                out.remove(m)
                r |= m
        out.append(r)
    return out


def read_pictures(
    page: pymupdf.Page, pno: int, boxes: tuple[Rect, ...], layer: str, engine: PictureOcr
) -> list[Block]:
    """The lines OCR reads in ``boxes`` of ``page`` that ``layer`` (its text) lacks, as Blocks."""
    if not boxes:
        return []
    clip = pymupdf.Rect(boxes[0].x0, boxes[0].y0, boxes[0].x1, boxes[0].y1)
    for b in boxes[1:]:
        clip |= pymupdf.Rect(b.x0, b.y0, b.x1, b.y1)
    zoom = min(DPI / 72.0, MAX_PIXELS / (max(clip.width, clip.height) or 1.0))
    try:  # one rendering and one reading a page: OCR's start-up is paid once
        png = page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), clip=clip).tobytes("png")
        _, found = engine.read_scored(png)
    except Exception:  # unreadable pictures must not sink the page
        log.warning("OCR failed on the pictures of page %d", pno, exc_info=True)
        return []
    known = trigrams(layer)
    blocks: list[Block] = []
    for text, px, score in found:
        text = clean_text(text)
        r = Rect(
            clip.x0 + px.x0 / zoom,
            clip.y0 + px.y0 / zoom,
            clip.x0 + px.x1 / zoom,
            clip.y0 + px.y1 / zoom,
        )
        if score < MIN_CONFIDENCE or len(letters(text)) < MIN_LETTERS or held(text, known):
            continue
        if not any(_inside(r, b) for b in boxes):  # the page's own text between two pictures
            continue
        line = TextLine(text, (r.x0, r.y0, r.x1, r.y1), r)
        blocks.append(replace(to_block(TextBlock([line]), pno, 0.0, ocr=True), picture=True))
        known |= trigrams(text)  # a label printed twice (a legend and its bar) is read once
    return blocks if sum(len(letters(b.text)) for b in blocks) >= MIN_ADDED else []


def _inside(r: Rect, box: Rect) -> bool:
    """The middle of ``r`` lies in ``box``."""
    x, y = (r.x0 + r.x1) / 2, (r.y0 + r.y1) / 2
    return box.x0 <= x <= box.x1 and box.y0 <= y <= box.y1
