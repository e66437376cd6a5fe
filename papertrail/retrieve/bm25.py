"""BM25 over sparse term-count matrices that can grow one document at a time.

The scores are bm25s's "lucene" variant (k1 1.5, b 0.75; idf
ln(1 + (N - df + 0.5) / (df + 0.5)); a term's part idf * tf / (k1 * (1 - b + b
* len / avg_len) + tf)), so rankings match the bm25s index this replaces. What
differs is the cost of adding a document to a large channel: bm25s re-reads
every token in Python on each rebuild (about two minutes at 100k chunks); here
a document's term counts are computed once (``count``), and a rebuild stacks
the cached count matrices and recomputes the weights with numpy (about a
second). A query sums the weight columns of its terms. It leaves out phrase
queries and other BM25 variants.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import sparse

K1, B = 1.5, 0.75


class Vocabulary:
    """Term -> column id, shared by every index of one channel; it only grows."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}

    def id_of(self, term: str) -> int:
        return self.ids.setdefault(term, len(self.ids))


def count(token_lists: Sequence[Sequence[str]], vocab: Vocabulary) -> sparse.csr_matrix:
    """Term counts of each token list as one row (columns: ``vocab`` ids)."""
    rows = np.repeat(np.arange(len(token_lists)), [len(t) for t in token_lists])
    cols = np.fromiter((vocab.id_of(t) for ts in token_lists for t in ts), np.int64, len(rows))
    data = np.ones(len(rows), np.float32)
    shape = (len(token_lists), len(vocab.ids))
    return sparse.csr_matrix((data, (rows, cols)), shape=shape)  # duplicates are summed


def stack(parts: Sequence[sparse.csr_matrix], width: int) -> sparse.csr_matrix:
    """``parts`` one above the other, widened to ``width`` columns."""
    if not parts:
        return sparse.csr_matrix((0, width), dtype=np.float32)
    widened = [sparse.csr_matrix((p.data, p.indices, p.indptr), (p.shape[0], width)) for p in parts]
    return sparse.vstack(widened, format="csr")


class BM25:
    """BM25 weights of a term-count matrix (rows: passages), queried by term."""

    def __init__(self, counts: sparse.csr_matrix, vocab: Vocabulary) -> None:
        self.vocab = vocab
        counts = counts.tocsr()
        n, width = counts.shape
        lengths = np.asarray(counts.sum(axis=1)).ravel()
        average = float(lengths.mean()) if n and lengths.mean() > 0 else 1.0
        df = np.bincount(counts.indices, minlength=width)
        idf = np.log1p((n - df + 0.5) / (df + 0.5)).astype(np.float32)
        norm = K1 * (1 - B + B * lengths / average)
        row_norm = np.repeat(norm, np.diff(counts.indptr)).astype(np.float32)
        tf = counts.data
        weights = idf[counts.indices] * tf / (row_norm + tf)
        matrix = sparse.csr_matrix((weights, counts.indices, counts.indptr), shape=counts.shape)
        self.matrix = matrix.tocsc()  # a query reads whole columns
        self.size = n

    def scores(self, terms: Sequence[str]) -> np.ndarray:
        """Score of every row for ``terms`` (each distinct term counted once)."""
        width = self.matrix.shape[1]
        ids = sorted({i for t in terms if (i := self.vocab.ids.get(t, width)) < width})
        if not ids:
            return np.zeros(self.size, np.float32)
        m = self.matrix  # the columns' (row, weight) runs, summed per row
        spans = [slice(m.indptr[i], m.indptr[i + 1]) for i in ids]
        rows = np.concatenate([m.indices[s] for s in spans])
        weights = np.concatenate([m.data[s] for s in spans])
        return np.bincount(rows, weights=weights, minlength=self.size).astype(np.float32)
