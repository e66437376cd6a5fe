"""PDF fixtures built with PyMuPDF at test time: each builder returns PDF bytes.

Shared by every test module (never files from /work/shared). Text is written
with the base-14 Helvetica/Times fonts, so nothing depends on system fonts;
``unicode_pdf`` maps byte codes to ligatures, Arabic presentation forms and
control characters through a hand-written ToUnicode CMap instead.
``paper_pdf`` is a realistic multi-page paper whose facts are listed in
``PAPER_FACTS`` (phrase, 1-based page) for retrieval and citation tests.
"""

from __future__ import annotations

import pymupdf

LETTER = (612, 792)  # points
BODY = 10  # body font size, points


def simple_pdf(pages: list[str], *, fontsize: float = 11) -> bytes:
    """One page per string, each wrapped in a 1-inch-margin text box."""
    doc = pymupdf.open()
    for text in pages:
        page = doc.new_page(width=LETTER[0], height=LETTER[1])
        if text:
            _box(page, pymupdf.Rect(72, 72, 540, 720), text, fontsize=fontsize)
    return doc.tobytes()


def two_column_pdf() -> bytes:
    """Title across the page, then two columns whose baselines line up, and a page number.

    Left sentences say "Left sentence N", right ones "Right sentence N".
    """
    doc = pymupdf.open()
    page = doc.new_page(width=LETTER[0], height=LETTER[1])
    _box(page, pymupdf.Rect(54, 60, 558, 90), "Reading Order in Two Columns", 16, "hebo", 1)
    _box(page, pymupdf.Rect(54, 110, 296, 720), column_text("Left", 14), BODY)
    _box(page, pymupdf.Rect(316, 110, 558, 720), column_text("Right", 14), BODY)
    page.insert_text((302, 760), "1", fontsize=9)
    return doc.tobytes()


def three_column_pdf() -> bytes:
    """Title, three columns, a full-width paragraph, then three more columns.

    Sentences carry their place: "Alpha sentence N" (column 1, top), "Beta"
    (2, top), "Gamma" (3, top), "Middle", then "Delta", "Epsilon", "Zeta" below.
    """
    doc = pymupdf.open()
    page = doc.new_page(width=LETTER[0], height=LETTER[1])
    _box(page, pymupdf.Rect(54, 50, 558, 80), "Reading Order in Three Columns", 16, "hebo", 1)
    xs = [(54, 210), (228, 384), (402, 558)]
    for (x0, x1), word in zip(xs, ("Alpha", "Beta", "Gamma"), strict=True):
        _box(page, pymupdf.Rect(x0, 95, x1, 380), column_text(word, 6), 9)
    middle = " ".join(
        f"Middle sentence {i} runs across the whole width of the page." for i in range(1, 5)
    )
    _box(page, pymupdf.Rect(54, 395, 558, 460), middle, 9)
    for (x0, x1), word in zip(xs, ("Delta", "Epsilon", "Zeta"), strict=True):
        _box(page, pymupdf.Rect(x0, 475, x1, 740), column_text(word, 6), 9)
    return doc.tobytes()


def column_text(word: str, n: int) -> str:
    return " ".join(
        f"{word} sentence {i} describes one more step of this column." for i in range(n)
    )


def rotated_pdf(
    rotation: int = 90, text: str = "Rotated page text sample", *, upright: bool = True
) -> bytes:
    """A letter page with ``/Rotate rotation`` and ``text`` at (72, 144) of the displayed page.

    ``upright=True`` writes the text so it reads normally on screen (a scanner's
    landscape page); False writes it in the unrotated frame, so it shows sideways
    (like a landscape table saved on a portrait page).
    """
    doc = pymupdf.open()
    page = doc.new_page(width=LETTER[0], height=LETTER[1])
    page.set_rotation(rotation)
    if upright:
        at = pymupdf.Point(72, 144) * page.derotation_matrix
        page.insert_text(at, text, fontsize=24, rotate=rotation)
    else:
        page.insert_text((72, 144), text, fontsize=24)
    return doc.tobytes()


TABLE_ROWS = [
    ("Net revenue", "$ 1,577", "$ 1,432", "$ 1,301"),
    ("Cost of sales", "912", "850", "799"),
    ("Gross margin", "665", "582", "502"),
    ("Research and development", "201", "187", "166"),
    ("Operating income", "231", "198", "170"),
    ("Net income", "$ 154", "$ 131", "$ 112"),
]


def table_pdf() -> bytes:
    """A 10-K style statement: every cell drawn separately, numbers right-aligned."""
    doc = pymupdf.open()
    page = doc.new_page(width=LETTER[0], height=LETTER[1])
    page.insert_text(
        (180, 72), "Consolidated Statements of Operations", fontsize=12, fontname="hebo"
    )
    right = (380, 460, 540)  # right edges of the year columns
    y = 110
    page.insert_text((72, y), "(In millions)", fontsize=9)
    for x, year in zip(right, ("2023", "2022", "2021"), strict=True):
        _right(page, x, y, year, "hebo")
    for row in TABLE_ROWS:
        y += 16
        page.insert_text((72, y), row[0], fontsize=9)
        for x, cell in zip(right, row[1:], strict=True):
            _right(page, x, y, cell)
    note = (
        "Net revenue grew to $1,577 million in 2023 because shipments of the new product line "
        "began in the second quarter. See the accompanying notes."
    )
    _box(page, pymupdf.Rect(72, y + 30, 540, y + 120), note, 10)
    return doc.tobytes()


def numbers_pdf() -> bytes:
    """Figures written the ways reports write them: $, %, commas, words, per share."""
    text = (
        "Revenue rose 12.5% to $1,577 million in fiscal 2023, compared with $1,402 million in "
        "fiscal 2022. Operating margin was 14.6 percent. Net income was $154.2 million, or "
        "$1.27 per diluted share. The company employed 4,312 people at year end, up from "
        "3,980 a year earlier. Capital expenditure was $88 million. Cash and cash equivalents "
        "stood at $2.3 billion on December 31, 2023. The board declared a dividend of $0.25 "
        "per share, payable in March 2024. Twelve new stores opened during the year."
    )
    return simple_pdf([text])


def encrypted_pdf(password: str, *, method: int = pymupdf.PDF_ENCRYPT_AES_256) -> bytes:
    """One page ("The code word is heliotrope.") that needs ``password`` to open."""
    doc = pymupdf.open("pdf", simple_pdf(["This document is secret. The code word is heliotrope."]))
    return doc.tobytes(encryption=method, user_pw=password, owner_pw=f"owner-{password}")


def image_only_pdf(pages: int = 1) -> bytes:
    """Pages holding only a picture (grey bands standing in for a scan): no text layer."""
    doc = pymupdf.open()
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 300, 400), False)
    pix.clear_with(255)
    for i in range(8):
        pix.set_rect(pymupdf.IRect(20, 30 + 40 * i, 280, 42 + 40 * i), (60, 60, 60))
    for _ in range(pages):
        page = doc.new_page(width=LETTER[0], height=LETTER[1])
        page.insert_image(pymupdf.Rect(72, 72, 540, 696), pixmap=pix)
    return doc.tobytes()


def mixed_pdf() -> bytes:
    """Page 1 text, page 2 an image only, page 3 text."""
    doc = pymupdf.open("pdf", simple_pdf([_LOREM, "", _LOREM.replace("river", "harbour")]))
    doc.insert_pdf(pymupdf.open("pdf", image_only_pdf()), start_at=1)
    doc.delete_page(2)  # the blank page simple_pdf made for ""
    return doc.tobytes()


def corrupt_bytes() -> bytes:
    """A PDF header and trailer with nothing between: MuPDF cannot open it."""
    return b"%PDF-1.4\n%%EOF\n"


def zero_page_like() -> bytes:
    """A structurally valid PDF whose page tree is empty (MuPDF repairs it to 0 pages)."""
    return (
        b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n"
        b"2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\n"
        b"trailer\n<< /Root 1 0 R >>\n%%EOF\n"
    )


def long_block_pdf() -> bytes:
    """One paragraph of about 2,600 characters."""
    sentences = [
        f"Sentence {i} of the long paragraph reports that measurement {i} stayed within range."
        for i in range(1, 40)
    ]
    text = " ".join(sentences)
    while len(text) > 2600:
        text = text.rsplit(" ", 1)[0]
    return simple_pdf([text], fontsize=9)


def tight_paragraph_pdf() -> bytes:
    """One paragraph set solid (line boxes overlap) in words with tall and deep letters,
    so a box padded around one line runs into the glyphs of the lines next to it."""
    text = " ".join(
        f"Typing {i} quickly, judges gauge philosophy: gypsy jumping pygmy yogurt."
        for i in range(12)
    )
    doc = pymupdf.open()
    page = doc.new_page(width=LETTER[0], height=LETTER[1])
    page.insert_textbox(pymupdf.Rect(72, 72, 540, 720), text, fontsize=11, lineheight=1.05)
    return doc.tobytes()


BANDS = {"green": (0.85, 0.93, 0.85), "red": (0.92, 0.43, 0.27)}  # fill colours, 0..1


def banded_table_pdf() -> bytes:
    """``table_pdf``'s rows, each on a coloured band as filings print them: "Net revenue"
    on a pale green band, "Cost of sales" on a red one, the rest on white."""
    doc = pymupdf.open()
    page = doc.new_page(width=LETTER[0], height=LETTER[1])
    right = (380, 460, 540)
    y = 110
    for x, year in zip(right, ("2023", "2022", "2021"), strict=True):
        _right(page, x, y, year, "hebo")
    colours = [BANDS["green"], BANDS["red"]]
    for k, row in enumerate(TABLE_ROWS):
        y += 18
        if k < len(colours):
            page.draw_rect(pymupdf.Rect(66, y - 12, 546, y + 5), color=None, fill=colours[k])
        page.insert_text((72, y), row[0], fontsize=9)
        for x, cell in zip(right, row[1:], strict=True):
            _right(page, x, y, cell)
    return doc.tobytes()


FILING_PAGES = [  # (title, column headings, rows): a filing's statements, one per page
    (
        "Segment Information (in millions)",
        ("2015", "2016", "2017"),
        [
            ("North America Net sales", "$ 63,708", "$ 79,785", "$ 106,110"),
            ("North America Operating income", "1,425", "2,361", "2,837"),
            ("International Net sales", "35,418", "43,983", "54,297"),
        ],
    ),
    (
        "Consolidated Statements of Operations (in millions)",
        ("2015", "2016", "2017"),
        [
            ("Net product sales", "$ 79,268", "$ 94,665", "$ 118,573"),
            ("Net service sales", "27,738", "41,322", "59,293"),
            ("Total net sales", "107,006", "135,987", "177,866"),
            ("Operating income", "2,233", "4,186", "4,106"),
            ("Net income", "$ 596", "$ 2,371", "$ 3,033"),
        ],
    ),
    (
        "Consolidated Balance Sheets (in millions)",
        ("2016", "2017"),
        [
            ("Total current assets", "$ 45,781", "$ 60,197"),
            ("Total assets", "83,402", "131,310"),
            ("Total current liabilities", "43,816", "57,883"),
            ("Long-term debt", "7,694", "24,743"),
        ],
    ),
]
OPINION = (
    "In our opinion, the consolidated financial statements referred to above present fairly, "
    "in all material respects, the financial position of the Company and the results of its "
    "operations, including its net sales and net income, for each of the three years."
)


def filing_pdf() -> bytes:
    """Three statement pages drawn cell by cell (``FILING_PAGES``), the auditor's opinion
    (``OPINION``) under the first, a page number at the foot of each."""
    doc = pymupdf.open()
    for n, (title, years, rows) in enumerate(FILING_PAGES, 1):
        page = doc.new_page(width=LETTER[0], height=LETTER[1])
        page.insert_text((72, 72), title, fontsize=12, fontname="hebo")
        right = (380, 460, 540)[-len(years) :]
        y = 110
        for x, year in zip(right, years, strict=True):
            _right(page, x, y, year, "hebo")
        for row in rows:
            y += 16
            page.insert_text((72, y), row[0], fontsize=9)
            for x, cell in zip(right, row[1:], strict=True):
                _right(page, x, y, cell)
        if n == 1:
            _box(page, pymupdf.Rect(72, y + 40, 540, y + 140), OPINION, 10)
        page.insert_text((302, 760), str(n), fontsize=9)
    return doc.tobytes()


# codes 0x01.. drawn with Helvetica but mapped by ToUnicode to what extraction should see
_UNICODE_MAP = {
    0x01: "FB01",  # LATIN SMALL LIGATURE FI
    0x02: "FB02",  # LATIN SMALL LIGATURE FL
    0x03: "0003",  # END OF TEXT, a stray control character (MuPDF yields U+FFFD)
    0x07: "0007",  # BELL (likewise)
    0x11: "FE8D",  # ARABIC LETTER ALEF ISOLATED FORM
    0x12: "FEDF",  # LAM INITIAL
    0x13: "FECC",  # AIN MEDIAL
    0x14: "FEAE",  # REH FINAL
    0x15: "FE91",  # BEH INITIAL
    0x16: "FEF4",  # YEH MEDIAL
    0x17: "FE94",  # TEH MARBUTA FINAL
}
UNICODE_LINES = [  # (bytes drawn, Line.text after reading, Block.norm (NFKC) or None)
    (b"The \x01nal \x02ow of \x01les", "The ﬁnal ﬂow of ﬁles", "The final flow of files"),
    (b"control\x03chars\x07stripped here", "control chars stripped here", None),
    (b"\x17\x16\x15\x14\x13\x12\x11", "ﺍﻟﻌﺮﺑﻴﺔ", "العربية"),  # drawn in visual order
]


def unicode_pdf() -> bytes:
    """Three lines whose extracted text holds ligatures, control characters and
    Arabic presentation forms (see ``UNICODE_LINES``)."""
    doc = pymupdf.open()
    page = doc.new_page(width=LETTER[0], height=LETTER[1])
    pairs = "\n".join(f"<{k:02X}> <{v}>" for k, v in _UNICODE_MAP.items())
    cmap = (
        "/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n"
        "/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n"
        "/CMapName /Adobe-Identity-UCS def /CMapType 2 def\n"
        "1 begincodespacerange <00> <FF> endcodespacerange\n"
        f"{len(_UNICODE_MAP)} beginbfchar\n{pairs}\nendbfchar\n"
        "1 beginbfrange <20> <7E> <0020> endbfrange\n"
        "endcmap CMapName currentdict /CMap defineresource pop end end\n"
    )
    cmap_xref = doc.get_new_xref()
    doc.update_object(cmap_xref, "<< >>")
    doc.update_stream(cmap_xref, cmap.encode())
    font_xref = doc.get_new_xref()
    doc.update_object(
        font_xref,
        f"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode {cmap_xref} 0 R >>",
    )
    ops = b"".join(
        b"BT /F1 14 Tf 72 %d Td (%s) Tj ET\n" % (720 - 30 * i, _pdf_string(raw))
        for i, (raw, _, _) in enumerate(UNICODE_LINES)
    )
    content_xref = doc.get_new_xref()
    doc.update_object(content_xref, "<< >>")
    doc.update_stream(content_xref, ops)
    doc.xref_set_key(page.xref, "Resources", f"<< /Font << /F1 {font_xref} 0 R >> >>")
    doc.xref_set_key(page.xref, "Contents", f"{content_xref} 0 R")
    return doc.tobytes()


def _pdf_string(raw: bytes) -> bytes:
    out = raw.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")
    return b"".join(b"\\%03o" % c if c < 32 else bytes([c]) for c in out)


# -- the realistic paper ---------------------------------------------------------------

PAPER_TITLE = "Lattice Attention Networks for Sequence Transduction"
PAPER_FACTS = [  # (phrase as printed, 1-based page)
    ("The encoder is composed of a stack of N = 6 identical layers", 2),
    ("each layer has two sub-layers", 2),
    ("h = 8 parallel attention heads", 2),
    ("eight NVIDIA P100 GPUs", 3),
    ("3.5 days", 3),
    ("dropout rate of Pdrop = 0.1", 3),
    ("28.4 BLEU on the WMT 2014 English-to-German translation task", 4),
    ("41.0 BLEU on the WMT 2014 English-to-French translation task", 4),
]

_PAPER = [
    [
        ("title", PAPER_TITLE),
        ("body", "Mira Okafor, Tomas Lindqvist and Ana Ribeiro. Harbour Institute of Computing."),
        ("h1", "Abstract"),
        (
            "body",
            "Sequence transduction models usually combine recurrent or convolutional layers with "
            "an attention mechanism. We describe the Lattice network, which relies on attention "
            "alone and drops recurrence entirely. On two machine translation benchmarks the "
            "model is more accurate than earlier systems while training in a fraction of the "
            "time. It reaches 28.4 BLEU on English-to-German and 41.0 BLEU on English-to-French.",
        ),
        ("h1", "1 Introduction"),
        (
            "body",
            "Recurrent networks process a sentence one position at a time, so the computation "
            "for a long sentence cannot be spread across many processors. Attention lets every "
            "position look at every other position in a constant number of steps. Earlier "
            "systems used attention on top of a recurrent encoder; here attention does all of "
            "the work. Section 2 describes the architecture, Section 3 the training regime and "
            "Section 4 the results on translation.",
        ),
    ],
    [
        ("h1", "2 Model Architecture"),
        (
            "body",
            "The Lattice network follows the familiar encoder-decoder structure. The encoder "
            "maps an input sequence of symbols to a sequence of continuous representations, and "
            "the decoder generates the output sequence one symbol at a time, consuming the "
            "symbols it produced before as additional input.",
        ),
        ("h2", "2.1 Encoder and Decoder Stacks"),
        (
            "body",
            "The encoder is composed of a stack of N = 6 identical layers, and each layer has "
            "two sub-layers: a multi-head self-attention mechanism and a position-wise feed-"
            "forward network. A residual connection surrounds each sub-layer, followed by layer "
            "normalisation. All sub-layers produce outputs of dimension dmodel = 512. The "
            "decoder is also a stack of six identical layers, with a third sub-layer that "
            "attends over the output of the encoder.",
        ),
        ("h2", "2.2 Multi-Head Attention"),
        (
            "body",
            "Instead of a single attention function over 512-dimensional keys, values and "
            "queries, we project them linearly into h = 8 parallel attention heads of dimension "
            "64 each. The heads attend to information from different representation subspaces "
            "at different positions, and their outputs are concatenated and projected again.",
        ),
    ],
    [
        ("h1", "3 Training"),
        (
            "body",
            "We trained on the WMT 2014 English-German dataset of about 4.5 million sentence "
            "pairs and on the larger WMT 2014 English-French dataset of 36 million sentences. "
            "Sentences were encoded with byte-pair encoding and batched by approximate length, "
            "with about 25,000 source tokens and 25,000 target tokens per batch.",
        ),
        ("h2", "3.1 Hardware and Schedule"),
        (
            "body",
            "All models were trained on one machine with eight NVIDIA P100 GPUs. The base "
            "models took about 0.4 seconds per training step and were trained for 100,000 steps, "
            "or 12 hours. The big models were trained for 300,000 steps, which took 3.5 days.",
        ),
        ("h2", "3.2 Regularisation"),
        (
            "body",
            "We apply dropout to the output of each sub-layer before it is added to the "
            "sub-layer input, with a dropout rate of Pdrop = 0.1 for the base model. During "
            "training we also use label smoothing of value 0.1, which hurts perplexity but "
            "improves accuracy and BLEU score.",
        ),
    ],
    [
        ("h1", "4 Results"),
        (
            "body",
            "Translation quality is measured with BLEU on newstest2014. The big model reaches "
            "28.4 BLEU on the WMT 2014 English-to-German translation task, more than 2.0 BLEU "
            "above the best previously reported models. It reaches 41.0 BLEU on the WMT 2014 "
            "English-to-French translation task, at less than a quarter of the training cost of "
            "the previous state of the art.",
        ),
        ("h2", "4.1 Model Variations"),
        (
            "body",
            "Reducing the number of attention heads to one costs 0.9 BLEU, while too many heads "
            "also hurt quality. Bigger models are better, and dropout is very helpful in "
            "avoiding over-fitting. Replacing the sinusoidal position encoding with learned "
            "position embeddings gives nearly identical results.",
        ),
        ("h1", "5 Conclusion"),
        (
            "body",
            "The Lattice network is the first transduction model based entirely on attention. "
            "For translation it trains significantly faster than recurrent or convolutional "
            "architectures and sets a new state of the art on both WMT 2014 tasks.",
        ),
    ],
]
_STYLE = {"title": (16, "hebo", 1), "h1": (12, "hebo", 0), "h2": (BODY, "hebo", 0)}


def paper_pdf() -> bytes:
    """Four pages of a plausible paper: title, headings in bold, body in Times, numbers."""
    doc = pymupdf.open()
    for n, items in enumerate(_PAPER, start=1):
        page = doc.new_page(width=LETTER[0], height=LETTER[1])
        y = 72.0
        for kind, text in items:
            size, font, align = _STYLE.get(kind, (BODY, "tiro", 3))
            y = _box(page, pymupdf.Rect(72, y, 540, 720), text, size, font, align) + 8
        page.insert_text((302, 750), str(n), fontsize=9, fontname="tiro")
    return doc.tobytes()


_LOREM = (
    "The survey of the river basin covered forty stations along the main channel. Each station "
    "recorded water level, temperature and turbidity every hour for the whole season."
)


def _box(
    page: pymupdf.Page,
    rect: pymupdf.Rect,
    text: str,
    fontsize: float = BODY,
    fontname: str = "helv",
    align: int = 0,
) -> float:
    """Write ``text`` wrapped in ``rect``; returns the y just below the last line."""
    if not text:
        return rect.y0
    spare = page.insert_textbox(rect, text, fontsize=fontsize, fontname=fontname, align=align)
    if spare < 0:
        raise ValueError(f"text does not fit in {rect}: {text[:40]!r}")
    return rect.y1 - spare


def _right(page: pymupdf.Page, x: float, y: float, text: str, font: str = "helv") -> None:
    width = pymupdf.get_text_length(text, fontname=font, fontsize=9)
    page.insert_text((x - width, y), text, fontsize=9, fontname=font)
