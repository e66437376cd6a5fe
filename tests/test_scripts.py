"""Every script in scripts/ still imports: they use the package's internals, which move."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

SCRIPTS = sorted((Path(__file__).resolve().parents[1] / "scripts").glob("*.py"))


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_the_script_imports(path, monkeypatch):
    monkeypatch.setattr(sys, "path", [str(path.parent), *sys.path])  # scripts import siblings
    spec = importlib.util.spec_from_file_location(f"script_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # dataclasses look their module up
    spec.loader.exec_module(module)  # a script runs only under __main__
    assert module.__doc__  # says what it is for


def test_the_picture_check_counts_what_indexing_adds_from_pictures(tmp_path):
    sys.path.insert(0, str(SCRIPTS[0].parent))
    try:
        import picture_text
    finally:
        sys.path.remove(str(SCRIPTS[0].parent))

    from papertrail.read.ocr import get_ocr
    from papertrail.types import Rect
    from tests.papertrail.read.test_pictures import page_with_picture

    pdf = tmp_path / "chart.pdf"
    pdf.write_bytes(page_with_picture())
    row = picture_text.added(pdf, get_ocr())
    assert (row["pages with text"], row["with pictures read"], row["lines added"]) == (1, 1, 2)
    assert "revenue" in row["examples"][0].lower()

    class Reads:  # an OCR that reads the page's own text back: nothing is added
        def read_scored(self, png):
            return 0, [
                ("Annual report body text", Rect(0, 0, 9, 9), 1.0),
                ("ab", Rect(0, 9, 9, 18), 1.0),
            ]

    assert picture_text.added(pdf, Reads())["lines added"] == 0


def test_the_passage_ranking_check_scores_the_shipped_fusion_as_fuse_ranks():
    """``rank_passages.py`` compares a learned ranking with the fusion: its copy of the
    fusion must rank a document's passages as ``fuse`` does, or the comparison is void."""
    sys.path.insert(0, str(SCRIPTS[0].parent))
    try:
        import rank_passages
    finally:
        sys.path.remove(str(SCRIPTS[0].parent))
    import numpy as np

    from papertrail.retrieve.fusion import Weights
    from papertrail.retrieve.stages import DocPool
    from papertrail.types import Chunk, Rect

    chunks = [
        Chunk("d" * 64, "a.pdf", i, 1 + i // 2, f"text {i}", (Rect(0, 0, 1, 1),)) for i in range(8)
    ]
    dense = [(chunks[i], s) for i, s in [(3, 0.9), (0, 0.8), (5, 0.7), (6, 0.4)]]
    lexical = [(chunks[i], s) for i, s in [(0, 12.0), (7, 9.0), (2, 3.0)]]
    page = {c.id: [0.2, 1.0, 0.5, 0.1][c.page - 1] for c in chunks}
    pool = DocPool(
        "d" * 64,
        dense,
        lexical,
        extra=[chunks[4]],
        sections=[chunks[1]],
        page=page,
        figures=frozenset({chunks[6].id}),
    )
    w = Weights()
    x, found = rank_passages.features(pool)
    fusion = np.array([w.alpha, 1 - w.alpha, w.page, w.figure_boost, w.section_boost, 0, 0])
    mine = [found[i].id for i in np.lexsort((np.arange(len(x)), -(x @ fusion)))]
    assert mine == [h.chunk.id for h in pool.fused(w)]
    assert rank_passages.hit5(x, found, {4}, fusion) == 1.0  # four pages: all are shown
    assert rank_passages.hit5(x, found, {9}, fusion) == 0.0
