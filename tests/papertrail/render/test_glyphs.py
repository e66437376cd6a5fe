"""papertrail.render.glyphs: a sentence starting or ending mid-line is marked in whole words.

The page is built with PyMuPDF so that the character-count estimate is off by
more than a glyph (wide capitals before the sentence, narrow letters after it);
the glyph edges the boxes must meet are read back from the page's text layer.
"""

from __future__ import annotations

import numpy as np
import pymupdf

from papertrail.read.pdf import open_document
from papertrail.render.glyphs import snap_to_words
from papertrail.render.headings import page_words
from papertrail.render.render import OUTLINE, PAD, render_snippet
from papertrail.types import Rect
from papertrail.verify.evidence import Span, locate
from tests import pdfs
from tests.papertrail.render.test_render import chunks_of, pixels

FIRST, LAST = "Net", "shares."  # the evidence sentence's first and last words
TEXT = (
    "WWWWW MMMMM WWWW MMMMMMM WW. Net income was 1,577,000 and members received a "
    "dividend of 4.5 percent on their shares. Will it fill its little list till it is lit."
)


def setup():
    data = pdfs.simple_pdf([TEXT])
    chunk = next(c for c in chunks_of(data) if FIRST in c.text)
    a = chunk.text.index(f"{FIRST} income")
    b = chunk.text.index(LAST) + len(LAST)
    evidence = locate(chunk, Span(a, b, chunk.text[a:b]))
    with open_document(data) as doc:
        words = [Rect(*w[:4]) for w in doc[0].get_text("words")]
        texts = [w[4] for w in doc[0].get_text("words")]
    return data, chunk, evidence, words, texts


def neighbours(words, texts, word):
    """The box of ``word`` on the page and of the words just before and after it."""
    i = texts.index(word)
    return words[i - 1], words[i], words[i + 1]


def test_partial_line_boxes_start_and_end_on_the_evidence_words():
    data, chunk, evidence, words, texts = setup()
    before, first, _ = neighbours(words, texts, FIRST)
    _, last, after = neighbours(words, texts, LAST)
    start, end = evidence.rects[0], evidence.rects[-1]
    # the estimate cuts glyphs here: otherwise this test could not fail
    assert not first.x0 - 0.5 <= start.x0 <= first.x0 + 0.5
    assert not last.x1 - 0.5 <= end.x1 <= last.x1 + 0.5
    with open_document(data) as doc:
        snapped = snap_to_words(doc[0], chunk, evidence.rects)
    assert len(snapped) == len(evidence.rects)
    assert before.x1 < snapped[0].x0 <= first.x0  # the whole first word, not the one before
    assert last.x1 <= snapped[-1].x1 < after.x0  # the whole last word, not the one after
    for r, s in zip(evidence.rects, snapped, strict=True):  # same lines, inside their boxes
        line = next(x for x in chunk.rects if x.y0 == r.y0)
        assert (s.y0, s.y1) == (r.y0, r.y1) and line.x0 <= s.x0 < s.x1 <= line.x1


def test_words_read_from_the_whole_page_snap_as_the_band_read_does():
    # the picture reads the page's words once for the snap and the table-row check
    data, chunk, evidence, _, _ = setup()
    with open_document(data) as doc:
        page = doc[0]
        reads = []

        def whole() -> list:
            reads.append(1)
            return page_words(page)

        shared = snap_to_words(page, chunk, evidence.rects, whole)
        assert shared == snap_to_words(page, chunk, evidence.rects)
        assert reads  # the words given were the ones used
        # and on a page turned by /Rotate, whose words are turned to the displayed page
        page.set_rotation(90)
        rects = evidence.rects
        assert snap_to_words(page, chunk, rects, whole) == snap_to_words(page, chunk, rects)


def test_whole_lines_and_pages_without_a_text_layer_keep_their_boxes():
    data, chunk, evidence, _, _ = setup()
    with open_document(data) as doc:
        assert snap_to_words(doc[0], chunk, chunk.rects) == list(chunk.rects)
    blank = pymupdf.open()
    page = blank.new_page(width=pdfs.LETTER[0], height=pdfs.LETTER[1])  # like an OCR page
    assert snap_to_words(page, chunk, evidence.rects) == list(evidence.rects)


def test_the_outline_starts_between_the_previous_word_and_the_first_glyph():
    data, chunk, evidence, words, texts = setup()
    before, first, _ = neighbours(words, texts, FIRST)
    zoom = 2.0
    with open_document(data) as doc:
        snip = render_snippet(doc, chunk, n=1, zoom=zoom, evidence=evidence)
    img = pixels(snip.png)
    mask = np.all(img == OUTLINE, axis=2)
    ys, xs = np.nonzero(mask)
    # the second evidence line is whole, so the outline's leftmost pixel is the line's start
    second = evidence.rects[1]
    ox = second.x0 - PAD - xs.min() / zoom  # the crop's left edge, in points
    row = mask[ys.min() + 4 : ys.min() + 8]  # just under the top edge of the first line
    left = np.nonzero(row.any(axis=0))[0].min() / zoom + ox  # its left edge, points
    assert before.x1 < left <= first.x0  # no glyph of "Net" or "WW." cut by the edge
