"""Quoting the sentences that answer: the offline answerer of last resort (``Quote``).

It takes the quotable sentences of each excerpt (``quotable``: no headings,
labels, page numbers, lead-ins, bare table rows, boilerplate or sentences cut
by the excerpt), sets aside those that cannot answer (no amount when the
question asks for one or names a period; only other years than the one
asked), scores the rest against the question by its rarity-weighted words and
figures, by embedding cosine when an embedder is given, and by the excerpt's
rank, and quotes the best few that do not repeat each other, one per line,
each with the ``[n]`` of its excerpt: the best excerpt's sentences first, each
excerpt's in reading order. A question that asks two things ("which hardware
..., and how long ...?", ``Ask.parts``) gets the best sentence for each; one
that asks one thing (not why or how, not a list) gets the best sentence alone,
cut to the clause that answers or to the name asked for (``short``). It never
paraphrases, so its citations pass verification by construction; whether the
quote states what was asked is the verifier's question (``verify.question``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from papertrail.answer.quotable import quotable
from papertrail.answer.short import (
    DOC_MARKER,
    answer_tail,
    answering_clause,
    named_answer,
    without_opener,
)
from papertrail.answer.tables import asks_computed
from papertrail.protocols import Embedder
from papertrail.text.coverage import coverage
from papertrail.text.figures import states_amount
from papertrail.text.periods import named
from papertrail.text.stated import counted_noun, counting_piece, lacks
from papertrail.text.words import content_words, rarity, stem
from papertrail.types import Ask, Draft, Hit

MIN_RELEVANCE = 0.3  # best sentence must reach this (0..1) or the answer is a refusal
KEEP_RATIO = 0.7  # further sentences must score this share of the best one
RANK_BONUS = 0.1  # the top excerpt's edge over the last, added to relevance
QUANTITY_BONUS = 0.1  # for a sentence with figures when the question asks for a quantity
MAX_OVERLAP = 0.6  # word overlap (Jaccard) above which a sentence repeats a chosen one
TOPIC_SHARE = 0.6  # a question word in this share of the excerpts is the document's topic
FOCUS_RARITY = 1.5  # rarer than everyday words: "chief" 1.9, "many" 1.1 (words.rarity)
FOCUS_SIM = 0.6  # cosine at which a sentence answers the question without its focus words
SHORTLIST = 12  # sentences per question scored with the embedding model
FITTING = 6  # ... and further ones that state the kind of thing asked (``stated``)
OPENS_PENALTY = 0.05  # an excerpt's first sentence may have begun in the excerpt before


@dataclass(frozen=True)
class _Candidate:
    text: str
    hit: int  # 1-based index of the excerpt
    score: float
    words: frozenset[str]
    heading: frozenset[str] = frozenset()  # words of the section heading above it


class Quote:
    """Answers by quoting up to ``max_sentences`` retrieved sentences, each cited."""

    name = "quote"

    def __init__(self, embedder: Embedder | None = None, max_sentences: int = 3) -> None:
        self.embedder = embedder
        self.max_sentences = max(1, max_sentences)

    def answer(self, ask: Ask, hits: Sequence[Hit]) -> Draft | None:
        chosen = self.select(ask, hits)
        if chosen and ask.parts:  # each part's best sentence first, then the rest
            best: list[_Candidate] = []
            for p in ask.parts:  # the best sentence for this part that no other part took
                got = [c for c in self.select(p, hits) if c.text not in {b.text for b in best}]
                best += [max(got, key=lambda c: c.score)] if got else []
            ranked = sorted(chosen, key=lambda c: -c.score)
            merged = list({(c.hit, c.text): c for c in [*best, *ranked]}.values())
            chosen = _readable(merged[: max(self.max_sentences, len(best))], hits)
        if not chosen:
            return None
        if not ask.explains and not ask.parts and ask.one:
            chosen = self._shortened(ask, chosen)
        return Draft(text="\n".join(cite(c.text, c.hit) for c in chosen), mode="extractive")

    def select(self, ask: Ask, hits: Sequence[Hit]) -> list[_Candidate]:
        """The sentences to quote, best first; empty when none is relevant enough."""
        question = ask.text
        quotes = [(i + 1, q) for i, h in enumerate(hits) for q in quotable(h.chunk)]
        pool = [(n, q.text) for n, q in quotes]
        if not pool or not content_words(question):
            return []
        wants_figures = ask.figures
        lexical = [coverage(question, s, hits[n - 1].chunk.section)[0] for n, s in pool]
        # what does not answer: no amount when one is asked, or only other periods than asked
        years = {str(y) for y in ask.years}
        blocked = set()
        # an amount asked outright, for a period ("net sales in 2017") or worked out
        asked = ask.amount or years or asks_computed(ask)
        needs_amount = wants_figures and bool(asked)
        for k, (_, s) in enumerate(pool):
            said = {str(y) for y in named(s).get("year", ())}
            if (needs_amount and not states_amount(s)) or (years and said and not said & years):
                blocked.add(k)
        # a sentence that states the kind of thing asked (a count of what is counted, a
        # percentage, a change, a name: ``stated``) beats one that only shares its words
        fits = {k for k, (_, s) in enumerate(pool) if k not in blocked and lacks(ask, s) is None}
        bonus = [
            RANK_BONUS * (1 - (n - 1) / max(1, len(hits)))
            + (QUANTITY_BONUS if wants_figures and states_amount(q.text) else 0.0)
            - (OPENS_PENALTY if q.opens else 0.0)
            for n, q in quotes
        ]
        # Only the lexically best few are embedded: that bounds the cost per question.
        ranked = sorted(range(len(pool)), key=lambda k: -(lexical[k] + bonus[k]))
        ranked = [k for k in ranked if k not in blocked]
        shortlist = ranked[:SHORTLIST]
        if len(fits) < len(ranked):  # the kind asked narrows them: the best that fit join
            shortlist += [k for k in ranked[SHORTLIST:] if k in fits][:FITTING]
        shortlist = [k for k in shortlist if lexical[k] > 0 or self.embedder]
        sims = self._similarities(question, [pool[k][1] for k in shortlist])
        focus = self._focus(question, hits)
        scored, fit = [], []
        for j, k in enumerate(shortlist):
            n, s = pool[k]
            relevance = lexical[k] if sims is None else (lexical[k] + max(0.0, sims[j])) / 2
            if relevance <= 0:
                continue
            words = frozenset(stem(w) for w in content_words(s))
            heading = frozenset(stem(w) for w in content_words(hits[n - 1].chunk.section))
            on_focus = focus & (words | heading)  # the heading above says what it is about
            if focus and not on_focus and (sims is None or sims[j] < FOCUS_SIM):
                continue  # it shares only the document's topic words with the question
            scored.append((relevance, _Candidate(s, n, relevance + bonus[k], words, heading)))
            fit.append(k in fits)
        if not scored or max(r for r, _ in scored) < MIN_RELEVANCE:
            return []
        if any(f and r >= MIN_RELEVANCE for f, (r, _) in zip(fit, scored, strict=True)):
            scored = [rc for f, rc in zip(fit, scored, strict=True) if f]  # those that fit only
        scored.sort(key=lambda rc: -rc[1].score)
        best = scored[0][1].score
        rare = {stem(w) for w in content_words(question) if rarity(w) >= FOCUS_RARITY}
        chosen: list[_Candidate] = []
        for _, c in scored:
            if len(chosen) == self.max_sentences or c.score < KEEP_RATIO * best:
                break
            if any(_overlap(c.words, o.words) > MAX_OVERLAP for o in chosen):
                continue
            if wants_figures and chosen and _other_subject(c, chosen[0], rare):
                continue
            chosen.append(c)
        if wants_figures and states_amount(chosen[0].text):  # the best states an amount:
            chosen = [c for c in chosen if states_amount(c.text)]  # the rest must add one too
        return _readable(chosen, hits)

    def _shortened(self, ask: Ask, chosen: list[_Candidate]) -> list[_Candidate]:
        """For a question that asks one thing, one quote: of the sentences chosen, the one
        whose answering clause (``short``) is closest to the question, cut to that clause,
        or to the name a which/who question asks for. The others are about the same
        subject, not more of the answer; comparing clauses, not whole sentences, keeps a
        sentence that answers in its first clause from losing to one that is shorter but
        about something else ("The decoder is also a stack of six identical layers")."""
        question = ask.text
        clauses = [without_opener(answering_clause(c.text, question)) for c in chosen]
        sims = self._similarities(question, clauses)
        # the question's words it holds, its words the question holds (a clause about
        # something else adds words of its own), and closeness in meaning
        fit = [
            coverage(question, t)[0]
            + coverage(t, question)[0]
            + (max(0.0, sims[k]) if sims is not None else 0.0)
            for k, t in enumerate(clauses)
        ]
        k = max(range(len(chosen)), key=lambda j: (fit[j], chosen[j].score))
        noun = counted_noun(ask.plain or ask.body)  # "how many N": the piece giving it
        counted = counting_piece(clauses[k], noun) if noun else None
        short = counted or named_answer(clauses[k], ask) or answer_tail(clauses[k], ask)
        return [replace(chosen[k], text=short or clauses[k])]

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


def _readable(chosen: list[_Candidate], hits: Sequence[Hit]) -> list[_Candidate]:
    """Excerpts in the order of their best sentence (``chosen`` is best first), each
    excerpt's sentences in reading order."""
    first: dict[int, int] = {}
    for rank, c in enumerate(chosen):
        first.setdefault(c.hit, rank)
    return sorted(chosen, key=lambda c: (first[c.hit], hits[c.hit - 1].chunk.text.find(c.text)))


def _other_subject(c: _Candidate, best: _Candidate, asked: set[str]) -> bool:
    """A further figure about something else: it lacks a question word the best sentence
    has and adds none, its heading included ("41.8 BLEU on English-to-French" beside the
    English-to-German one; but "8 GPUs" under "Hardware" adds to "12 hours")."""
    return bool((best.words & asked) - c.words) and not ((c.words | c.heading) & asked) - best.words


def _overlap(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 1.0


def cite(sentence: str, n: int) -> str:
    """``sentence`` with ``[n]`` before its closing punctuation ("... layers [1].")."""
    body = DOC_MARKER.sub("", sentence).rstrip()  # the document's own "[9]" is no citation
    end = ""
    if body and body[-1] in ".!?;:":
        body, end = body[:-1].rstrip(), body[-1]
    return f"{body} [{n}]{'.' if end in ('', ';', ':') else end}"
