"""The papertrail command: answers, files written, one-line errors and exit codes."""

from __future__ import annotations

import json

import pytest

from papertrail.cli import main
from papertrail.pipeline import PaperTrail
from papertrail.settings import Settings
from papertrail.store import ChromaStore
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
