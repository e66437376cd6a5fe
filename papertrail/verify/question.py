"""Whether a claim with figures is stated for what the question asked.

The judge asks whether an excerpt states a claim; a claim offered as the
answer to a question also carries what the question asked about. "The big
Transformer achieves a BLEU score of 41.0" is stated by an excerpt (for
English-to-French), but it does not answer a question about English-to-German;
"28.4" is in an excerpt, but stated for translation, not for parsing.
``on_question`` turns such a verdict round for claims with figures (words
alone are judged by meaning already). It only uses the judge's public
``coverage``; it does not judge a claim itself.
"""

from __future__ import annotations

import re
from dataclasses import replace

from papertrail.text.coverage import coverage
from papertrail.text.figures import claim_figures, excerpt_numbers, figure_in
from papertrail.text.words import content_words
from papertrail.verify.evidence import row_with_header, units
from papertrail.verify.judge import Judgement

ON_QUESTION = 0.5  # share of a question part's words the sentence holding a figure must hold
_PARTS = re.compile(
    r"\s*(?:\band\b|;|:|\?|\.(?!\d)|,\s*(?=how|what|which|who|when|where|why)\b)\s*", re.I
)


def on_question(claim: str, question: str, v: Judgement, text: str, context: str = "") -> Judgement:
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
    parts = [p for p in _PARTS.split(question) if content_words(p)] or [question]
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
