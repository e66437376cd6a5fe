"""stages: a channel's passages ranked per leading document, then merged by the prior."""

from __future__ import annotations

from papertrail.retrieve import stages
from papertrail.retrieve.fusion import Weights, diversify
from papertrail.retrieve.retriever import Retriever
from papertrail.types import Chunk, Rect
from tests.fakes import HashEmbedder
from tests.papertrail.retrieve.test_retriever import add
from tests.papertrail.store.test_chroma import ChromaStore


def chunk(doc: str, i: int, page: int) -> Chunk:
    return Chunk(doc * 64, f"{doc}.pdf", i, page, f"text {doc} {i}", (Rect(0, 0, 1, 1),))


def pool_of(doc: str, n: int, best: float = 1.0) -> stages.DocPool:
    chunks = [chunk(doc, i, 1 + i) for i in range(n)]
    dense = [(c, best - 0.1 * i) for i, c in enumerate(chunks)]
    return stages.DocPool(doc * 64, dense, [])


def test_one_document_is_ranked_as_its_own_fusion_says():
    only = pool_of("a", 6)
    w = Weights()
    got = stages.rank(stages.Pool((only,)), w, 4)
    assert [h.chunk.id for h in got] == [h.chunk.id for h in diversify(only.fused(w), 1)][:4]


GAINS = (0.6, 0.2, 0.05, 0.05, 0.03)


def signal(prior: float, dense_first: float = 0.0, lexical_first: float = 0.0) -> tuple:
    """A document's signals (``confidence.SIGNALS``): a prior, no parts, firsts as given."""
    return (prior, 0.0, 0.0, 0.0, 0.0, dense_first, lexical_first, 0.0, 0.0)


def test_a_sure_document_keeps_its_own_order_and_a_doubtful_one_gets_a_place_when_worth_it():
    a, b = pool_of("a", 5), pool_of("b", 5, best=2.0)  # b's passages score higher
    w = Weights()
    within = {d.doc_id: diversify(d.fused(w), 1) for d in (a, b)}
    alone = [h.chunk.id for h in within["a" * 64]]
    sure = stages.allocate(within, {"a" * 64: 0.99, "b" * 64: 0.01}, GAINS, 5)
    assert [h.chunk.id for h in sure][:5] == alone  # as if a were alone in its channel
    # a's third place adds 0.8 x 0.05; b's first 0.2 x 0.6: b gets the third place
    shared = stages.allocate(within, {"a" * 64: 0.8, "b" * 64: 0.2}, GAINS, 5)
    assert [h.chunk.doc_id[0] for h in shared][:5] == list("aabaa")
    even = stages.allocate(within, {"a" * 64: 0.5, "b" * 64: 0.5}, GAINS, 4)
    assert [h.chunk.doc_id[0] for h in even][:4] == list("abab")  # a tie: the first by id
    for got in (sure, shared, even):
        for doc in "ab":
            mine = [h.chunk.index for h in got if h.chunk.doc_id[0] == doc]
            assert mine == sorted(mine)  # each document keeps its own order


def test_the_worth_of_showing_a_document_at_all_gives_a_runner_up_the_last_place():
    a, b = pool_of("a", 6), pool_of("b", 6)
    w = Weights()
    within = {d.doc_id: diversify(d.fused(w), 1) for d in (a, b)}
    p = {"a" * 64: 0.97, "b" * 64: 0.03}
    # b's first passage adds 0.03 x 0.6 = 0.018, less than a's fifth (0.97 x 0.03 = 0.029)
    assert {h.chunk.doc_id[0] for h in stages.allocate(within, p, GAINS, 5)[:5]} == {"a"}
    # worth 0.5 more for being shown at all: 0.03 x 1.1 = 0.033, more than a's fifth...
    shown = stages.allocate(within, p, GAINS, 5, first=0.5)
    assert [h.chunk.doc_id[0] for h in shown][:5] == list("aaaab")
    # ... but not than its fourth (0.97 x 0.05 = 0.0485): a keeps its own first four
    assert [h.chunk.index for h in shown][:4] == [h.chunk.index for h in within["a" * 64]][:4]
    assert stages.worth(GAINS, 0, 0.5) == GAINS[0] + 0.5 and stages.worth(GAINS, 1, 0.5) == GAINS[1]
    assert stages.placed(p, GAINS, 5) == ["a" * 64]
    assert stages.placed(p, GAINS, 5, first=0.5) == ["a" * 64, "b" * 64]  # so b is read
    pool = stages.Pool((a, b), signals={"a" * 64: signal(1.0), "b" * 64: signal(0.0)})
    sure = signal(3.476)  # a: 0.97, b: 0.03

    def docs_shown(first):
        w = Weights(confidence=sure, gains=GAINS, first=first)
        return {h.chunk.doc_id[0] for h in stages.rank(pool, w, 5)[:5]}

    assert docs_shown(0.0) == {"a"} and docs_shown(0.5) == {"a", "b"}


def test_only_the_most_probable_documents_and_the_wanted_ones_take_part():
    pools = tuple(pool_of(d, 3) for d in "abcd")
    signals = {d * 64: signal(p) for d, p in zip("abcd", (1.0, 0.9, 0.8, 0.1), strict=True)}
    w = Weights(docs=2, confidence=signal(5.0), guard=0)
    got = stages.rank(stages.Pool(pools, signals=signals, must=("d" * 64,)), w, 10)
    assert {h.chunk.doc_id[0] for h in got} == {"a", "b", "d"}
    assert "d" in [h.chunk.doc_id[0] for h in got[:5]]  # a wanted document is shown
    p = stages.chances(stages.Pool(pools, signals=signals), w)
    assert stages.leading(p, ["d" * 64], 2) == ["a" * 64, "b" * 64, "d" * 64]


def test_only_documents_that_can_take_a_place_are_read():
    p = {"a": 0.95, "b": 0.04, "c": 0.01}
    # b's first place is worth 0.04 x 0.6 = 0.024: less than a's fifth (0.95 x 0.03),
    # more than its sixth (0.95 x 0.015, half the last fitted gain)
    assert stages.placed(p, GAINS, 5) == ["a"]
    assert stages.placed(p, GAINS, 6) == ["a", "b"]
    assert stages.placed({"a": 0.5, "b": 0.5}, GAINS, 2) == ["a", "b"]
    w = Weights(gains=GAINS, docs=1)
    assert stages.reading(p, ["c"], w, 6) == ["a", "c"]  # at most ``docs``, then the wanted
    assert stages.placed({}, GAINS, 3) == []


def test_the_guard_shows_the_document_dense_search_puts_first_however_sure_the_prior():
    pools = (pool_of("a", 6), pool_of("b", 6))
    signals = {"a" * 64: signal(1.0, lexical_first=1.0), "b" * 64: signal(0.0, dense_first=1.0)}
    w = Weights(confidence=signal(20.0), gains=GAINS, guard=1)
    pool = stages.Pool(pools, signals=signals)
    assert "b" in [h.chunk.doc_id[0] for h in stages.rank(pool, w, 5)]
    unguarded = stages.rank(pool, Weights(confidence=w.confidence, gains=GAINS, guard=0), 5)
    assert {h.chunk.doc_id[0] for h in unguarded} == {"a"}  # the premise: the prior buried b


FILLER = ["Table of contents", "Forward-looking statements", "Risk factors", "Legal"]
QUIET = ["Europe: net revenue was 1,003 million.", "Headcount grew in Europe and Asia."]


def channel_of_five(store) -> None:
    """Four reports say 'net revenue' louder than the fifth, the one asked about."""
    for issuer in ["Initech", "Globex", "Umbrella", "Soylent"]:
        loud = ["net revenue net revenue Europe net revenue"] * 3
        add(store, "C", [f"{issuer.upper()} INC. Annual report", *FILLER, *loud], issuer.encode())
    add(store, "C", ["HOOLI INC. Annual report", *FILLER, *QUIET], b"hooli")


def test_a_channel_reads_the_leading_document_as_deeply_as_if_it_were_alone():
    """With two candidates per ranking channel-wide, none of Hooli's passages would be a
    candidate: the second stage searches Hooli on its own."""
    emb = HashEmbedder()
    store = ChromaStore.ephemeral(model=emb.name)
    channel_of_five(store)
    quiet = QUIET
    question = "What was Hooli's net revenue in Europe?"
    by_prior = Weights(confidence=signal(8.0))  # the routing prior alone picks documents
    alone = Retriever(store, emb, candidates=2, top_pages=0, weights=by_prior)
    hits = alone.search("C", question, k=5)
    assert quiet[0] in [h.chunk.text for h in hits]
    assert len({h.chunk.doc_id for h in hits}) > 1  # a prior, not a filter
    docs = store.documents("C")
    pool = alone.gather("C", question, docs, {d.doc_id for d in docs})
    first = max(pool.signals, key=lambda d: pool.signals[d][0])  # routing's favourite...
    hooli = next(d for d in pool.docs if d.doc_id == first)
    assert hooli.dense[0][0].text == quiet[0]  # ... searched on its own, as if alone


def test_a_leading_document_is_ranked_exactly_as_in_a_channel_of_its_own():
    emb = HashEmbedder()
    store = ChromaStore.ephemeral(model=emb.name)
    channel_of_five(store)
    add(store, "H", ["HOOLI INC. Annual report", *FILLER, *QUIET], b"hooli")
    retriever = Retriever(store, emb, candidates=3)
    question = "How did Hooli's headcount and net revenue in Europe change?"

    def pool(channel):
        docs = store.documents(channel)
        return retriever.gather(channel, question, docs, {d.doc_id for d in docs}, leading=1)

    shared, alone = pool("C"), pool("H")
    (hooli,) = [d for d in shared.docs if d.doc_id == alone.docs[0].doc_id]
    mine = alone.docs[0]
    assert [(c.id, round(s, 5)) for c, s in hooli.lexical] == [
        (c.id, round(s, 5)) for c, s in mine.lexical
    ]  # its own BM25 weights, not the channel's
    assert [c.id for c, _ in hooli.dense] == [c.id for c, _ in mine.dense]
    assert hooli.page == mine.page and hooli.figures == mine.figures
    w = Weights()
    assert [h.chunk.id for h in hooli.fused(w)] == [h.chunk.id for h in mine.fused(w)]


def test_the_leading_documents_are_searched_in_one_store_call():
    # each read as if alone, but asked of the store at once: its held vectors read once
    emb = HashEmbedder()
    store = ChromaStore.ephemeral(model=emb.name)
    channel_of_five(store)
    calls: list[tuple] = []
    each = store.query_each
    store.query_each = lambda *a, **kw: calls.append(a[3]) or each(*a, **kw)
    retriever = Retriever(store, emb, candidates=3)
    docs = store.documents("C")
    pool = retriever.gather(
        "C", "What was Hooli's net revenue in Europe?", docs, {d.doc_id for d in docs}
    )
    assert len(calls) == 1 and list(calls[0]) == [d.doc_id for d in pool.docs]
    for d in pool.docs:  # what a search of that document alone finds
        alone = store.query(
            "C", emb.embed(["What was Hooli's net revenue in Europe?"])[0], 3, [d.doc_id]
        )
        assert [c.id for c, _ in d.dense] == [c.id for c, _ in alone]
