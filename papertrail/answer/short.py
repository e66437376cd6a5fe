"""The shortest piece of a quoted sentence that still answers: its clause, or the name asked.

A sentence quoted as an answer often joins the statement that answers to others
("Gestalt psychology was conceived in the Berlin School of Experimental
Psychology, and tries to understand the laws of ..."). ``answering_clause``
keeps the clause that holds the question's words and something the question
does not say (the answer), when that clause reads on its own; ``named_answer``
gives only the name when a "which method / who ..." question is answered by the
one name such a clause adds ("Furthermore, PKG introduces an innovative method
for integrating knowledge into white-box models" -> "PKG"). Both return
verbatim pieces of the sentence, so a quote stays a quote for the verifier.
They do not paraphrase, join clauses of different sentences, or judge which
sentence answers (``extractive`` does).
"""

from __future__ import annotations

import re

from papertrail.text.coverage import coverage
from papertrail.text.figures import claim_figures, excerpt_numbers
from papertrail.text.words import content_words, stem

MIN_WORDS = 4  # a shorter clause is a fragment, not a statement
KEEP_COVERAGE = 0.9  # the clause must keep this share of the sentence's match to the question
# Where a sentence joins two statements: "; ", ", and ", ", which ", ", while ", " - "
_JOIN = re.compile(
    r";\s+|,\s+(?=(?:and|but|while|whereas|which|although|so|thus|as well as)\s)"
    r"|\s+[\u2013\u2014-]\s+"
)
# An opening connective that only links to the sentence before
_OPENER = re.compile(
    r"^(?:furthermore|moreover|in addition|additionally|also|besides|likewise|similarly)\s*,?\s+",
    re.I,
)
_CITE = re.compile(r"\s*\[\d+(?:\s*[,\u2013-]\s*\d+)*\]")  # the document's own "[75]"
# "Which method ...?", "Who ...?": a name answers it
_WHICH = re.compile(
    r"^(?:(?:according to|in|from|based on)\b[^,?]*,\s*)?"
    r"(?:who\b|(?:which|what) (?!(?:is|are|was|were|does|do|did|can)\b)(?P<noun>[a-z-]+))",
    re.I,
)
# What a figure answers, not a name: "which temperature", "what score"
_MEASURES = frozenset(
    "score number amount percentage percent rate ratio value year years date time temperature "
    "size price cost level age height width length weight speed duration share".split()
)
# What a document calls its own parts: a name like "Table 3" is no answer to "which method"
_DOC_PARTS = frozenset("table figure fig section chapter page appendix eq equation".split())


def answering_clause(sentence: str, question: str) -> str:
    """The clause of ``sentence`` that answers ``question``, or ``sentence`` itself when no
    single clause does (see the module docstring). The result ends without the joining
    punctuation; it keeps the sentence's final stop when it is the last clause."""
    cuts = list(_JOIN.finditer(sentence))
    if not cuts:
        return sentence
    pieces = _pieces(sentence, cuts)
    asked = {stem(w) for w in content_words(question)}
    whole = coverage(question, sentence)[0]
    best = None
    for i, (a, b) in enumerate(pieces):
        text = sentence[a:b].strip(" ,;")
        if len(text.split()) < MIN_WORDS or text[:1].islower() and i == 0:
            continue
        cov = coverage(question, text)[0]
        new = [w for w in content_words(text) if stem(w) not in asked]
        if cov < KEEP_COVERAGE * whole or not (new or _states_number(text)):
            continue
        key = (cov, -len(text))
        if best is None or key > best[0]:
            best = (key, text)
    if best is None:
        return sentence
    return best[1]


def _states_number(text: str) -> bool:
    """A figure, or a number written out ("two sub-layers"): an answer to "how many"."""
    return bool(claim_figures(text)) or any(n.spelled for n in excerpt_numbers(text))


def _pieces(sentence: str, cuts: list[re.Match]) -> list[tuple[int, int]]:
    """(start, end) of each clause: the first runs from the sentence's start, the others
    from their joining word ("and", "which") on; a clause opening with "which" or "and"
    does not read on its own, so only the first and clauses with their own subject count
    (``answering_clause`` skips lowercase openings of the first)."""
    out, start = [], 0
    for m in cuts:
        out.append((start, m.start()))
        start = m.end()
    out.append((start, len(sentence)))
    # later clauses stand alone only when they open with their own subject (a capital)
    return [(a, b) for k, (a, b) in enumerate(out) if k == 0 or sentence[a : a + 1].isupper()]


def without_opener(sentence: str) -> str:
    """``sentence`` without an opening "Furthermore," or "In addition," (capitalised
    again), and without the document's own reference brackets ("[75]")."""
    body = _OPENER.sub("", sentence, count=1)
    if body != sentence:
        body = body[:1].upper() + body[1:]
    return _CITE.sub("", body)


def named_answer(clause: str, question: str) -> str | None:
    """The one name ``clause`` gives that a which/who ``question`` does not, or None.

    A name is a run of capitalised words or acronyms, its first word after the
    clause's first word, or the first word itself when it is an acronym
    ("PKG introduces ..."). None when the clause gives no such name or several, and
    when the question asks for several ("which methods") or for a measure ("which
    temperature").
    """
    m = _WHICH.match(question.strip())
    noun = (m.group("noun") or "").lower() if m else ""
    plural = noun.endswith("s") and not noun.endswith(("ss", "us", "is"))
    if m is None or plural or noun in _MEASURES:  # several names, or a figure, answer it
        return None
    asked = {stem(w) for w in re.findall(r"[^\W_]+", question.lower())}
    text = _CITE.sub(" ", clause)
    words = list(re.finditer(r"[^\W_][\w.&'-]*", text))
    runs: list[list[str]] = []
    prev_end = -1
    for k, m in enumerate(words):
        w = m.group().rstrip(".'")
        acronym = sum(c.isupper() for c in w) >= 2
        capital = w[:1].isupper() and (k > 0 or acronym)
        if not capital or stem(w.lower()) in asked or any(c.isdigit() for c in w):
            prev_end = -1
            continue
        if runs and prev_end >= 0 and text[prev_end : m.start()].strip() == "":
            runs[-1].append(w)
        else:
            runs.append([w])
        prev_end = m.end()
    names = [" ".join(r) for r in runs if r[0].lower() not in _DOC_PARTS]
    return names[0] if len(names) == 1 else None
