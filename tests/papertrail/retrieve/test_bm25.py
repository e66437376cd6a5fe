"""bm25: the same scores as bm25s's lucene BM25, from counts that grow by document."""

from __future__ import annotations

import bm25s
import numpy as np

from papertrail.retrieve.bm25 import BM25, Vocabulary, count, stack
from papertrail.text.words import terms

TEXTS = [
    "Total current assets were 7,292 million at year end.",
    "Accounts payable and accrued liabilities rose.",
    "Net revenue grew 12% while cost of sales fell.",
    "The encoder is a stack of six identical layers.",
    "Dividends paid per share rose; dividends were declared quarterly.",
    "",
]
QUERIES = ["total current assets", "dividends per share", "encoder layers revenue", "unknown"]


def test_scores_match_bm25s():
    corpus = [terms(t) for t in TEXTS]
    reference = bm25s.BM25()
    reference.index(corpus, show_progress=False)
    vocab = Vocabulary()
    ours = BM25(count(corpus, vocab), vocab)
    for q in QUERIES:
        known = [t for t in dict.fromkeys(terms(q)) if t in reference.vocab_dict]
        expected = reference.get_scores(known) if known else np.zeros(len(TEXTS))
        assert np.allclose(ours.scores(terms(q)), expected, atol=1e-5)


def test_counts_of_separate_documents_stack_into_the_same_index():
    vocab = Vocabulary()
    first = count([terms(t) for t in TEXTS[:3]], vocab)
    second = count([terms(t) for t in TEXTS[3:]], vocab)  # the vocabulary grew meanwhile
    assert first.shape[1] < second.shape[1]
    stacked = BM25(stack([first, second], len(vocab.ids)), vocab)
    whole_vocab = Vocabulary()
    whole = BM25(count([terms(t) for t in TEXTS], whole_vocab), whole_vocab)
    for q in QUERIES:
        assert np.allclose(stacked.scores(terms(q)), whole.scores(terms(q)))
    assert stacked.scores(terms("dividends"))[4] > 0 and stacked.scores([]).sum() == 0
