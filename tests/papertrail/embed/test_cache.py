"""The embedding caches: on disk for evaluation, in memory for questions."""

import numpy as np

from papertrail.embed.cache import CachingEmbedder, MemoEmbedder
from tests.fakes import HashEmbedder


def test_disk_cache_embeds_each_text_once_across_instances(tmp_path):
    inner = HashEmbedder()
    first = CachingEmbedder(inner, tmp_path / "v.sqlite")
    a = first.embed(["alpha beta", "gamma"])
    again = CachingEmbedder(inner, tmp_path / "v.sqlite")
    b = again.embed(["gamma", "alpha beta", "delta"])
    assert again.misses == 1 and inner.texts_embedded == 3
    assert np.allclose(a[0], b[1]) and np.allclose(a[1], b[0])


def test_memo_keeps_short_texts_only_and_is_bounded():
    inner = HashEmbedder()
    memo = MemoEmbedder(inner, max_items=2, max_chars=20)
    long = "word " * 20
    memo.embed(["one", "two", long])
    memo.embed(["one", "two", long])
    assert inner.texts_embedded == 4  # the long text twice, the short ones once
    memo.embed(["three"])  # evicts the least recently used ("one")
    before = inner.texts_embedded
    out = memo.embed(["one", "three"])
    assert inner.texts_embedded == before + 1
    assert np.allclose(out[0], inner.embed(["one"])[0])
