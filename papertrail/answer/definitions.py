"""Answering "How does this document define X?" with the definition it gives X.

Glossaries, slides and manuals set a term as a label and its definition right
after it ("Law of good Gestalt. Elements of objects tend to be perceptually
grouped together if ..."; "Firmware: the software that runs the device."),
or say it in one sentence ("The law of good gestalt is the idea that ...").
``definition_answer`` reads the term a question asks to be defined and quotes
the sentence that follows the term's label, or the sentence that says what the
term is. Such a sentence shares few words with the question, so the quoting
path (``extractive``) would rank it below sentences that only repeat the term.
It does not write a definition of its own or combine sentences.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from papertrail.answer.quotable import candidate_sentences
from papertrail.text.sentences import normalize, split_sentences
from papertrail.types import Hit

MAX_HITS = 5  # the best-ranked excerpts are searched, in rank order
MIN_WORDS = 4  # a shorter "definition" is a fragment or another label
# "define X", "definition of X", "meaning of X", "what is meant by X"
_ASKED = re.compile(
    r"\b(?:defines?|defined|definition\s+of|meaning\s+of|what\s+is\s+meant\s+by)\s+"
    r"(?:the\s+(?:term\s+|concept\s+|word\s+)?)?[\"'\u2018\u201c]?(?P<term>[^?\"'\u2019\u201d]+?)"
    r"[\"'\u2019\u201d]?\s*(?:\b(?:in|as|within|according)\b[^?]*)?\??\s*$",
    re.I,
)
_QUESTION = re.compile(r"^(?:how|what)\b", re.I)
_INSTRUCTION = re.compile(r"\bdefine\s[^?]*\bas\b", re.I)
_SAYS_WHAT = r"\s+(?:is|are|refers?\s+to|means|describes|denotes|states)\s+"


def asked_term(question: str) -> str | None:
    """The term ``question`` asks to be defined ("the law of good gestalt" -> "law of good
    gestalt"), or None."""
    q = normalize(question).strip()
    if not _QUESTION.match(q) or _INSTRUCTION.search(q):
        return None  # "..., what is X? Define X as ...": the question gives its definition
    m = _ASKED.search(q)
    if m is None:
        return None
    term = " ".join(m.group("term").split()).strip(" .,:;")
    return term if 1 <= len(term.split()) <= 8 else None


def definition_answer(question: str, hits: Sequence[Hit]) -> tuple[str, int] | None:
    """(the definition a retrieved excerpt gives the asked term, 1-based hit), or None."""
    term = asked_term(question)
    if term is None:
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
