"""The Store seam: PaperTrail and Retriever take any Store, and Chroma is one."""

import ast
import inspect
import sys
from pathlib import Path

from papertrail.pipeline import PaperTrail
from papertrail.protocols import Store
from papertrail.retrieve.retriever import Retriever
from papertrail.store.chroma import ChromaStore

ROOT = Path(__file__).resolve().parents[2]


def _protocol_methods(proto) -> set[str]:
    return {n for n, v in vars(proto).items() if callable(v) and not n.startswith("_")}


def _store_calls(path: Path, skip: set[str]) -> set[str]:
    """Attributes read off ``self.store`` or a ``store`` variable, outside functions in ``skip``."""
    found = set()

    def visit(node, skipped: bool) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            skipped = skipped or node.name in skip
        if isinstance(node, ast.Attribute) and not skipped:
            owner = node.value
            if (isinstance(owner, ast.Name) and owner.id == "store") or (
                isinstance(owner, ast.Attribute) and owner.attr == "store"
            ):
                found.add(node.attr)
        for child in ast.iter_child_nodes(node):
            visit(child, skipped)

    visit(ast.parse(path.read_text()), False)
    return found


def test_pipeline_and_retriever_are_typed_against_the_protocol():
    for cls in (PaperTrail, Retriever):
        annotation = inspect.signature(cls.__init__).parameters["store"].annotation
        names = vars(sys.modules[cls.__module__])  # annotations are strings (PEP 563)
        assert eval(annotation, names) is Store, cls


def test_the_protocol_names_every_store_method_they_call():
    # from_settings opens and cleans up the concrete store: that is not the seam
    used = _store_calls(ROOT / "papertrail/pipeline/__init__.py", {"from_settings"})
    used |= _store_calls(ROOT / "papertrail/pipeline/indexing.py", set())
    used |= _store_calls(ROOT / "papertrail/retrieve/retriever.py", set())
    assert used, "no store calls found: the scan is broken"
    assert used <= _protocol_methods(Store), used - _protocol_methods(Store)


def test_chroma_store_implements_every_method_with_the_same_parameters():
    for name in _protocol_methods(Store):
        want = list(inspect.signature(getattr(Store, name)).parameters)
        got = list(inspect.signature(getattr(ChromaStore, name)).parameters)
        assert got == want, name
