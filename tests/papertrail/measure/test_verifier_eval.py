"""The verifier benchmark: rates per kind, seed rule, table and JSON output."""

import json

import pytest

from papertrail.errors import PaperTrailError
from papertrail.measure.verifier_eval import (
    claim_key,
    evaluate_pairs,
    half,
    run,
    score,
    seed_supports,
)
from tests.fakes import HashEmbedder

CHUNK = (
    "The encoder is composed of a stack of N = 6 identical layers. Each layer has two "
    "sub-layers: multi-head self-attention and a feed-forward network."
)
OTHER = "We used the Adam optimizer with beta1 = 0.9 and beta2 = 0.98 during training."
CLAIM = "The encoder is composed of a stack of 6 identical layers."


def pair(claim, chunk, supported, kind, source="paper"):
    return {"claim": claim, "chunk_text": chunk, "supported": supported, "kind": kind,
            "source": source, "id": f"{kind}-{len(claim)}"}  # fmt: skip


PAIRS = [
    pair(CLAIM, CHUNK, True, "positive"),
    pair(CLAIM.replace("6", "12"), CHUNK, False, "number"),
    pair(CLAIM, OTHER, False, "random"),
    pair("The encoder layers are identical and stacked.", OTHER, False, "hard"),
]


def test_seed_rule_is_three_shared_long_words():
    assert seed_supports("alpha bravo charlie delta", "charlie alpha bravo")  # 3 words of 5+
    assert not seed_supports("alpha bravo charlie", "alpha bravo x")
    assert not seed_supports("a bc def", "a bc def")  # short words do not count


def test_evaluate_pairs_reports_both_verifiers_per_kind():
    result = evaluate_pairs(PAIRS, embedder=HashEmbedder())
    ours, seed = result["ours"], result["seed"]
    assert ours["catch"] == 1.0 and ours["false_drop"] == 0.0 and ours["macro_f1"] == 1.0
    assert ours["per_kind"] == {
        "positive": {"n": 1, "false_drop": 0.0},
        "hard": {"n": 1, "catch": 1.0},
        "number": {"n": 1, "catch": 1.0},
        "random": {"n": 1, "catch": 1.0},
    }
    # The seed cannot see figures: the number-changed claim shares every long word.
    assert seed["per_kind"]["number"]["catch"] == 0.0
    assert seed["errors"] == [PAIRS[1]["id"]]


def test_score_rates_and_macro_f1():
    pairs = [pair("a", "b", True, "positive"), pair("a", "b", True, "positive"),
             pair("a", "b", False, "hard"), pair("a", "b", False, "hard")]  # fmt: skip
    s = score(pairs, [True, False, False, True])
    assert (s["catch"], s["false_drop"]) == (0.5, 0.5)
    assert s["macro_f1"] == 0.5
    assert s["per_source"] == {"paper": {"catch": 0.5, "false_drop": 0.5}}


def test_run_prints_table_and_writes_json(tmp_path, capsys):
    path = tmp_path / "pairs.jsonl"
    path.write_text("".join(json.dumps(p) + "\n" for p in PAIRS), encoding="utf-8")
    out = tmp_path / "out.json"
    assert run(path, json_out=out, embedder=HashEmbedder()) == 0
    printed = capsys.readouterr().out
    assert "catch: number (n=1)" in printed and "false drop" in printed and "macro-F1" in printed
    assert json.loads(out.read_text())["ours"]["catch"] == 1.0


def test_run_rejects_bad_files(tmp_path):
    with pytest.raises(PaperTrailError):
        run(tmp_path / "missing.jsonl", embedder=HashEmbedder())
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"claim": "x"}\n', encoding="utf-8")
    with pytest.raises(PaperTrailError, match="lack claim"):
        run(bad, embedder=HashEmbedder())


def test_halves_keep_each_claims_pairs_together_and_are_stable():
    ids = [f"doc-{i}/c1/{k}" for i in range(40) for k in ("positive", "hard", "random")]
    pairs = [{"id": i, "claim": "x"} for i in ids]
    by_claim = {}
    for p in pairs:
        by_claim.setdefault(claim_key(p), set()).add(half(p))
    assert all(len(h) == 1 for h in by_claim.values())  # one claim, one half
    counts = [sum(half(p) == h for p in pairs) for h in "AB"]
    assert min(counts) > 0.25 * len(pairs)  # both halves hold a fair share
    assert half({"id": "doc-3/c1/hard"}) == half({"id": "doc-3/c1/positive"})


def test_run_scores_several_files_with_halves(tmp_path, capsys):
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    first.write_text("".join(json.dumps(p) + "\n" for p in PAIRS[:2]), encoding="utf-8")
    second.write_text("".join(json.dumps(p) + "\n" for p in PAIRS[2:]), encoding="utf-8")
    out = tmp_path / "out.json"
    assert run([first, second], json_out=out, embedder=HashEmbedder(), halves=True) == 0
    printed = capsys.readouterr().out
    assert f"2 pairs from {first}" in printed and "all 4 pairs of 2 files" in printed
    assert "half " in printed
    result = json.loads(out.read_text())
    assert set(result["files"]) == {str(first), str(second)}
    assert result["ours"]["per_kind"]["hard"] == {"n": 1, "catch": 1.0}
    halves = result["files"][str(first)]["halves"]
    assert sum(h["ours"]["n"] for h in halves.values()) == 2


def test_run_without_a_check_and_the_per_check_table(tmp_path, capsys):
    path = tmp_path / "pairs.jsonl"
    path.write_text("\n".join(json.dumps(p) for p in PAIRS) + "\n", encoding="utf-8")
    out = tmp_path / "scores.json"
    assert run(path, json_out=out, embedder=HashEmbedder()) == 0
    table = capsys.readouterr().out
    assert "checks: wrong citations caught / good citations dropped" in table
    row = next(line for line in table.splitlines() if line.startswith("figures"))
    assert row.split()[1:4] == ["hard", "2/0", "2/0"]  # the changed figure and the other excerpt
    assert json.loads(out.read_text())["checks"]["figures"]["caught"] == 2
    assert run(path, json_out=out, embedder=HashEmbedder(), without=["figures"]) == 0
    result = json.loads(out.read_text())
    assert result["without"] == ["figures"] and result["checks"]["figures"]["caught"] == 0
    with pytest.raises(PaperTrailError, match="No check named"):
        run(path, embedder=HashEmbedder(), without=["nonsense"])


def test_by_source_fits_without_each_source_and_names_the_worst(tmp_path, capsys):
    pairs = [dict(p, source=s, id=f"{s}/{p['id']}") for s in ("paper", "report") for p in PAIRS]
    path = tmp_path / "pairs.jsonl"
    path.write_text("\n".join(json.dumps(p) for p in pairs) + "\n", encoding="utf-8")
    out = tmp_path / "scores.json"
    assert run(path, json_out=out, embedder=HashEmbedder(), by_source=True) == 0
    printed = capsys.readouterr().out
    assert "left out paper:" in printed and "left out report:" in printed
    assert "worst source:" in printed
    scored = json.loads(out.read_text())["by_source"][str(path)]
    assert set(scored["per_source"]) == {"paper", "report"}
