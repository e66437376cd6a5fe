"""``papertrail eval`` on a tiny QA set built in the test (never the corpus)."""

from __future__ import annotations

import argparse
import importlib.util
import json
from pathlib import Path

import pytest

from papertrail.answer.budget import TokenBudget
from papertrail.answer.extractive import ExtractiveGenerator
from papertrail.answer.llm import GroqGenerator, OpenAICompatibleGenerator
from papertrail.errors import PaperTrailError
from papertrail.measure.evaluate import load_items, run_eval
from papertrail.pipeline import PaperTrail
from papertrail.settings import Settings
from papertrail.store.chroma import ChromaStore
from tests import pdfs
from tests.fake_openai import FakeOpenAI, completion, server_error
from tests.fakes import HashEmbedder


def write_set(tmp_path) -> tuple:
    (tmp_path / "paper.pdf").write_bytes(pdfs.paper_pdf())
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "paper.pdf").write_bytes((tmp_path / "paper.pdf").read_bytes())
    (folder / "numbers.pdf").write_bytes(pdfs.numbers_pdf())
    items = [
        {
            "id": "q1",
            "doc": "paper.pdf",
            "question": "How many identical layers in the encoder?",
            "answer": "6",
            "evidence_pages": [2],
            "answerable": True,
        },
        {
            "id": "q2",
            "doc": "paper.pdf",
            "question": "What BLEU on English-to-German?",
            "answer": "28.4 BLEU",
            "evidence_pages": [1, 4],  # the abstract states it too
            "answerable": True,
        },
        {
            "id": "q3",
            "doc": "docs/",
            "question": "What BLEU on English-to-French?",
            "answer": "41.0",
            "evidence_pages": [1, 4],  # the abstract states it too
            "answerable": True,
            "meta": {"gold_docs": ["paper.pdf"]},
        },
    ]
    data = tmp_path / "qa.jsonl"
    data.write_text("\n".join(json.dumps(i) for i in items) + "\n")
    return data, items


def args(data, out, mode="retrieval", **kw) -> argparse.Namespace:
    base = {"data": data, "k": 5, "mode": mode, "json_out": out, "limit": None, "ablation": False}
    return argparse.Namespace(**{**base, **kw})


def pipeline(tmp_path, generator=None) -> PaperTrail:
    embedder = HashEmbedder()
    return PaperTrail(
        Settings(data_dir=tmp_path / "idx"),
        embedder=embedder,
        store=ChromaStore.ephemeral(model=embedder.name),
        generator=generator,
    )


def test_items_resolve_docs_and_gold_files(tmp_path):
    data, _ = write_set(tmp_path)
    items = load_items(data)
    assert items[0].doc == (tmp_path / "paper.pdf").resolve()
    assert items[0].gold_docs == ("paper.pdf",)
    assert items[2].doc.is_dir() and items[2].gold_docs == ("paper.pdf",)


def test_retrieval_metrics_json_schema_and_ablation(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PAPERTRAIL_EVAL_DIR", str(tmp_path / "cache"))
    data, _ = write_set(tmp_path)
    out = tmp_path / "out.json"
    assert run_eval(args(data, out, ablation=True), Settings(), pipeline=pipeline(tmp_path)) == 0
    result = json.loads(out.read_text())
    assert result["n"] == 3 and len(result["items"]) == 3
    m = result["metrics"]
    assert set(m) >= {"hit@1", "hit@5", "hit@10", "mrr@10", "doc_hit@5"}
    assert m["hit@5"] == 1.0  # every answer is on a page these tiny documents make easy
    assert {"dense only", "bm25 only"} <= set(result["ablation"])
    assert "ours (hybrid)" in capsys.readouterr().out


def test_extractive_mode_scores_answers(tmp_path, monkeypatch):
    monkeypatch.setenv("PAPERTRAIL_EVAL_DIR", str(tmp_path / "cache"))
    data, _ = write_set(tmp_path)
    out = tmp_path / "out.json"
    run_eval(args(data, out, mode="extractive"), Settings(), pipeline=pipeline(tmp_path))
    m = json.loads(out.read_text())["metrics"]
    assert m["grounded_rate"] == 1.0 and m["failed"] == 0
    assert 0.0 <= m["correctness"] <= 1.0 and m["citations_on_evidence"] > 0.5


def test_groq_mode_reports_failures_and_resumes(tmp_path, monkeypatch):
    monkeypatch.setenv("PAPERTRAIL_EVAL_DIR", str(tmp_path / "cache"))
    data, _ = write_set(tmp_path)
    out = tmp_path / "out.json"
    with FakeOpenAI(default=completion("The encoder has N = 6 identical layers [1].")) as fake:
        settings = Settings(
            data_dir=tmp_path / "idx",
            groq_api_key="gsk_test",
            groq_base_url=fake.url,
            llm_retries=0,
            llm_timeout=2,
        )
        embedder = HashEmbedder()

        def groq_pipeline():
            fallback = ExtractiveGenerator(embedder)
            gen = GroqGenerator(settings, fallback=fallback, budget=TokenBudget(None, 0))
            return PaperTrail(
                settings,
                embedder=embedder,
                generator=gen,
                store=ChromaStore.ephemeral(model=embedder.name),
            )

        fake.script(server_error(500))  # the first question fails: reported, not hidden
        run_eval(args(data, out, mode="groq"), settings, pipeline=groq_pipeline())
        first = json.loads(out.read_text())
        failed = [r for r in first["items"] if "error" in r]
        assert len(failed) == 1 and "provider unavailable" in failed[0]["error"]
        assert first["metrics"]["failed"] == 1.0
        asked = len(fake.requests)

        run_eval(args(data, out, mode="groq"), settings, pipeline=groq_pipeline())
        second = json.loads(out.read_text())
        assert second["metrics"]["failed"] == 0.0
        assert len(fake.requests) == asked + 1  # only the failed item was asked again


def test_gold_documents_without_pages_score_doc_hit_and_several_files_run_at_once(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.setenv("PAPERTRAIL_EVAL_DIR", str(tmp_path / "cache"))
    data, items = write_set(tmp_path)
    pageless = tmp_path / "channel.jsonl"
    doc_only = {**items[2], "id": "q4", "evidence_pages": []}  # gold file, no gold page
    pageless.write_text(json.dumps(doc_only) + "\n")
    out = tmp_path / "out.json"
    run_eval(args([data, pageless], out), Settings(), pipeline=pipeline(tmp_path))
    result = json.loads(out.read_text())["datasets"]
    m = result[f"{tmp_path.name}/channel.jsonl"]["metrics"]
    assert m["hit@5"] is None and m["doc_hit@5"] == 1.0  # scored at document level
    rec = result[f"{tmp_path.name}/qa.jsonl"]["items"][0]
    assert rec["rank"] is not None and rec["top"][0] == {"doc": "paper.pdf", "page": 2}
    assert "every data file" in capsys.readouterr().out


def test_llm_mode_on_a_local_server_without_a_key_keeps_refusals_apart(tmp_path, monkeypatch):
    monkeypatch.setenv("PAPERTRAIL_EVAL_DIR", str(tmp_path / "cache"))
    data, _ = write_set(tmp_path)
    out = tmp_path / "out.json"
    refusal = "The excerpts do not mention that."
    with FakeOpenAI(default=completion(refusal, model="local-q4")) as fake:
        fake.script(completion("The encoder is composed of a stack of N = 6 identical layers."))
        settings = Settings(
            data_dir=tmp_path / "idx", llm_base_url=fake.v1_url, llm_model="local", llm_retries=0
        )
        embedder = HashEmbedder()
        gen = OpenAICompatibleGenerator(
            settings, fallback=ExtractiveGenerator(embedder), budget=TokenBudget(None, 0)
        )
        store = ChromaStore.ephemeral(model=embedder.name)
        pt = PaperTrail(settings, embedder=embedder, generator=gen, store=store)
        run_eval(args(data, out, mode="llm"), settings, pipeline=pt)
        assert all("authorization" not in r.headers for r in fake.requests)
    result = json.loads(out.read_text())
    m = result["metrics"]
    assert m["failed"] == 0.0 and m["answered_rate"] == 1 / 3
    assert m["false_refusal_rate"] == 2 / 3
    assert m["grounded_rate"] == 1 / 3  # the two refusals are not "grounded answers"
    assert m["correctness"] == 1 / 3 and m["verified_wrong_rate"] == 0.0
    assert {r["mode"] for r in result["items"]} == {"local-q4", "llama-3.3-70b-versatile"}


def test_llm_mode_without_any_server_says_what_to_set(tmp_path, monkeypatch):
    monkeypatch.setenv("PAPERTRAIL_EVAL_DIR", str(tmp_path / "cache"))
    data, _ = write_set(tmp_path)
    try:
        run_eval(args(data, None, mode="llm"), Settings(data_dir=tmp_path / "idx"))
    except PaperTrailError as e:
        assert "PAPERTRAIL_LLM_BASE_URL" in e.message and "GROQ_API_KEY" in e.message
    else:
        raise AssertionError("no error")


def test_opaque_names_ingest_neutral_names_and_score_against_the_real_ones(tmp_path, monkeypatch):
    monkeypatch.setenv("PAPERTRAIL_EVAL_DIR", str(tmp_path / "cache"))
    data, _ = write_set(tmp_path)
    out = tmp_path / "out.json"
    pt = pipeline(tmp_path)
    run_eval(args(data, out, opaque_names=True), Settings(), pipeline=pt)
    channel = json.loads(out.read_text())["items"][2]
    assert channel["doc_rank"] == 1 and channel["top"][0]["doc"] == "paper.pdf"  # mapped back
    stored = {d.name for ch in ("docs", "paper") for d in _documents(pt, tmp_path, ch)}
    assert stored == {"document-01.pdf", "document-02.pdf"}  # what the pipeline saw


def _documents(pt, tmp_path, name):
    from papertrail.measure.channels import channel_of

    doc = tmp_path / ("docs" if name == "docs" else "paper.pdf")
    return pt.store.documents(channel_of(doc.resolve(), opaque=True))


def test_each_rule_is_counted_and_without_switches_one_off(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PAPERTRAIL_EVAL_DIR", str(tmp_path / "cache"))
    data, _ = write_set(tmp_path)
    out = tmp_path / "out.json"
    run_eval(args(data, out, mode="extractive"), Settings(), pipeline=pipeline(tmp_path))
    with_all = capsys.readouterr().out
    items = json.loads(out.read_text())["items"]
    assert {i["by"] for i in items} == {"quote"} and all(i["source"] == "" for i in items)
    assert "answerers, " in with_all
    assert "\nquote " in with_all
    # the same set with the quoting rule switched off: nothing answers, and it says so
    embedder = HashEmbedder()
    settings = Settings(data_dir=tmp_path / "idx2", without=("quote",))
    off = PaperTrail(settings, embedder=embedder, store=ChromaStore.ephemeral(model=embedder.name))
    run_eval(args(data, out, mode="extractive"), settings, pipeline=off)
    without = capsys.readouterr().out
    assert {i["by"] for i in json.loads(out.read_text())["items"]} == {""}
    assert "\nquote " not in without and "\nrefused " in without


def test_without_is_repeatable_on_the_command_line():
    from papertrail.cli.main import build_parser

    parsed = build_parser().parse_args(
        ["eval", "qa.jsonl", "--mode", "extractive", "--without", "quote", "--without", "lookup"]
    )
    assert parsed.without == ["quote", "lookup"]


def test_sets_asked_of_one_channel_are_scored_together_and_per_source(
    tmp_path, monkeypatch, capsys
):
    """``scripts/mixed_channel.py`` asks several sets' questions of one channel holding
    all their documents (links, not copies); eval scores the whole and each source."""
    script = Path(__file__).parents[3] / "scripts" / "mixed_channel.py"
    spec = importlib.util.spec_from_file_location("mixed_channel", script)
    mixed = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mixed)
    monkeypatch.setenv("PAPERTRAIL_EVAL_DIR", str(tmp_path / "cache"))
    data, items = write_set(tmp_path)
    other = tmp_path / "numbers.jsonl"
    (tmp_path / "numbers.pdf").write_bytes(pdfs.numbers_pdf())
    asked = {"id": "n1", "doc": "numbers.pdf", "question": "What were the sales?", "answer": "x"}
    other.write_text(json.dumps({**asked, "evidence_pages": [1], "source": "ledger"}) + "\n")
    papers = tmp_path / "papers.jsonl"
    papers.write_text("".join(json.dumps({**i, "source": "papers"}) + "\n" for i in items[:2]))

    assert mixed.build(tmp_path / "mixed", [papers, other]) == (2, 3)
    links = sorted((tmp_path / "mixed" / "pdfs").iterdir())
    assert [p.name for p in links] == ["numbers.pdf", "paper.pdf"]
    assert all(p.is_symlink() for p in links)
    out = tmp_path / "out.json"
    run_eval(args(tmp_path / "mixed" / "qa.jsonl", out), Settings(), pipeline=pipeline(tmp_path))
    result = json.loads(out.read_text())
    assert result["n"] == 3 and set(result["by_source"]) == {"ledger", "papers"}
    assert result["by_source"]["papers"]["doc_hit@5"] == 1.0  # gold: each question's own file
    assert "per source" in capsys.readouterr().out
    with pytest.raises(SystemExit, match="is in an earlier file too"):
        mixed.build(tmp_path / "again", [papers, papers])
