"""Whether a sentence of an answer says the documents do not answer the question.

Models word a refusal in many ways besides the sentence the prompt asks for:
"The excerpts do not contain the answer", "The document contains no
information about X", "X is not mentioned in the provided documents", "I
cannot find this in the passages". ``is_refusal`` recognises the meaning —
the sources (excerpts, documents, context, ...) are said not to contain,
mention, provide or answer something, or the writer says they could not find
it — by general patterns, not by one sentence. Whether a whole answer is a
refusal (no sentence of it kept a citation) is decided in ``verify``.
Nothing here judges a claim against an excerpt.
"""

from __future__ import annotations

import re

from papertrail.settings import REFUSAL
from papertrail.text.words import tokens

# What an answer calls its sources.
_SOURCE = (
    r"(?:excerpts?|documents?|passages?|context|sources?|texts?|information|materials?|"
    r"data|pdfs?|files?|quotes?|extracts?|sections?|snippets?|pages?|paper|report)"
)
_SUBJECT = (
    rf"\b(?:the|these|this|those|provided|given|above|available|quoted)\s+"
    rf"(?:\w+\s+){{0,2}}?{_SOURCE}\b"
)
_NOT = (
    r"(?:do|does|did|can|could|would|will)\s*(?:not|n't)|cannot|fails? to|never|neither|"
    r"(?:is|are|was|were)\s*(?:not|n't)"
)
# What a source may be said not to do with the answer.
_VERB = (
    r"(?:contain|mention|provide|include|state|say|specify|answer|give|offer|address|discuss|"
    r"cover|describe|explain|list|indicate|reveal|tell|show|have|support|disclose|refer|detail|"
    r"spell|report|define|clarify|identify|name)"
)
_NOTHING = r"(?:no|not any|nothing|little)\s+(?:\w+\s+){0,2}?"
_ABOUT = (
    r"(?:information|answer|mention|details?|data|reference|indication|explanation|evidence|"
    r"statement|figures?|numbers?|specifics?)"
)
_DONE = (
    r"(?:mentioned|stated|specified|provided|given|found|included|available|discussed|"
    r"described|addressed|answered|covered|listed|reported|disclosed|explained|present|"
    r"defined|identified|determined)"
)
_PATTERNS = [
    # "The excerpts do not contain the answer", "the provided documents don't mention it"
    rf"{_SUBJECT}\s+(?:\w+\s+)?(?:{_NOT})\s+(?:\w+\s+)?{_VERB}",
    # "The document contains no information about ...", "the excerpts provide no answer"
    rf"{_SUBJECT}\s+(?:\w+\s+)?(?:contains?|has|have|provides?|includes?|gives?|offers?|"
    rf"mentions?|says?|states?|holds?)\b[^.]*?\b{_NOTHING}{_ABOUT}",
    # "... but no answer to the question", "no information about X is given"
    r"\bno\s+(?:direct\s+|clear\s+|specific\s+|explicit\s+|relevant\s+)?"
    r"(?:answer|information|mention|details?|indication)\s+(?:to|about|on|regarding|of|for|"
    r"concerning|as to|is|are|was|were|can|could)\b",
    # "X is not mentioned in the excerpts", "isn't stated in the provided documents"
    rf"\b(?:is|are|was|were|be|been)\s*(?:not|n't)\s+(?:\w+\s+)?{_DONE}\b[^.]*?\b"
    rf"(?:in|by|from|within|among|based on|according to)\s+{_SUBJECT}",
    # "None of the excerpts mention it"
    rf"\b(?:none|neither)\s+of\s+{_SUBJECT}\s+(?:\w+\s+)?{_VERB}",
    # "there is no information about X", "there is no mention of X"
    rf"\bthere\s+(?:is|are|was|were)\s+(?:no|not any)\s+(?:\w+\s+)?{_ABOUT}\b",
    # "I could not find ...", "I cannot answer this question", "I am unable to determine"
    r"\bI\s+(?:(?:do|did|can|could)\s*(?:not|n't)|cannot|am\s+(?:not\s+)?(?:unable|not able)\s+to"
    r"|was\s+(?:unable|not able)\s+to|have\s+no)\s+(?:\w+\s+)?"
    r"(?:find|determine|answer|locate|see|tell|know|say|identify|information)",
    # "The answer cannot be found/determined from the excerpts"
    rf"\b(?:cannot|can't|can\s+not|could\s*(?:not|n't))\s+be\s+(?:\w+\s+)?{_DONE}\b",
    r"\b(?:not|n't)\s+(?:possible|able)\s+to\s+(?:answer|determine|tell|say)\b",
]
_REFUSAL = re.compile("|".join(f"(?:{p})" for p in _PATTERNS), re.IGNORECASE)


def opens_with_refusal(text: str, refusal: str = REFUSAL) -> bool:
    """True when ``text`` starts with the refusal sentence (case and spacing aside)."""
    want = tokens(refusal)
    return bool(want) and tokens(text)[: len(want)] == want


def is_refusal(text: str, refusal: str = REFUSAL) -> bool:
    """True when ``text`` says the sources do not answer: the refusal sentence at its
    start, or any wording that means it (see the module docstring)."""
    return opens_with_refusal(text, refusal) or bool(_REFUSAL.search(text.replace("’", "'")))
