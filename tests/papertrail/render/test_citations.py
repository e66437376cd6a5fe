"""PaperTrail.render and render_citations: pictures after the text, one per citation."""

from __future__ import annotations

import dataclasses

from papertrail.render.citations import render_citations
from papertrail.types import Evidence
from tests import pdfs
from tests.papertrail.render.test_render import pixels
from tests.papertrail.render.test_render_evidence import outline_mask
from tests.papertrail.test_pipeline import make

QUESTION = "How many identical layers is the encoder composed of?"


def test_answer_first_pictures_later(tmp_path):
    pt = make(tmp_path)
    pt.ingest("c1", "paper.pdf", pdfs.paper_pdf())
    answer = pt.ask("c1", QUESTION, render=False)
    assert answer.citations and not answer.snippets  # nothing rendered with the text
    snippets = pt.render("c1", answer.citations)
    assert [s.n for s in snippets] == sorted({c.n for c in answer.citations})
    assert all(pixels(s.png).size for s in snippets)


def test_each_citation_marks_its_own_evidence(tmp_path):
    pt = make(tmp_path)
    pt.ingest("c1", "paper.pdf", pdfs.paper_pdf())
    answer = pt.ask("c1", QUESTION, render=False)
    first = answer.citations[0]
    lines = first.chunk.rects
    one = Evidence("first line", lines[:1])
    two = Evidence("last line", lines[-1:])
    # the same chunk cited twice with different spans: two pictures, each outlining its own
    cited = [
        dataclasses.replace(first, n=1, evidence=one),
        dataclasses.replace(first, n=2, evidence=two),
    ]
    data = {first.chunk.doc_id: pdfs.paper_pdf()}
    a, b = render_citations(cited, data.get)
    assert (a.n, b.n) == (1, 2) and a.png != b.png
    for snip in (a, b):
        ys = outline_mask(pixels(snip.png)).any(axis=1).nonzero()[0]
        assert ys.max() - ys.min() < 20 * 2 + 12  # one line outlined (zoom 2), not the chunk
    # the same span twice costs one picture; a missing PDF costs only its own
    same = [dataclasses.replace(c, evidence=one) for c in cited]
    assert [s.n for s in render_citations(same, data.get)] == [1]
    assert render_citations(cited, {}.get) == []
