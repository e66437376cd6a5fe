"""Where a text spells out an acronym: "National Atmospheric Research Laboratory (NARL)".

Which acronym a question asks to be spelled out is ``text.ask``'s (``Ask.acronym``);
``expansions`` finds the long
forms a text defines for it, in either order ("Long Form (LF)" or "LF (Long
Form)") or in words ("LF stands for Long Form"), matched letter by letter as
Schwartz and Hearst (2003) do: each letter of the acronym, last to first, is
found in the long form, the first one at the start of a word. It does not guess
expansions the text does not write. ``spells`` says whether a sentence writes a long
form at all, defined or not ("... as Retrieval-Augmented Generation does").
"""

from __future__ import annotations

import re

from papertrail.text.sentences import normalize

# An acronym: 2-10 letters or digits with at least two capitals ("NARL", "DoS", "GPT4")
_TOKEN = re.compile(r"(?<![\w-])[A-Za-z][A-Za-z0-9&-]{1,9}(?![\w-])")
_SMALL = frozenset("of and for the in on to at by with a an & de".split())
MAX_EXTRA_WORDS = 5  # a long form has at most the acronym's letters plus this many words


def _is_acronym(token: str) -> bool:
    return sum(c.isupper() for c in token) >= 2 and not token.isdigit()


def _letters(acronym: str) -> str:
    return "".join(c.lower() for c in acronym if c.isalpha())


def _initials(long: str) -> str:
    """The first letters of ``long``'s words, small ones ("of", "and") left out; a
    hyphenated word counts each part ("Retrieval-Augmented" -> "ra")."""
    words = re.findall(r"[^\W\d_]+", long)
    return "".join(w[0].lower() for w in words if w.lower() not in _SMALL)


def _matches(short: str, long: str) -> bool:
    """Schwartz-Hearst: the letters of ``short``, last to first, are found in ``long`` in
    that order, the first one at the start of a word; every long-form word but small
    ones ("of", "and") starts with one of the letters used."""
    s = [c.lower() for c in short if c.isalnum()]
    text = long.lower()
    i, j = len(s) - 1, len(text) - 1
    while i >= 0:
        c = s[i]
        while j >= 0 and (text[j] != c or (i == 0 and j > 0 and text[j - 1].isalnum())):
            j -= 1
        if j < 0:
            return False
        i, j = i - 1, j - 1
    words = [w for w in re.findall(r"[^\W_]+", long) if w.lower() not in _SMALL]
    initials = {c for c in s}
    return bool(words) and all(w[0].lower() in initials for w in words)


def expansions(text: str, acronym: str) -> list[str]:
    """The long forms ``text`` gives for ``acronym``, in the order it gives them, as
    written (single-spaced)."""
    text = re.sub(r"\s+", " ", normalize(text))
    out: list[str] = []
    esc = re.escape(acronym)
    for m in re.finditer(rf"\(\s*{esc}s?\s*\)", text):  # "Long Form (LF)"
        words = text[: m.start()].rstrip().split(" ")
        limit = min(len(acronym) + MAX_EXTRA_WORDS, 2 * len(acronym))
        fits = [
            cand
            for n in range(1, min(limit, len(words)) + 1)
            if (cand := " ".join(words[-n:]).strip(" ,;:\"'")) and _matches(acronym, cand)
        ]
        # the one whose words' initials are the acronym's letters ("GPS Aided Geo Augmented
        # Navigation (GAGAN)", not its tail); else the shortest that starts at the first letter
        best = next(
            (c for c in fits if _initials(c) == _letters(acronym)), fits[0] if fits else None
        )
        if best and best not in out:
            out.append(best)
    for m in re.finditer(rf"\b{esc}\s*\(([^()]{{3,120}})\)", text):  # "LF (Long Form)"
        cand = m.group(1).strip(" ,;:\"'")
        if _matches(acronym, cand) and cand not in out:
            out.append(cand)
    # "LF stands for Long Form", "LF, short for Long Form": up to the next punctuation
    said = rf"\b{esc}\b,?\s+(?:stands\s+for|is\s+short\s+for|short\s+for)\s+"
    for m in re.finditer(said, text):
        words = re.split(r"[,.;:()]", text[m.end() :], maxsplit=1)[0].split()
        cand = " ".join(words).strip("\"'")
        if len(words) <= len(acronym) + MAX_EXTRA_WORDS and _matches(acronym, cand):
            out += [cand] if cand not in out else []
    return out


def spells(text: str, acronym: str) -> bool:
    """Whether ``text`` writes a long form of ``acronym`` anywhere: a run of its words
    that ``_matches`` it, other than the acronym itself."""
    words = [w.strip(",;:.\"'()") for w in re.sub(r"\s+", " ", normalize(text)).split(" ")]
    limit = min(len(acronym) + MAX_EXTRA_WORDS, 2 * len(acronym))
    own = {acronym.lower(), acronym.lower() + "s"}
    for i, first in enumerate(words):
        if first[:1].lower() != acronym[:1].lower():
            continue
        for n in range(1, min(limit, len(words) - i) + 1):
            if words[i + n - 1].lower() in own:
                break  # the acronym itself, not a long form
            if _matches(acronym, " ".join(words[i : i + n])):
                return True
    return False
