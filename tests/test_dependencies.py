"""Every third-party import is declared in pyproject.toml, in the right place.

Imports are read from the source (top level and inside functions alike) and
mapped to the installed distributions that provide them
(``importlib.metadata.packages_distributions``). Code that runs in production
(papertrail/, adapters/, bot/) may only use the runtime dependencies (or the
``eval`` extra, for the optional LangChain baseline); tests and scripts may
also use the ``dev`` extra; and a runtime dependency nobody imports must say
why it is there.
"""

from __future__ import annotations

import ast
import importlib.metadata as md
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUNTIME_CODE = ("papertrail", "adapters", "bot")
DEV_CODE = ("tests", "scripts")
# declared for the runtime although no module imports them by name
NOT_IMPORTED = {"onnx": "torch.onnx.export writes the model with it (embed/onnx.py)"}


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _declared() -> dict[str, set[str]]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]

    def names(reqs: list[str]) -> set[str]:
        return {_norm(re.match(r"[A-Za-z0-9._-]+", r).group(0)) for r in reqs}

    groups = {"runtime": names(project["dependencies"])}
    for extra, reqs in project["optional-dependencies"].items():
        groups[extra] = names(reqs)
    return groups


def _local_modules() -> set[str]:
    own = set(RUNTIME_CODE) | set(DEV_CODE)
    own |= {p.stem for folder in DEV_CODE for p in (ROOT / folder).glob("*.py")}
    return own


def _imports(folders: tuple[str, ...]) -> dict[str, set[str]]:
    """Top-level third-party module -> files importing it."""
    skip = set(sys.stdlib_module_names) | _local_modules() | {"__future__"}
    found: dict[str, set[str]] = {}
    for folder in folders:
        for path in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                else:
                    continue
                for name in names:
                    top = name.split(".")[0]
                    if top not in skip:
                        found.setdefault(top, set()).add(str(path.relative_to(ROOT)))
    return found


def _undeclared(folders: tuple[str, ...], allowed: set[str]) -> dict[str, str]:
    providers = md.packages_distributions()
    wrong = {}
    for module, files in sorted(_imports(folders).items()):
        # an optional package not installed here (the eval extra) is known by its own name
        dists = {_norm(d) for d in providers.get(module, [module])}
        if not dists & allowed:
            wrong[module] = f"{sorted(dists)} in {sorted(files)[0]}"
    return wrong


def test_production_code_imports_only_runtime_dependencies():
    declared = _declared()
    assert _undeclared(RUNTIME_CODE, declared["runtime"] | declared["eval"]) == {}


def test_tests_and_scripts_import_only_declared_packages():
    declared = _declared()
    assert _undeclared(DEV_CODE, set().union(*declared.values())) == {}


def test_every_runtime_dependency_is_used_and_test_tools_stay_out_of_it():
    providers = md.packages_distributions()
    used = {_norm(d) for m in _imports(RUNTIME_CODE) for d in providers.get(m, [])}
    declared = _declared()
    assert declared["runtime"] - used == set(NOT_IMPORTED)
    test_only = {_norm(d) for m in _imports(DEV_CODE) for d in providers.get(m, [])} - used
    assert test_only & declared["runtime"] == set()
    assert test_only - {"papertrail"} <= declared["dev"] | declared["eval"]


def test_the_lock_pins_every_declared_package():
    pinned = {
        _norm(line.split("==")[0])
        for line in (ROOT / "requirements.lock").read_text().splitlines()
        if "==" in line and not line.startswith("#")
    }
    declared = _declared()
    # torch is installed apart, from PyTorch's CPU index (Makefile); run `make lock` if this fails
    assert (declared["runtime"] | declared["dev"]) - {"torch"} - pinned == set()
    assert "torch" not in pinned
