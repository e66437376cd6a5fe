"""Retriever: dense + BM25 fusion, ready-only visibility, channel isolation, tokenising."""

from __future__ import annotations

import dataclasses
from dataclasses import replace

import numpy as np
import pytest

from papertrail.domains import KNOWN
from papertrail.errors import PaperTrailError
from papertrail.retrieve import routing
from papertrail.retrieve.confidence import SIGNALS
from papertrail.retrieve.fusion import Weights
from papertrail.retrieve.retriever import Retriever
from papertrail.store.chroma import ChromaStore
from papertrail.text.words import terms as tokenize
from papertrail.types import Identity
from tests.fakes import HashEmbedder, WarmingEmbedder
from tests.papertrail.store.test_chroma import ingest, make_doc

MODES = ("hybrid", "dense", "bm25")


class CountingStore(ChromaStore):
    """A real store that counts chunk fetches, to see the BM25 cache at work."""

    fetched: list[str]

    def chunks(self, channel, doc_ids=None):
        self.fetched.extend(doc_ids or ["*"])
        return super().chunks(channel, doc_ids)


@pytest.fixture
def emb() -> HashEmbedder:
    return HashEmbedder()


@pytest.fixture
def store(emb) -> CountingStore:
    store = CountingStore.ephemeral(model=emb.name)
    store.fetched = []
    return store


@pytest.fixture
def retriever(store, emb) -> Retriever:
    return Retriever(store, emb)


FILING = Identity(title="Acme, annual report (10-K)", kind="annual report (10-K)", domain="finance")


def add(store, channel, texts, seed, name="doc.pdf", commit=True, identity=None):
    doc, chunks = make_doc(channel, texts, seed=seed, name=name)
    doc = dataclasses.replace(doc, identity=identity)
    ingest(store, doc, chunks, commit=commit)
    return doc, chunks


BALANCE = [f"Total current assets were {n:,} million for the company." for n in range(6101, 6109)]
TARGET = "As reported, the figure 7,292 appears in the statement."


def test_hybrid_finds_an_exact_figure_that_dense_misses(store, retriever):
    _, chunks = add(store, "C", BALANCE + [TARGET], b"bs")
    question = "What were total current assets of 7,292 million?"
    dense = retriever.search("C", question, k=3, mode="dense")
    assert TARGET not in [h.chunk.text for h in dense]  # the premise: vectors miss it
    hybrid = retriever.search("C", question, k=3)
    assert TARGET in [h.chunk.text for h in hybrid]
    assert retriever.search("C", question, k=1, mode="bm25")[0].chunk.text == TARGET


def test_hits_carry_their_evidence(store, retriever, emb):
    add(store, "C", BALANCE + [TARGET], b"bs")
    question = "total current assets 7,292"
    qvec = emb.embed([question])[0]
    hybrid = retriever.search("C", question, k=5)
    assert len(hybrid) == 5
    assert [h.score for h in hybrid] == sorted((h.score for h in hybrid), reverse=True)
    for h in hybrid:
        assert h.dense_rank is not None or h.lexical_rank is not None
        vec = store.chunk_vectors("C", [h.chunk.id])[h.chunk.id]
        if h.dense_rank is None:  # BM25 only: no second store round trip for its cosine
            assert h.dense_score is None
        else:
            assert h.dense_score == pytest.approx(float(vec @ qvec), abs=1e-5)
    dense = retriever.search("C", question, k=3, mode="dense")
    assert [h.dense_rank for h in dense] == [1, 2, 3]
    assert all(h.lexical_rank is None and h.score == h.dense_score for h in dense)
    lexical = retriever.search("C", question, k=3, mode="bm25")
    assert [h.lexical_rank for h in lexical] == [1, 2, 3]
    assert all(h.dense_rank is None and h.dense_score is None for h in lexical)


def test_bm25_mode_embeds_nothing(store, retriever, emb):
    add(store, "C", BALANCE, b"bs")
    before = emb.calls
    assert retriever.search("C", "current assets", mode="bm25")
    assert emb.calls == before


def test_unknown_mode_is_a_clear_error(retriever):
    with pytest.raises(PaperTrailError) as err:
        retriever.search("C", "anything", mode="semantic")
    assert err.value.code == "config"


@pytest.mark.parametrize("mode", MODES)
def test_nothing_to_search_returns_nothing(store, retriever, mode):
    assert retriever.search("empty", "revenue", mode=mode) == []
    add(store, "C", BALANCE, b"bs")
    assert retriever.search("C", "   ", mode=mode) == []
    assert retriever.search("C", "revenue", k=0, mode=mode) == []


@pytest.mark.parametrize("mode", MODES)
def test_half_ingested_document_is_never_retrieved(store, retriever, mode):
    add(store, "C", ["ready words about dividends"], b"ready")
    add(store, "C", ["halfway words about dividends"], b"half", commit=False)
    texts = [h.chunk.text for h in retriever.search("C", "words about dividends", mode=mode)]
    assert texts == ["ready words about dividends"]


@pytest.mark.parametrize("mode", MODES)
def test_doc_ids_narrow_the_search_and_never_cross_channels(store, retriever, mode):
    a, _ = add(store, "C", ["alpha revenue grew"], b"a", name="a.pdf")
    b, _ = add(store, "C", ["beta revenue grew"], b"b", name="b.pdf")
    other, _ = add(store, "D", ["gamma revenue grew"], b"other")
    q = "revenue grew"
    assert {h.chunk.doc_id for h in retriever.search("C", q, mode=mode)} == {a.doc_id, b.doc_id}
    assert {h.chunk.doc_id for h in retriever.search("C", q, doc_ids=[b.doc_id], mode=mode)} == {
        b.doc_id
    }
    assert retriever.search("C", q, doc_ids=[other.doc_id], mode=mode) == []
    assert retriever.search("C", q, doc_ids=[], mode=mode) == []


@pytest.mark.parametrize("mode", MODES)
def test_same_pdf_in_two_channels_forget_one_keeps_the_other(store, retriever, mode):
    doc, _ = add(store, "a/b", ["quarterly dividend of 0.42 per share"], b"same")
    add(store, "a_b", ["quarterly dividend of 0.42 per share"], b"same")
    q = "quarterly dividend 0.42"
    assert len(retriever.search("a/b", q, mode=mode)) == 1  # warm the BM25 cache
    store.delete("a/b", doc.doc_id)
    assert retriever.search("a/b", q, mode=mode) == []
    kept = retriever.search("a_b", q, mode=mode)
    assert [h.chunk.doc_id for h in kept] == [doc.doc_id]


def test_bm25_cache_follows_the_ready_set_and_fetches_only_new_documents(store, retriever):
    add(store, "C", ["first file mentions aardvarks"], b"one")
    retriever.warm("C")
    assert len(store.fetched) == 1
    assert retriever.search("C", "aardvarks", mode="bm25")
    assert retriever.search("C", "aardvarks", mode="bm25")
    assert len(store.fetched) == 1  # both searches used the index built by warm()
    add(store, "C", ["second file mentions zebras"], b"two")
    assert [h.chunk.text for h in retriever.search("C", "zebras", mode="bm25")] == [
        "second file mentions zebras"
    ]
    assert len(store.fetched) == 2  # only the new document was fetched
    doc, _ = add(store, "C", ["third file, zebras again"], b"three")
    store.delete("C", doc.doc_id)
    assert len(retriever.search("C", "zebras", mode="bm25")) == 1


def test_channels_with_lookalike_names_keep_separate_bm25_indexes(store, retriever):
    for i, channel in enumerate(["a/b", "a_b", "x" * 3000, "频道"]):
        add(store, channel, [f"unique token{i} text"], b"same")
    for i, channel in enumerate(["a/b", "a_b", "x" * 3000, "频道"]):
        hits = retriever.search(channel, f"token{i} token0 token1 token2 token3", mode="bm25")
        assert [h.chunk.text for h in hits] == [f"unique token{i} text"]


def test_cjk_and_arabic_text_is_searchable(store, retriever):
    chinese, arabic = "公司的营业收入增长了", "الإيرادات السنوية للشركة"
    add(store, "C", [chinese, arabic, "plain english"], b"intl")
    assert retriever.search("C", "营业收入", k=1, mode="bm25")[0].chunk.text == chinese
    hit = retriever.search("C", "الإيرادات", k=1, mode="bm25")[0]
    assert hit.chunk.text == arabic


def test_tokenize_normalises_numbers_words_and_scripts():
    assert tokenize("$1,577.00") == tokenize("1577") == ["1577"]
    assert tokenize("24.260%") == ["24.26"]
    assert tokenize("Revenues") == tokenize("revenue")
    assert tokenize("the of and what") == []
    assert tokenize("ﬁnance") == tokenize("finance")  # ligature (NFKC)
    assert tokenize("营业收入") == ["营", "业", "收", "入", "营业", "业收", "收入"]
    assert tokenize("النص العربي") == ["النص", "العربي"]
    assert tokenize("") == [] and tokenize("\x00\x07 ...") == []
    assert np.all([isinstance(t, str) and t for t in tokenize("FY2019 10-K ratio")])


def test_a_question_naming_a_file_prefers_that_file(store, emb):
    texts = ["Net revenue was 1,200 million.", "Operating income was 300 million."]
    acme, _ = add(store, "C", texts, b"acme", name="ACMECORP_2019_10K.pdf")
    other, _ = add(store, "C", texts, b"b", name="OTHERCO_2020_10K.pdf")  # same words
    question = "What was AcmeCorp's net revenue in FY2019?"
    unsure = Weights(confidence=(0.0,) * len(SIGNALS))  # every document equally likely
    plain = Retriever(store, emb, weights=unsure).search("C", question, k=2)
    assert [h.chunk.text for h in plain] == [texts[0], texts[0]]  # a tie across files
    assert {h.chunk.doc_id for h in plain} == {acme.doc_id, other.doc_id}
    routed = Retriever(store, emb).search("C", question, k=2)
    assert routed[0].chunk.doc_id == acme.doc_id
    assert routed[0].score > max(h.score for h in routed[1:])


@pytest.mark.parametrize("fusion", ["convex", "rrf"])
def test_fused_ranking_agrees_with_a_ranking_both_signals_share(store, emb, fusion):
    texts = [f"dividends paid {'dividends ' * i}per share" for i in range(1, 8)]
    texts += [f"unrelated text about leases number {i}" for i in range(8)]
    add(store, "C", texts, b"div")
    retriever = Retriever(
        store,
        emb,
        top_pages=0,
        per_page=0,
        weights=Weights(fusion=fusion, figure_boost=0.0, page=0.0),
    )
    hybrid = retriever.search("C", "dividends dividends per share", k=5)
    dense = retriever.search("C", "dividends dividends per share", k=5, mode="dense")
    lexical = retriever.search("C", "dividends dividends per share", k=5, mode="bm25")
    assert {h.chunk.id for h in hybrid} <= {h.chunk.id for h in dense + lexical}
    assert all("leases" not in h.chunk.text for h in hybrid)


def test_alpha_one_is_the_dense_ranking(store, emb):
    words = "total current assets million cash".split()
    add(store, "C", [" ".join(words[: i + 1]) for i in range(len(words))] + ["leases"], b"bs")
    question = "total current assets million"
    dense_only = Retriever(
        store, emb, top_pages=0, per_page=0, weights=Weights(alpha=1.0, figure_boost=0.0, page=0.0)
    )
    fused = [h.chunk.id for h in dense_only.search("C", question, k=4)]
    assert fused == [h.chunk.id for h in dense_only.search("C", question, k=4, mode="dense")]


STATEMENT_PAGES = [
    "Note 7. Accounts payable and accrued expenses: accounts payable to suppliers and payable "
    "terms; accounts payable programs are described here in the notes.",
    "Accounts payable include supplier finance programs; accounts payable balances vary.",
    "CONSOLIDATED BALANCE SHEETS (in millions) December 31, 2016 2017 ASSETS Cash 19,334",
    "Current liabilities: Accounts payable 25,309 34,616 Accrued expenses 13,739 18,170",
]


def test_a_named_statement_lifts_every_chunk_of_its_page(store, emb):
    add(store, "C", STATEMENT_PAGES, b"st", identity=FILING)
    w = Weights(alpha=0.6, page=0.5)  # the fusion this premise was written for
    question = "Based on the balance sheet, what was year end accounts payable? Round to millions."
    flat = Retriever(store, emb, weights=replace(w, section_boost=0.0), domains=KNOWN)
    plain = flat.search("C", question, k=4)
    assert plain[0].chunk.page == 1  # the premise: the notes win on words alone
    hits = Retriever(store, emb, weights=w, domains=KNOWN).search("C", question, k=4)
    assert hits[0].chunk.page == 2
    # the page's untitled chunk gains as much as its titled one
    gain = {h.chunk.index: h.score for h in hits}
    for h in plain:
        gain[h.chunk.index] -= h.score
    assert gain[2] == pytest.approx(0.6) and gain[3] == pytest.approx(0.6)
    assert gain[0] == pytest.approx(0.0)
    # named only in an answer-format instruction, which the query itself leaves out
    told = "What were accrued expenses at year end? Please use the balance sheet."
    lifted = {
        h.chunk.index: h.score
        for h in Retriever(store, emb, weights=w, domains=KNOWN).search("C", told, k=4)
    }
    for h in flat.search("C", told, k=4):
        lifted[h.chunk.index] -= h.score
    assert lifted[2] == pytest.approx(0.6) and lifted[0] == pytest.approx(0.0)
    # no statement named or implied: no lift
    other = Retriever(store, emb, weights=w, domains=KNOWN).search(
        "C", "Which supplier programs exist?", k=4
    )
    assert other[0].chunk.page == 1
    # the same pages in a document no domain recognised (a manual): no finance rules
    add(store, "M", STATEMENT_PAGES, b"st", identity=Identity(title="Manual"))
    manual = Retriever(store, emb, weights=w, domains=KNOWN).search("M", question, k=4)
    assert [h.chunk.id for h in manual] == [h.chunk.id for h in plain]


def test_bm25_query_gains_filing_wording(store, emb):
    texts = ["Net sales grew 31% in 2017.", "Headcount grew in 2017."]
    add(store, "C", texts, b"rv", identity=FILING)
    retriever = Retriever(store, emb, domains=KNOWN)
    hits = retriever.search("C", "How much did revenue grow?", k=1, mode="bm25")
    assert hits and hits[0].chunk.text.startswith("Net sales")
    add(store, "M", texts, b"rv", identity=Identity(title="Notes"))  # not a filing
    hits = retriever.search("M", "How much did revenue grow?", k=1, mode="bm25")
    assert not any(h.chunk.text.startswith("Net sales") for h in hits)


def test_many_documents_route_to_the_issuer_the_question_names(store, emb):
    issuers = ["Initech", "Globex", "Umbrella", "Hooli", "Soylent"]
    for n, issuer in enumerate(issuers):
        cover = f"{issuer.upper()} INC. Annual report for the fiscal year ended 2019"
        body = [f"Net revenue was {1000 + n} million.", "Operating income was 300 million."]
        add(store, "C", [cover, "Contents", *body], issuer.encode(), name=f"filing{n}.pdf")
    hits = Retriever(store, emb).search("C", "What was Hooli's net revenue?", k=10)
    assert hits[0].chunk.text == "Net revenue was 1003 million."
    # a prior, not a filter: the named filing's passages come first, and where it has
    # no more, the other filings' passages still compete for the places left
    named = {h.chunk.doc_id for h in hits[:1]}
    assert len({h.chunk.doc_id for h in hits}) > 1
    assert all(h.chunk.doc_id in named for h in hits[:3])


def test_warm_up_loads_the_model_and_the_recent_channels_bm25(store):
    docs = {}
    for when, channel in enumerate(["old", "mid", "new"]):  # "new" is the latest upload
        doc, chunks = make_doc(channel, [f"text of {channel}"], seed=channel.encode())
        docs[channel] = ingest(store, replace(doc, created=1000.0 + when), chunks)
    add(store, "half", ["never committed"], b"h", commit=False)  # not ready: not warmed
    embedder = WarmingEmbedder()
    retriever = Retriever(store, embedder, cache_channels=2)
    retriever.warm_up()
    assert len(embedder.warmed) == 1
    assert sorted(store.fetched) == sorted([docs["mid"].doc_id, docs["new"].doc_id])
    assert retriever.search("new", "text of new", mode="bm25")
    assert retriever.search("mid", "text of mid", mode="bm25")
    assert len(store.fetched) == 2  # the first questions found their index built


def test_page_chunks_are_the_documents_own_on_those_pages_in_reading_order(store, retriever):
    a, a_chunks = add(store, "C", [f"alpha line {i}" for i in range(7)], b"a", name="a.pdf")
    b, b_chunks = add(store, "C", [f"beta line {i}" for i in range(5)], b"b", name="b.pdf")
    docs = store.documents("C")
    for doc, chunks in ((a, a_chunks), (b, b_chunks)):
        for pages in ({1}, {2, 3}, {1, 4}, {9}, set()):
            want = [c for c in chunks if c.page in pages]  # every page holds two chunks
            assert retriever.page_chunks("C", doc.doc_id, pages, docs) == want
        assert retriever.page_chunks("C", doc.doc_id, None, docs) == chunks  # every page
    assert retriever.page_chunks("C", "no-such-document", {1}, docs) == []


RESULTS_PAGES = [
    "Methods and datasets are surveyed.",
    "The text describes them.",
    "TABLE II DOWNSTREAM TASKS Task Sub Task QA Single-hop NQ [1] [2] [3]",
    "Dialog generation Wizard of Wikipedia [4] [5] Summarization CNN [6]",
]


def test_a_question_naming_a_table_lifts_the_pages_that_print_its_label(store, emb):
    add(store, "C", RESULTS_PAGES, b"tb")
    question = "According to table II, which datasets have exactly three methods?"
    w = Weights(alpha=0.6, page=0.5)
    flat = Retriever(store, emb, weights=replace(w, section_boost=0.0)).search("C", question, k=4)
    assert [h.chunk.page for h in flat] == [1, 2, 1, 2]  # the premise: words favour the prose
    hits = Retriever(store, emb, weights=w).search("C", question, k=4)
    assert [h.chunk.page for h in hits] == [1, 2, 2, 1]
    gain = {h.chunk.index: h.score for h in hits}
    for h in flat:
        gain[h.chunk.index] -= h.score
    # every chunk of the page gains, the one holding the label and the rows after it
    assert gain[2] == pytest.approx(0.6) and gain[3] == pytest.approx(0.6)
    assert gain[0] == pytest.approx(0.0)
    # another numbering is another label
    other = Retriever(store, emb, weights=w).search("C", question.replace("II", "2"), k=4)
    assert [h.chunk.id for h in other] == [
        h.chunk.id
        for h in Retriever(store, emb, weights=replace(w, section_boost=0.0)).search(
            "C", question.replace("II", "2"), k=4
        )
    ]


def test_the_one_document_printing_a_named_label_is_shown_in_a_channel(store, emb):
    wordy = [
        "Which datasets have exactly three methods? Datasets and methods are surveyed here.",
        "Each dataset has methods; three methods per dataset is common for datasets.",
    ]
    for n in range(6):
        add(store, "C", [f"Survey {n} of datasets and methods.", *wordy], b"w%d" % n, f"s{n}.pdf")
    table, _ = add(store, "C", ["An overview.", "TABLE II Task Dataset NQ TriviaQA"], b"t")
    retriever = Retriever(store, emb)
    question = "According to table II, which datasets have exactly three methods?"
    hits = retriever.search("C", question, k=5)
    assert table.doc_id in {h.chunk.doc_id for h in hits}
    shown = next(h for h in hits if h.chunk.doc_id == table.doc_id)
    assert shown.chunk.text.startswith("TABLE II")
    unnamed = retriever.search("C", "Which datasets have exactly three methods?", k=5)
    assert table.doc_id not in {h.chunk.doc_id for h in unnamed}  # the premise
    # a label two documents print says nothing about which one is asked
    add(store, "C", ["Another overview.", "Table II lists the tasks."], b"t2", "other.pdf")
    index = retriever._index("C", store.documents("C"))
    allowed = {d.doc_id for d in store.documents("C")}
    assert routing.printing(index, ("table II",), allowed) == []
    assert routing.printing(index, ("table 9",), allowed) == []


def test_a_label_printed_only_in_another_channel_brings_nothing_over(store, emb):
    wordy = ["Datasets and methods are surveyed here.", "Each dataset has three methods."]
    add(store, "C", wordy, b"mine", "mine.pdf")
    add(store, "C", ["Another survey.", *wordy], b"mine2", "mine2.pdf")
    theirs, _ = add(store, "D", ["An overview.", "TABLE II Task Dataset NQ TriviaQA"], b"t")
    retriever = Retriever(store, emb)
    hits = retriever.search("C", "According to table II, which datasets have three methods?", k=5)
    assert hits and all(h.chunk.doc_id != theirs.doc_id for h in hits)
    assert all("TABLE II" not in h.chunk.text for h in hits)
