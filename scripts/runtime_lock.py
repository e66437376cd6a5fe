"""Write requirements-runtime.lock: requirements.lock without what only the tests need.

``requirements.lock`` (``make lock``) pins the runtime dependencies and the
``dev`` extra together. The Docker image installs only what the running
bots need: the packages the ``# via`` notes of the lock connect to a
runtime dependency of pyproject.toml. pytest, selenium, ruff and the other
test tools (and anything only they pull in) are left out. Run by ``make
lock``; ``tests/test_runtime_lock.py`` checks the file is up to date.

    python scripts/runtime_lock.py [--check]
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "requirements.lock"
RUNTIME_LOCK = ROOT / "requirements-runtime.lock"
OURS = "papertrail (pyproject.toml)"
# installed apart (the CPU index, ``--no-deps``: not in the lock), needed at run time
# (sentence-transformers): what it pulls in stays
APART = {"torch"}
HEADER = (
    "# requirements.lock without the test tools: what the Docker image installs.\n"
    "# Written by scripts/runtime_lock.py (make lock); do not edit.\n"
)


def norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def blocks(text: str) -> dict[str, tuple[str, set[str]]]:
    """Package name -> (its lines in the lock, the names its ``# via`` notes give)."""
    found: dict[str, tuple[str, set[str]]] = {}
    name, lines, via = "", [], set()
    for line in text.splitlines():
        pin = re.match(r"^([A-Za-z0-9._-]+)==", line)
        if pin:
            if name:
                found[name] = ("\n".join(lines), via)
            name, lines, via = norm(pin.group(1)), [line], set()
            continue
        if not name:
            continue
        lines.append(line)
        note = re.sub(r"^\s*#\s*(via)?\s*", "", line).strip()
        if note:
            via.add(OURS if note == OURS else norm(note.split()[0]))
    if name:
        found[name] = ("\n".join(lines), via)
    return found


def runtime_lock(lock_text: str, pyproject_text: str) -> str:
    project = tomllib.loads(pyproject_text)["project"]
    roots = {norm(re.match(r"[A-Za-z0-9._-]+", d).group(0)) for d in project["dependencies"]}
    pins = blocks(lock_text)
    keep = {n for n, (_, via) in pins.items() if n in roots and OURS in via} | APART
    while True:
        more = {n for n, (_, via) in pins.items() if n not in keep and via & keep}
        if not more:
            break
        keep |= more
    body = "\n".join(pins[n][0] for n in pins if n in keep)  # the lock's order
    return HEADER + body + "\n"


def main(argv: list[str]) -> int:
    text = runtime_lock(LOCK.read_text(), (ROOT / "pyproject.toml").read_text())
    if "--check" in argv:
        if RUNTIME_LOCK.read_text() != text:
            print("requirements-runtime.lock is stale: run `make lock`", file=sys.stderr)
            return 1
        return 0
    RUNTIME_LOCK.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
