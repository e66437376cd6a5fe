"""The labels documents print on their tables and figures ("Table II", "Figure 3-1", "Fig. 7").

A question that names a table or a figure by its label ("According to table II,
...") names a place in one document as precisely as a page number would, and
the page that prints the label is where the answer is. ``named`` reads labels
the same way in a question and in a page's text, so the two meet: the kind is
lower-cased and "Fig." is "figure"; the number keeps its writing ("II" and "2"
differ: a document uses one of them) with "1.1" read as "1-1". A Roman numeral
counts only in capitals ("Table II", "TABLE II"), so "table i made" names
nothing. ``named`` does not tell a caption from a mention ("as shown in Table
II"): both sit next to what the table holds. ``caption`` does: it gives the words
a label titles ("Table 5: Ablation study on three datasets."), for a question
that asks what a table or figure shows.
"""

from __future__ import annotations

import re

from papertrail.text.sentences import split_sentences

_KINDS = {"fig": "figure"}  # the others are their own name
_LABEL = re.compile(
    r"\b(?i:(table|figure|fig|chart|exhibit))\.?\s*"
    r"(\d{1,3}(?:[-.\u2013]\d{1,3})*[a-z]?(?![\w-])|[IVX]{1,5}\b)"
)


def named(text: str) -> tuple[str, ...]:
    """The labels ``text`` names, each once, in order: ("table II", "figure 7")."""
    return tuple(dict.fromkeys(_key(m) for m in _LABEL.finditer(text)))


def _key(m: re.Match) -> str:
    """A label as read ("table II", "figure 1-1"): the kind lower-cased, "Fig." as
    "figure", "1.1" as "1-1"."""
    kind, number = m.group(1).lower(), re.sub(r"[.\u2013]", "-", m.group(2))
    return f"{_KINDS.get(kind, kind)} {number}"


_MENTION = frozenset("in see of from and or to by with on as under per".split())
CAPTION_WORDS = 30  # a caption longer than this has run on into the table or the text


def caption(text: str, label: str) -> str:
    """The caption ``text`` prints for ``label`` ("table II"): the label where it titles
    (not after "in", "see" ...; followed by a colon, a full stop or a capital), and its
    words up to the caption's full stop; without one, up to where capitals end (an
    all-capitals caption) or where a column heading starts (a capitalised word after a
    lower-case one); "" when ``text`` prints no such caption."""
    for m in _LABEL.finditer(text):
        if _key(m) != label:
            continue
        before = text[: m.start()].split()
        if before and before[-1].lower().strip("(,") in _MENTION:
            continue
        rest = text[m.end() :]
        body = re.match(r"\s*[:.\u2013\u2014-]?\s*", rest)
        after = rest[body.end() :] if body else rest
        if not after[:1].isupper() and not after[:1].isdigit():
            continue  # "Table 2 shows ...": a sentence about it, not its title
        return (
            text[m.start() : m.end()] + rest[: body.end() if body else 0] + _title(after)
        ).strip()
    return ""


def _title(after: str) -> str:
    """The caption's words after its label (see ``caption``)."""
    words = after.split()[:CAPTION_WORDS]
    first = next(iter(split_sentences(" ".join(words), hard_newlines=False)), "")
    if first.endswith((".", "!", "?")):  # the caption's own full stop ("et al." is none)
        return first
    if words and not any(c.islower() for c in words[0]):  # "SUMMARY OF METRICS ... Context"
        kept = []
        for w in words:
            if any(c.islower() for c in w):
                break
            kept.append(w)
        return " ".join(kept)
    kept = [words[0]] if words else []
    for prev, w in zip(words, words[1:], strict=False):
        if w[:1].isupper() and any(c.islower() for c in w) and prev[:1].islower():
            break  # "... storage classes Compared Standard": the table's headings begin
        kept.append(w)
    return " ".join(kept)
