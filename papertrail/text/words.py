"""Words: the two tokenisers, their stemmers and stop words, and rarity weights.

Two ways of cutting text into words live here side by side, because they serve
different matches:

* ``terms`` is what BM25 indexes and searches: NFKC, case-folded, Snowball stems,
  a short stop-word list (bm25s's English list and question words); numbers lose
  thousands separators so "1,577" matches "1577"; Chinese, Japanese and Korean
  runs become character unigrams and bigrams; other scripts are split on word
  boundaries, unstemmed.
* ``tokens`` / ``content_words`` / ``word_keys`` / ``found`` are what the verifier
  and the extractive answerer compare: a light suffix stripper that keeps one key
  for the forms of a word, compounds and acronyms, and ``rarity`` weights from the
  ``wordfreq`` package (English Zipf frequencies).

Sentences live in ``sentences``, figures in ``figures``.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from functools import lru_cache

from bm25s.stopwords import STOPWORDS_EN

from papertrail.text.memo import per_text
from papertrail.text.periods import is_period_token
from papertrail.text.sentences import normalize, strip_markers

try:  # wordfreq ships English frequencies from several large corpora, offline
    from wordfreq import zipf_frequency
except ImportError:  # pragma: no cover - the dependency is declared; this keeps imports working
    zipf_frequency = None

# fmt: off
STOPWORDS = frozenset("""
a about above after again against all also am an and any are as at be because been before
being below between both but by can could did do does doing down during each either few for
from further had has have having he her here hers herself him himself his how however i if in
into is it its itself just may me might more most must my myself no nor not of off on once only
or other our ours ourselves out over own per same shall she should so some such than that the
their theirs them themselves then there these they this those through thus to too under until
up upon us very via was we were what when where whether which while who whom whose why will
with within without would yes yet you your yours yourself yourselves one two three
""".split())
# Units and hedges belong to a figure and are checked with it ("roughly $16.1 million").
UNIT_WORDS = frozenset("""
thousand thousands million millions billion billions trillion usd dollar dollars percent pct
eur euro euros roughly approximately approx around nearly almost circa
""".split())
# fmt: on

TOKEN = re.compile(r"[^\W_]+(?:'[^\W_]+)?")
# the scale of a figure glued to it: "6b" of "$4.6B", "3e" of "3e-4" (years are ``periods``')
_GLUED_SCALE = re.compile(r"^\d+(?:[kmbte]|bn|mn|tn)$")


_SUFFIXES = (
    "ational", "ization", "fulness", "iveness", "ation", "ement", "ingly", "ment", "ness",
    "able", "ible", "ance", "ence", "ally", "ical", "ity", "ing", "ive", "ize", "ise", "ous",
    "ful", "est", "al", "ed", "er", "ly",
)  # fmt: skip


# Irregular verb forms, to their base: "paid" and "pay" must meet ("grew" / "grow").
_IRREGULAR = dict(
    pair.split(":")
    for pair in """
paid:pay made:make took:take taken:take grew:grow grown:grow rose:rise risen:rise fell:fall
fallen:fall led:lead held:hold sold:sell bought:buy built:build began:begin begun:begin
brought:bring kept:keep left:leave lost:lose met:meet ran:run saw:see seen:see said:say
sent:send spent:spend stood:stand thought:think told:tell won:win wrote:write written:write
drove:drive driven:drive gave:give given:give chose:choose chosen:choose shown:show
known:know knew:know went:go gone:go came:come became:become got:get gotten:get
""".split()
)


@lru_cache(maxsize=50_000)
def stem(word: str) -> str:
    """A light, consistent suffix stripper: "dividends" -> "dividend", "increased" -> "increas".

    Not linguistics, just the same key for the forms of one word (irregular
    verbs too: "paid" -> "pay"); ``found`` adds prefix matching for the
    derivations it misses.
    """
    w = word.lower()
    if w.endswith("'s"):
        w = w[:-2]
    if w in _IRREGULAR:
        return stem(_IRREGULAR[w])
    if len(w) <= 3 or not w.isalpha():
        return w
    if w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith(("sses", "xes", "zes", "ches", "shes")):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    for suf in _SUFFIXES:
        if w.endswith(suf) and len(w) - len(suf) >= 3:
            w = w[: -len(suf)]
            break
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "lsz":
        w = w[:-1]  # "plann(ed)" -> "plan"
    return w[:-1] if len(w) > 4 and w.endswith("e") else w


@lru_cache(maxsize=50_000)
def rarity(word: str) -> float:
    """Weight of a word: about 1 for everyday words, up to 6 for rare terms and names.

    Zipf frequency is log10 of occurrences per billion words (``the`` is 7.7,
    ``company`` 5.6, ``encoder`` 2.7, unknown names 0).
    """
    if zipf_frequency is None:
        return 1.0
    zipf = zipf_frequency(word.lower(), "en")
    return 1.0 + max(0.0, min(5.0, 6.0 - zipf))


@per_text
def tokens(text: str) -> list[str]:
    """Lowercase word tokens (letters and digits) of ``text``, in order."""
    return [t.lower() for t in TOKEN.findall(normalize(text))]


@lru_cache(maxsize=50_000)
def is_content(token: str) -> bool:
    """True for words that carry meaning: not stop words, numbers, years or single letters."""
    if (
        len(token) < 2
        or token in STOPWORDS
        or token in UNIT_WORDS
        or is_period_token(token)
        or _GLUED_SCALE.match(token)
    ):
        return False
    return not re.fullmatch(r"[\d.,]+", token)


@per_text
def content_words(text: str) -> list[str]:
    """Content tokens of ``text`` in order (unstemmed, lowercase)."""
    return [t for t in tokens(strip_markers(text)) if is_content(t)]


@per_text
def word_keys(text: str) -> set[str]:
    """Everything a claim word may be found as in ``text``.

    Stems of its words, compounds written apart or split by a hyphen or a line
    break ("d_model" / "dmodel", "pos- sible"), and acronyms of consecutive words
    ("CEO" for "Chief Executive Officer"), stored as ``"acr:ceo"``, the acronyms
    it writes, as ``"up:rag"``, and prefixes of five letters or more, stored as
    ``"pre:gener"``.
    """
    norm = normalize(text)
    toks = tokens(norm)
    keys = {stem(t) for t in toks}
    for a, b in re.findall(r"([^\W\d_]+)(?:-\s?|_|\s?-|\.)([^\W\d_]+)", norm):
        keys.add(stem((a + b).lower()))
    for i in range(len(toks)):
        for n in (2, 3):
            if i + n <= len(toks):
                keys.add(stem("".join(toks[i : i + n])))
    # (initial, capitalised) of each word; a two-letter acronym needs two capitalised
    # words ("Master of Arts"), or two long content words, or any two words ("militate
    # against") would spell one
    raw = [t for t in TOKEN.findall(norm) if t.isalpha()]
    initials = [(t[0].lower(), t[0].isupper()) for t in raw]
    skipping = [
        (t[0].lower(), t[0].isupper()) for t in raw if t.lower() not in ("and", "of", "the", "for")
    ]
    for seq in (initials, skipping):
        for i in range(len(seq)):
            for n in (2, 3, 4, 5):
                if i + n <= len(seq) and (n > 2 or all(up for _, up in seq[i : i + n])):
                    keys.add("acr:" + "".join(c for c, _ in seq[i : i + n]))
    # ... or two lowercase words of four letters or more, no stop words: "LM" is
    # "language model", "ML" "machine learning"
    for a, b in zip(raw, raw[1:], strict=False):
        if min(len(a), len(b)) >= 4 and not {a.lower(), b.lower()} & STOPWORDS:
            keys.add("acr:" + a[0].lower() + b[0].lower())
    # acronyms the text writes ("RAG"), for a claim that spells them out, as ``"up:rag"``
    keys |= {"up:" + t.lower() for t in raw if t.isupper() and 2 <= len(t) <= 6}
    # prefixes of 5+ letters, so ``found`` matches derivations by lookup, not by a scan
    keys |= {"pre:" + k[:n] for k in keys if k[:4] != "acr:" for n in range(5, len(k))}
    return keys


def found(word: str, keys: set[str], *, acronym: bool = False) -> bool:
    """Whether claim ``word`` is among ``keys`` (as built by ``word_keys``)."""
    s = stem(word)
    if s in keys or (acronym and "acr:" + word.lower() in keys):
        return True
    # Derivations the stemmer keeps apart ("gener(ation)" / "generat(ed)"): one stem
    # starts the other and the shorter is still a real word stem (5+ letters).
    if len(s) < 5:
        return False
    return "pre:" + s in keys or any(s[:n] in keys for n in range(5, len(s)))


# --- BM25 terms ---------------------------------------------------------------------

CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_TERM = re.compile(rf"(?P<num>\d+(?:[.,]\d+)*)|(?P<cjk>[{CJK}]+)|(?P<word>[^\W\d_{CJK}]+)")
_FILLER = {"what", "which", "who", "whom", "how", "does", "did", "do", "were", "has", "have"}
BM25_STOPWORDS = frozenset(STOPWORDS_EN) | _FILLER | {"had", "been", "its", "from", "than"}


def _stemmer():
    """English Snowball stems, memoised; identity if snowballstemmer is missing."""
    try:
        import snowballstemmer
    except ImportError:  # exact words still match
        return lambda word: word
    stemmer = snowballstemmer.stemmer("english")
    lock = threading.Lock()  # the pure-Python stemmer keeps state while it works
    cache: dict[str, str] = {}

    def stem(word: str) -> str:
        out = cache.get(word)
        if out is None:
            with lock:
                out = stemmer.stemWord(word)
            if len(cache) > 1_000_000:  # words, not bytes: bounds memory on odd corpora
                cache.clear()
            cache[word] = out
        return out

    return stem


_stem = _stemmer()


def terms(text: str) -> list[str]:
    """BM25 terms of ``text``; safe on any script, never raises."""
    out: list[str] = []
    for m in _TERM.finditer(unicodedata.normalize("NFKC", text).casefold()):
        if m.lastgroup == "num":
            num = m.group().replace(",", "")
            if "." in num:  # "1577.00" == "1577"; "24.26" stays
                num = num.rstrip("0").rstrip(".") or "0"
            out.append(num)
        elif m.lastgroup == "cjk":
            run = m.group()
            out.extend(run)  # unigrams
            out.extend(run[i : i + 2] for i in range(len(run) - 1))  # bigrams
        else:
            word = m.group()
            if len(word) < 2 or word in BM25_STOPWORDS:
                continue
            out.append(_stem(word) if word.isascii() else word)
    return out
