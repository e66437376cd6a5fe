"""The papertrail command: answers, files written, one-line errors and exit codes."""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import sys
from pathlib import Path

import pytest

from papertrail.cli import main
from papertrail.cli.main import build_parser
from papertrail.pipeline import PaperTrail
from papertrail.settings import Settings
from papertrail.store.chroma import ChromaStore
from tests import pdfs
from tests.fakes import HashEmbedder


@pytest.fixture
def pt(tmp_path):
    embedder = HashEmbedder()
    return PaperTrail(
        Settings(data_dir=tmp_path / "data"),
        embedder=embedder,
        store=ChromaStore.ephemeral(model=embedder.name),
    )


def test_ask_prints_verified_answer_and_writes_pngs(tmp_path, pt, capsys):
    pdf = tmp_path / "paper.pdf"
    pdf.write_bytes(pdfs.paper_pdf())
    out = tmp_path / "out"
    code = main(
        ["ask", str(pdf), "How many identical layers does the encoder have?", "--out", str(out)],
        pipeline=pt,
    )
    printed = capsys.readouterr()
    assert code == 0
    assert "[1] verified  paper.pdf, page 2" in printed.out
    assert "mode: extractive" in printed.out
    pngs = sorted(out.glob("citation-*.png"))
    assert pngs and pngs[0].read_bytes()[:4] == b"\x89PNG"
    assert f"image: {pngs[0]}" in printed.out


def test_pictures_of_two_answers_citing_one_page_do_not_overwrite_each_other(tmp_path, pt, capsys):
    pdf = tmp_path / "paper.pdf"
    pdf.write_bytes(pdfs.paper_pdf())
    out = tmp_path / "out"
    answers = []  # per answer: image path -> the bytes it wrote
    for q in ["What BLEU on English-to-German?", "What BLEU on English-to-French?"]:
        main(["ask", str(pdf), q, "--out", str(out)], pipeline=pt)
        lines = capsys.readouterr().out.splitlines()
        paths = [line[len("image: ") :] for line in lines if line.startswith("image: ")]
        answers.append({p: Path(p).read_bytes() for p in paths})
    first, second = answers
    pages = [p.split("-p")[1].split("-")[0] for p in [*first, *second]]
    assert first and second and len(set(pages)) < len(pages)  # they cite one page
    assert not set(first) & set(second)  # under names of their own
    for path, png in (first | second).items():  # each still as its answer wrote it
        assert Path(path).read_bytes() == png


def test_ask_json_lists_citations_with_boxes(tmp_path, pt, capsys):
    pdf = tmp_path / "paper.pdf"
    pdf.write_bytes(pdfs.paper_pdf())
    main(
        ["ask", str(pdf), "What BLEU on English-to-German?", "--json", "--out", str(tmp_path)],
        pipeline=pt,
    )
    result = json.loads(capsys.readouterr().out)
    assert result["grounded"] and result["citations"]
    first = result["citations"][0]
    assert first["boxes"] and isinstance(first["page"], int) and "BLEU" in first["sentence"]


def test_errors_are_one_line_with_exit_code_2(tmp_path, pt, capsys):
    locked = tmp_path / "locked.pdf"
    locked.write_bytes(pdfs.encrypted_pdf("secret"))
    assert main(["ask", str(locked), "anything?"], pipeline=pt) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("papertrail: ") and "password" in err
    assert main(["ask", str(locked), "anything?", "--password", "secret"], pipeline=pt) == 0
    assert main(["ask", str(tmp_path / "missing.pdf"), "q?"], pipeline=pt) == 2
    assert "Cannot read" in capsys.readouterr().err


def test_ingest_docs_forget(tmp_path, pt, capsys):
    pdf = tmp_path / "numbers.pdf"
    pdf.write_bytes(pdfs.numbers_pdf())
    assert main(["ingest", str(pdf)], pipeline=pt) == 0
    assert main(["docs"], pipeline=pt) == 0
    assert "numbers.pdf" in capsys.readouterr().out
    assert main(["forget", "numbers.pdf"], pipeline=pt) == 0
    assert main(["forget", "numbers.pdf"], pipeline=pt) == 2
    assert main(["docs", "--channel", "other"], pipeline=pt) == 0
    assert "no documents" in capsys.readouterr().out


def test_malformed_setting_is_one_line(monkeypatch, capsys):
    monkeypatch.setenv("PAPERTRAIL_TOP_K", "lots")
    assert main(["docs"]) == 2
    assert "PAPERTRAIL_TOP_K" in capsys.readouterr().err


def _ingested(tmp_path, pt, *makers) -> list:
    paths = []
    for make in makers:
        path = tmp_path / f"{make.__name__.removesuffix('_pdf')}.pdf"
        path.write_bytes(make())
        paths.append(path)
    assert main(["ingest", *map(str, paths)], pipeline=pt) == 0
    return paths


def test_docs_json_is_one_json_document(tmp_path, pt, capsys):
    _ingested(tmp_path, pt, pdfs.numbers_pdf)
    capsys.readouterr()
    assert main(["docs", "--json"], pipeline=pt) == 0
    docs = json.loads(capsys.readouterr().out)  # the whole of stdout: no table after it
    assert [d["name"] for d in docs] == ["numbers.pdf"]
    assert main(["docs", "--json", "--channel", "empty"], pipeline=pt) == 0
    assert json.loads(capsys.readouterr().out) == []


def test_forget_json_is_one_json_document(tmp_path, pt, capsys):
    _ingested(tmp_path, pt, pdfs.numbers_pdf, pdfs.paper_pdf)
    capsys.readouterr()
    assert main(["forget", "all", "--json"], pipeline=pt) == 0
    gone = json.loads(capsys.readouterr().out)
    assert sorted(d["name"] for d in gone) == ["numbers.pdf", "paper.pdf"]
    assert all(len(d["sha256"]) == 64 for d in gone)
    assert main(["forget", "all", "--json"], pipeline=pt) == 2
    printed = capsys.readouterr()
    assert printed.out == "" and "no document matches" in printed.err


def test_ingest_json_of_several_files_is_one_json_document(tmp_path, pt, capsys):
    numbers = tmp_path / "numbers.pdf"
    numbers.write_bytes(pdfs.numbers_pdf())
    paper = tmp_path / "paper.pdf"
    paper.write_bytes(pdfs.paper_pdf())
    assert main(["ingest", str(numbers), str(paper), "--json"], pipeline=pt) == 0
    results = json.loads(capsys.readouterr().out)
    assert [(r["name"], r["new"]) for r in results] == [("numbers.pdf", True), ("paper.pdf", True)]
    assert all(r["embedded"] == r["chunks"] > 0 for r in results)


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    raise AssertionError("no subcommands")


def test_every_option_and_argument_of_every_command_has_help():
    parser = build_parser()
    missing = []
    for name, sub in [("papertrail", parser), *_subparsers(parser).items()]:
        for action in sub._actions:
            if isinstance(action, argparse._SubParsersAction):
                continue
            if not action.help or action.help == argparse.SUPPRESS:
                missing.append(f"{name} {action.dest}")
    assert missing == []
    assert set(_subparsers(parser)) == {  # every subcommand is still there
        *("ask", "ingest", "list", "docs", "forget", "reindex", "help", "demo", "export-model"),
        *("eval", "eval-verifier", "check", "bench", "feedback"),
    }


def test_help_states_the_exit_codes_and_what_check_returns(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0
    top = " ".join(capsys.readouterr().out.split())
    assert "0 done (or stopped by SIGTERM); 2 a user or configuration error" in top
    assert "1 a bug" in top
    with pytest.raises(SystemExit):
        main(["check", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "1 when any file crashed, timed out" in text
    assert "0 when every file passed" in text and "2 when the folder is missing" in text


def test_reads_dotenv_and_the_environment_wins(tmp_path, pt, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PAPERTRAIL_TOP_K", raising=False)
    (tmp_path / ".env").write_text("PAPERTRAIL_TOP_K=lots\n")
    assert main(["docs"], pipeline=pt) == 2  # the .env value was read
    assert "PAPERTRAIL_TOP_K" in capsys.readouterr().err
    monkeypatch.setenv("PAPERTRAIL_TOP_K", "3")
    assert main(["docs"], pipeline=pt) == 0  # the environment wins over .env
    other = tmp_path / "other.env"
    other.write_text("PAPERTRAIL_CHUNK_SIZE=big\n")
    assert main(["--env-file", str(other), "docs"], pipeline=pt) == 2
    assert "PAPERTRAIL_CHUNK_SIZE" in capsys.readouterr().err


class BrokenPipeline:
    """A pipeline with a bug: listing documents raises something unexpected."""

    def documents(self, channel: str):
        raise RuntimeError("boom\nsecond line")


def test_a_bug_is_one_line_with_exit_code_1(monkeypatch, capsys):
    monkeypatch.delenv("PAPERTRAIL_DEBUG", raising=False)
    assert main(["docs"], pipeline=BrokenPipeline()) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("papertrail: ")
    assert "RuntimeError: boom second line" in err and "PAPERTRAIL_DEBUG=1" in err
    monkeypatch.setenv("PAPERTRAIL_DEBUG", "1")
    with pytest.raises(RuntimeError, match="boom"):
        main(["docs"], pipeline=BrokenPipeline())


class Terminal(io.StringIO):
    """stderr as a terminal: the progress bar draws only there."""

    def isatty(self) -> bool:
        return True


def test_eval_shows_progress_on_a_terminal(tmp_path, pt, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PAPERTRAIL_EVAL_DIR", str(tmp_path / "cache"))
    (tmp_path / "paper.pdf").write_bytes(pdfs.paper_pdf())
    questions = ["How many identical layers in the encoder?", "What BLEU on English-to-German?"]
    lines = [{"id": f"q{i}", "doc": "paper.pdf", "question": q} for i, q in enumerate(questions)]
    data = tmp_path / "qa.jsonl"
    data.write_text("".join(json.dumps(line) + "\n" for line in lines))
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(["eval", str(data)], pipeline=pt) == 0
    drawn = terminal.getvalue()
    assert "eval qa.jsonl" in drawn and "1/2 questions" in drawn
    assert drawn.endswith("\r") and drawn.split("\r")[-2].strip() == ""  # erased when done
    assert "hit@1" in capsys.readouterr().out


@pytest.mark.model
def test_export_model_leaves_the_onnx_file_in_the_model_cache(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PAPERTRAIL_MODEL_CACHE", str(tmp_path / "cache"))
    assert main(["--env-file", os.devnull, "export-model"]) == 0
    out = capsys.readouterr().out
    assert "runs on openvino" in out or "runs on onnx" in out  # not torch: the export loaded
    assert len(list((tmp_path / "cache").glob("*.onnx"))) == 1  # what a later start loads
    if "openvino bf16" in out:  # and the float16 copy the bfloat16 passes compile from
        assert len(list((tmp_path / "cache").glob("*.f16.xml"))) == 1


def test_help_is_a_command_too(capsys):
    assert main(["help"]) == 0
    out = capsys.readouterr().out
    assert all(word in out for word in ("ask", "list", "forget", "help"))


def test_the_demos_verifier_lines_use_the_numbers_the_text_shows(pt, capsys):
    from papertrail.cli.demo import CHANNEL, _show_verifier
    from papertrail.cli.sample import sample_report

    doc = pt.ingest(CHANNEL, "sample-report.pdf", sample_report()).document
    _show_verifier(pt, doc.doc_id)
    out = capsys.readouterr().out
    assert "skipped" not in out  # BM25 finds the finance passage even with the hash embedder
    text = out.split("after verification:\n")[1].splitlines()[0]
    shown = set(re.findall(r"\[(\d+)\]", text))
    kept = re.findall(r"kept +\[(\d+)\]", out)
    assert kept and set(kept) == shown  # every kept line names a number the text shows


def test_reindex_carries_the_library_over_to_the_current_settings(tmp_path, capsys):
    from tests.papertrail.pipeline.test_carrying import opened

    opened(tmp_path, contextual=False).ingest("cli", "paper.pdf", pdfs.paper_pdf())
    contextual = opened(tmp_path, contextual=True)
    assert main(["reindex"], pipeline=contextual) == 0
    printed = capsys.readouterr()
    assert "carried 1 document of 1 channel over to the new index" in printed.out
    assert "carried: paper.pdf" in printed.err and "contextual embedding" in printed.out
    assert main(["reindex", "--json"], pipeline=contextual) == 0
    assert json.loads(capsys.readouterr().out) == {
        "carried": 0,
        "channels": 0,
        "skipped": 0,
        "failed": 0,
    }
