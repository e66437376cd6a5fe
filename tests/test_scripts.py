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
