"""Short forms a claim may write for what an excerpt spells out, and words of direction.

``spelled_out(word, keys)`` says whether a claim word written short ("FY",
"Q3", "YoY", "bps", "H1", "10x") or as a verb of direction ("rose", "slipped")
is stated in an excerpt, given the excerpt's ``word_keys``: each short form
has one or more long forms, each a set of words that must all be there ("Q3"
is "third quarter", or "three months" as quarterly reports write it). The
document's own acronyms ("Net Revenue Retention (NRR)") are ``word_keys``'s
"acr:" keys, not listed here. ``direction`` reads whether a text says
something went up or down. Nothing here weighs words.
"""

from __future__ import annotations

from functools import lru_cache

from papertrail.text.words import stem

_UP = "increase rise grow gain climb jump up higher lift improve expand accelerate double triple"
_DOWN = "decrease decline fall drop down lower reduce shrink slip slide dip contract worsen cut"
UP = frozenset(stem(w) for w in _UP.split()) | {"grew", "rose", "rise", "up"}
DOWN = frozenset(stem(w) for w in _DOWN.split()) | {"fell", "down"}

_ORD = {"1": "first", "2": "second", "3": "third", "4": "fourth"}


def _long_forms() -> dict[str, tuple[tuple[str, ...], ...]]:
    out: dict[str, tuple[tuple[str, ...], ...]] = {
        "fy": (("fiscal",), ("year",)),
        "cy": (("calendar",), ("year",)),
        "yoy": (("year",), ("prior",), ("annual",), ("ago",)),
        "qoq": (("sequential",), ("prior", "quarter"), ("previous", "quarter"), ("quarter",)),
        "bps": (("basis", "point"),),
        "bp": (("basis", "point"),),
        "pp": (("percentage", "point"),),
        "pts": (("point",),),
        "ytd": (("year", "date"),),
        "quarter": (("three", "month"),),
        "quarterly": (("quarter",), ("three", "month")),
        "half": (("six", "month"),),
        "annual": (("year",), ("twelve", "month")),
        "comps": (("comparable",),),
        "sota": (("state", "art"),),
        "approx": (("approximately",), ("about",)),
        "doubled": (("double",), ("twice",)),
        "twice": (("double",), ("two", "time")),
    }
    for n, word in _ORD.items():
        forms = ((word, "quarter"), (word, "fiscal"), ("three", "month"))
        out[f"q{n}"] = forms
        out[f"{n}q"] = forms
    out["h1"] = (("first", "half"), ("six", "month"))
    out["h2"] = (("second", "half"),)
    # the long forms are stemmed once, below: built from the words, not from UP's stems
    # (stemming "decreas" again gives "decrea", which no excerpt's "decreased" is)
    ups, downs = (*_UP.split(), "grew", "rose"), (*_DOWN.split(), "fell")
    for w in UP:
        out.setdefault(w, tuple((u,) for u in ups))
    for w in DOWN:
        out.setdefault(w, tuple((d,) for d in downs))
    return {k: tuple(tuple(stem(x) for x in form) for form in v) for k, v in out.items()}


_LONG = _long_forms()


def spelled_out(word: str, keys: set[str] | frozenset[str]) -> bool:
    """Whether claim ``word`` (lowercase) is said in other words among ``keys``."""
    forms = _LONG.get(word) or _LONG.get(stem(word))
    return bool(forms) and any(all(k in keys for k in form) for form in forms)


@lru_cache(maxsize=4096)
def direction(words: tuple[str, ...]) -> frozenset[str]:
    """{"up"}, {"down"}, both or neither: what ``words`` (lowercase tokens) say moved."""
    keys = {stem(w) for w in words} | set(words)
    out = set()
    if keys & UP:
        out.add("up")
    if keys & DOWN:
        out.add("down")
    return frozenset(out)
