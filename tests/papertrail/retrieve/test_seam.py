"""Retrieval is generic: what a kind of document adds reaches it only through ``Domain``."""

from __future__ import annotations

import ast
import re
from pathlib import Path

RETRIEVE = Path(__file__).resolve().parents[3] / "papertrail" / "retrieve"
# words of one domain (financial filings); a generic stage names none of them
FINANCE = re.compile(
    r"financ|filing|10-?[kq]\b|8-?k\b|cogs|ebitda|revenue|balance sheet|income statement|"
    r"cash flow|issuer|earnings|shareholder|dividend",
    re.I,
)


def test_retrieval_imports_no_domain_and_names_none_of_its_words():
    files = sorted(RETRIEVE.glob("*.py"))
    assert len(files) >= 6
    for path in files:
        source = path.read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ImportFrom):
                assert not (node.module or "").startswith("papertrail.domains"), path.name
            elif isinstance(node, ast.Import):
                assert not any(a.name.startswith("papertrail.domains") for a in node.names)
        found = FINANCE.findall(source)
        assert not found, f"{path.name} names {sorted(set(found))}"


def test_the_word_list_would_catch_a_finance_word():
    assert FINANCE.search("the COGS line of a 10-K filing")
    assert not FINANCE.search("a named report section, its period and its pages")
