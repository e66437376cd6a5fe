"""The README: short, its configuration tables written from the code, every command real.

Commands are read from the README's code blocks and inline code: each
``papertrail …``, ``python -m bot …`` and ``make …`` must name a subcommand,
mode or target that exists, with only flags that command accepts; a command
line in a code block must parse in full. Every relative link must lead to a
file of the repository.
"""

from __future__ import annotations

import argparse
import re
import shlex
from pathlib import Path

import pytest

from bot import config_table
from bot.__main__ import build_parser as bot_parser
from papertrail.cli.main import build_parser as cli_parser

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
MAX_LINES = 250
COMMAND = re.compile(r"(papertrail|python -m bot(?:\.config_table)?|make)(?=\s|$)")


def _snippets() -> list[tuple[str, bool]]:
    """(command text, whole line from a code block?) for every command the README shows."""
    found = []
    blocks = re.findall(r"```[a-z]*\n(.*?)```", README, re.S)
    for block in blocks:
        for line in block.splitlines():
            line = re.sub(r"^\$ ", "", line.split("  #")[0].strip())
            found.append((line, True))
    prose = re.sub(r"```.*?```", "", README, flags=re.S)
    found += [(span, False) for span in re.findall(r"`([^`\n]+)`", prose)]
    out = []
    for text, whole in found:
        text = text.replace(".venv/bin/python", "python").replace(".venv/bin/", "")
        if COMMAND.match(text) and text not in ("make", "papertrail"):  # a bare tool name
            out.append((text, whole))
    return out


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(sub.choices)


def _flags(parser: argparse.ArgumentParser) -> set[str]:
    return {s for a in parser._actions for s in a.option_strings}


def _check(argv: list[str], parser: argparse.ArgumentParser, whole: bool) -> None:
    subs = _subparsers(parser)
    words = [w for w in argv if not w.startswith("-")]
    name = words[0] if words else ""
    assert name in subs, f"no subcommand {name!r}"
    unknown = {w.split("=")[0] for w in argv if w.startswith("--")}
    unknown -= _flags(parser) | _flags(subs[name])
    assert not unknown, f"{name}: unknown flags {sorted(unknown)}"
    if whole:
        parser.parse_args(argv)  # the whole line parses (argparse exits on an error)


def _makefile_targets() -> set[str]:
    text = (ROOT / "Makefile").read_text()
    return set(re.findall(r"^([a-z][\w-]*):", text, re.M))


def test_the_readme_is_short():
    assert len(README.splitlines()) <= MAX_LINES


def test_the_configuration_tables_are_the_codes():
    inside = README.split(config_table.START)[1].split(config_table.END)[0]
    assert inside.strip() == config_table.markdown().strip()
    # and every variable the code reads is there
    for name, _, _ in config_table.describe_settings() + config_table.describe_bot():
        assert f"`{name}`" in inside


def test_every_command_shown_exists_with_its_flags():
    snippets = _snippets()
    kinds = {COMMAND.match(t).group(1) for t, _ in snippets}
    assert kinds == {"papertrail", "python -m bot", "python -m bot.config_table", "make"}
    targets = _makefile_targets()
    for text, whole in snippets:
        kind = COMMAND.match(text).group(1)
        argv = shlex.split(text[len(kind) :].replace("…", "x"))
        try:
            if kind == "make":
                assert argv and set(argv) <= targets, f"no make target {argv}"
            elif kind == "papertrail":
                _check(argv, cli_parser(), whole)
            elif kind == "python -m bot":
                _check(argv, bot_parser(), whole)
            else:  # python -m bot.config_table [--write FILE]
                config_table.build_parser().parse_args(argv)
        except SystemExit:
            pytest.fail(f"README command does not parse: {text}")
        except AssertionError as e:
            raise AssertionError(f"README command {text!r}: {e}") from None


# docs written alongside this README by other parts of the project; linked before they land
PLANNED = {
    "docs/architecture.md",
    "docs/retrieval.md",
    "docs/how-citations-are-checked.md",
    "docs/answers.md",
    "docs/offline-answers.md",
    "docs/security.md",
    "docs/reliability.md",
}


def test_every_relative_link_leads_to_a_file():
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", README)
    local = [link for link in links if not re.match(r"[a-z]+:", link)]
    assert local
    assert [link for link in local if not (ROOT / link).exists() and link not in PLANNED] == []


def test_the_docs_results_keep_their_reproduction_commands():
    results = (ROOT / "docs" / "results.md").read_text()
    for command in ("papertrail eval", "papertrail eval-verifier", "papertrail check"):
        assert command in results
    assert "papertrail bench" in results
    assert not re.search(r"\bcommit [0-9a-f]{7}|\b(this|previous) session\b|\bissue \d", results)
