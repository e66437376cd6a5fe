"""An answer's claims: its sentences, its ``[n]`` marker groups, and what each group cites.

``split_claims`` cuts an answer into sentences and ties every marker group to
the text its excerpts must support (its sentence, or the part of it since the
previous group); ``parse_markers`` reads one group and ``strip_copied``
takes out the brackets a model copied from a document ("such as [38, 2, 9]",
"Adam [20]"), which are no markers; ``is_claim`` tells an assertion from framing ("Here
is what I found:") and from a refusal (``refusals``); ``answer_part`` drops
the words that only restate the question ("the email address in this
document is ..."); ``clauses`` cuts a claim into the parts an excerpt must each
state. Nothing here judges a claim.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from papertrail.text.figures import claim_figures
from papertrail.text.sentences import sentence_spans, strip_markers
from papertrail.text.words import content_words
from papertrail.verify.refusals import is_refusal

__all__ = [
    "MarkerGroup",
    "answer_part",
    "Copied",
    "document_brackets",
    "is_claim",
    "is_refusal",
    "sentence_bounds",
    "split_claims",
    "strip_copied",
]

_GROUP = re.compile(r"(?:\s*\[\s*\d+(?:\s*[-\u2013,;]\s*\d+)*\s*\])+")
_ONE = re.compile(r"\[([^\]]*)\]")
# Nouns a claim uses to point at the document itself ("in this document", "the
# presenter of this slide"): a reader checks the answer, not these words.
_DOC_NOUNS = (
    "document|paper|report|slide|slides|page|pages|file|pdf|figure|table|section|chapter|"
    "manual|guide|guidebook|brochure|presentation|article|study|text|image|picture|chart|"
    "letter|deck|diagram|appendix|excerpt|passage"
)
_DEICTIC = re.compile(
    rf"\b(?:(?:in|on|of|from|by|according to|within)\s+)?(?:this|these|the)\s+(?:{_DOC_NOUNS})\b"
    r"(?:'s)?",
    re.I,
)
# "X is Y": the answer-bearing part of a question restated as a claim is after the verb.
_COPULA = re.compile(r"\s(?:is|are|was|were|equals|:)\s", re.I)


@dataclass(frozen=True)
class MarkerGroup:
    start: int  # offsets of the marker group in the answer, leading space included
    end: int
    markers: tuple[int, ...]  # as written, ranges expanded, duplicates removed
    sentence: int  # index of the sentence it belongs to
    claim: int  # index of the text its excerpts must support (the sentence or its part)


def parse_markers(group: str) -> tuple[int, ...]:
    """Numbers in ``[1][2]``, ``[1, 2]``, ``[1-3]`` (a range of at most 20), in order."""
    out: list[int] = []
    for inner in _ONE.findall(group):
        for part in re.split(r"[,;]", inner):
            ends = [int(x) for x in re.findall(r"\d+", part)]
            if len(ends) == 2 and abs(ends[1] - ends[0]) <= 20:
                lo, hi = sorted(ends)
                ends = list(range(lo, hi + 1))
            out += [n for n in ends if n not in out]
    return tuple(out)


_BRACKET = re.compile(r"\[\s*\d+(?:\s*[-\u2013,;]\s*\d+)*\s*\]")


def _key(bracket: str) -> str:
    return re.sub(r"\s+", "", bracket)


def document_brackets(texts: list[str]) -> set[tuple[str, str]]:
    """(word before, bracket) of every bracketed number in ``texts``: a document's own
    references ("Adam [20]", "such as [38, 2, 9]"), whitespace inside removed."""
    out = set()
    for text in texts:
        for m in _BRACKET.finditer(text):
            before = re.findall(r"[^\W_]+", text[max(0, m.start() - 40) : m.start()])
            out.add(((before[-1].lower() if before else ""), _key(m.group())))
    return out


@dataclass(frozen=True)
class Copied:
    """A bracket the model copied from a document, taken out of the answer."""

    at: int  # offset in the answer without it, where it stood
    numbers: tuple[int, ...]
    outside: bool  # a number in it points at no excerpt (else: an excerpt has it)


def strip_copied(answer: str, count: int, documents: set[tuple[str, str]]):
    """(answer without copied brackets, what was taken out).

    A bracket is copied from a document, not a citation, when a number in it
    points at no excerpt (1..``count``: "[20]", "[38, 2, 9]") or an excerpt has
    the same bracket after the same word (``document_brackets``). It is cut
    with the space before it ("Adam [20] with" -> "Adam with").
    """
    cuts = []
    for m in _GROUP.finditer(answer):
        words = re.findall(r"[^\W_]+", answer[max(0, m.start() - 40) : m.start()])
        before = words[-1].lower() if words else ""
        for one in _ONE.finditer(answer, m.start(), m.end()):
            numbers = parse_markers(one.group())
            outside = any(not 1 <= n <= count for n in numbers)
            if numbers and (outside or (before, _key(one.group())) in documents):
                a, b = one.start(), one.end()
                if a and answer[a - 1] == " " and (b == len(answer) or answer[b] in " .,;:!?)"):
                    a -= 1
                cuts.append((a, b, numbers, outside))
    pieces, pos, found = [], 0, []
    for a, b, numbers, outside in cuts:
        pieces.append(answer[pos:a])
        found.append(Copied(sum(map(len, pieces)), numbers, outside))
        pos = b
    return "".join(pieces) + answer[pos:], tuple(found)


def says_something(text: str) -> bool:
    """A figure or three content words: enough to be judged on its own."""
    return bool(claim_figures(text)) or len(content_words(text)) >= 3


def is_claim(sentence: str, *, short: bool = False) -> bool:
    """Whether an unmarked sentence asserts something ("Here is what I found:" does not).

    With ``short``, any content word will do: an answer that is only a phrase
    ("Residual Dropout") answers the question with it."""
    if sentence.rstrip().endswith(":") or is_refusal(sentence):
        return False
    return bool(content_words(sentence)) if short else says_something(sentence)


def answer_part(claim: str) -> tuple[str, str]:
    """(framing, answer) of a claim that restates a question with its answer.

    "The presenter of this slide is Ann Lee": a claim that points at the
    document ("of this slide") restates a question; that pointer is dropped,
    and what follows the first "is" / "are" / "was" / "were" / ":" is the
    answer ("Ann Lee"), the rest its framing. Any other claim is all answer:
    ("", claim).
    """
    claim = strip_markers(claim)
    text = re.sub(r"\s+", " ", _DEICTIC.sub(" ", claim)).strip()
    m = _COPULA.search(text)
    if text == claim.strip() or m is None:
        return "", claim.strip()  # no pointer at the document: not a restated question
    if not (content_words(text[m.end() :]) or claim_figures(text[m.end() :])):
        return "", text
    return text[: m.start()].strip(), text[m.end() :].strip()


# ... and the object of "has": "Lebour has an M.A. degree"
_LINK = re.compile(r"\s(?:is|are|was|were|equals|has|have|had|:)\s", re.I)


def predicate(claim: str) -> str:
    """What a claim says after its first "is" / "are" / "was" / "were" / "has" / "have" /
    "had" / ":" ("" if none): the part that carries its answer."""
    m = _LINK.search(strip_markers(claim))
    return strip_markers(claim)[m.end() :].strip() if m else ""


def _masked(text: str) -> tuple[list[re.Match], str]:
    """The marker groups of ``text`` and ``text`` with each blanked (same length)."""
    found = list(_GROUP.finditer(text))
    masked = list(text)
    for m in found:
        masked[m.start() : m.end()] = " " * (m.end() - m.start())
    return found, "".join(masked)


def sentence_bounds(text: str) -> list[tuple[int, int]]:
    """(start, end) in ``text`` of each sentence ``split_claims`` returns, in order."""
    return sentence_spans(_masked(text)[1])


def split_claims(text: str) -> tuple[list[str], list[str], list[MarkerGroup]]:
    """Sentences, claims (markers removed) and marker groups, each tied to one claim.

    Markers are blanked before splitting, so "layers.[1] Next" splits too; a
    group between two sentences ("... layers. [1] Next") belongs to the one before.
    The claim of a group is its sentence, or, when the sentence carries several
    groups ("6 layers [1] and 8 heads [2]."), the part since the previous group,
    if that part says something on its own.
    """
    found, masked_text = _masked(text)
    spans = sentence_spans(masked_text)
    sentences = [strip_markers(masked_text[a:b]).strip() for a, b in spans]
    owner = []
    for m in found:
        idx = next((i for i, (a, b) in enumerate(spans) if a <= m.start() < b), None)
        if idx is None:  # in the gap after a sentence: it cites that sentence
            before = [i for i, (_, b) in enumerate(spans) if b <= m.start()]
            idx = before[-1] if before else 0
        owner.append(idx)
    claims = list(sentences)
    groups = []
    for k, m in enumerate(found):
        claim = owner[k]
        inside = [j for j in range(len(found)) if owner[j] == owner[k]]
        if len(inside) > 1 and spans:
            first = inside.index(k) == 0
            a = spans[owner[k]][0] if first else found[inside[inside.index(k) - 1]].end()
            part = strip_markers(masked_text[a : m.start()]).strip(" ,;:")
            if says_something(part):
                claims.append(part)
                claim = len(claims) - 1
        groups.append(MarkerGroup(m.start(), m.end(), parse_markers(m.group()), owner[k], claim))
    return sentences, claims, groups


# Where a sentence joins two statements: "; ", ", and ", ", while ", ", which ", ". "
_JOIN = re.compile(
    r";\s|,\s+(?:and|but|while|whereas|which|although|so)\s|\s(?:while|whereas|although)\s"
    r"|(?<=[a-z])\.\s+(?=[A-Z])"
)


def clauses(claim: str, min_words: int = 3) -> list[str]:
    """The statements a claim joins, each with ``min_words`` content words or a figure;
    one part when it joins none ("A, and B" -> ["A", "B"])."""
    parts = [p.strip(" ,.") for p in _JOIN.split(strip_markers(claim))]
    kept = [p for p in parts if len(content_words(p)) >= min_words or claim_figures(p)]
    return kept or [strip_markers(claim).strip()]
