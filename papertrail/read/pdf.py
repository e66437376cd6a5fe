"""Reading a PDF into Blocks: checks, passwords, text in reading order, OCR seam.

``read_pdf`` turns bytes into ``ParsedPdf``: it refuses what it cannot use with
a ``PaperTrailError`` the user can act on (empty, not a PDF, too large, too many
pages, corrupt, password-protected, no pages, no text), reads each page with
``pagetext.page_layout`` (lines in reading order, boxes on the displayed
page) and reports pages without usable text. It does not OCR by itself: an
``OcrEngine`` (see ``ocr.py``) may be passed in, and pages without text are
rendered and handed to it, as are the pictures of pages with text (their
words, where the layer lacks them: ``pictures.py``). ``read_pdf`` is two
halves the pipeline also calls apart: ``read_text_layer`` (every page's text,
which pages and pictures need OCR) and ``finish_ocr`` (those read), so
passages can be embedded while OCR runs.
Opening and refusing bytes is ``opening.py``'s.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol

import pymupdf

from papertrail.errors import PaperTrailError
from papertrail.read.layout import TextBlock, TextLine
from papertrail.read.opening import check_bytes, decrypted, open_document
from papertrail.read.pagetext import body_size, clean_text, has_text, page_layout, to_block
from papertrail.read.pictures import PictureOcr, picture_boxes, read_pictures
from papertrail.read.scans import looks_scanned, stamped_scan
from papertrail.settings import Settings
from papertrail.types import Block, Rect

log = logging.getLogger(__name__)
__all__ = [  # check_bytes, decrypted, open_document: from opening.py
    "OcrEngine",
    "ParsedPdf",
    "TextLayer",
    "check_bytes",
    "decrypted",
    "finish_ocr",
    "open_document",
    "page_list",
    "read_pdf",
    "read_text_layer",
]

OCR_DPI = 200  # enough for OCR of 9-pt print, ~1700x2200 px for a letter page
MAX_OCR_PIXELS = 4000  # long side of the rendered page, in pixels


class OcrEngine(Protocol):
    """Reads text from a page image: lines in reading order, boxes in pixels of that image."""

    def read(self, png: bytes) -> list[tuple[str, Rect]]: ...


@dataclass(frozen=True)
class ParsedPdf:
    pages: int
    blocks: tuple[Block, ...]
    no_text_pages: tuple[int, ...] = ()  # 1-based pages without usable text (after OCR)
    ocr_pages: tuple[int, ...] = ()  # 1-based pages whose text came from OCR
    picture_pages: tuple[int, ...] = ()  # pages with a text layer whose pictures' text OCR added
    repaired: bool = False  # MuPDF had to repair the file's structure
    warnings: tuple[str, ...] = ()  # user-facing
    ocr_seconds: float = 0.0  # wall time spent reading pages with OCR


def read_pdf(
    data: bytes,
    settings: Settings,
    *,
    password: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    ocr: OcrEngine | None = None,
) -> ParsedPdf:
    """Check, open and extract ``data``; raises PaperTrailError when it cannot be used."""
    layer = read_text_layer(data, settings, password=password, progress=progress)
    return finish_ocr(layer, data, settings, password=password, ocr=ocr)


@dataclass(frozen=True)
class TextLayer:
    """A PDF read without OCR: ``read_pdf``'s first half, ``finish_ocr`` the second.

    The pipeline embeds ``blocks`` while ``finish_ocr`` reads the ``ocr_todo``
    pages on another thread.
    """

    pages: int
    blocks: tuple[Block, ...]  # the text layer's, in page order
    text_pages: frozenset[int]  # pages whose text layer is indexed
    empty: tuple[int, ...]  # no usable text, but ink OCR could read
    blank: tuple[int, ...]  # no usable text and nothing OCR could read either
    stamped: tuple[int, ...]  # a scan under a line of text: OCR adds the picture's text
    broken: tuple[int, ...]
    repaired: bool
    # pages with a text layer and the boxes of their pictures that OCR should read
    pictures: tuple[tuple[int, tuple[Rect, ...]], ...] = ()

    @property
    def ocr_todo(self) -> tuple[int, ...]:  # pages OCR reads whole
        return tuple(sorted(self.empty + self.stamped))

    @property
    def ocr_any(self) -> bool:  # OCR has something to read: whole pages or pictures
        return bool(self.ocr_todo or self.pictures)


def read_text_layer(
    data: bytes,
    settings: Settings,
    *,
    password: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> TextLayer:
    """Check, open and read every page's text layer; which pages OCR should read."""
    check_bytes(data, settings)
    doc = open_document(data, password)
    with doc:
        total = doc.page_count
        if settings.max_pages > 0 and total > settings.max_pages:
            raise PaperTrailError(
                f"This PDF has {total:,} pages, more than the limit of {settings.max_pages:,}. "
                "Split it into smaller files, or raise the limit with PAPERTRAIL_MAX_PAGES.",
                code="too_many_pages",
            )
        pages: list[tuple[int, list[TextBlock]]] = []
        empty: list[int] = []  # no usable text, but ink that OCR could read
        blank: list[int] = []  # no usable text and nothing OCR could read either
        short: list[tuple[int, list[TextBlock]]] = []  # a few words only ("Issue 6010")
        broken: list[int] = []
        stamped: list[int] = []  # a scan under a line of text: OCR adds the picture's text
        pictures: list[tuple[int, tuple[Rect, ...]]] = []  # text pages' pictures to read
        for i in range(total):
            try:
                found = page_layout(doc[i])
            except Exception:  # one unreadable page must not sink the document
                log.warning("page %d of a PDF could not be read", i + 1, exc_info=True)
                found = []
                broken.append(i + 1)
            text = " ".join(ln.text for tb in found for ln in tb.lines)
            if has_text(text):
                pages.append((i + 1, found))
                if stamped_scan(doc[i], text):
                    stamped.append(i + 1)
                elif boxes := picture_boxes(doc[i]):
                    pictures.append((i + 1, boxes))
            elif i + 1 in broken or looks_scanned(doc[i]):
                empty.append(i + 1)
            else:
                blank.append(i + 1)
                if any(c.isalpha() for tb in found for ln in tb.lines for c in ln.text):
                    short.append((i + 1, found))
            if progress:
                progress(i + 1, total)
        if not pages and short and not empty:
            pages = short  # a few real words are the document: index them, not refuse it
        body = body_size(tb for _, page in pages for tb in page)
        return TextLayer(
            pages=total,
            blocks=tuple(to_block(tb, pno, body) for pno, page in pages for tb in page),
            text_pages=frozenset(p for p, _ in pages),
            empty=tuple(empty),
            blank=tuple(blank),
            stamped=tuple(stamped),
            broken=tuple(broken),
            repaired=bool(doc.is_repaired),
            pictures=tuple(pictures),
        )


def finish_ocr(
    layer: TextLayer,
    data: bytes,
    settings: Settings,
    *,
    password: str | None = None,
    ocr: OcrEngine | None = None,
) -> ParsedPdf:
    """``layer`` with its ``ocr_todo`` pages read by ``ocr`` (when given): the ParsedPdf."""
    blocks = list(layer.blocks)
    ocred: list[int] = []
    pictured: list[int] = []
    started = time.perf_counter()
    if ocr is not None and layer.ocr_any:
        # OCR takes seconds a page: spend at most half the indexing time limit on it
        # and leave the rest of the pages listed as without text. Pages without text
        # come first; pictures on pages with text get what is left, at most a quarter.
        deadline = time.monotonic() + settings.max_index_seconds / 2
        with open_document(data, password) as doc:
            for pno in layer.ocr_todo:
                if time.monotonic() > deadline:
                    log.info("OCR time budget spent; %d pages left without text", len(layer.empty))
                    break
                got = _ocr_page(doc[pno - 1], pno, ocr)
                if got:
                    blocks.extend(got)
                    ocred.append(pno)
            deadline = min(deadline, time.monotonic() + settings.max_index_seconds / 4)
            # pictures only with an engine that says how sure it is: a photo read as letters
            todo = layer.pictures if isinstance(ocr, PictureOcr) else ()
            texts: dict[int, list[str]] = {pno: [] for pno, _ in todo}
            for b in layer.blocks if todo else ():
                texts.get(b.page, []).append(b.text)
            for n, (pno, boxes) in enumerate(todo):
                if time.monotonic() > deadline:
                    log.info("OCR time spent; pictures of %d pages left unread", len(todo) - n)
                    break
                got = read_pictures(doc[pno - 1], pno, boxes, " ".join(texts[pno]), ocr)
                if got:
                    blocks.extend(got)
                    pictured.append(pno)
        blocks.sort(key=lambda b: b.page)  # stable: keeps each page's order
    unread = [p for p in layer.empty if p not in ocred]
    no_text = tuple(sorted(set(unread + list(layer.blank)) - layer.text_pages))
    if not blocks:
        raise PaperTrailError(_no_text(bool(layer.empty), ocr is not None), code="no_text")
    return ParsedPdf(
        pages=layer.pages,
        blocks=tuple(blocks),
        no_text_pages=no_text,
        ocr_pages=tuple(ocred),
        picture_pages=tuple(pictured),
        repaired=layer.repaired,
        warnings=tuple(_warnings(layer.repaired, list(layer.broken), unread, ocred)),
        ocr_seconds=time.perf_counter() - started if ocr is not None and layer.ocr_any else 0.0,
    )


def _no_text(scanned: bool, ocr_tried: bool) -> str:
    """Why a PDF gave no text, and the fix that can still help."""
    if scanned and ocr_tried:
        return (
            "This PDF has no text I can search, even after OCR: its pages look like images "
            "with no legible text. Upload a PDF with selectable text, or a sharper scan."
        )
    if scanned:
        return (
            "This PDF has no text I can search: it looks scanned (its pages are images) and "
            "OCR is not available here. Upload a PDF with selectable text, or run it "
            "through OCR first."
        )
    return (
        "This PDF has no text I can search: its pages are blank, or their text layer "
        "cannot be read. Upload a PDF with selectable text."
    )


def page_list(pages: Iterable[int]) -> str:
    """``[3, 4, 5, 8]`` -> ``"3-5, 8"`` for messages."""
    out: list[str] = []
    for p in sorted(set(pages)):
        if out and out[-1].split("-")[-1] == str(p - 1):
            out[-1] = f"{out[-1].split('-')[0]}-{p}"
        else:
            out.append(str(p))
    return ", ".join(out)


def _ocr_page(page: pymupdf.Page, pno: int, engine: OcrEngine) -> list[Block]:
    """Render ``page`` as displayed, OCR it and turn the lines into Blocks (ocr=True)."""
    try:
        # 200 dpi, but at most MAX_OCR_PIXELS on the long side (a poster-sized page
        # at 200 dpi is a 100+ MB pixmap for no better reading).
        longest = max(page.rect.width, page.rect.height) or 1.0
        zoom = min(OCR_DPI / 72.0, MAX_OCR_PIXELS / longest)
        png = page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom)).tobytes("png")
        found = engine.read(png)  # the pixmap (~8 MB a page) is gone before OCR runs
    except Exception:
        log.warning("OCR failed on page %d", pno, exc_info=True)
        return []
    scale = 1.0 / zoom  # pixels -> points
    todo = []
    for text, px in found:
        text = clean_text(text)
        if text:
            r = Rect(px.x0 * scale, px.y0 * scale, px.x1 * scale, px.y1 * scale)
            todo.append(TextBlock([TextLine(text, (r.x0, r.y0, r.x1, r.y1), r)]))
    # The engine orders lines in the text's upright frame; re-sorting them in the
    # page's frame would scramble a scan that is turned on its side.
    blocks = [to_block(tb, pno, 0.0, ocr=True) for tb in todo]
    return blocks if has_text(" ".join(b.text for b in blocks)) else []


def _warnings(repaired: bool, broken: list[int], no_text: list[int], ocred: list[int]):
    if repaired:
        yield "The PDF was damaged and had to be repaired while reading; some text may be missing."
    if broken:
        yield f"Page(s) {page_list(broken)} could not be read and were skipped."
    if no_text:
        yield (
            f"Page(s) {page_list(no_text)} have no usable text (they look scanned), "
            "so nothing on them can be found or cited."
        )
    if ocred:
        yield f"Page(s) {page_list(ocred)} were read with OCR; their text may contain errors."
