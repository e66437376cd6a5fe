"""The README's configuration tables, written from ``Settings`` and ``BotConfig``.

``python -m bot.config_table`` prints them; ``--write README.md`` replaces
what lies between the ``<!-- config:start -->`` and ``<!-- config:end -->``
markers, so the README cannot drift from the fields (a test compares them).
Defaults that depend on the machine (the home folder) are shown with ``~``.
It leaves out variables read outside those two classes, except the CLI's
``PAPERTRAIL_DEBUG``, which is added by hand below.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bot.config import describe as describe_bot
from papertrail.settings import describe as describe_settings

START, END = "<!-- config:start -->", "<!-- config:end -->"
EXTRA_BOT = [
    (
        "PAPERTRAIL_DEBUG",
        "",
        "Set to 1 to let an unexpected error in the `papertrail` command raise with its "
        "traceback (CLI only).",
    )
]


def _rows(described: list[tuple[str, str, str]]) -> list[str]:
    home = str(Path.home())
    rows = ["| variable | default | what it does |", "|---|---|---|"]
    for name, default, help_text in described:
        default = default.replace(home, "~") if default.startswith(home) else default
        shown = f"`{default}`" if default else "(empty)"
        rows.append(f"| `{name}` | {shown} | {help_text.replace('|', '/')} |")
    return rows


def markdown() -> str:
    """Both tables, pipeline first, as Markdown."""
    return "\n".join(
        [
            "Pipeline (`papertrail/settings.py`):",
            "",
            *_rows(describe_settings()),
            "",
            "Bots (`bot/config.py`):",
            "",
            *_rows(describe_bot() + EXTRA_BOT),
        ]
    )


def replace_between_markers(text: str, table: str) -> str:
    """``text`` with the part between the markers set to ``table``."""
    head, start, rest = text.partition(START)
    _, end, tail = rest.partition(END)
    if not start or not end:
        raise ValueError(f"the file needs a line {START} and a later line {END}")
    return f"{head}{START}\n{table}\n{END}{tail}"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bot.config_table", description="Print the configuration tables."
    )
    parser.add_argument("--write", type=Path, help="rewrite the tables inside this file instead")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.write is None:
        print(markdown())
        return 0
    args.write.write_text(replace_between_markers(args.write.read_text(), markdown()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
