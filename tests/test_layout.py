"""The shape of the code, read with ``ast``: one-way imports, no cycles, short modules.

``papertrail/`` is the pipeline, with its front end (``papertrail/cli``) and
its instruments (``papertrail/measure``) beside it; ``adapters/`` translate
chat platforms to it and ``bot/`` runs processes. Imports flow one way,
``bot -> adapters -> papertrail``, and the pipeline never reaches for its
front end or instruments. Imports under ``if TYPE_CHECKING:`` are left out
(they never run); imports inside functions count (they run when called).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("papertrail", "adapters", "bot")
MAX_LINES = 350  # the hard limit; most modules stay under 300
CHAT_SDKS = ("slack_bolt", "slack_sdk", "discord")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {
    _module_name(p): p for package in PACKAGES for p in sorted((ROOT / package).rglob("*.py"))
}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imported(node: ast.AST, module: str, is_package: bool) -> list[str]:
    """Dotted names an import statement brings in ('' parts resolved for relative ones)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    assert isinstance(node, ast.ImportFrom)
    base = node.module or ""
    if node.level:
        here = module.split(".") if is_package else module.split(".")[:-1]
        anchor = here[: len(here) - (node.level - 1)]
        base = ".".join([*anchor, base] if base else anchor)
    # "from pkg import name": name may be a submodule or an attribute of pkg
    return [f"{base}.{alias.name}" for alias in node.names] + [base]


def imports_of(module: str) -> set[str]:
    """Everything ``module`` imports outside ``if TYPE_CHECKING:`` blocks."""
    path = MODULES[module]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.update(_imported(node, module, path.name == "__init__.py"))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
    return found


def project_imports(module: str) -> set[str]:
    """The project modules ``module`` imports (a name that is not a module maps to its owner)."""
    out = set()
    for name in imports_of(module):
        while name and name not in MODULES:
            name = name.rpartition(".")[0]
        if name and name != module:
            out.add(name)
    return out


def _under(name: str, *prefixes: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def _offenders(modules, forbidden) -> list[str]:
    return sorted(
        f"{m} imports {name}" for m in modules for name in imports_of(m) if _under(name, *forbidden)
    )


def test_the_scan_sees_the_project():
    assert {"papertrail.pipeline", "papertrail.cli.main", "adapters.slack.app", "bot"} <= set(
        MODULES
    )
    assert "papertrail.text.words" in project_imports("papertrail.retrieve.retriever")
    assert "papertrail.measure.evaluate" in project_imports("papertrail.cli.main")  # lazy


def test_the_pipeline_never_imports_its_front_end_or_instruments():
    pipeline = [
        m for m in MODULES if _under(m, "papertrail")
        and not _under(m, "papertrail.cli", "papertrail.measure")
    ]  # fmt: skip
    assert _offenders(pipeline, ("papertrail.cli", "papertrail.measure")) == []


def test_papertrail_never_imports_adapters_bot_or_a_chat_sdk():
    mine = [m for m in MODULES if _under(m, "papertrail")]
    assert _offenders(mine, ("adapters", "bot", *CHAT_SDKS)) == []


def test_adapters_never_import_bot():
    assert _offenders([m for m in MODULES if _under(m, "adapters")], ("bot",)) == []


def find_cycles(graph: dict[str, set[str]]) -> list[str]:
    """Each import cycle met by a depth-first walk, as "a -> b -> a"."""
    cycles = []
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done
    path: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        path.append(m)
        for dep in sorted(graph.get(m, ())):
            if state.get(dep) == 1:
                cycles.append(" -> ".join([*path[path.index(dep) :], dep]))
            elif dep not in state:
                visit(dep)
        path.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m)
    return cycles


def test_find_cycles_finds_a_cycle_and_only_a_cycle():
    assert find_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a -> b -> c -> a"]
    assert find_cycles({"a": {"b", "c"}, "b": {"c"}, "c": set()}) == []


def test_no_import_cycle():
    graph = {m: project_imports(m) for m in MODULES}
    # a package's __init__ importing its own submodules is how packages re-export
    for m, deps in graph.items():
        if MODULES[m].name == "__init__.py":
            graph[m] = {d for d in deps if not _under(d, m)}
    assert find_cycles(graph) == []


def test_no_module_is_over_the_line_limit():
    lengths = {m: len(p.read_text(encoding="utf-8").splitlines()) for m, p in MODULES.items()}
    assert {m: n for m, n in lengths.items() if n > MAX_LINES} == {}
