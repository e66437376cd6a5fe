"""The offline answerer: quotes the retrieved sentences that best answer the question.

``ExtractiveGenerator`` implements the ``Generator`` protocol without an LLM.
It splits each retrieved excerpt into sentences (long table runs into rows),
scores each against the question by the question's rarity-weighted words and
figures it contains, by embedding cosine when an embedder is given, and by the
excerpt's rank, then quotes the best few that do not repeat each other, one
per line, each with the ``[n]`` of its excerpt. When nothing scores well
enough it returns the refusal sentence. It never paraphrases, so its
citations pass verification by construction; it does not compute, compare or
summarise, and it leaves the "extractive" label to the caller.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from papertrail.figures import claim_figures, excerpt_numbers
from papertrail.protocols import Embedder
from papertrail.sentences import split_sentences
from papertrail.settings import REFUSAL
from papertrail.types import Draft, Hit
from papertrail.verify import coverage
from papertrail.words import content_words, rarity, stem

MIN_WORDS = 4  # shorter sentences are fragments or labels, not answers
MIN_RELEVANCE = 0.3  # best sentence must reach this (0..1) or the answer is a refusal
KEEP_RATIO = 0.7  # further sentences must score this share of the best one
RANK_BONUS = 0.1  # the top excerpt's edge over the last, added to relevance
QUANTITY_BONUS = 0.1  # for a sentence with figures when the question asks for a quantity
MAX_OVERLAP = 0.6  # word overlap (Jaccard) above which a sentence repeats a chosen one
MAX_CHARS = 400  # longer sentences are cut into rows or pieces
TOPIC_SHARE = 0.6  # a question word in this share of the excerpts is the document's topic
FOCUS_RARITY = 1.5  # rarer than everyday words: "chief" 1.9, "many" 1.1 (textnorm.rarity)
FOCUS_SIM = 0.6  # cosine at which a sentence answers the question without its focus words
SHORTLIST = 12  # sentences per question scored with the embedding model
TABLE_NUMBERS = 6  # a "sentence" with this many numbers is a table run: quote it by rows
_QUANTITY = re.compile(
    r"\bhow (much|many|large|big|long|often)\b|\b(amount|number|total|percent(age)?|rate|"
    r"ratio|value|size|cost|price|revenue|income|sales|margin|score|figure)s?\b",
    re.I,
)
_ROW_START = re.compile(r"(?<=[\d)%\u2014-])\s+(?=[A-Z][a-z])")  # "... 3,033 Basic earnings"


@dataclass(frozen=True)
class _Candidate:
    text: str
    hit: int  # 1-based index of the excerpt
    score: float
    words: frozenset[str]


def candidate_sentences(text: str) -> list[str]:
    """Whole sentences of an excerpt; table runs cut into rows, overlong text into pieces."""
    out = []
    for s in split_sentences(text, hard_newlines=False):
        pieces = [s]
        if len(s) > MAX_CHARS or len(excerpt_numbers(s)) >= TABLE_NUMBERS:
            pieces = [p for p in _ROW_START.split(s) if p.strip()]
        for p in pieces:
            while len(p) > MAX_CHARS:
                cut = p.rfind(" ", 0, MAX_CHARS)
                cut = cut if cut > MAX_CHARS // 2 else MAX_CHARS
                out.append(p[:cut].strip())
                p = p[cut:].strip()
            out.append(p.strip())
    # A fragment cut off by the excerpt's start or a sentence of two words says too
    # little, unless it is all the excerpt holds (a title page, a one-line notice).
    if len(out) == 1 and out[0] and not out[0][0].islower():
        return out
    return [s for s in out if word_count(s) >= MIN_WORDS and not s[0].islower()]


def word_count(text: str) -> int:
    """Words of ``text``; in scripts written without spaces each wide character counts.

    A Chinese or Japanese sentence is one "word" to ``str.split`` but a
    character there is about a morpheme, as in ``pagetext.has_text``.
    """
    wide = sum(unicodedata.east_asian_width(c) in ("W", "F") and c.isalpha() for c in text)
    return len(text.split()) + wide


class ExtractiveGenerator:
    """Answers by quoting up to ``max_sentences`` retrieved sentences, each cited."""

    mode = "extractive"

    def __init__(self, embedder: Embedder | None = None, max_sentences: int = 3) -> None:
        self.embedder = embedder
        self.max_sentences = max(1, max_sentences)

    def generate(self, question: str, hits: Sequence[Hit]) -> Draft:
        chosen = self.select(question, hits)
        if not chosen:
            return Draft(text=REFUSAL, mode=self.mode)
        lines = [_cite(c.text, c.hit) for c in chosen]
        return Draft(text="\n".join(lines), mode=self.mode)

    def select(self, question: str, hits: Sequence[Hit]) -> list[_Candidate]:
        """The sentences to quote, best first; empty when none is relevant enough."""
        pool = [(i + 1, s) for i, h in enumerate(hits) for s in candidate_sentences(h.chunk.text)]
        if not pool or not content_words(question):
            return []
        wants_figures = bool(_QUANTITY.search(question))
        lexical = [coverage(question, s, hits[n - 1].chunk.section)[0] for n, s in pool]
        bonus = [
            RANK_BONUS * (1 - (n - 1) / max(1, len(hits)))
            + (QUANTITY_BONUS if wants_figures and claim_figures(s) else 0.0)
            for n, s in pool
        ]
        # Only the lexically best few are embedded: that bounds the cost per question.
        shortlist = sorted(range(len(pool)), key=lambda k: -(lexical[k] + bonus[k]))
        shortlist = [k for k in shortlist[:SHORTLIST] if lexical[k] > 0 or self.embedder]
        sims = self._similarities(question, [pool[k][1] for k in shortlist])
        focus = self._focus(question, hits)
        scored = []
        for j, k in enumerate(shortlist):
            n, s = pool[k]
            relevance = lexical[k] if sims is None else (lexical[k] + max(0.0, sims[j])) / 2
            if relevance <= 0:
                continue
            words = frozenset(stem(w) for w in content_words(s))
            if focus and not focus & words and (sims is None or sims[j] < FOCUS_SIM):
                continue  # it shares only the document's topic words with the question
            scored.append((relevance, _Candidate(s, n, relevance + bonus[k], words)))
        if not scored or max(r for r, _ in scored) < MIN_RELEVANCE:
            return []
        scored.sort(key=lambda rc: -rc[1].score)
        best = scored[0][1].score
        chosen: list[_Candidate] = []
        for _, c in scored:
            if len(chosen) == self.max_sentences or c.score < KEEP_RATIO * best:
                break
            if any(_overlap(c.words, o.words) > MAX_OVERLAP for o in chosen):
                continue
            chosen.append(c)
        # Quote in reading order: by excerpt, then as the sentences came.
        order = {(n, s): k for k, (n, s) in enumerate(pool)}
        return sorted(chosen, key=lambda c: order[(c.hit, c.text)])

    @staticmethod
    def _focus(question: str, hits: Sequence[Hit]) -> frozenset[str]:
        """The question's words that are not the document's topic.

        In a report about a cooperative every excerpt says "cooperative": a
        sentence sharing only that word with "Who is the cooperative's chief
        executive?" does not answer it. Words found in most retrieved excerpts
        are such topic words; the rest are what the question is about.
        """
        # Everyday words ("many", "find") frame the question rather than name its subject.
        stems = {stem(w) for w in content_words(question) if rarity(w) >= FOCUS_RARITY}
        if len(hits) < 3:  # too few excerpts to tell topic from focus
            return frozenset()
        texts = [frozenset(stem(w) for w in content_words(h.chunk.text)) for h in hits]
        topic = {w for w in stems if sum(w in t for t in texts) >= TOPIC_SHARE * len(texts)}
        return frozenset(stems - topic)

    def _similarities(self, question: str, sentences: list[str]) -> np.ndarray | None:
        if self.embedder is None or not sentences:
            return None
        vecs = np.asarray(self.embedder.embed([question, *sentences]))
        return vecs[1:] @ vecs[0]


def _overlap(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 1.0


def _cite(sentence: str, n: int) -> str:
    """``sentence`` with ``[n]`` before its closing punctuation ("... layers [1].")."""
    body = sentence.rstrip()
    end = ""
    if body and body[-1] in ".!?;:":
        body, end = body[:-1].rstrip(), body[-1]
    return f"{body} [{n}]{'.' if end in ('', ';', ':') else end}"
