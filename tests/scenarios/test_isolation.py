"""Channel isolation as a property: nothing of channel B ever reaches channel A.

Hypothesis spreads documents over channels (the same bytes in several
channels, look-alike channel names), forgets some, then asks every channel
questions made of the other channels' secret words. Every retrieved hit,
every citation and every snippet must come from a document that channel
still holds.
"""

from __future__ import annotations

import pymupdf
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from papertrail.pipeline import PaperTrail
from papertrail.settings import Settings
from papertrail.store.chroma import ChromaStore
from tests.fakes import HashEmbedder, ScriptedGenerator

SECRETS = ["aquamarine", "basilisk", "cormorant", "dulcimer", "eucalyptus", "fennelseed"]


def secret_pdf(word: str) -> bytes:
    doc = pymupdf.open()
    for page_no in range(2):
        page = doc.new_page()
        text = (
            f"The project codename is {word}. The {word} budget is {len(word) * 1000 + page_no} "
            f"euros and the {word} team meets on page {page_no + 1}."
        )
        page.insert_textbox(pymupdf.Rect(72, 72, 540, 400), text, fontsize=11)
    data = doc.tobytes()
    doc.close()
    return data


PDFS = {w: secret_pdf(w) for w in SECRETS}
# Names that collide after naive sanitising, differ only in case or unicode form, or are long.
CHANNELS = [
    "a/b",
    "a_b",
    "A_B",
    "slack:T1:C1",
    "slack:T1:C1 ",
    "discord:1",
    "é",
    "e\u0301",
    "x" * 300,
]

placements = st.lists(
    st.tuples(st.sampled_from(CHANNELS), st.sampled_from(SECRETS)), min_size=1, max_size=8
)


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(placed=placements, forget=st.lists(st.integers(0, 7), max_size=3))
def test_no_hit_citation_or_image_crosses_channels(tmp_path_factory, placed, forget):
    tmp = tmp_path_factory.mktemp("iso")
    embedder = HashEmbedder()
    # The generator cites every excerpt, so any leaked hit would surface as a citation.
    cite_all = ScriptedGenerator(
        " ".join(f"The project codename is mentioned here [{n}]." for n in range(1, 6))
    )
    pt = PaperTrail(
        Settings(data_dir=tmp),
        embedder=embedder,
        store=ChromaStore.ephemeral(model=embedder.name),
        generator=cite_all,
    )
    held: dict[str, set[str]] = {}
    for channel, word in placed:
        doc = pt.ingest(channel, f"{word}.pdf", PDFS[word]).document
        held.setdefault(channel, set()).add(doc.doc_id)
    for i in forget:
        if i < len(placed):
            channel, word = placed[i]
            for d in pt.forget(channel, f"{word}.pdf"):
                held[channel].discard(d.doc_id)

    for channel in CHANNELS:
        docs = {d.doc_id for d in pt.documents(channel)}
        assert docs == held.get(channel, set())
        if not docs:
            continue
        question = "What is the budget of " + " ".join(SECRETS) + "?"
        answer = pt.ask(channel, question)
        assert {h.chunk.doc_id for h in answer.hits} <= docs
        assert {c.chunk.doc_id for c in answer.citations + answer.dropped if c.chunk} <= docs
        assert {s.chunk_id.split(":")[0] for s in answer.snippets} <= docs
        allowed_words = {w for w in SECRETS if secret_pdf_id(w) in docs}
        for hit in answer.hits:
            assert any(w in hit.chunk.text for w in allowed_words)
        # Naming another channel's document explicitly must not reach it either.
        foreign = {d for c, ids in held.items() if c != channel for d in ids} - docs
        for doc_id in foreign:
            assert pt.store.query(channel, embedder.embed([question])[0], 5, [doc_id]) == []
            assert pt.store.chunks(channel, [doc_id]) == []


def secret_pdf_id(word: str) -> str:
    import hashlib

    return hashlib.sha256(PDFS[word]).hexdigest()
