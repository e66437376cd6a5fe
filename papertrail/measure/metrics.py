"""Scoring functions for ``papertrail eval``: retrieval ranks and answer correctness.

Pure functions over plain values, so they are easy to test and to trust.
Loading data, running the pipeline and printing tables live in
``evaluate.py``.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence

DEPTH = 10  # retrieval depth scored (hit@10, mrr@10)
_NUM = re.compile(r"(?<![\w.])[-−]?\(?\$?\d[\d,]*(?:\.\d+)?%?")
_TOKEN = re.compile(r"\w+")
_STOP = frozenset(
    "a an the of in on at to for and or is are was were be by with as from that this it its "
    "their which what how much many".split()
)


def first_relevant_rank(relevant: Sequence[bool]) -> int | None:
    """1-based rank of the first relevant result, or None."""
    for i, ok in enumerate(relevant, 1):
        if ok:
            return i
    return None


def relevant(item, doc_name: str, page: int) -> bool:
    """Whether a passage of ``doc_name`` on ``page`` is evidence for ``item`` (an
    ``evaluate.Item``: its gold documents and evidence pages)."""
    return doc_name in item.gold_docs and page in item.evidence_pages


def retrieval_record(item, ranked: list[tuple[str, int]]) -> dict:
    """Ranks of the first evidence-page chunk and of the first gold-document chunk,
    and the top 5 (document, page) pairs, so that a miss can be read."""
    rank = first_relevant_rank([relevant(item, d, p) for d, p in ranked])
    doc_rank = first_relevant_rank([d in item.gold_docs for d, _ in ranked])
    top = [{"doc": d, "page": p} for d, p in ranked[:5]]
    return {"rank": rank, "doc_rank": doc_rank, "top": top}


def hit_at(rank: int | None, k: int) -> float:
    return 1.0 if rank is not None and rank <= k else 0.0


def reciprocal_rank(rank: int | None, k: int = 10) -> float:
    return 1.0 / rank if rank is not None and rank <= k else 0.0


def numbers(text: str) -> list[float]:
    """Numbers in ``text`` as floats: 1,577 -> 1577; (12.5) -> -12.5; 24.26% -> 24.26."""
    out = []
    for m in _NUM.findall(unicodedata.normalize("NFKC", text)):
        neg = m.startswith(("-", "−", "(")) and not m.startswith("($")
        digits = re.sub(r"[^\d.]", "", m)
        if not digits or digits == ".":
            continue
        try:
            value = float(digits)
        except ValueError:
            continue
        out.append(-value if neg else value)
    return out


def numbers_match(reference: str, candidate: str, *, rel_tol: float = 0.02) -> bool | None:
    """True if the reference's main figure appears in the candidate within ``rel_tol``.

    Also accepts the figure scaled by thousands or millions (answers say
    "$1.6 billion" where the reference says 1577 million) and percent vs
    fraction. None when the reference has no figure to compare.
    """
    ref = [n for n in numbers(reference) if not _is_year(n)]
    if not ref:
        return None
    target = ref[0]
    for value in numbers(candidate):
        for scale in (1, 1e3, 1e-3, 1e6, 1e-6, 1e9, 1e-9, 100, 0.01):
            v = value * scale
            if target == 0:
                if abs(v) < 1e-9:
                    return True
            elif abs(v - target) <= rel_tol * abs(target):
                return True
    return False


def _is_year(n: float) -> bool:
    return float(n).is_integer() and 1900 <= n <= 2100


def tokens(text: str) -> list[str]:
    text = unicodedata.normalize("NFKC", text).lower()
    return [t for t in _TOKEN.findall(text) if t not in _STOP]


def token_f1(reference: str, candidate: str) -> float:
    ref, cand = Counter(tokens(reference)), Counter(tokens(candidate))
    common = sum((ref & cand).values())
    if not common:
        return 0.0
    precision = common / sum(cand.values())
    recall = common / sum(ref.values())
    return 2 * precision * recall / (precision + recall)


_MARKER = re.compile(r"\[\s*\d+(?:\s*[-\u2013,;]\s*\d+)*\s*\]")


def stated_figures(candidate: str, question: str = "") -> list[float]:
    """The distinct figures an answer states: citation markers, years and the figures
    the question itself gives ("in 2017", "1/sqrt(dk)") left out."""
    asked = numbers(question)
    out: list[float] = []
    for value in numbers(_MARKER.sub(" ", candidate)):
        if _is_year(value) or value in asked or value in out:
            continue
        out.append(value)
    return out


def correctness(reference: str, candidate: str, question: str = "") -> tuple[float, str]:
    """(score in [0, 1], method): a figure when the reference has one, else token F1.

    A numeric answer scores only through the asked figure, not through any number
    in it: 1 / (1 + k) when the answer states the reference's figure and k other
    figures the reference does not have (``stated_figures``), so a dump of rows
    that happens to hold the figure earns a fraction, and a wrong figure nothing.
    When the reference's figure is the question's own ("scaled by 1/sqrt(dk)"),
    the answer is scored by words.
    """
    wanted = [n for n in numbers(reference) if not _is_year(n)]
    if wanted and wanted[0] not in numbers(question):  # else the figure is no answer
        stated = stated_figures(candidate, question)
        if not numbers_match(reference, " ".join(f"{v:g}" for v in stated)):
            return 0.0, "number"
        others = [v for v in stated if not numbers_match(f"{v:g}", " ".join(map(str, wanted)))]
        return 1.0 / (1 + len(others)), "number"
    return token_f1(reference, candidate), "f1"


def recall(reference: str, candidate: str) -> float:
    """Share of the reference's words (stopwords aside) that the candidate has."""
    ref, cand = Counter(tokens(reference)), Counter(tokens(candidate))
    total = sum(ref.values())
    return sum((ref & cand).values()) / total if total else 1.0


def is_wrong(reference: str, candidate: str, question: str = "") -> bool:
    """An answer that does not give the reference: for a figure, scoring below 0.5 (the
    figure missing, or one of three or more); otherwise holding under half of the
    reference's words (F1 would call a right but wordy answer wrong)."""
    score, how = correctness(reference, candidate, question)
    return score < 0.5 if how == "number" else recall(reference, candidate) < 0.5


def mean(values: Iterable[float]) -> float | None:
    values = list(values)
    return sum(values) / len(values) if values else None


def summarise(records: list[dict], multi_doc: bool) -> dict:
    """hit@k over items with gold pages; doc_hit@k over items with gold documents, and
    hit@5 among the items whose gold document is in the top 5 (``hit@5|doc``);
    for answers, over answerable questions: answered (not refused), grounded (answered
    with a verified citation; a refusal is not), refused, answered-verified-and-wrong,
    and correctness (a refusal scores 0).

    An item whose gold documents are known but not its pages still counts at
    document level (``doc_scored``), so doc_hit is never n/a for such a set.
    """
    ok = [r for r in records if "error" not in r]
    scored = [r for r in ok if r.get("scored")]
    m: dict[str, float | None] = {}
    for k in (1, 3, 5, 10):
        m[f"hit@{k}"] = mean(hit_at(r["rank"], k) for r in scored)
    m["mrr@10"] = mean(reciprocal_rank(r["rank"], DEPTH) for r in scored)
    if multi_doc:
        by_doc = [r for r in ok if r.get("doc_scored", r.get("scored"))]
        for k in (1, 5, 10):
            m[f"doc_hit@{k}"] = mean(hit_at(r["doc_rank"], k) for r in by_doc)
        m["hit@5|doc"] = hit_given_doc(scored, 5)
    answered = [r for r in records if "answer" in r and "error" not in r]
    if answered:
        cites = [c for r in answered for c in r["citation_on_evidence"]]
        m["citations_on_evidence"] = mean(1.0 if c else 0.0 for c in cites)
        ans = [r for r in answered if r["answerable"]]
        # refusals apart: "grounded" counts answers that say something and kept a citation
        m["answered_rate"] = mean(0.0 if r["refusal"] else 1.0 for r in ans)
        m["grounded_rate"] = mean(1.0 if r["grounded"] and not r["refusal"] else 0.0 for r in ans)
        m["false_refusal_rate"] = mean(1.0 if r["refusal"] else 0.0 for r in ans)
        m["verified_wrong_rate"] = mean(1.0 if _verified_wrong(r) else 0.0 for r in ans)
        unans = [r for r in answered if not r["answerable"]]
        m["refusal_accuracy"] = mean(1.0 if r["refusal"] else 0.0 for r in unans)
        m["correctness"] = mean(0.0 if r["refusal"] else r["correctness"] for r in ans)
    m["failed"] = float(sum(1 for r in records if "error" in r))
    return m


def per_source(records: list[dict], multi_doc: bool) -> dict[str, dict]:
    """The metrics of each source's questions (the ``source`` before any "/": the corpus
    a question comes from, not its kind of document), sources in name order."""
    groups: dict[str, list[dict]] = {}
    for rec in records:
        groups.setdefault(rec["source"].split("/")[0] or "(none)", []).append(rec)
    return {name: summarise(groups[name], multi_doc) for name in sorted(groups)}


def hit_given_doc(records: list[dict], k: int) -> float | None:
    """hit@k over the questions whose gold document is in the top k (``doc_rank``): how
    well passages are ranked once the right document is found, apart from finding it."""
    found = [r for r in records if hit_at(r.get("doc_rank"), k)]
    return mean(hit_at(r["rank"], k) for r in found)


def _verified_wrong(r: dict) -> bool:
    """Answered (not refused), with a verified citation, and wrong: the worst kind."""
    return not r["refusal"] and r["grounded"] and bool(r.get("wrong", False))
