"""lexical: chunk, page and document BM25 built once per document set; routing and fusion."""

from __future__ import annotations

import numpy as np

from papertrail.domains import KNOWN
from papertrail.retrieve.fusion import Weights, cover, diversify, fuse
from papertrail.retrieve.lexical import build, identity_text, top_rows
from papertrail.retrieve.routing import doc_prior, evidence, leaders, wanted
from papertrail.text import words
from papertrail.text.identity import identify
from papertrail.text.periods import asked
from papertrail.types import Chunk, Document, Hit, Rect


def chunk(doc: str, i: int, page: int, text: str, name: str = "a.pdf") -> Chunk:
    return Chunk(doc * 64, name, i, page, text, (Rect(0, 0, 10, 10),))


DOCS = {
    "a": [
        chunk("a", 0, 1, "ACME CORP Annual report for the fiscal year ended December 31, 2019"),
        chunk("a", 1, 2, "CONSOLIDATED BALANCE SHEETS (in millions) 2019 2018"),
        chunk("a", 2, 2, "Accounts payable 292 253 Deferred revenues 1,375"),
        chunk("a", 3, 3, "Accounts payable terms with suppliers are described in the notes."),
    ],
    "b": [
        chunk("b", 0, 1, "GLOBEX INC Quarterly report for the period ended June 30, 2023", "b.pdf"),
        chunk("b", 1, 2, "Revenue by region: Americas, Europe, Asia", "b.pdf"),
    ],
}
NAMES = {"a" * 64: "report-one.pdf", "b" * 64: "GLOBEX_2023Q2_10Q.pdf"}


def index_of(keys, old=None, fetched=None):
    def fetch(doc_id):
        if fetched is not None:
            fetched.append(doc_id[0])
        return DOCS[doc_id[0]]

    docs = {d: Document("C", d, name, 1, 1) for d, name in NAMES.items()}  # no stored identity
    return build(fetch, docs, tuple((k * 64, 1.0) for k in keys), old, KNOWN)


def test_a_page_scores_its_chunks_words_together():
    index = index_of("a")
    terms = words.terms("balance sheet accounts payable 2019")
    chunk_scores, page_scores = index.chunk_scores(terms), index.page_scores(terms)
    # no single chunk holds the title and the row; page 2 holds both
    assert int(np.argmax(page_scores)) == int(index.page_of_row[1]) == int(index.page_of_row[2])
    # the notes' prose beats the table row alone; the row's page beats the notes' page
    assert chunk_scores[3] > chunk_scores[2]
    assert page_scores[index.page_of_row[2]] > page_scores[index.page_of_row[3]]
    assert [index.chunks[r].index for r in index.page_rows(index.page_of_row[2])] == [1, 2]
    assert index.row(DOCS["a"][2]) == 2 and index.row(DOCS["b"][0]) is None


def test_adding_a_document_tokenises_only_that_document():
    fetched: list[str] = []
    one = index_of("a", fetched=fetched)
    two = index_of("ab", old=one, fetched=fetched)
    assert fetched == ["a", "b"]
    assert len(two.chunks) == 6 and list(two.doc_of_page) == [0, 0, 0, 1, 1]
    assert two.docs[("a" * 64, 1.0)] is one.docs[("a" * 64, 1.0)]


def test_identity_text_splits_the_file_name_and_reads_the_cover():
    name = "MGMRESORTS_2023Q2_10Q.pdf"
    text = identity_text(name, identify(name, DOCS["b"]), DOCS["b"])
    assert text.startswith("MGMRESORTS 2023 Q 2 10 Q\n") and "GLOBEX INC" in text


def test_routing_prefers_the_document_that_names_the_issuer_and_period():
    index = index_of("ab")
    allowed = {"a" * 64, "b" * 64}
    terms = words.terms("What was Acme's accounts payable in FY2019?")
    none = asked("")
    prior = doc_prior(index, none, terms, index.page_scores(terms), [], allowed)
    assert prior["a" * 64] == 1.0 and prior["b" * 64] < 0.5
    terms = words.terms("Which regions does Globex report for Q2 2023?")
    prior = doc_prior(index, none, terms, index.page_scores(terms), [], allowed)
    assert prior["b" * 64] == 1.0 and prior["a" * 64] < 0.5
    assert doc_prior(index, none, terms, index.page_scores(terms), [], {"a" * 64}) == {}


def test_top_rows_best_first_positive_only():
    scores = np.array([0.0, 3.0, 1.0, 3.0, 2.0], np.float32)
    assert list(top_rows(scores, 3)) == [1, 3, 4]
    assert list(top_rows(scores, 10)) == [1, 3, 4, 2]
    assert list(top_rows(scores, 0)) == []


def test_page_score_lifts_a_chunk_and_diversify_caps_a_page():
    a, b, c = DOCS["a"][1], DOCS["a"][2], DOCS["a"][3]
    dense = [(c, 0.9), (a, 0.5), (b, 0.4)]
    plain = fuse(dense, [], Weights(page=0.0))
    assert plain[0].chunk == c and isinstance(plain[0], Hit)
    paged = fuse(dense, [], Weights(page=1.0), page_of=lambda ch: 1.0 if ch.page == 2 else 0.0)
    assert [r.chunk for r in paged][:2] == [a, b]
    rows = [Hit(ch, 1.0) for ch in (a, b, c)]
    assert [r.chunk for r in diversify(rows, 1)] == [a, c, b]
    assert diversify(rows, 0) == rows


def test_routing_prefers_the_filing_of_the_period_asked():
    DOCS["c"] = [chunk("c", 0, 1, "ACME CORP Annual report", "ACME_2021_10K.pdf")]
    DOCS["d"] = [chunk("d", 0, 1, "ACME CORP Annual report", "ACME_2019_10K.pdf")]
    NAMES.update({"c" * 64: "ACME_2021_10K.pdf", "d" * 64: "ACME_2019_10K.pdf"})
    index = index_of("cd")
    allowed = {"c" * 64, "d" * 64}
    question = asked("What was Acme's revenue in FY2019?")
    terms = words.terms("What was Acme's revenue?")  # the years alone tell them apart
    prior = doc_prior(index, question, terms, index.page_scores(terms), [], allowed)
    assert prior["d" * 64] == 1.0 and prior["c" * 64] < 1.0


def test_cover_brings_each_wanted_document_into_the_top_k():
    a1, a2, a3 = (Hit(DOCS["a"][i], 3.0 - i) for i in range(3))
    b1 = Hit(DOCS["b"][1], 0.5)
    ranked = [a1, a2, a3, b1]
    covered = cover(ranked, ["b" * 64], 3)
    assert covered[:3] == [a1, a2, b1] and covered[3] == a3  # a's last passage gives way
    assert cover(ranked, ["a" * 64], 3) == ranked  # already shown: nothing moves
    assert cover(ranked, ["z" * 64], 3) == ranked  # no passage of it: nothing to show
    # every shown document is wanted: a third wanted one cannot push either out
    assert cover([a1, b1, a2], ["a" * 64, "b" * 64], 2) == [a1, b1, a2]


def test_a_question_naming_two_quarters_wants_a_document_of_each():
    DOCS["q1"] = [chunk("e", 0, 1, "Q1 2023 Globex Earnings Call", "call-a.pdf")]
    DOCS["q2"] = [chunk("f", 0, 1, "Q2 2023 Globex Earnings Call", "call-b.pdf")]
    NAMES.update({"e" * 64: "call-a.pdf", "f" * 64: "call-b.pdf"})
    DOCS["e"], DOCS["f"] = DOCS.pop("q1"), DOCS.pop("q2")
    index = index_of("ef")
    allowed = {"e" * 64, "f" * 64}
    question = asked("Across Q1 and Q2 2023, how did Globex revenue change?")
    terms = words.terms("how did Globex revenue change")
    prior = doc_prior(index, question, terms, index.page_scores(terms), [], allowed)
    assert set(wanted(index, question, prior)) == allowed
    one = asked("What did Globex say in Q2 2023?")
    prior = doc_prior(index, one, terms, index.page_scores(terms), [], allowed)
    assert prior["f" * 64] == 1.0 and prior["e" * 64] < 1.0
    assert wanted(index, one, prior) == []  # one period: the most probable is enough
    latest = asked("What did Globex say in its most recent call?")
    prior = doc_prior(index, latest, terms, index.page_scores(terms), [], allowed)
    assert prior["f" * 64] == 1.0 and prior["e" * 64] < 1.0


def test_leaders_are_each_rankings_first_and_near_tied_documents():
    a, b, d = DOCS["a"][0], DOCS["b"][0], DOCS["b"][1]
    dense = [(a, 0.50), (d, 0.47), (b, 0.46)]  # b's document is within 10 % of a's
    lexical = [(b, 9.0), (a, 4.0)]  # a's document is far behind
    assert leaders([dense, lexical]) == ["a" * 64, "b" * 64]
    assert leaders([[(a, 0.5), (b, 0.2)]]) == ["a" * 64]  # not close: the first only
    assert leaders([[], lexical], n=1) == ["b" * 64]


def test_cover_keeps_the_order_diversify_made():
    a1, a2, a3 = (Hit(DOCS["a"][i], 3.0 - i) for i in range(3))
    b1 = Hit(DOCS["b"][1], 0.5)
    capped = [a1, a3, a2, b1]  # a2 shares a1's page: diversify put it after a3
    assert cover(capped, ["b" * 64], 2) == [a1, b1, a3, a2]


def test_identity_is_the_share_of_the_question_a_document_names_not_scaled_to_the_best():
    """A word every document uses somewhere names none of them, even when it happens to
    be on one document's opening pages only."""
    calls = {
        "x": ["INITECH call transcript", "Operator: welcome", "Margins and growth"],
        "y": ["HOOLI call transcript", "Operator: welcome", "Migration had an impact on usage"],
        "z": ["UMBRELLA call transcript", "Operator: the impact of pricing", "Usage grew"],
    }
    for d, texts in calls.items():  # the opening pages are the first two
        DOCS[d] = [chunk(d, i, 1 + 2 * i, t, f"{d}.pdf") for i, t in enumerate(texts)]
        NAMES[d * 64] = f"{d}.pdf"
    index = index_of("xyz")
    allowed = {d * 64 for d in "xyz"}
    none = asked("")

    def identity(question):
        terms = words.terms(question)
        parts = evidence(index, none, terms, index.page_scores(terms), [], allowed)
        return {d[0]: round(p[4], 3) for d, p in parts.items()}  # the share

    # 'impact': on z's opening page only, on a later page of y; 'migration': y's, later
    weak = identity("How does migration typically impact usage?")
    assert weak["x"] == weak["y"] == 0.0 and 0.0 < weak["z"] < 0.3
    named = identity("How did usage grow at Hooli?")  # only y is called so
    assert named["y"] > 0.6 and named["x"] == named["z"] == 0.0
    assert all(0.0 <= v <= 1.0 for v in (*weak.values(), *named.values()))
