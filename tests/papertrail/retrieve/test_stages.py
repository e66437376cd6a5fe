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


def test_the_prior_orders_documents_and_each_keeps_its_own_order():
    a, b = pool_of("a", 5), pool_of("b", 5)
    pool = stages.Pool((a, b), prior={"a" * 64: 1.0, "b" * 64: 0.5})
    strong = stages.rank(pool, Weights(doc_weight=8.0), 6)
    # scores 0.6 .. 0 within each; times 1 + 8 x prior: 9 for a, 5 for b
    assert [h.chunk.doc_id[0] for h in strong] == list("aababb")
    weak = stages.rank(pool, Weights(doc_weight=0.0), 4)
    assert [h.chunk.index for h in weak] == [0, 0, 1, 1]  # no prior: interleaved by score
    for got in (strong, weak):
        for doc in "ab":
            mine = [h.chunk.index for h in got if h.chunk.doc_id[0] == doc]
            assert mine == sorted(mine)


def test_only_the_leading_documents_and_the_wanted_ones_take_part():
    pools = tuple(pool_of(d, 3) for d in "abcd")
    prior = {"a" * 64: 1.0, "b" * 64: 0.9, "c" * 64: 0.8, "d" * 64: 0.1}
    got = stages.rank(stages.Pool(pools, prior=prior, must=("d" * 64,)), Weights(docs=2), 10)
    assert {h.chunk.doc_id[0] for h in got} == {"a", "b", "d"}
    assert "d" in [h.chunk.doc_id[0] for h in got[:5]]  # a wanted document is shown
    assert stages.leading(prior, ["d" * 64], 2) == ["a" * 64, "b" * 64, "d" * 64]


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
    alone = Retriever(store, emb, candidates=2, top_pages=0)
    hits = alone.search("C", question, k=5)
    assert quiet[0] in [h.chunk.text for h in hits]
    assert len({h.chunk.doc_id for h in hits}) > 1  # a prior, not a filter
    docs = store.documents("C")
    pool = alone.gather("C", question, docs, {d.doc_id for d in docs})
    first = max(pool.prior, key=pool.prior.__getitem__)  # the first stage's favourite...
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
