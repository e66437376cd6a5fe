"""The bench's speed table: every figure from the measured figures, written between markers."""

from __future__ import annotations

from papertrail.measure.bench_report import BEGIN, END, ingest_lines, markdown, write_markdown

FIGURES = {
    "pdf": "/x/book.pdf",
    "measured": "2026-12-03T06:00:00Z",
    "load": {"before": [1.5, 1.2, 1.0], "after": [1.7, 1.3, 1.1]},
    "ingest": {
        "seconds": 20.5,
        "peak_rss_mb": 800.0,
        "cpu_s": 35.0,
        "chunks_per_s": 50.9,
        "pages": 352,
        "chunks": 1043,
        "embedded": 1041,
        "backend": "onnx",
        "runs_seconds": [20.5],
        "stages": {
            "start": 3.1,
            "read": 4.2,
            "ocr": 6.6,
            "ocr_pages": 2,
            "wait_ocr": 0.4,
            "chunk": 0.1,
            "embed": 13.7,
            "embed_cpu": 1.93,
            "store": 1.2,
            "rest": 0.3,
            "lexical": 1.4,
            "total": 19.9,
        },
    },
    "reingest": {"ms": 4.0, "embedded": 0, "other_channel_ms": 4800.0, "other_channel_embedded": 0},
    "langchain": {
        "seconds": 50.0,
        "peak_rss_mb": 950.0,
        "cpu_s": 90.0,
        "chunks": 1039,
        "chunks_per_s": 20.8,
        "stages": {"start": 9.0, "read": 3.0, "embed": 38.0, "store": 0.0},
    },
    "ratios": {"seconds": 0.41, "peak_rss": 0.842, "cpu": 0.389},
}


def test_the_table_shows_the_measured_figures_and_the_load():
    table = markdown(FIGURES)
    assert "| measure | PaperTrail | LangChain twin |" in table
    assert "1.5/1.2/1.0 at the start" in table and "1.7/1.3/1.1 at the end" in table
    assert "| wall, fresh process to index ready (median) | 20.50 s | 50.00 s |" in table
    assert "OCR, 2 page(s), beside embedding | 6.60 s" in table
    assert "embedding rate, chunks/s | 76.0 | 27.3 |" in table  # 1041 / 13.7, 1039 / 38
    assert "0.41×, 0.84×, 0.39×" in table
    assert any("PaperTrail" in line for line in ingest_lines(FIGURES))
    pictured = {**FIGURES, "ingest": {**FIGURES["ingest"]}}
    pictured["ingest"]["stages"] = {**FIGURES["ingest"]["stages"], "picture_pages": 4}
    assert "OCR, 2 page(s) and the pictures of 4, beside embedding" in markdown(pictured)


def test_the_table_replaces_only_what_lies_between_the_markers(tmp_path):
    doc = tmp_path / "results.md"
    doc.write_text(f"# Results\n\nbefore\n{BEGIN}\nold table\n{END}\nafter\n")
    write_markdown(doc, FIGURES)
    text = doc.read_text()
    assert text.startswith("# Results\n\nbefore\n" + BEGIN + "\n")
    assert "old table" not in text and text.endswith(END + "\nafter\n")
    assert "20.50 s" in text
    write_markdown(doc, {**FIGURES, "ingest": {**FIGURES["ingest"], "seconds": 30.0}})
    assert "30.00 s" in doc.read_text() and doc.read_text().count(BEGIN) == 1


def test_without_the_twin_the_table_says_so():
    alone = {k: v for k, v in FIGURES.items() if k not in ("langchain", "ratios")}
    assert "| wall, fresh process to index ready (median) | 20.50 s | not run |" in markdown(alone)
