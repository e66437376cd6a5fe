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


def _picture_page_pdf() -> bytes:
    """A page with a text layer and a picture of a chart title the layer does not hold."""
    import pymupdf

    art = pymupdf.open()
    art.new_page(width=300, height=150).insert_text(
        (10, 80), "Quarterly revenue chart", fontsize=22
    )
    pix = art[0].get_pixmap(dpi=150)
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "Annual report body text about the company.", fontsize=11)
    page.insert_image(pymupdf.Rect(36, 100, 576, 400), pixmap=pix)
    return doc.tobytes()


def test_the_picture_check_counts_what_ocr_reads_in_pictures_and_the_layer_lacks(tmp_path):
    sys.path.insert(0, str(SCRIPTS[0].parent))
    try:
        import picture_text
    finally:
        sys.path.remove(str(SCRIPTS[0].parent))

    from papertrail.read.ocr import get_ocr

    pdf = tmp_path / "chart.pdf"
    pdf.write_bytes(_picture_page_pdf())
    row = picture_text.missed(pdf, 0.15, get_ocr())
    assert (row["pages with text"], row["with pictures"], row["missed lines"]) == (1, 1, 1)
    assert "revenue" in row["examples"][0].lower()

    class Reads:  # an OCR that reads the page's own text back: nothing is missed
        def read(self, png):
            return [("Annual report body text", None), ("ab", None)]

    assert picture_text.missed(pdf, 0.15, Reads())["missed lines"] == 0
    assert picture_text.missed(pdf, 0.9, get_ocr())["with pictures"] == 0  # too small a share
