"""What the excerpt says beside the claim's own figure: its period, comparison and bound.

A close but wrong claim often keeps the excerpt's figure and moves it: "rose
23% in the second quarter" cited to "increased 23% for the six months ended
June 30", "grew 40% year over year" to "growing 40% quarter-over-quarter",
"up from 65 a year earlier" to "up from 65 last quarter", "grew more than
100%" to "grew just under 100%". Words found anywhere in the excerpt cannot
see it: the excerpt says both, each beside another figure.

``anchor_conflicts`` aligns the two texts on the claim's figures. For each
figure of the claim that the excerpt states, it reads the *statement of that
figure*: the words after it up to the next figure or the end of its clause
(where "23% for the six months ended" puts the period), with its clause's
opening when no figure comes before it there ("In Q4, ... increased to 77",
"..., and revenue from wholesale grew just under 60%"). Other
figures bound the statement; years, days of a month and digits glued to
letters ("Q4", "FY22", "COVID-19") do not. Where the excerpt states the
figure more than once, the statements holding the most of the claim's
statement's words are the ones compared. In a statement it reads:

* the **length** of the period: a quarter, a half (six months), nine months
  or a full year, as the words say it ("Q3", "three months ended", "first
  half", "full-year", "year ended");
* the **comparison**: against a year before ("year over year", "a year
  earlier", "prior year quarter", "same quarter last year") or a quarter
  before ("quarter-over-quarter", "sequentially", "last quarter");
* the **bound** written right at the figure: at least ("more than", "over",
  "$5 million-plus") or at most ("under", "nearly", "up to"); and whether the
  figure is the one taken or the one "instead of" which ("rather than") the
  other was.

It reads the claim's side the same way. A figure conflicts when, for one of
these, the claim's statement names some and *every* compared statement in
the excerpt names others, none of the claim's. A statement that names none is
no evidence either way, and a sentence that pairs figures and periods
"respectively" is not read. Years are left to ``periods`` (fiscal and
calendar names of a year differ too often beside one figure). It knows no
company, metric or document, and weighs nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from papertrail.text.figures import (
    Figure,
    claim_figures_at,
    figure_in,
    figure_text,
    is_day,
    numbers_at,
)
from papertrail.text.lengths import bases, clause_lengths
from papertrail.text.sentences import normalize, sentence_spans
from papertrail.text.words import content_words, found, word_keys

# A figure named as the one not taken: "used 0.1 instead of 0.3", "0.3 rather than 0.1"
_REJECTED = re.compile(r"\b(?:instead of|rather than|in place of)\s*[$€£¥₹]?\s*$", re.I)
# Where a clause ends and the next one's statement starts ("..., and", "; ", " while ")
_BREAK = re.compile(r";|,\s*(?:and|but|while|whereas|whilst)\b|\s(?:while|whereas|whilst)\b", re.I)
_RESPECTIVELY = re.compile(r"\brespectively\b", re.I)
# What bounds a figure: words right before it ("more than 2,500", "just under 100%") or after
# it ("$5 million-plus", "10 or more"); "no more than" is checked before "more than"
_SCALE_WORD = r"(?:%|\s?(?:thousand|million|billion|trillion|[kmb]n?)\b)?"
_BOUNDS = {
    "at most": (
        re.compile(r"\b(?:no more than|not more than|less than|fewer than|under|below|at most|"
                   r"up to|nearly|almost|shy of|short of)\s*$", re.I),
        re.compile(rf"^{_SCALE_WORD}\s*(?:or (?:less|fewer|below)|and (?:below|under))\b", re.I),
    ),
    "at least": (
        re.compile(r"\b(?:more than|over|above|at least|exceeding|in excess of|upwards of|"
                   r"greater than|north of)\s*$", re.I),
        re.compile(rf"^{_SCALE_WORD}\s*(?:-\s?plus\b|\+|or (?:more|greater|above)\b|"
                   r"and (?:above|over|up)\b)", re.I),
    ),
}  # fmt: skip


def _sets(text: str) -> dict[str, frozenset[str]]:
    """The period lengths and comparisons ``text`` names."""
    return {
        "length": clause_lengths(text),
        "comparison": bases(text),
    }


def _bounds(text: str) -> list[tuple[int, int]]:
    """Offsets of the numbers of ``text`` that bound a figure's statement: every number
    but years, days of a month and digits glued to letters ("Q4", "FY22", "COVID-19")."""
    out = []
    for a, b, n in numbers_at(text):
        before, after = text[max(0, a - 2) : a], text[b : b + 1]
        if before[-1:].isalpha() or re.search(r"[^\W\d_]-$", before) or after.isalpha():
            continue
        if n.integer and 1900 <= n.value <= 2100 and "," not in text[a:b]:
            continue
        if is_day(text, a, b):
            continue
        out.append((a, b))
    return out


@dataclass(frozen=True)
class _Said:
    """One statement of a figure: what it names, per kind, and its words."""

    kinds: dict[str, frozenset[str]]
    text: str  # its words: its clause's opening (when no figure is before it) to its end

    @property
    def words(self) -> frozenset[str]:
        """Its content words (not numbers): what aligns a claim's statement with the
        excerpt's."""
        return frozenset(w for w in content_words(self.text) if not w[:1].isdigit())


def _bound(text: str, a: int, b: int) -> frozenset[str]:
    """ "at least" for "more than 2,500" or "$5 million-plus", "at most" for "just under
    100%" or "nearly 50%", else nothing."""
    before = text[max(0, a - 24) : a].rstrip(" $€£¥₹")
    after = text[b : b + 24]
    for name, (rx_before, rx_after) in _BOUNDS.items():
        if rx_before.search(before) or rx_after.match(after):
            return frozenset({name})
    return frozenset()


def _statement(
    text: str,
    a: int,
    b: int,
    sentences: list[tuple[int, int]],
    bounds: list[tuple[int, int]],
) -> _Said | None:
    """What the statement of the figure at ``a``..``b`` names, per kind, and its words: the
    words after it to the next figure or clause, and its clause's opening when no figure
    comes before it in that clause. None in a "respectively" sentence."""
    s, e = next(((x, y) for x, y in sentences if x <= a < y), (0, len(text)))
    if _RESPECTIVELY.search(text, s, e):
        return None
    prev = max((y for x, y in bounds if s <= x and y <= a), default=s)
    nxt = min((x for x, y in bounds if x >= b and y <= e), default=e)
    cut = _BREAK.search(text, b, nxt)
    end = cut.start() if cut else nxt
    opening: int | None = s if prev == s else None
    if opening is None:  # after another figure, the words before are that figure's
        breaks = list(_BREAK.finditer(text, prev, a))  # ("$26.3 billion in 2018, ...")
        opening = breaks[-1].end() if breaks else None  # unless a clause starts between
    kinds = _sets(text[b:end])
    if opening is not None:  # "In Q4, ...", "For fiscal 2022, ...", "..., and in H1, ..."
        before = _sets(text[opening:a])
        kinds = {k: kinds[k] | before[k] for k in kinds}
    kinds["bound"] = _bound(text, a, b)
    kinds["choice"] = frozenset(
        {"rejected" if _REJECTED.search(text, max(s, a - 24), a) else "stated"}
    )
    return _Said(kinds, text[a if opening is None else opening : end])


def _aligned(words: frozenset[str], said: list[_Said]) -> list[_Said]:
    """Of the statements of a figure in an excerpt, those holding the most of the words of
    the claim's own statement of it: the one the claim restates ("product revenue ...
    growing 40%", not "represent over 40% of revenue")."""
    if len(said) < 2:
        return said
    scores = [sum(found(w, word_keys(x.text)) for w in words) for x in said]
    return [x for x, k in zip(said, scores, strict=True) if k == max(scores)]


@lru_cache(maxsize=256)
def _claim(claim: str) -> tuple[tuple[Figure, _Said], ...]:
    """The claim read once: each of its figures (not a day of a month) with its statement,
    whatever excerpt it is judged against."""
    text = figure_text(claim)
    sentences, bounds = sentence_spans(text, hard_newlines=False), _bounds(text)
    out = []
    for a, b, fig in claim_figures_at(text):
        said = None if is_day(text, a, b) else _statement(text, a, b, sentences, bounds)
        if said is not None:
            out.append((fig, said))
    return tuple(out)


@lru_cache(maxsize=1024)
def _excerpt(text: str) -> tuple[str, list[tuple[int, int]], list, list[tuple[int, int]]]:
    """The excerpt read once: its normalised text, sentences, numbers and bounds."""
    norm = normalize(text)
    return norm, sentence_spans(norm, hard_newlines=False), numbers_at(norm), _bounds(norm)


def _reason(kind: str, figure: str, theirs: frozenset[str], mine: frozenset[str]) -> str:
    said, want = " / ".join(sorted(theirs)), " / ".join(sorted(mine))
    if kind == "length":
        return f"the excerpt gives {figure} for {_A.get(said, said)}, not {_A.get(want, want)}"
    if kind == "comparison":
        return f"the excerpt compares {figure} with {said}, not with {want}"
    if kind == "choice":
        return f"the excerpt gives {figure} as the figure not taken"
    return f"the excerpt says {said} {figure}, not {want}"


_A = {"quarter": "a quarter", "half": "a half", "year": "a full year"}
PERIOD, BOUND = "period", "bound"  # the conflicts ``anchor_conflicts`` tells


def anchor_conflicts(claim: str, excerpt: str) -> dict[str, str]:
    """How the excerpt's statements of the claim's figures contradict the claim's own, by
    kind: ``PERIOD`` (another length or comparison) and ``BOUND`` ("more than" / "just
    under", "0.3" / "instead of 0.3"); a reason for each."""
    mine_all = _claim(claim)
    if not mine_all:
        return {}
    norm, sentences, numbers, bounds = _excerpt(excerpt)
    out: dict[str, str] = {}
    for fig, mine in mine_all:
        said = [_statement(norm, x, y, sentences, bounds) for x, y, n in numbers
                if figure_in(fig, [n])]  # fmt: skip
        if not said or any(t is None for t in said):
            continue
        theirs = _aligned(mine.words, [t for t in said if t is not None])
        for kind, want in mine.kinds.items():
            have = [t.kinds[kind] for t in theirs]
            if want and all(h and not (h & want) for h in have):
                group = BOUND if kind in ("bound", "choice") else PERIOD
                out.setdefault(group, _reason(kind, fig.text, have[0], want))
    return out
