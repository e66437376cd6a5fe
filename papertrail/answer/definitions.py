"""Answering "How does this document define X?" with the definition it gives X.

Glossaries, slides and manuals set a term as a label and its definition right
after it ("Law of good Gestalt. Elements of objects tend to be perceptually
grouped together if ..."; "Firmware: the software that runs the device."),
or say it in one sentence ("The law of good gestalt is the idea that ...").
``definition_answer`` takes the term a question asks to be defined (``Ask.term``) and quotes
the sentence that follows the term's label, or the sentence that says what the
term is. Such a sentence shares few words with the question, so the quoting
path (``extractive``) would rank it below sentences that only repeat the term.
It does not write a definition of its own or combine sentences.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from papertrail.answer.quotable import candidate_sentences
from papertrail.text.ask import as_ask
from papertrail.text.sentences import split_sentences
from papertrail.types import Ask, Hit

MAX_HITS = 5  # the best-ranked excerpts are searched, in rank order
MIN_WORDS = 4  # a shorter "definition" is a fragment or another label
_SAYS_WHAT = r"\s+(?:is|are|refers?\s+to|means|describes|denotes|states)\s+"


def definition_answer(question: Ask | str, hits: Sequence[Hit]) -> tuple[str, int] | None:
    """(the definition a retrieved excerpt gives the asked term, 1-based hit), or None."""
    term = as_ask(question).term
    if not term:
        return None
    key = re.escape(term.lower())
    label = re.compile(rf"^(?:(?:the|a|an)\s+)?{key}\s*(?:[.:\u2013\u2014-]\s*|$)", re.I)
    says = re.compile(rf"^(?:(?:the|a|an)\s+)?{key}{_SAYS_WHAT}", re.I)
    for n, hit in enumerate(hits[:MAX_HITS], 1):
        quotable = candidate_sentences(hit.chunk.text, alone=False)
        pieces = [" ".join(p.split()) for p in split_sentences(hit.chunk.text, hard_newlines=False)]
        for i, piece in enumerate(pieces):
            m = label.match(piece)
            if m is None:
                continue
            rest = piece[m.end() :]  # "Term: definition", or the label alone and it next
            definition = rest or (pieces[i + 1] if i + 1 < len(pieces) else "")
            whole = len(definition.split()) >= MIN_WORDS and definition[:1].isupper()
            if whole and any(definition in q for q in quotable):
                return definition, n
        for q in quotable:
            if says.match(q):  # "The law of good gestalt is ..."
                return q, n
    return None
