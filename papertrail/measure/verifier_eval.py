"""Measures the citation verifier on labelled (claim, chunk, supported) pairs.

``evaluate_pairs`` runs ``judge.judge`` and the seed's word-overlap rule on
the same pairs and reports, for each, the share of wrong citations caught
(overall and per kind of negative), the share of good citations dropped, and
the macro-F1 over the two classes. ``run`` is ``papertrail eval-verifier``:
it loads the bundled embedding model, prints a table per file (and for all
files together) and can write JSON. ``halves`` splits the pairs of a file into
two halves by a stable hash of their claim (all pairs of one claim fall in the
same half), so rules developed on one half can be checked on the other. The
pairs format is one JSON object per line with ``claim``, ``chunk_text``,
``supported`` and ``kind`` (``positive``, ``hard``, ``number``, ``random``);
``id``, ``source`` and ``doc`` are optional. It trains or tunes nothing.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from papertrail.embed.cache import MemoEmbedder
from papertrail.errors import PaperTrailError
from papertrail.measure.verifier_fit import by_source as fit_by_source
from papertrail.measure.verifier_fit import check_table, collect, verdicts
from papertrail.measure.verifier_report import format_by_source, format_checks
from papertrail.protocols import Embedder
from papertrail.verify.checks import unknown
from papertrail.verify.judge import Judgement

SEED_MIN_SHARED = 3  # the seed accepted a chunk sharing 3+ words of 5+ letters with the claim
_ORDER = ["positive", "hard", "number", "random"]


def seed_supports(claim: str, chunk_text: str) -> bool:
    """The original rule: claim and chunk share at least 3 words of 5 or more letters."""
    words = {w for w in claim.lower().split() if len(w) >= 5}
    return len(words & set(chunk_text.lower().split())) >= SEED_MIN_SHARED


def _ours(pairs: list[dict], embedder: Embedder | None, without: Sequence[str] = ()) -> list[bool]:
    """Our verdicts; the in-memory cache embeds each claim and span once, as the bot does."""
    return [j.supported for j in verdicts(collect(pairs, embedder, without), None, without)]


def score(pairs: list[dict], accepted: list[bool]) -> dict:
    """Catch rate, false-drop rate, per kind and per source, and macro-F1."""
    neg, caught, pos, dropped = Counter(), Counter(), Counter(), Counter()
    errors = []
    for p, ok in zip(pairs, accepted, strict=True):
        kind, src = p.get("kind", "negative"), p.get("source", "")
        if p["supported"]:
            pos[kind] += 1
            pos["src:" + src] += 1
            dropped[kind] += not ok
            dropped["src:" + src] += not ok
        else:
            neg[kind] += 1
            neg["src:" + src] += 1
            caught[kind] += not ok
            caught["src:" + src] += not ok
        if ok != p["supported"]:
            errors.append(p.get("id", p["claim"][:60]))
    kinds = [k for k in {**pos, **neg} if not k.startswith("src:")]
    n_pos = sum(pos[k] for k in kinds)
    n_neg = sum(neg[k] for k in kinds)
    n_drop = sum(dropped[k] for k in kinds)
    n_caught = sum(caught[k] for k in kinds)
    per_kind = {}
    for k in sorted(kinds, key=lambda k: (_ORDER.index(k) if k in _ORDER else len(_ORDER), k)):
        if pos[k]:
            per_kind[k] = {"n": pos[k], "false_drop": _rate(dropped[k], pos[k])}
        else:
            per_kind[k] = {"n": neg[k], "catch": _rate(caught[k], neg[k])}
    per_source = {}
    for s in sorted({k[4:] for k in {**pos, **neg} if k.startswith("src:")}):
        per_source[s] = {
            "catch": _rate(caught["src:" + s], neg["src:" + s]),
            "false_drop": _rate(dropped["src:" + s], pos["src:" + s]),
        }
    return {
        "n": len(pairs),
        "catch": _rate(n_caught, n_neg),
        "false_drop": _rate(n_drop, n_pos),
        "macro_f1": _macro_f1(n_pos - n_drop, n_drop, n_caught, n_neg - n_caught),
        "per_kind": per_kind,
        "per_source": per_source,
        "errors": errors,
    }


def _rate(k: int, n: int) -> float:
    return round(k / n, 4) if n else 0.0


def _macro_f1(tp: int, fn: int, tn_: int, fp: int) -> float:
    """Mean F1 of "supported" (accepted positives) and "unsupported" (rejected negatives)."""

    def f1(hit: int, miss: int, false: int) -> float:
        return 2 * hit / (2 * hit + miss + false) if hit else 0.0

    return round((f1(tp, fn, fp) + f1(tn_, fp, fn)) / 2, 4)


def evaluate_pairs(
    pairs: list[dict], *, embedder: Embedder | None, without: Sequence[str] = ()
) -> dict:
    """Both verifiers on ``pairs``: {"ours": {...}, "seed": {...}}."""
    return _both(pairs, _ours(pairs, embedder, without))


def _both(pairs: list[dict], ours: list[bool], levels: list[str] | None = None) -> dict:
    seed = [seed_supports(p["claim"], p["chunk_text"]) for p in pairs]
    out = {"ours": score(pairs, ours), "seed": score(pairs, seed)}
    if levels is not None:
        out["ours"]["levels"] = level_rates(pairs, levels)
    return out


def level_rates(pairs: list[dict], levels: list[str]) -> dict:
    """How sure the checker said it was: the share of wrong citations kept as "verified"
    (the promise broken), and of good ones kept as "verified" (not only "partly")."""
    wrong = [lv for p, lv in zip(pairs, levels, strict=True) if not p["supported"]]
    good = [lv for p, lv in zip(pairs, levels, strict=True) if p["supported"]]
    return {
        "wrong_verified": _rate(wrong.count("verified"), len(wrong)),
        "good_verified": _rate(good.count("verified"), len(good)),
    }


def claim_key(pair: dict) -> str:
    """What the pairs of one claim share: the id without its last part ("item/c1"), or the
    claim with any changed figure's pair grouped by its id when there is no id."""
    pid = str(pair.get("id", ""))
    return pid.rsplit("/", 1)[0] if "/" in pid else pid or pair["claim"]


def half(pair: dict) -> str:
    """ "A" or "B": a stable half of the claims (SHA-256 of the claim key, even or odd)."""
    return "AB"[int(hashlib.sha256(claim_key(pair).encode()).hexdigest(), 16) % 2]


def load_pairs(path: Path) -> list[dict]:
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
        pairs = [json.loads(line) for line in lines if line.strip()]
    except (OSError, ValueError) as e:
        raise PaperTrailError(
            f"Could not read the pairs file {path} ({e}). Give a JSONL file with one "
            "{claim, chunk_text, supported, kind} object per line.",
            code="input",
        ) from None
    bad = [
        i + 1 for i, p in enumerate(pairs) if not {"claim", "chunk_text", "supported"} <= p.keys()
    ]
    if bad:
        raise PaperTrailError(
            f"Lines {bad[:5]} of {path} lack claim, chunk_text or supported.", code="input"
        )
    return pairs


def format_table(result: dict) -> str:
    """The two verifiers side by side, one row per measure."""
    ours, seed = result["ours"], result["seed"]
    rows = [("catch (all negatives)", "catch", None)]
    rows += [
        (f"  catch: {k} (n={v['n']})", "catch", k)
        for k, v in ours["per_kind"].items()
        if "catch" in v
    ]
    rows += [
        (
            f"false drop (n={ours['per_kind'].get('positive', {}).get('n', '?')})",
            "false_drop",
            None,
        ),
        ("macro-F1", "macro_f1", None),
    ]
    out = [f"{'':34} {'ours':>8} {'seed':>8}"]
    for label, key, kind in rows:
        a = ours[key] if kind is None else ours["per_kind"][kind][key]
        b = seed[key] if kind is None else seed["per_kind"][kind][key]
        out.append(f"{label:34} {_fmt(key, a):>8} {_fmt(key, b):>8}")
    if "levels" in ours:
        lv = ours["levels"]
        out.append(
            f"  ours, read as 'verified': wrong {lv['wrong_verified']:.1%}, "
            f"good {lv['good_verified']:.1%} (the rest kept read 'partly supported')"
        )
    for src, v in ours["per_source"].items():
        out.append(f"  ours on {src}: catch {v['catch']:.1%}, false drop {v['false_drop']:.1%}")
    if ours["errors"]:
        out.append("ours got wrong: " + ", ".join(ours["errors"]))
    return "\n".join(out)


def _fmt(key: str, x: float) -> str:
    return f"{x:.3f}" if key == "macro_f1" else f"{x:.1%}"


def format_halves(halves: dict) -> str:
    """One line per half: each kind's rate with its count."""
    out = []
    for name, r in halves.items():
        parts = []
        for kind, v in r["ours"]["per_kind"].items():
            rate = v["catch"] if "catch" in v else v["false_drop"]
            what = "dropped" if "false_drop" in v else "caught"
            parts.append(f"{kind} {what} {rate:.1%} (n={v['n']})")
        out.append(f"  half {name}: " + ", ".join(parts))
    return "\n".join(out)


def run(
    paths: Path | Sequence[Path],
    json_out: Path | None = None,
    *,
    embedder: Embedder | None = None,
    halves: bool = False,
    without: Sequence[str] = (),
    by_source: bool = False,
) -> int:
    """``papertrail eval-verifier PAIRS.jsonl [MORE.jsonl ...] [--halves] [--by-source]
    [--without CHECK ...] [--json OUT]``: print a table per file (and for all together),
    the per-check table, and with ``--by-source`` the leave-one-source-out figures;
    0 on success."""
    paths = [paths] if isinstance(paths, (str, Path)) else list(paths)
    bad = unknown(without)
    if bad is not None:
        raise bad
    without = tuple(without)
    files = {str(p): load_pairs(p) for p in paths}
    if embedder is None:
        from papertrail.embed.model import SentenceTransformerEmbedder

        embedder = SentenceTransformerEmbedder()
    embedder = MemoEmbedder(embedder, max_chars=10_000)
    everything: list[dict] = []
    judged: list[Judgement] = []
    owner: list[str] = []
    reads_all = []
    result: dict = {"files": {}, "without": list(without)}
    for name, pairs in files.items():
        reads = collect(pairs, embedder, without)
        mine = verdicts(reads, None, without)
        ours = [j.supported for j in mine]
        one = _both(pairs, ours, [j.level for j in mine])
        result["files"][name] = one
        print(
            f"{len(pairs)} pairs from {name}"
            + (f" (without {', '.join(without)})" if without else "")
        )
        print(format_table(one))
        if halves:
            split = {h: [i for i, p in enumerate(pairs) if half(p) == h] for h in "AB"}
            one["halves"] = {
                h: _both([pairs[i] for i in idx], [ours[i] for i in idx])
                for h, idx in split.items()
                if idx
            }
            print(format_halves(one["halves"]))
        one["checks"] = check_table(pairs, mine, reads)
        everything += pairs
        judged += mine
        reads_all += reads
        owner += [name] * len(pairs)
    result |= _both(everything, [j.supported for j in judged], [j.level for j in judged])
    result["checks"] = check_table(everything, judged, reads_all)
    if len(files) > 1:
        print(f"all {len(everything)} pairs of {len(files)} files")
        print(format_table(result))
    print(format_checks(result))
    if by_source:
        left_out, _ = fit_by_source(everything, reads_all, without)
        result["by_source"] = {}
        for name in files:
            idx = [i for i, o in enumerate(owner) if o == name]
            sub = [everything[i] for i in idx]
            result["by_source"][name] = score(sub, [left_out[i].supported for i in idx])
            result["by_source"][name]["levels"] = level_rates(sub, [left_out[i].level for i in idx])
        result["by_source_checks"] = check_table(everything, left_out)
        print(format_by_source(result["by_source"]))
    if json_out:
        Path(json_out).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0
