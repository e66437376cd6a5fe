"""Contradictions between a claim and the span judged for it: what word overlap cannot see.

An excerpt on the claim's subject can share most of its words and still say
something else. ``conflict`` looks for general signs of that, from the text alone:

* **negation**: a word the two share is negated in one ("trained *without*
  the auxiliary loss", "did *not* improve") and not in the other;
* **a contrasting word in the same place**: where the claim has one word of a
  contrasting pair or set (increase/decrease, encoder/decoder, base/large,
  third/second, and the pairs a domain adds through ``Domain.contrasts``), the
  span has the other next to the same neighbour ("the *base* model" / "the
  *large* model"), and not the claim's (another *name* in that place is not read
  as a contrast: a paraphrase writes names short or long, and words alone cannot
  tell "GM" from another company);
* **another period** (``periods``): the claim names a year, quarter or half,
  the excerpt (or what a reader sees beside it) names periods of that kind,
  none of them the claim's;
* a claim that **ranks** ("the largest") against a span that ranks nothing
  (``superlatives``);
* a span that only **asks** (a question states nothing; ``mentions`` also
  blanks what an excerpt only names: "asked about X", "see Section 4").
Each returns a short reason, or None; how much of the claim is covered is ``judge``'s.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from papertrail.text.sentences import normalize, strip_markers
from papertrail.text.words import STOPWORDS, found, rarity, stem, word_keys
from papertrail.verify.mentions import only_asks
from papertrail.verify.periods import period_conflict
from papertrail.verify.rivals import ALLIES, rivals
from papertrail.verify.superlatives import _superlative, missing_superlative  # noqa: F401

# --- negation ------------------------------------------------------------------------

# Words that negate what follows them in their clause.
_NEGATORS = frozenset(
    "not no never without none nor neither cannot nothing nobody w/o lacking eschewing "
    "dispensing".split()
)
_NEG_PHRASES = (("instead", "of"), ("rather", "than"), ("fail", "to"), ("fails", "to"),
                ("failed", "to"), ("unable", "to"), ("lack", "of"), ("absence", "of"),
                ("free", "of"))  # fmt: skip
# "not only X but also Y", "no more than 5": bounds and emphasis, not negation
_NOT_NEGATING = frozenset("only just merely more less fewer later earlier sooner".split())
# Other words that turn a statement around; a span holding one of them near the
# shared words is not read as the plain opposite of a negated claim.
_NEG_LIKE = frozenset(
    "remove removed removes removing drop dropped dropping eliminate eliminated eliminating "
    "avoid avoids avoided avoiding omit omitted omitting exclude excluded ablate ablated "
    "ablating discard discarded replace replaced replacing instead rather absent absence "
    "lack lacks lacked free unlike barely hardly little few excluding except dispense "
    "dispenses dispensed eschew eschews eschewed forgo forgoes skip skips skipped abandon "
    "abandons abandoned".split()
)
SCOPE = 4  # words a negator reaches, within its clause
MIN_RARITY = 1.5  # shared words this rare or rarer are compared ("have", "make" are not)
NAME_RARITY = 3.5  # a capitalised word this rare is a name, not a heading's common word
_CLAUSE_END = frozenset("but however while whereas although though yet which who that".split())
_TOKEN = re.compile(r"w/o|[^\W_]+(?:'[^\W_]+)?|[,;:.()!?\"]")


@dataclass(frozen=True)
class _Tok:
    word: str  # lowercase
    key: str  # stem
    negated: bool
    name: bool  # written capitalised (a rare word, or not first in its sentence) or as an acronym
    index: int  # position among the text's content words


def _is_negator(words: list[str], i: int) -> bool:
    w = words[i]
    nxt = words[i + 1] if i + 1 < len(words) else ""
    if w in _NEGATORS or w.endswith("n't"):
        return nxt not in _NOT_NEGATING
    return (w, nxt) in _NEG_PHRASES


@lru_cache(maxsize=4096)
def read_tokens(text: str) -> tuple[_Tok, ...]:
    """Content words of ``text`` in order, each marked negated or not, and as a name or not."""
    raw = _TOKEN.findall(strip_markers(normalize(text)))
    words = [w.lower() for w in raw]
    out: list[_Tok] = []
    reach = 0  # words still in the last negator's scope
    start = True  # at the start of a sentence
    for i, (w, low) in enumerate(zip(raw, words, strict=True)):
        if not low[0].isalnum() or low in _CLAUSE_END:
            reach = 0 if low not in ('"', "(", ")") else reach
            start = low in (".", "!", "?", ":") or (start and not low[0].isalnum())
            continue
        if _is_negator(words, i):
            reach = SCOPE + (1 if (low, words[i + 1] if i + 1 < len(words) else "") in
                             _NEG_PHRASES else 0)  # fmt: skip
            start = False
            continue
        negated = reach > 0
        reach = max(0, reach - 1)
        # capitalised mid-sentence, or rare enough to be a name where every word is capitalised
        name = (w[:1].isupper() and (not start or rarity(low) >= NAME_RARITY)) or (
            w.isupper() and 2 <= len(w) <= 6 and w.isalpha()
        )
        start = False
        if low in STOPWORDS or low.isdigit() or len(low) < 2:
            continue
        out.append(_Tok(low, stem(low), negated, name, len(out)))
    return tuple(out)


@lru_cache(maxsize=4096)
def _negates(text: str) -> bool:
    words = [w.lower() for w in _TOKEN.findall(strip_markers(normalize(text)))]
    return any(_is_negator(words, i) for i in range(len(words)))


_PREFIXES = ("un", "in", "im", "ir", "il", "non", "dis")


def _turned(words: set[str]) -> set[str]:
    """The keys of the words that ``words`` negate by a prefix: "ineffective" says "not
    effective", "unavailable" "not available"."""
    out = set()
    for w in words:
        for p in _PREFIXES:
            rest = w[len(p) :].lstrip("-")
            if w.startswith(p) and len(rest) >= 4 and rarity(rest) < 6.0:
                out.add(stem(rest))
    return out


def negation_conflict(claim: str, span: str) -> str | None:
    """A shared word negated in one text and not in the other, or None.

    Shared words are compared where the claim is plain about them: every use of
    the word in the span must have the other polarity. A negated claim is not
    contradicted by a span that turns the statement around in other words
    ("removing", "instead") or a prefix ("not effective" / "ineffective"): those
    are read as agreeing.
    """
    c, s = read_tokens(claim), read_tokens(span)
    by_key: dict[str, list[bool]] = {}
    for t in s:
        by_key.setdefault(t.key, []).append(t.negated)
    span_words = {t.word for t in s}
    claim_words = {t.word for t in c}
    claim_negates, span_negates = _negates(claim), _negates(span)
    negated = {t.key for t in c if t.negated}  # what the claim says is not so
    turned = _turned(span_words)
    for key in dict.fromkeys(t.key for t in c):
        mine = {t.negated for t in c if t.key == key}
        theirs = by_key.get(key)
        word = next(t.word for t in c if t.key == key)
        if not theirs or len(mine) != 1 or rarity(word) < MIN_RARITY:
            continue
        neg = mine.pop()
        # one text negates the shared word, the other negates nothing at all
        if neg and (span_negates or (span_words - {word}) & _NEG_LIKE or turned & negated):
            continue  # the span may say the same with another word ("ineffective")
        if not neg and (claim_negates or (claim_words - {word}) & _NEG_LIKE):
            continue
        if all(x != neg for x in theirs):
            if neg:
                return f"the sentence negates {word!r}, the excerpt does not"
            return f"the excerpt negates {word!r}, the sentence does not"
    return None


# --- contrasting words in the same place ------------------------------------------

NEAR = 1  # content words apart: a modifier and its head, a verb and its subject


@lru_cache(maxsize=256)
def _keys(text: str) -> frozenset[str]:
    return frozenset(word_keys(text))


def _beside(toks: tuple[_Tok, ...], key: str, neighbour: str, side: int) -> bool:
    """Whether ``key`` occurs with ``neighbour`` ``side`` content words after it."""
    return any(
        t.key == key and 0 <= t.index + side < len(toks) and toks[t.index + side].key == neighbour
        for t in toks
    )


def substitution(claim: str, span: str, contrasts: tuple[str, ...] = ()) -> str | None:
    """A claim word replaced in the span by a contrasting one beside the same neighbour
    (``contrasts``: the groups domains add)."""
    table = rivals(contrasts)
    c, s = read_tokens(claim), read_tokens(span)
    span_keys = {t.key for t in s}
    keys = _keys(span)
    for t in c:
        others = table.get(t.key, frozenset())
        if t.key in span_keys or found(t.word, keys, acronym=t.name):
            continue  # the span says the claim's word, maybe in a compound ("BERTBASE")
        for u in s:
            # a listed rival; a word of a name contrasts nothing, and another name beside the
            # same neighbour is as often the same thing written short or long ("GM" /
            # "General Motors") as another thing: words alone cannot tell them apart
            if t.name or u.key not in others or u.negated != t.negated:
                continue
            if t.word in u.word or u.word in t.word:
                continue  # "LM" / "MLM": one name holds the other
            # a neighbour of the claim word that sits on the same side of the rival in the
            # span, where the claim never puts the rival (it may name it elsewhere)
            for n in c[max(0, t.index - NEAR) : t.index + NEAR + 1]:
                if n.index == t.index or n.key not in span_keys or n.key in others:
                    continue
                side = n.index - t.index
                allies = ALLIES.get(t.key, frozenset())
                if (
                    _beside(s, u.key, n.key, side)
                    and not _beside(c, u.key, n.key, side)
                    # the span says the claim's side there too ("sales increased ...
                    # sales decreased"): which one the claim restates, words cannot tell
                    and not any(_beside(s, a, n.key, side) for a in allies)
                ):
                    return f"the excerpt says {u.word!r} beside {n.word!r}, not {t.word!r}"
    return None


def conflict(
    claim: str, span: str, excerpt: str, context: str = "", contrasts: tuple[str, ...] = ()
) -> str | None:
    """The first sign that ``span`` (of ``excerpt``) does not state ``claim``, or None."""
    if only_asks(span) and not claim.rstrip().endswith("?"):
        return "the excerpt only asks it"
    return (
        negation_conflict(claim, span)
        or substitution(claim, span, contrasts)
        or missing_superlative(claim, span, excerpt)
        or period_conflict(claim, excerpt, context)
    )
