"""A follow-up question in a thread, made to stand on its own for retrieval.

"And the decoder?" after "How many identical layers are in the encoder
stack?" searches badly on its own words. Offline, ``standalone`` rewrites an
elliptical follow-up against the previous question: the follow-up's focus
replaces the previous question's word it most resembles (same kind: a year
for a year, a name for a name, or shared letter trigrams: "decoder" for
"encoder"; "English-to-French" for "English-to-German" in "And on
English-to-French?"), or, when nothing resembles it, is appended ("And in
the big model?" -> "... in the big model?"). A question that already stands alone is
left as it is. With an LLM, ``condense`` asks it for the standalone question
and falls back to the offline rewrite on any failure. Which thread a message
belongs to, and keeping the questions, is the chat service's job.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence

from papertrail.text.words import STOPWORDS

log = logging.getLogger(__name__)

Complete = Callable[[list[dict[str, str]]], str]  # chat messages -> the model's text

# Openers of an elliptical follow-up ("And the decoder?", "What about 2018?").
_OPENER = re.compile(
    r"^\s*(?:(?:and|but|or|also|so)\s+)?(?:what|how)\s+about\s+|^\s*(?:and|but|or|also)\s+|"
    r"^\s*same\s+(?:for|with)\s+",
    re.I,
)
_REFERS_BACK = re.compile(r"\b(?:it|its|they|them|their|that|this|those|these|there)\b", re.I)
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9.\-]*[A-Za-z0-9]|[A-Za-z0-9]")
_ARTICLE = re.compile(r"^(?:the|a|an)\s+", re.I)
_PREPOSITION = re.compile(r"^(?:in|for|at|on|with|during|from|by|of|after|before|under)\b", re.I)
MAX_ELLIPTICAL_WORDS = 4  # content words; longer follow-ups carry their own subject
MIN_RESEMBLANCE = 0.3  # trigram overlap below this is chance ("decoder"/"encoder": 0.43)

CONDENSE_PROMPT = (
    "Rewrite the user's last message as one standalone question that keeps every "
    "detail needed from the earlier questions. Reply with the question only."
)


def _content(text: str) -> list[re.Match]:
    return [m for m in _WORD.finditer(text) if m[0].lower() not in STOPWORDS]


_THANKS = re.compile(
    r"^\W*(?:thanks?|thank\s+you|thx|ty|ok(?:ay)?|great|cool|nice|perfect|got\s+it|"
    r"makes\s+sense|awesome|lol|yes|no|yep|nope)\b[\W\s]*(?:a\s+lot|so\s+much|again)?\W*$",
    re.I,
)


def wants_answer(message: str, *, with_files: bool = False) -> bool:
    """False for a reply that only acknowledges ("thanks!", "ok 👍"): in a thread the
    bot follows without mentions, those must not be answered as questions. A reply
    that carries files is a share ("here is the other report") unless it asks ("?")."""
    if with_files and "?" not in message:
        return False
    return bool(_WORD.search(message)) and not _THANKS.match(message)


def elliptical(followup: str) -> bool:
    """True when ``followup`` leans on the question before it."""
    words = _content(followup)
    if _OPENER.match(followup) and len(words) <= MAX_ELLIPTICAL_WORDS:
        return True
    return len(words) <= MAX_ELLIPTICAL_WORDS and bool(_REFERS_BACK.search(followup))


def standalone(previous: Sequence[str], followup: str) -> str:
    """``followup`` rewritten against the latest of ``previous`` (oldest first), offline."""
    followup = " ".join(followup.split())
    if not previous or not elliptical(followup):
        return followup
    prev = " ".join(previous[-1].split()).rstrip(" ?")
    focus = _OPENER.sub("", followup).strip(" ?.!")
    if not _OPENER.match(followup) or not focus:  # "What is its dimension?": add the context
        return f"{followup.rstrip(' ?')} ({prev})?"
    if _PREPOSITION.match(focus):  # "And on English-to-French?": the phrase it stands for
        rest = _ARTICLE.sub("", _PREPOSITION.sub("", focus, count=1).strip())
        target = _most_like(prev, rest) if rest else None
        if target is None:
            return f"{prev} {focus}?"
        return f"{prev[: target[0]]}{rest}{prev[target[1] :]}?"
    focus = _ARTICLE.sub("", focus)
    target = _most_like(prev, focus)
    if target is None:
        return f"{prev}, {focus}?"
    start, end = target
    return f"{prev[:start]}{focus}{prev[end:]}?"


def _most_like(prev: str, focus: str) -> tuple[int, int] | None:
    """The span of ``prev`` that ``focus`` stands in for, or None."""
    focus_words = _content(focus)
    if not focus_words:
        return None
    head = focus_words[-1][0]  # in English the last word of a noun phrase is its head
    best, best_score = None, 0.0
    words = _content(prev)
    for i, m in enumerate(words):
        score = _resemblance(head, m[0], first=m.start() == 0)
        if score > best_score:
            best, best_score = i, score
    if best is None or best_score < MIN_RESEMBLANCE:
        return None
    # "the big model" for "the base model": replace as many words as the focus has
    first = max(0, best - len(focus_words) + 1)
    start = words[first].start()
    return start, words[best].end()  # a possessive 's stays: "Amazon's" -> "Apple's"


def _resemblance(a: str, b: str, *, first: bool) -> float:
    if a.lower() == b.lower():
        return 1.0
    if a.isdigit() and b.isdigit():
        return 0.9 if len(a) == len(b) else 0.5  # 2018 for 2017
    ta, tb = _trigrams(a.lower()), _trigrams(b.lower())
    shared = len(ta & tb) / len(ta | tb) if ta and tb else 0.0
    if a[:1].isupper() and b[:1].isupper() and not first:  # a name for a name, the likest
        return 0.6 + 0.4 * shared  # first: "English-to-French" for "English-to-German"
    return shared


def _trigrams(word: str) -> set[str]:
    return {word[i : i + 3] for i in range(len(word) - 2)}


def condense(complete: Complete | None, previous: Sequence[str], followup: str) -> str:
    """The standalone question, asked of an LLM when ``complete`` is given."""
    offline = standalone(previous, followup)
    if complete is None or not previous:
        return offline
    history = "\n".join(f"Earlier question: {q}" for q in previous[-3:])
    messages = [
        {"role": "system", "content": CONDENSE_PROMPT},
        {"role": "user", "content": f"{history}\nLast message: {followup}"},
    ]
    try:
        text = " ".join(complete(messages).split())
    except Exception as e:  # the offline rewrite is always there to fall back on
        log.warning("condensing a follow-up failed (%s); using the offline rewrite", type(e))
        return offline
    return text if 0 < len(text) <= 500 else offline
