"""The Docker image installs requirements-runtime.lock: the lock without any test tool."""

from __future__ import annotations

import importlib.util
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("runtime_lock", ROOT / "scripts/runtime_lock.py")
_script = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_script)
RUNTIME_LOCK, blocks, norm, runtime_lock = (
    _script.RUNTIME_LOCK,
    _script.blocks,
    _script.norm,
    _script.runtime_lock,
)
PYPROJECT = (ROOT / "pyproject.toml").read_text()
TEST_TOOLS = {"pytest", "pytest-timeout", "hypothesis", "ruff", "selenium", "pluggy", "iniconfig"}


def _pins(text: str) -> set[str]:
    return set(blocks(text))


def test_the_runtime_lock_is_the_lock_without_the_test_tools_and_up_to_date():
    lock = (ROOT / "requirements.lock").read_text()
    assert RUNTIME_LOCK.read_text() == runtime_lock(lock, PYPROJECT), "run `make lock`"
    runtime = _pins(RUNTIME_LOCK.read_text())
    assert not runtime & TEST_TOOLS
    dev = tomllib.loads(PYPROJECT)["project"]["optional-dependencies"]["dev"]
    for req in dev:
        name = norm(re.match(r"[A-Za-z0-9._-]+", req).group(0))
        # a dev tool stays only when something the bots run needs it (PyYAML: chromadb)
        if name in runtime:
            (_, via) = blocks(lock)[name]
            assert via - {"papertrail (pyproject.toml)"}, name
    for dep in tomllib.loads(PYPROJECT)["project"]["dependencies"]:
        name = norm(re.match(r"[A-Za-z0-9._-]+", dep).group(0))
        assert name in runtime or name == "torch", dep  # torch: from the CPU index, apart
    for pin in re.findall(r"^(\S+==\S+)$", RUNTIME_LOCK.read_text(), re.M):
        assert re.search(rf"^{re.escape(pin)}$", lock, re.M), pin  # the same versions


def test_a_package_only_the_tests_pull_in_is_left_out():
    lock = (
        "app==1\n    # via papertrail (pyproject.toml)\n"
        "helper==2\n    # via app\n"
        "pytest==9\n    # via papertrail (pyproject.toml)\n"
        "pluggy==1\n    # via pytest\n"
        "shared==3\n    # via\n    #   app\n    #   pytest\n"
    )
    project = '[project]\nname = "x"\ndependencies = ["app>=1"]\n'
    assert _pins(runtime_lock(lock, project)) == {"app", "helper", "shared"}


def test_the_image_installs_only_the_runtime_lock():
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "pip install -r requirements-runtime.lock" in dockerfile
    assert not re.search(r"^(COPY|RUN)\b.*\brequirements\.lock", dockerfile, re.M)
