"""Whether an answer states what the question asked, not only something an excerpt says.

The judge asks whether an excerpt states a claim; a claim offered as the
answer to a question also carries what the question asked about. "The big
Transformer achieves a BLEU score of 41.0" is stated by an excerpt (for
English-to-French), but it does not answer a question about English-to-German;
"28.4" is in an excerpt, but stated for translation, not for parsing.
``on_question`` turns such a verdict round for claims with figures (words
alone are judged by meaning already). It only uses the judge's public
``coverage``; it does not judge a claim itself.

``closest_if_off_question`` asks the same of a quote (the offline answers): the cited
excerpt's sentence, with the one before it and its heading, must hold what the question
asks about (``ON_QUESTION`` of the words of a part of it, and ``FOCUS`` of what it asks
beyond the document's own names: "the USB port" of a manual named for the coffee machine
asked about), a figure when it asks for a quantity, and the year it names; a quote never
answers yes or no. The quote itself must hold some of the question's words: page
furniture ("THE CONTOSO COMPANY AND SUBSIDIARIES") or a line under a press release's
headline is tied to the question only by the heading, the document's name or the
sentence before it, and states nothing asked. A quote that speaks only of a full year
when the question asks about a quarter (or the other way round) is for another period.
An answer none of whose citations does is no answer: it becomes the refusal, its quotes
shown as the closest passages, which may not answer. The question is the ``Ask`` read
once (``text.ask``); nothing here reads its text again.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace

from papertrail.settings import REFUSAL
from papertrail.text.ask import MEASURES, as_ask
from papertrail.text.coverage import coverage
from papertrail.text.figures import claim_figures, excerpt_numbers, figure_in, states_amount
from papertrail.text.periods import named, without_dates
from papertrail.text.stated import lacks
from papertrail.text.words import content_words, found, word_keys
from papertrail.types import Ask, Citation
from papertrail.verify.evidence import row_with_header, units
from papertrail.verify.judge import Judgement
from papertrail.verify.periods import kind_conflict

ON_QUESTION = 0.5  # share of a question part's words the sentence holding a figure must hold
FOCUS = 0.25  # ... and of its words beyond the document's own names, the quote and its neighbours
MAY_NOT_ANSWER = "Closest passage (may not answer)"
_ASIDE = re.compile(r"\([^()]*\)")
_FRAME = re.compile(r"\bhow\s+(?:many|much)\b", re.I)  # the question's frame, not its subject
_MEASURE = re.compile(rf"\b(?:{'|'.join(sorted(MEASURES))})\b", re.I)
# the document itself and what it does with words: "What does the document say?" names
# nothing a sentence of it would repeat
_ABOUT_ITSELF = re.compile(
    r"\b(?:document|report|paper|file|pdf|text|says?|said|states?|mentions?|describes?)\b", re.I
)


def on_question(
    claim: str, question: Ask | str, v: Judgement, text: str, context: str = ""
) -> Judgement:
    """A supported claim with figures, offered as the answer to ``question``, must be
    stated for what the question asks: for each figure, some sentence or table row of
    the excerpt (``text``) holding it (with its column headings and the sentence
    before it) must also hold
    ``ON_QUESTION`` of the words of some part of the question ("... and how long did
    it take?" has two parts) and every name the question gives that the claim leaves
    out and the excerpt uses ("German"; periods such as "FY2017" are the judge's).
    "BLEU 41.0", stated for English-to-French, does not answer a question about
    English-to-German."""
    figures = claim_figures(claim)
    if not (question and v.supported and figures):
        return v
    parts = [q.body for q in as_ask(question).questions]
    names = [
        w
        for p in parts
        for w in re.findall(r"[^\W_]+", p)[1:]  # a part's first word is capitalised anyway
        if w[:1].isupper() and not any(c.isdigit() for c in w)
    ]
    # a name the claim leaves out tells one statement from another only where the excerpt
    # uses it ("German" beside "French"); a document may call "JnJ" something else
    implicit = [
        w
        for w in dict.fromkeys(names)
        if coverage(w, claim)[0] < 1.0 and coverage(w, text, context)[0] == 1.0
    ]
    rows = [(a, b) for a, b, _ in units(text)]
    for fig in figures:
        holders = [i for i, (a, b) in enumerate(rows) if figure_in(fig, excerpt_numbers(text[a:b]))]
        lacking: list[str] = []
        for i in holders:
            # with the sentence before it, which often names what a paragraph is about
            held = " ".join(text[x:y] for x, y in row_with_header(text, *rows[i]))
            held = (text[slice(*rows[i - 1])] + " " if i else "") + held
            shares = [coverage(p, held, context) for p in parts]
            share, lack = max(shares, key=lambda s: s[0])
            lack += [w for w in implicit if coverage(w, held, context)[0] < 1.0 and w not in lack]
            if share >= ON_QUESTION and not any(w in lack for w in implicit):
                break
            lacking = lacking or lack
        else:
            if holders:  # a figure the excerpt states nowhere is the judge's to veto
                missing = ", ".join(lacking[:3])
                why = (
                    f"the excerpt states {fig.text} for something else than asked (lacks {missing})"
                )
                return replace(v, supported=False, reason=why)
    return v


def off_question(ask: Ask, c: Citation, about: str = "") -> str | None:
    """Why the cited sentence ``c`` does not state what ``ask`` asks, or None when it does:
    its excerpt's supporting sentence (with the one before it and the heading above) must
    hold ``ON_QUESTION`` of the words of some part of the question, and ``FOCUS`` of its
    words beyond the document's own names, a figure when a quantity is asked, and a year
    the question names; the sentence quoted (or a short answer taken from) must hold at
    least one of the question's words, and speak of no other length of period than the
    question (a full year when a quarter is asked: ``kind_conflict``).
    ``about`` is what the cited document says it is (its title, issuer, short names):
    context, like its file name."""
    if c.chunk is None:
        return "it cites no excerpt"
    if ask.kind == "yes-no":  # a quote shows the evidence; it cannot say yes or no
        return "a quoted sentence does not say yes or no"
    text = c.chunk.text
    said = c.evidence.text if c.evidence else c.sentence
    at = text.find(said)
    spans = [(a, b) for a, b, _ in units(text)]
    i = next((k for k, (a, b) in enumerate(spans) if a <= at < b), None) if at >= 0 else None
    before = text[slice(*spans[i - 1])] if i else ""  # it often names what a paragraph is about
    held = f"{before} {said} {c.sentence}"
    context = f"{c.chunk.doc_name.rsplit('.', 1)[0]} {c.chunk.section} {about}"
    context += " " + " ".join(_abbreviated(ask.asking, f"{held} {context}"))
    # a figure is the "amount", "number" or "rate" asked: those words need not be said
    framed = (lambda t: _MEASURE.sub(" ", t)) if states_amount(c.sentence) else str
    shares = [coverage(framed(_core(q.asking)), held, context) for q in ask.questions]
    share, lack = max(shares, key=lambda s: s[0])
    if share < ON_QUESTION:
        return f"it does not say what was asked (lacks {', '.join(lack[:3])})"
    # the document's own names are in every one of its passages: what the question asks
    # beyond them ("the USB port" of "the Acme 900 coffee machine") must be held too,
    # apart from words about the document itself ("What does the document say?")
    own = [_ABOUT_ITSELF.sub(" ", framed(_core(q.asking))) for q in ask.questions]
    names = word_keys(f"{c.chunk.doc_name.rsplit('.', 1)[0]} {_capitalised(about)}")
    rest = [_beyond(q, names) for q in own]
    focused = [coverage(r, held, c.chunk.section) for r in rest if content_words(r)]
    if focused and max(s for s, _ in focused) < FOCUS:
        lack = max(focused, key=lambda s: s[0])[1]
        return f"it does not say what was asked of this document (lacks {', '.join(lack[:3])})"
    # the sentence quoted, or the one a short answer is taken from (a name or a figure
    # need not repeat the question: "Who chairs the board?" - "Mary Smith")
    shown = said
    if not any(coverage(q, shown)[0] > 0 for q in own):  # (no words of its own: 1.0)
        return "it holds none of the question's words: only its heading or neighbours do"
    if (lacking := lacks(ask, c.sentence)) is not None:  # the kind of thing asked
        return lacking
    years = set(ask.years)
    if years and not years & named(f"{held} {context}").get("year", frozenset()):
        return f"it does not say it is for {', '.join(map(str, sorted(years)))}"
    # a quarter asked, the quote only of a full year (or the other way round)
    if (other := kind_conflict(ask.asking, c.sentence)) is not None:
        return f"it is for another length of period: {other}"
    return None


def _capitalised(about: str) -> str:
    """The words of what a document says it is that are names: capitalised, or codes with
    digits. A document without a title is "titled" by its first line, a sentence whose
    other words are no name of it ("The harbour authority dredged the basin ...")."""
    return " ".join(
        w for w in re.findall(r"[^\W_][\w&'-]*", about) if w[0].isupper() or w[0].isdigit()
    )


def _beyond(asking: str, names: set[str]) -> str:
    """``asking`` without its figures and the words the document's own names hold
    (``names``: word keys); a year asked is checked apart."""
    words = re.findall(r"[^\W_]+", asking)
    return " ".join(w for w in words if not found(w.lower(), names) and not w[:1].isdigit())


def _core(asking: str) -> str:
    """What a question asks about, without its asides ("(formerly ...)"), the dates it
    names ("as of August 30, 2023") and its "how many": the year is checked apart, an
    aside only says which thing is meant in other words, and a count is ``stated``'s."""
    core = _FRAME.sub("how", without_dates(_ASIDE.sub(" ", asking)))
    return " ".join(core.split()) or asking


def _abbreviated(asking: str, text: str) -> list[str]:
    """The question's abbreviations whose capitals are the initials of consecutive
    capitalised words of ``text`` ("JnJ", "J&J" for "Johnson & Johnson", "GE" for
    "General Electric"): the long form says them."""
    initials = "".join(w[0].lower() for w in re.findall(r"\b[A-Z][\w'-]*", text))
    out = []
    for w in re.findall(r"\b[A-Za-z&]*[A-Z][A-Za-z&]*[A-Z][A-Za-z&]*\b", asking):
        caps = "".join(ch.lower() for ch in w if ch.isupper())
        if 2 <= len(caps) <= 5 and len(w) <= 6 and caps in initials:
            out.append(w)
    return out


def closest_if_off_question(ask: Ask, checked, about: Mapping[str, str] | None = None):
    """(``checked``, notes): as it is when one of its citations states what ``ask`` asks
    (``off_question``); else the refusal, its citations dropped with the reason, and
    notes that show each quote (those ``on_question`` dropped too) as the closest
    passage, which may not answer. ``about``: per document id, what it says it is."""
    about = about or {}
    why = [
        off_question(ask, c, about.get(c.chunk.doc_id, "") if c.chunk else "")
        for c in checked.citations
    ]
    if any(w is None for w in why):
        return checked, ()
    shown = [c for c in (*checked.citations, *checked.dropped) if c.chunk is not None]
    if not shown:
        return checked, ()
    notes = tuple(
        f'{MAY_NOT_ANSWER} ({c.chunk.doc_name}, page {c.chunk.page}): "{c.sentence}"'
        for c in dict.fromkeys(shown)
    )
    off = tuple(
        replace(c, supported=False, reason=f"it may not answer: {w}")
        for c, w in zip(checked.citations, why, strict=True)
    )
    moved = replace(
        checked, text=REFUSAL, citations=(), dropped=checked.dropped + off, refusal=True,
        grounded=True, unsupported=(),
    )  # fmt: skip
    return moved, notes
