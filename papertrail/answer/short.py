"""The shortest piece of a quoted sentence that still answers: its clause, or the name asked.

A sentence quoted as an answer often joins the statement that answers to others
("Gestalt psychology was conceived in the Berlin School of Experimental
Psychology, and tries to understand the laws of ..."). ``answering_clause``
keeps the clause that holds the question's words and something the question
does not say (the answer), when that clause reads on its own; ``named_answer``
gives only the name when a "which method / who ..." question is answered by the
name that opens such a clause ("Furthermore, PKG introduces an innovative method
for integrating knowledge into white-box models" -> "PKG"); ``answer_tail``
what a clause says after restating the question ("Gestalt psychology was
conceived | in the Berlin School of Experimental Psychology"). ``asks_one``
tells a question that asks one thing from one asking for a list. All return
verbatim pieces of the sentence, so a quote stays a quote for the verifier.
They do not paraphrase, join clauses of different sentences, or judge which
sentence answers (``extractive`` does).
"""

from __future__ import annotations

import re

from papertrail.text.ask import as_ask
from papertrail.text.coverage import coverage
from papertrail.text.figures import claim_figures, excerpt_numbers
from papertrail.text.words import STOPWORDS, content_words, rarity, stem
from papertrail.types import Ask

COMMON_RARITY = 2.5  # words.rarity below this: an everyday word ("each" 1.4), not a name
MIN_WORDS = 4  # a shorter clause is a fragment, not a statement
KEEP_COVERAGE = 0.9  # the clause must keep this share of the sentence's match to the question
# Where a sentence joins two statements: "; ", ", and ", ", which ", ", while ", " - "
_JOIN = re.compile(
    r";\s+|,\s+(?=(?:and|but|while|whereas|which|although|so|thus|as well as)\s)"
    r"|\s+[\u2013\u2014-]\s+"
)
# An opening connective that only links to the sentence before
_OPENER = re.compile(
    r"^(?:furthermore|moreover|in addition|additionally|also|besides|likewise|similarly),\s+",
    re.I,
)
DOC_MARKER = re.compile(r"\s*\[\d+(?:\s*[,\u2013-]\s*\d+)*\]")  # the document's own "[75]"
# A verb group between a restated question and its answer: "was conceived", "is", "has been"
# (lowercase: "Sweden" is no verb)
_VERBISH = re.compile(r"(?:is|are|was|were|be|been|being|has|have|had|[a-z]+ed|[a-z]+en)")
MAX_VERBS = 3  # "has been conceived"
_NEGATION = re.compile(r"\b(?:not|no|never|neither|nor|cannot|without)\b|n't\b", re.I)
MIN_RESTATED = 0.4  # the clause must hold this share of the question's words to restate it
MAX_HEAD = 6  # words before the restated question: a heading run in at most
MAX_TAIL_WORDS = 12  # a longer rest is a statement of its own, not the answer
# What a document calls its own parts: a name like "Table 3" is no answer to "which method"
_DOC_PARTS = frozenset("table figure fig section chapter page appendix eq equation".split())


def asks_one(question: Ask | str) -> bool:
    """Whether ``question`` asks for one thing, not a list (``Ask.one``)."""
    return as_ask(question).one


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
    for k, m in enumerate(cuts):
        end = cuts[k + 1].start() if k + 1 < len(cuts) else len(sentence)
        if m.group().startswith(",") and len(sentence[m.end() : end].split()) <= MIN_WORDS:
            continue  # ", and Vicuna-13B": the last item of a list, not a clause
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
    return DOC_MARKER.sub("", body)


def named_answer(clause: str, question: Ask | str) -> str | None:
    """The name that opens ``clause`` when a which/who ``question`` asks for it, or None.

    "Which method integrates knowledge into white-box models?" is answered by
    the subject of "PKG introduces an innovative method for integrating knowledge
    into white-box models": a run of capitalised words or acronyms opening the
    clause, none of them the question's, followed by a lowercase word (its verb).
    A name elsewhere in the clause is the object of something the question may
    not ask about, so it is not taken alone. None too when the question asks for
    several ("which methods") or for a measure ("which temperature", "what BLEU
    score").
    """
    ask = as_ask(question)
    if not ask.name:  # not a which/who question for one name (a measure: a figure answers)
        return None
    asked = {stem(w) for w in re.findall(r"[^\W_]+", ask.body.lower())}
    words = re.findall(r"[^\W_][\w.&'-]*|\S", DOC_MARKER.sub(" ", clause).strip())
    run: list[str] = []
    for w in words:
        w = w.rstrip(".'")
        parts = re.findall(r"[^\W_]+", w.lower())
        acronym = sum(c.isupper() for c in w) >= 2
        proper = w[:1].isupper() and (acronym or run or not _common(w))
        if not proper or not parts or all(stem(p) in asked for p in parts):
            break
        run.append(w)
    after = words[len(run)] if len(run) < len(words) else ""
    if not run or not after[:1].islower() or run[0].lower() in _DOC_PARTS:
        return None
    if after in ("and", "or", "nor"):  # "BGM and PKG keep ...": which one is asked?
        return None
    return " ".join(run)


def answer_tail(clause: str, question: Ask | str) -> str | None:
    """What ``clause`` says after restating ``question``, or None.

    "Where was Gestalt psychology conceived?" and "Gestalt psychology was
    conceived in the Berlin School of Experimental Psychology": the shortest run
    of the clause holding all of the question's words it holds restates the
    question ("Gestalt psychology"); what follows, its verb group left off, is
    the answer ("in the Berlin School of Experimental Psychology"). None unless
    the question asks where, when, who, which or what for one thing, the
    restating run opens the clause (a heading run in before it aside) and adds
    at most one word of its own, not a name (else the answer may sit inside it: "we
    propose the Transformer, a model architecture", "we used the Adam optimizer"),
    and the rest is short, whole (no bracket cut open) and says something the
    question does not.
    """
    ask = as_ask(question)
    if not ask.tail:
        return None
    question = ask.body
    asked = {stem(w) for w in content_words(question)}
    spans = [(m.start(), m.end()) for m in re.finditer(r"[^\W_][\w.'-]*", clause)]
    full = coverage(question, clause)[0]
    if full < MIN_RESTATED or not spans:
        return None
    end = next(
        (j for j in range(len(spans)) if coverage(question, clause[: spans[j][1]])[0] >= full),
        len(spans) - 1,
    )
    start = max(
        i
        for i in range(end + 1)
        if coverage(question, clause[spans[i][0] : spans[end][1]])[0] >= full
    )
    window = clause[spans[start][0] : spans[end][1]]
    added = [w for w in content_words(window) if stem(w) not in asked]
    if len(added) > 1 or start > MAX_HEAD:
        return None  # the answer may be inside the run, or the clause is about more
    names = {w.lower() for w in re.findall(r"[^\W_][\w.'-]*", window)[1:] if w[:1].isupper()}
    if start and names & set(added):
        return None  # "We used the Adam optimizer with ...": the name asked for is inside
    if _states_number(clause[: spans[end][1]]):
        return None  # "It reaches 28.4 BLEU on German": the answer came with the question
    rest = spans[end + 1 :]
    verbs = 0
    while len(rest) > 1 and verbs < MAX_VERBS and _VERBISH.fullmatch(clause[slice(*rest[0])]):
        rest, verbs = rest[1:], verbs + 1  # "was conceived in ..." -> "in ..."
    begin = rest[0][0] if rest else len(clause)
    while begin > 0 and clause[begin - 1] in _SIGNS:
        begin -= 1  # the currency or sign belongs to the figure: "£1,577,000", "-3%"
    tail = clause[begin:].strip(" ,;:.") if rest else ""
    if re.match(r"(?:and|or|but|nor|while|whereas)\b", tail, re.I):
        return None  # "... and 41.0 BLEU on French": a second statement, not the answer
    if re.match(r"of\b", tail, re.I):
        return None  # "of Pdrop = 0.1" says nothing without the "rate" it belongs to
    if _NEGATION.search(clause[: rest[0][0] if rest else len(clause)]):
        return None  # "was not conceived in ...": the tail alone would drop the "not"
    if tail.count("(") != tail.count(")"):
        return None  # cut inside brackets: "(temperature 0.5), LLaMA-7B"
    new = [w for w in content_words(tail) if stem(w) not in asked]
    if not (new or _states_number(tail)) or len(tail.split()) > MAX_TAIL_WORDS:
        return None
    return tail


_SIGNS = "$€£¥₹-−+("  # written before a figure, not part of a word


def _common(word: str) -> bool:
    """An everyday word ("The", "This", "Each"), capitalised only as a sentence opens."""
    return word.lower() in STOPWORDS or rarity(word) < COMMON_RARITY
