"""A metric asked of a channel of filings is worked out in code, whatever the generator."""

from __future__ import annotations

import pymupdf

from adapters.chat.replies import answer_reply
from papertrail.text.ask import read
from tests import pdfs
from tests.fakes import ScriptedGenerator
from tests.papertrail.test_pipeline import make

COVER = (
    "UNITED STATES SECURITIES AND EXCHANGE COMMISSION\nFORM 10-K\nANNUAL REPORT\n"
    "Northwind Traders, Inc.\n(Exact name of registrant as specified in its charter)"
)


def ten_k() -> bytes:
    """The statement pages of ``pdfs.filing_pdf`` behind a 10-K cover page."""
    doc = pymupdf.open(stream=pdfs.filing_pdf(), filetype="pdf")
    cover = doc.new_page(0)
    cover.insert_textbox(pymupdf.Rect(72, 72, 540, 300), COVER, fontsize=11)
    return doc.tobytes()


def test_a_metric_is_worked_out_and_checked_and_the_model_is_not_asked(tmp_path):
    model = ScriptedGenerator("Net sales grew a lot [1].", mode="some-llm")
    pt = make(tmp_path, generator=model)
    pt.ingest("c1", "northwind-10k.pdf", ten_k())
    assert pt.documents("c1")[0].identity.domain == "finance"
    answer = pt.ask("c1", "What was Northwind's FY2017 return on assets?", render=False)
    assert model.asked == []
    # 3,033 / ((131,310 + 83,402) / 2): net income from the income statement (page 3),
    # total assets of two years from the balance sheet (page 4)
    assert answer.text == "The FY2017 return on assets was 0.03 [1][2]."
    assert answer.grounded and [c.chunk.page for c in answer.citations] == [3, 4]
    reply = answer_reply(answer)
    assert "3,033 / ((131,310 + 83,402) / 2) = 0.03" in reply.text
    assert reply.footer.startswith("Mode: worked out in code from the cited rows")
    # anything else still goes to the model, with only the ranked excerpts
    other = pt.ask("c1", "Why did net sales grow?", render=False)
    assert model.asked and other.mode == "some-llm" and other.calculation is None
    assert len(model.asked[0][1]) <= pt.settings.top_k


def test_a_figure_looked_up_in_a_table_says_so_and_not_that_it_was_worked_out(tmp_path):
    pt = make(tmp_path, generator=ScriptedGenerator("Net income grew [1].", mode="some-llm"))
    pt.ingest("c1", "northwind-10k.pdf", ten_k())
    answer = pt.ask("c1", "What was Northwind's FY2017 net income?", render=False)
    assert "3,033" in answer.text and len(answer.calculation.operands) == 1
    reply = answer_reply(answer)
    assert reply.footer.startswith("Mode: read from the cited table row · ")
    assert "1 citation verified" in reply.footer or "1 citation: 1 partly supported" in reply.footer
    assert "worked out" not in reply.footer and "Worked out" not in reply.text


def test_a_metric_the_rows_cannot_give_goes_to_the_generator(tmp_path):
    model = ScriptedGenerator("I cannot compute it.", mode="some-llm")
    pt = make(tmp_path, generator=model)
    pt.ingest("c1", "northwind-10k.pdf", ten_k())
    answer = pt.ask("c1", "What was Northwind's FY2017 inventory turnover?", render=False)
    assert model.asked and answer.calculation is None  # no inventory row in this filing


def other_10k() -> bytes:
    """Another company's 10-K: its cover, an income statement and a balance sheet."""
    doc = pymupdf.open()
    cover = doc.new_page()
    cover.insert_textbox(pymupdf.Rect(72, 72, 540, 300), COVER.replace(
        "Northwind Traders", "Contoso Pharmaceuticals"), fontsize=11)  # fmt: skip
    pages = [
        ("Consolidated Statements of Operations (in millions)", ("2016", "2017"),
         [("Total net sales", "900", "1,100"), ("Net income", "50", "100")]),
        ("Consolidated Balance Sheets (in millions)", ("2016", "2017"),
         [("Total assets", "1,000", "2,000"), ("Total current liabilities", "300", "400")]),
    ]  # fmt: skip
    for title, years, rows in pages:
        page = doc.new_page()
        page.insert_text((72, 72), title, fontsize=12)
        lines = [" ".join(years), *(" ".join(r) for r in rows)]
        for n, line in enumerate(lines):
            page.insert_text((72, 110 + 16 * n), line, fontsize=9)
    return doc.tobytes()


def test_in_a_channel_of_filings_the_company_the_question_names_is_worked_out(tmp_path):
    from papertrail.text.identity import named_in

    pt = make(tmp_path)
    pt.ingest("c1", "a.pdf", ten_k())
    pt.ingest("c1", "b.pdf", other_10k())
    named = {d.name: named_in("What is Contoso's FY2017 ROA?", d.identity) for d in
             pt.documents("c1")}  # fmt: skip
    assert named == {"a.pdf": 0.0, "b.pdf": 0.5}  # "Contoso", one of two issuer words
    contoso = pt.ask("c1", "What was Contoso Pharmaceuticals' FY2017 return on assets?")
    assert contoso.text == "The FY2017 return on assets was 0.07 [1][2]."  # 100 / 1,500
    assert {c.chunk.doc_name for c in contoso.citations} == {"b.pdf"}
    northwind = pt.ask("c1", "What was Northwind Traders' FY2017 return on assets?")
    assert northwind.text == "The FY2017 return on assets was 0.03 [1][2]."
    assert {c.chunk.doc_name for c in northwind.citations} == {"a.pdf"}


def test_the_named_filing_is_used_even_when_the_search_missed_it_but_never_outside_the_ask(
    tmp_path,
):
    pt = make(tmp_path)
    pt.ingest("c1", "a.pdf", ten_k())
    pt.ingest("c1", "b.pdf", other_10k())
    docs = {d.name: d for d in pt.documents("c1")}
    asked = "What was Contoso Pharmaceuticals' FY2017 return on assets?"
    northwind_only = pt.retriever.search(
        "c1", "total net sales", k=3, doc_ids=[docs["a.pdf"].doc_id]
    )
    rows = pt._rows_for("c1", read(asked, pt.domains), northwind_only, list(docs.values()))
    assert rows and {h.chunk.doc_name for h in rows} == {"b.pdf"}
    # asked of one document only, the other is never read, however plainly it is named
    scoped = pt.ask("c1", asked, doc_ids=[docs["a.pdf"].doc_id], render=False)
    assert all(h.chunk.doc_name == "a.pdf" for h in scoped.hits)


def test_a_filing_of_another_channel_or_a_forgotten_one_is_never_worked_out_from(tmp_path):
    pt = make(tmp_path)
    pt.ingest("c1", "a.pdf", ten_k())
    pt.ingest("c2", "b.pdf", other_10k())  # Contoso's filing lives in another channel
    asked = "What was Contoso Pharmaceuticals' FY2017 return on assets?"
    here = pt.ask("c1", asked, render=False)
    assert {h.chunk.doc_name for h in here.hits} == {"a.pdf"}
    assert "0.07" not in here.text  # Contoso's figure (100 / 1,500) is not reachable from c1
    pt.ingest("c1", "b.pdf", other_10k())
    assert pt.ask("c1", asked, render=False).text.startswith("The FY2017 return on assets was 0.07")
    pt.forget("c1", "b.pdf")
    gone = pt.ask("c1", asked, render=False)
    assert {h.chunk.doc_name for h in gone.hits} == {"a.pdf"} and "0.07" not in gone.text
