"""The shape of the code, read with ``ast``: who may import what, no cycles, short modules.

The rules (docs/architecture.md explains them):

* ``bot -> adapters -> papertrail``, never back; the pipeline never imports
  its front end (``papertrail/cli``) or its instruments (``papertrail/measure``).
* the pipeline (``papertrail/pipeline/``: the API and its indexing half) is
  the only package that imports more than one stage folder (the instruments
  in ``papertrail/measure`` time and score the stages one at a time, so they
  are left out of that rule).
* A stage folder imports the base modules (``BASE``), ``papertrail/text`` and
  its own folder: nothing upward, nothing sideways; ``text`` and the base
  modules import only each other.
* One home per third-party kind of state: chromadb in ``store``, Pillow in
  ``render``, redis in ``bot/redis``.
* Platform packages import ``adapters/chat`` and their own SDK, never each
  other; ``adapters/chat`` imports no platform SDK.
* No finance word (in code, not prose) and no import of a domain's package outside
  ``papertrail/domains`` (the front end and the instruments aside): domain
  knowledge is behind the ``Domain`` seam.
* No import cycle, ``if TYPE_CHECKING:`` imports included; no module over
  ``MAX_LINES`` lines unless ``ROOM`` names it with the one idea that needs the room,
  and none over ``HARD_MAX_LINES``.

Imports inside functions count (they run when called); imports under
``if TYPE_CHECKING:`` count for cycles only (they never run, but they tie
modules together as tightly for a reader).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("papertrail", "adapters", "bot")
MAX_LINES = 300  # a guide: modules are split by idea, never to meet this count
HARD_MAX_LINES = 400
# modules past the guide, each with the single idea that needs the room; an entry whose
# module is back under the guide fails the test, so the list only holds what is true
ROOM = {
    "adapters.chat.service": "one conversation turn: intake, follow-up, answer, votes, suggestions",
    "adapters.discord.client": "the discord.py client: every gateway event it listens to",
    "papertrail.cli.main": "the argument parser of every papertrail command",
    "papertrail.pipeline": "PaperTrail.ask: one question from retrieval to the marked picture",
    "papertrail.pipeline.indexing": "Indexing.ingest: one PDF to ready chunks, or undone",
    "papertrail.text.ask": "the one reader of a question: every field of the Ask",
    "papertrail.types": "every frozen dataclass that flows, each field with its unit or example",
    "papertrail.text.periods": "the one period parser: covers, asked, named, year words",
}
CHAT_SDKS = ("slack_bolt", "slack_sdk", "discord")
STAGES = ("text", "read", "embed", "store", "retrieve", "answer", "verify", "render", "domains")
BASE = tuple(
    f"papertrail.{m}"
    for m in ("types", "protocols", "settings", "errors", "envvars", "offline", "coord")
)
# Stages that may reach into another for domain knowledge: none; a ``Domain`` is handed in.
DOMAIN_SHORTCUTS: tuple[tuple[str, str], ...] = ()
PLATFORMS = {  # platform package -> the SDKs it may use
    "adapters.slack": ("slack_bolt", "slack_sdk"),
    "adapters.discord": ("discord",),
    "adapters.web": ("aiohttp",),
    "adapters.local": (),
}
ONLY_HOME = {  # third-party package -> the one folder that may import it
    "chromadb": "papertrail.store",
    "PIL": "papertrail.render",
    "redis": "bot.redis",
}


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


def imports_of(module: str, *, type_checking: bool = False) -> set[str]:
    """Everything ``module`` imports; ``if TYPE_CHECKING:`` blocks only when asked."""
    path = MODULES[module]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test) and not type_checking:
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.update(_imported(node, module, path.name == "__init__.py"))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
    return found


def project_imports(module: str, *, type_checking: bool = False) -> set[str]:
    """The project modules ``module`` imports (a name that is not a module maps to its owner)."""
    out = set()
    for name in imports_of(module, type_checking=type_checking):
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


def stage_of(module: str) -> str | None:
    """``papertrail.read.pdf`` -> ``read``; None outside the stage folders."""
    parts = module.split(".")
    if len(parts) > 1 and parts[0] == "papertrail" and parts[1] in STAGES:
        return parts[1]
    return None


def test_the_scan_sees_the_project():
    assert {"papertrail.pipeline", "papertrail.cli.main", "adapters.slack.app", "bot"} <= set(
        MODULES
    )
    assert "papertrail.text.words" in project_imports("papertrail.retrieve.retriever")
    assert "papertrail.measure.evaluate" in project_imports("papertrail.cli.main")  # lazy
    assert {stage_of(m) for m in MODULES} - {None} == set(STAGES)


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


def test_only_the_pipeline_imports_more_than_one_stage():
    many = {}
    for m in MODULES:
        if _under(m, "papertrail.pipeline", "papertrail.measure"):
            continue
        stages = {stage_of(d) for d in project_imports(m)} - {None, "text", stage_of(m)}
        if len(stages) > 1:
            many[m] = sorted(stages)
    assert many == {}


def _allowed_for_a_stage(module: str, dep: str) -> bool:
    own = f"papertrail.{stage_of(module)}"
    if _under(dep, *BASE, "papertrail.text", own) or dep == "papertrail":
        return True
    return any(_under(module, a) and _under(dep, b) for a, b in DOMAIN_SHORTCUTS)


def test_stage_folders_import_only_the_base_text_and_themselves():
    wrong = sorted(
        f"{m} imports {d}"
        for m in MODULES
        if stage_of(m)
        for d in project_imports(m)
        if not _allowed_for_a_stage(m, d)
    )
    assert wrong == []


def test_the_rule_catches_a_sideways_import():
    assert not _allowed_for_a_stage("papertrail.answer.quotable", "papertrail.verify.evidence")
    assert not _allowed_for_a_stage("papertrail.store.chroma", "papertrail.pipeline")
    assert _allowed_for_a_stage("papertrail.verify.judge", "papertrail.text.coverage")


def test_text_and_the_base_modules_import_nothing_above_them():
    low = [m for m in MODULES if _under(m, *BASE, "papertrail.text")]
    wrong = sorted(
        f"{m} imports {d}"
        for m in low
        for d in project_imports(m)
        if not _under(d, *BASE, "papertrail.text", "papertrail.types") and d != "papertrail"
    )
    assert wrong == []


def test_answering_never_imports_verifying():
    answer = [m for m in MODULES if _under(m, "papertrail.answer")]
    assert _offenders(answer, ("papertrail.verify",)) == []


def test_each_third_party_store_has_one_home():
    wrong = sorted(
        f"{m} imports {name}"
        for package, home in ONLY_HOME.items()
        for m in MODULES
        if not _under(m, home)
        for name in imports_of(m)
        if _under(name, package)
    )
    assert wrong == []


def test_platform_packages_never_import_each_other():
    wrong = []
    for platform, sdks in PLATFORMS.items():
        others = [p for p in PLATFORMS if p != platform]
        other_sdks = [s for p, s in PLATFORMS.items() if p != platform for s in s if s not in sdks]
        mine = [m for m in MODULES if _under(m, platform)]
        wrong += _offenders(mine, (*others, *other_sdks))
    assert wrong == []


def test_the_chat_layer_imports_no_platform():
    chat = [m for m in MODULES if _under(m, "adapters.chat")]
    assert _offenders(chat, (*CHAT_SDKS, *PLATFORMS)) == []


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


def test_no_import_cycle_type_checking_imports_included():
    graph = {m: project_imports(m, type_checking=True) for m in MODULES}
    # a package's __init__ importing its own submodules is how packages re-export
    for m, deps in graph.items():
        if MODULES[m].name == "__init__.py":
            graph[m] = {d for d in deps if not _under(d, m)}
    assert find_cycles(graph) == []


def test_no_module_is_over_the_line_limit():
    lengths = {m: len(p.read_text(encoding="utf-8").splitlines()) for m, p in MODULES.items()}
    assert {m: n for m, n in lengths.items() if n > MAX_LINES and m not in ROOM} == {}
    assert {m: n for m, n in lengths.items() if n > HARD_MAX_LINES} == {}
    assert {m for m in ROOM if lengths.get(m, 0) <= MAX_LINES} == set()


# Words only financial documents use: knowledge of them belongs behind the ``Domain`` seam
FINANCE_WORDS = re.compile(
    r"\b(?:revenues?|net income|operating income|earnings|ebitda|dividends?|10-?k|10-?q|8-?k"
    r"|20-?f|balance sheets?|cash flows?|shareholders?|stockholders?|gross margin|eps|capex"
    r"|income statements?|diluted)\b",
    re.I,
)


def _finance_words(module: str) -> list[str]:
    """Finance words in ``module``'s string literals (docstrings left out: prose may cite)."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    docs = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        f"{module}:{node.lineno} {FINANCE_WORDS.search(node.value)[0]!r}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docs
        and FINANCE_WORDS.search(node.value)
    ]


def _outside_the_domains() -> list[str]:
    """The pipeline's modules (stages, pipeline, base): not ``domains``, nor the front end
    and instruments, whose sample documents and data sets may be financial."""
    return [
        m
        for m in MODULES
        if _under(m, "papertrail")
        and not _under(m, "papertrail.domains", "papertrail.cli", "papertrail.measure")
    ]


def test_no_finance_word_outside_the_domains():
    # a domain hands its words in (``Domain.amounts``, ``Domain.contrasts``, its rules)
    found = [w for m in _outside_the_domains() for w in _finance_words(m)]
    assert found == []


def test_no_finance_import_outside_the_domains():
    # the pipeline is handed the known domains (``papertrail.domains.KNOWN``), never one of them
    mine = [m for m in MODULES if not _under(m, "papertrail.domains")]
    assert _offenders(mine, ("papertrail.domains.finance",)) == []


def test_the_finance_rule_catches_a_word_and_covers_retrieval():
    assert FINANCE_WORDS.search("net income in 2019") and not FINANCE_WORDS.search("incomes")
    assert FINANCE_WORDS.search("basic | diluted") and FINANCE_WORDS.search("revenue|sales")
    assert _finance_words("papertrail.domains.finance.domain")  # the rule sees the domain's
    assert {"papertrail.retrieve.routing", "papertrail.answer.tables"} <= set(
        _outside_the_domains()
    )
