"""What an excerpt only asks or names: text that shares a claim's words without stating it.

``asserted`` blanks (offsets kept) the questions of a text and the words that
follow "asked about", "talked about", "as it pertains to", "whether", "we study
how", "see Section 4" to the end of their clause: an analyst's question in a
transcript or a paper's pointer to another section names the subject and says
nothing of it. ``asks_or_mentions`` tells a claim that itself reports a question
or a mention (then the whole excerpt counts); ``only_asks`` a span made of
questions. Nothing here weighs words.
"""

from __future__ import annotations

import re

# Phrases after which a text names a topic without saying anything of it: someone asks or
# talks about it, or the text points to where it is said ("as discussed in Section 4").
_ABOUT = re.compile(
    r"\b(?:ask(?:s|ed|ing)?|talk(?:s|ed|ing)?|think(?:s|ing)?|comment(?:s|ed)?|question(?:s)?|"
    r"wonder(?:s|ed|ing)?|curious|clarif(?:y|ication))\s+(?:about|on|regarding|around|"
    r"with respect to|in terms of|if|whether|how|what|why)\b"
    r"|\b(?:stud(?:y|ies|ied)|investigat\w*|examin\w*|explor\w*|analy[sz]\w*|discuss\w*)\s+"
    r"(?:how|whether|why|what|if)\b|\bwhether\b"
    r"|\b(?:as it pertains to|with regards? to|(?:is|are|will be) (?:discussed|described|"
    r"explained|covered) in|(?:see|cf\.?)\s+(?:section|appendix|table|figure|fig\.|note)|"
    r"we (?:will )?(?:discuss|describe) (?:this|these|it|them)? ?(?:in|below|later))",
    re.I,
)
_CLAUSE = re.compile(r"[.;:!?]|,\s(?:but|and|so|which)\b|\s(?:but|however)\s")


def asks_or_mentions(claim: str) -> bool:
    """Whether a claim itself asks, or says that someone asked or talked about something."""
    return claim.rstrip().endswith("?") or bool(_ABOUT.search(claim))


def asserted(text: str) -> str:
    """``text`` with what it only asks or names blanked: questions, and the words after
    "asked about", "as it pertains to", "see Section" to the end of their clause. Offsets
    are kept (blanked characters become spaces)."""
    out = list(text)
    for m in re.finditer(r"[^.!?]*\?", text):  # a question, to its question mark
        out[m.start() : m.end()] = " " * (m.end() - m.start())
    for m in _ABOUT.finditer(text):
        end = _CLAUSE.search(text, m.end())
        stop = end.start() if end else len(text)
        out[m.start() : stop] = " " * (stop - m.start())
    return "".join(out)


def only_asks(span: str) -> bool:
    """Whether every sentence of ``span`` is a question."""
    parts = [p for p in re.split(r"(?<=[.!?])\s+", span.strip()) if p.strip()]
    return bool(parts) and all(p.rstrip(" \"')").endswith("?") for p in parts)
