"""Contrasting words: which words say the opposite of which, in general and per domain.

``rivals`` maps a word's key to the keys that contrast with it ("increase" to
"decrease", "encoder" to "decoder", "base" to "large", one month to another),
from the general groups here and those a domain adds (``Domain.contrasts``);
``ALLIES`` maps it to its own side ("rise" to "increase", "grow"). Where such a
word stands in a claim and an excerpt is ``contrast``'s to read.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache

from papertrail.protocols import Domain
from papertrail.text.words import stem

# Contrasting words: "a b | c d" sets a and b (said of the same thing, the same) against c
# and d; a group without "|" holds words that each exclude all others (ordinals, months).
_CONTRASTS = [
    "increase rise grow climb | decrease decline reduce fall drop shrink", "gain | loss",
    "higher | lower", "high | low", "larger bigger | smaller", "large big | small",
    "best | worst", "better | worse", "improve | worsen degrade hurt", "positive | negative",
    "above | below", "before | after", "maximum | minimum", "profit | loss", "strong | weak",
    "strengthen | weaken", "accelerate | decelerate slow", "expand | contract",
    "inflow | outflow", "include | exclude", "success | failure", "efficient | inefficient",
    "outperform | underperform", "surplus | deficit", "long | short", "early | late",
    "earlier | later", "input | output", "encoder | decoder", "training train | test",
    "dev validation | test", "supervised | unsupervised", "bidirectional | unidirectional",
    "left | right", "upper | lower", "add | remove", "majority | minority", "buy | sell",
    "asset | liability", "debit | credit", "appreciate | depreciate",
    "overestimate | underestimate", "true | false", "correct | incorrect",
    "accurate | inaccurate", "possible | impossible", "significant | insignificant",
    "static | dynamic", "sparse | dense", "shallow | deep", "fast | slow",
    "cheap | expensive", "easy | difficult hard", "simple | complex", "past | future",
    "allow | prevent", "enable | disable", "accept | reject", "approve | deny", "win | lose",
    "local | global", "online | offline", "manual | automatic", "male | female",
    "men | women", "north | south", "east | west", "upward | downward",
    "favorable | unfavorable", "profitable | unprofitable", "internal | external",
    "domestic | foreign international", "gross | net", "base | large big",
    "first second third fourth fifth", "monday tuesday wednesday thursday friday",
    "january february march april may june july august september october november december",
    "annual quarterly monthly weekly daily", "lowest | highest", "beginning start | end",
    "open | closed", "public | private", "pretrained | scratch",
]  # fmt: skip


def _allies() -> dict[str, frozenset[str]]:
    """Each listed word's own side of its contrast: "rise" -> {"increase", "grow", ...}."""
    out: dict[str, frozenset[str]] = {}
    for group in _CONTRASTS:
        if "|" not in group:
            continue
        for part in group.split("|"):
            keys = frozenset(stem(w) for w in part.split())
            for k in keys:
                out[k] = out.get(k, frozenset()) | keys
    return out


def _rivals(groups: Iterable[str]) -> dict[str, frozenset[str]]:
    out: dict[str, frozenset[str]] = {}
    for group in groups:
        parts = group.split("|") if "|" in group else group.split()
        sets = [part.split() for part in parts]
        keys = [{stem(w) for w in words} for words in sets]
        for i, mine in enumerate(keys):
            others = frozenset().union(*(k for j, k in enumerate(keys) if j != i)) - mine
            for k in mine:
                out[k] = out.get(k, frozenset()) | others
    return out


_RIVALS = _rivals(_CONTRASTS)


@lru_cache(maxsize=16)
def rivals(extra: tuple[str, ...] = ()) -> dict[str, frozenset[str]]:
    """Word key -> the keys that contrast with it: the general groups and ``extra`` ones
    written the same way (a domain's, ``Domain.contrasts``)."""
    return _rivals((*_CONTRASTS, *extra)) if extra else _RIVALS


def domain_contrasts(domains: Sequence[Domain]) -> tuple[str, ...]:
    """The contrasting groups ``domains`` add, in their order."""
    return tuple(g for d in domains for g in d.contrasts)


ALLIES = _allies()  # each listed word's own side
