"""SentenceTransformerEmbedder: names, loading, errors, and the real bundled model."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from papertrail.embed.model import SentenceTransformerEmbedder, get_embedder, model_name
from papertrail.errors import PaperTrailError
from papertrail.settings import Settings
from tests.tiny_model import save_tiny_model


def test_names_are_known_without_loading():
    assert model_name("") == "all-MiniLM-L6-v2"
    assert model_name("  /models/e5/ ") == "/models/e5"
    assert SentenceTransformerEmbedder().name == "all-MiniLM-L6-v2"
    assert get_embedder(Settings(embedding_model="org/model")).name == "org/model"


@pytest.mark.parametrize("folder", ["no-such-model", "empty-folder"])
def test_a_model_that_cannot_load_names_the_setting(tmp_path, folder):
    (tmp_path / "empty-folder").mkdir()
    embedder = SentenceTransformerEmbedder(str(tmp_path / folder))
    with pytest.raises(PaperTrailError) as err:
        embedder.embed(["hello"])
    assert err.value.code == "model"
    assert "PAPERTRAIL_EMBEDDING_MODEL" in err.value.message


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory) -> str:
    return save_tiny_model(tmp_path_factory.mktemp("tiny"))


def test_local_model_path_gives_normalised_float32_rows(tiny_model):
    embedder = SentenceTransformerEmbedder(tiny_model, batch_size=2)
    assert embedder.name == tiny_model
    vectors = embedder.embed(["one", "two words", "three words here", "четыре 四"])
    assert vectors.shape == (4, 16) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert embedder.embed([]).shape == (0, 16)
    again = SentenceTransformerEmbedder(tiny_model, batch_size=4).embed(["three words here"])
    np.testing.assert_allclose(again[0], vectors[2], atol=1e-5)  # batching changes nothing


def test_concurrent_first_use_shares_one_model(tiny_model):
    embedders = [SentenceTransformerEmbedder(tiny_model) for _ in range(4)]
    loaded, vectors = [None] * 4, [None] * 4
    barrier = threading.Barrier(4)

    def work(i):
        barrier.wait()
        vectors[i] = embedders[i].embed(["same text"])
        loaded[i] = embedders[i]._load()

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(m is loaded[0] for m in loaded)
    for v in vectors:
        np.testing.assert_array_equal(v, vectors[0])


@pytest.mark.model
def test_bundled_model_embeds_meaningfully():
    embedder = SentenceTransformerEmbedder()
    texts = [
        "The company's revenue grew by ten percent last year.",
        "Sales increased 10% compared with the prior fiscal year.",
        "The cat slept on a warm windowsill all afternoon.",
    ]
    vectors = embedder.embed(texts)
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    similar, unrelated = vectors[0] @ vectors[1], vectors[0] @ vectors[2]
    assert similar > unrelated + 0.3
    assert embedder.dim == 384


def test_batches_run_side_by_side_and_come_back_in_input_order(tiny_model):
    texts = [("word " * n).strip() for n in (9, 1, 30, 4, 17, 2, 11)]  # lengths shuffled
    alone = np.stack([SentenceTransformerEmbedder(tiny_model).embed([t])[0] for t in texts])
    together = SentenceTransformerEmbedder(tiny_model, batch_size=2).embed(texts)
    np.testing.assert_allclose(together, alone, atol=1e-5)


def test_concurrent_callers_each_get_their_own_rows(tiny_model):
    # six callers' batches interleave on the shared workers; none may get another's rows
    embedder = SentenceTransformerEmbedder(tiny_model, batch_size=1)
    texts = [
        [f"caller {i} text {j} " + "pad " * ((i + j) % 7) for j in range(12)] for i in range(6)
    ]
    expected = [embedder.embed(t) for t in texts]
    results: list = [None] * 6
    errors: list[BaseException] = []

    def work(i):
        try:
            results[i] = embedder.embed(texts[i])
        except BaseException as exc:  # reported below rather than lost in the thread
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    for got, want in zip(results, expected, strict=True):
        np.testing.assert_allclose(got, want, atol=1e-5)


def test_a_documents_many_chunks_come_back_in_order(tiny_model):
    embedder = SentenceTransformerEmbedder(tiny_model, batch_size=4)
    texts = [("chunk " * (1 + (i * 7) % 23)) + str(i) for i in range(70)]  # over QUICK_CALL
    alone = np.stack([embedder.embed([t])[0] for t in texts])
    np.testing.assert_allclose(embedder.embed(texts), alone, atol=1e-5)


def test_a_question_never_waits_for_a_documents_batches(tiny_model):
    from papertrail.embed import model as embed

    embedder = SentenceTransformerEmbedder(tiny_model, batch_size=2)
    embedder.embed(["load the model"])
    gate = threading.Event()
    bulk = embed._pool("bulk")
    blocked = [bulk.submit(gate.wait, 30) for _ in range(embed._workers_wanted())]
    try:
        done = threading.Event()
        question = threading.Thread(
            target=lambda: (embedder.embed([f"sentence {i}" for i in range(9)]), done.set())
        )
        question.start()
        assert done.wait(10), "a question's embedding queued behind busy indexing workers"
    finally:
        gate.set()
        for f in blocked:
            f.result()
