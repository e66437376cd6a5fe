"""identity: a document's title, kind, issuer, period and aliases from its opening pages."""

from __future__ import annotations

from papertrail.domains import KNOWN
from papertrail.domains.finance.domain import Finance, short_name
from papertrail.text.identity import identify, in_context, opening, passages, title, words
from papertrail.types import Chunk, Identity, Rect

COVER_LINES = [
    "UNITED STATES SECURITIES AND EXCHANGE COMMISSION",
    "FORM 10-K",
    "ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d)",
    "For the fiscal year ended December 31, 2019",
    "Initrode Systems, Inc.",
    "(Exact name of registrant as specified in its charter)",
    "Title of each class Trading Symbol(s) Name of each exchange",
    "Class A Common Stock INIT NYSE",
    "Indicate by check mark whether the registrant is a well-known seasoned issuer.",
]


def lined(lines: list[str], page: int = 1, index: int = 0) -> Chunk:
    """A chunk as the chunker makes it: lines joined by spaces, their starts recorded."""
    starts, text = [], ""
    for line in lines:
        starts.append(len(text) + (1 if text else 0))
        text = f"{text} {line}" if text else line
    return Chunk(
        "d" * 64, "scan-0042.pdf", index, page, text, (Rect(0, 0, 1, 1),), "", tuple(starts)
    )


def test_a_filing_cover_gives_issuer_kind_period_and_trading_symbol():
    found = identify("scan-0042.pdf", [lined(COVER_LINES)], KNOWN)
    assert found.issuer == "Initrode Systems, Inc." and found.kind == "annual report (10-K)"
    assert (
        found.domain == "finance" and found.title == "Initrode Systems, Inc., annual report (10-K)"
    )
    assert found.fiscal_year == 2019 and found.end == "2019-12-31"
    assert found.period == "fiscal 2019 (as of 2019-12-31)"
    assert set(found.aliases) == {"INIT", "Initrode Systems"}  # not "A" of "Class A", not NYSE
    assert "INIT" in words("scan-0042.pdf", found) and "scan 0042" in words("scan-0042.pdf", found)


def test_an_earnings_release_names_its_issuer_and_symbol():
    text = [
        "Globex Reports First-Quarter 2023 Results",
        "SPRINGFIELD - April 25, 2023 - Globex, Inc. (NASDAQ: GBX) today reported results.",
    ]
    found = identify("release.pdf", [lined(text)], KNOWN)
    assert found.kind == "earnings release" and found.issuer == "Globex, Inc."
    assert found.aliases[0] == "GBX" and (found.fiscal_year, found.fiscal_quarter) == (2023, 1)


def test_a_manual_or_paper_gets_no_domain():
    text = ["Lattice Attention Networks", "for Sequence Transduction", "Abstract We propose"]
    found = identify("paper.pdf", [lined(text)], KNOWN)
    assert found.title == "Lattice Attention Networks for Sequence Transduction"
    assert found.domain == "" and found.kind == "" and found.period == ""
    assert Finance().recognise("Owner's manual. See form 10-K of the parent company.") is None


def test_opening_restores_line_breaks_and_keeps_to_the_first_pages():
    chunks = [lined(["Title", "line two"]), lined(["later page"], page=3, index=1)]
    chunks.insert(1, lined(["second page"], page=2, index=2))
    assert opening(chunks) == "Title\nline two\nsecond page"
    assert title("\n\n---\nA Guide\nto Fridges\nChapter 1 is long enough to stand apart") == (
        "A Guide to Fridges"
    )
    assert short_name("WALMART INC.") == "WALMART" and short_name("Foo Holdings") == "Foo Holdings"


def test_contextual_passages_carry_title_and_heading_and_plain_ones_do_not():
    about = identify("scan-0042.pdf", [lined(COVER_LINES)], KNOWN)
    part = Chunk(
        "d" * 64, "x.pdf", 3, 4, "Net revenue was 12 million.", (), "Results of Operations"
    )
    title = "Initrode Systems, Inc., annual report (10-K)"
    assert passages([part], about) == [f"{title}\nResults of Operations\n{part.text}"]
    assert passages([part], None) == ["Net revenue was 12 million."]
    titled = Chunk(
        "d" * 64, "x.pdf", 0, 1, "Results of Operations: revenue", (), "Results of Operations"
    )
    assert in_context(titled, about) == f"{title}\n{titled.text}"  # its heading: not repeated


def test_a_document_no_domain_recognised_is_embedded_as_it_is():
    # a generic document's "title" is its first prominent line, often not a title
    manual = identify("fridge.pdf", [lined(["Contents", "1 Safety", "2 Installation"])], KNOWN)
    assert manual.domain == ""
    part = Chunk("d" * 64, "fridge.pdf", 3, 4, "Keep the door shut.", (), "Safety")
    assert passages([part], manual) == ["Keep the door shut."]


def test_the_document_a_question_names_among_those_found():
    from papertrail.text.identity import most_named, named_in

    cola = Identity(issuer="The Coca-Cola Company", aliases=("KO",), fiscal_year=2017)
    amazon = Identity(issuer="AMAZON.COM, INC.", aliases=("AMZN",), fiscal_year=2017)
    amazon_19 = Identity(issuer="AMAZON.COM, INC.", aliases=("AMZN",), fiscal_year=2019)
    asked = "What is Amazon's year-over-year change in revenue from FY2016 to FY2017?"
    assert named_in(asked, amazon) == 1.0  # "amazon" of "amazon com", and fiscal 2017
    assert named_in(asked, amazon_19) == 0.5
    assert named_in(asked, cola) == 0.5 and named_in(asked, None) == 0.0
    assert named_in("What was KO's FY2015 capex?", cola) == 1.0  # its trading symbol
    ranked = [("ko", cola), ("amzn19", amazon_19), ("amzn17", amazon)]  # the search's order
    assert most_named(asked, ranked) == "amzn17"
    assert most_named("What was the FY2018 capex?", ranked) == "ko"  # a tie: the best-ranked


def _noticed_paper() -> bytes:
    """A paper's first page as arXiv prints some: a permission notice in body type above
    the title, the title in large type, then its authors."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    notice = (
        "Provided proper attribution is provided, Initech hereby grants permission to "
        "reproduce the tables and figures in this paper solely for use in journalistic or "
        "scholarly works."
    )
    page.insert_textbox(pymupdf.Rect(72, 60, 540, 110), notice, fontsize=11, fontname="tiro")
    page.insert_textbox(
        pymupdf.Rect(72, 130, 540, 160), "Lattice Is All You Need", fontsize=17, align=1
    )
    for i, who in enumerate(["Ada Lovelace", "Initech Research", "ada@example.com"]):
        page.insert_text((250, 190 + 12 * i), who, fontsize=10, fontname="tiro")
    page.insert_textbox(
        pymupdf.Rect(72, 260, 540, 400),
        "Abstract. The dominant sequence transduction models are based on recurrent networks. "
        "We propose a new simple network architecture based solely on lattices.",
        fontsize=10,
        fontname="tiro",
    )
    return doc.tobytes()


def test_a_permission_notice_above_the_title_is_not_the_title():
    from papertrail.read.chunking import chunk_blocks
    from papertrail.read.pdf import read_pdf
    from papertrail.settings import Settings

    parsed = read_pdf(_noticed_paper(), Settings())
    chunks = chunk_blocks(parsed.blocks, doc_id="e" * 64, doc_name="paper.pdf")
    assert "hereby grants permission" in opening(chunks)  # the notice is read, and passed over
    found = identify("paper.pdf", chunks, KNOWN)
    assert found.title == "Lattice Is All You Need"  # not joined with an author in small type


def test_notices_of_every_kind_are_passed_over_and_titles_naming_them_are_kept():
    for notice in (
        ["Copyright © 2021 Initech Press. All rights reserved."],
        ["This work is licensed under a Creative Commons", "Attribution 4.0 License."],
        ["Preprint. Under review."],
    ):
        body = "Abstract: we measured forty fridges over a whole summer, hour by hour."
        assert title("\n".join([*notice, "A Study of Fridges", body])) == "A Study of Fridges"
    mit = "The MIT License\nPermission is hereby granted, free of charge, to any person."
    assert title(mit) == "The MIT License"
    assert title("Software Licensing Handbook\nfor Small Teams") == (
        "Software Licensing Handbook for Small Teams"
    )


def test_a_short_second_line_joins_the_title_unless_its_type_is_much_smaller():
    body = "The service stores objects of any size and serves them over HTTP."
    assert title(f"Object Storage\nProduct Guide\n{body}", [21, 29, 10]) == (
        "Object Storage Product Guide"  # a larger subtitle is part of the title
    )
    assert title(f"Lattice Networks\nAda Lovelace\n{body}", [16, 10, 10]) == "Lattice Networks"
    assert title(f"Lattice Networks\nAda Lovelace\n{body}") == "Lattice Networks Ada Lovelace"
