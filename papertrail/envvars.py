"""Dataclass fields that an environment variable sets, and reading them.

``env_field`` declares a field with the variable that sets it and a one-line
help text (and, for secrets, keeps the value out of ``repr``); ``read_env``
collects the set, non-blank variables of such a dataclass through a parser the
caller supplies; ``describe`` lists (variable, default, help) for the README,
``.env.example`` and ``--help``; ``environment`` is the process environment
over a ``.env`` file, what both the bots and the CLI read. ``papertrail.settings``
(the pipeline) and ``bot.config`` (tokens and ports) both build on it. How a raw string becomes
a typed value, and what is malformed, stays with each of them.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from dotenv import dotenv_values


def env_field(default: Any, env: str, help: str, *, secret: bool = False) -> Any:
    """A dataclass field set by the variable ``env``; ``help`` says what it does."""
    # repr=False keeps secrets out of reprs, tracebacks with locals and debug logs
    return dataclasses.field(
        default=default, repr=not secret, metadata={"env": env, "help": help, "secret": secret}
    )


def env_fields(cls: type) -> list[dataclasses.Field]:
    """The fields of dataclass ``cls`` that an environment variable sets, in order."""
    return [f for f in dataclasses.fields(cls) if "env" in f.metadata]


def read_env(
    cls: type, env: Mapping[str, str], parse: Callable[[dataclasses.Field, str], Any]
) -> dict[str, Any]:
    """``{field name: parse(field, value)}`` for each variable of ``cls`` set in ``env``.

    Values are stripped; an unset or blank variable is left out, so the field
    keeps its default.
    """
    values = {}
    for f in env_fields(cls):
        raw = (env.get(f.metadata["env"]) or "").strip()
        if raw:
            values[f.name] = parse(f, raw)
    return values


def describe(cls: type) -> list[tuple[str, str, str]]:
    """(variable, default, help) for every variable of dataclass ``cls``."""
    return [(f.metadata["env"], str(f.default), f.metadata["help"]) for f in env_fields(cls)]


def dotenv_file(path: str | None) -> str:
    """The ``--env-file`` to read: one the user named must exist; the default ``.env``
    may be absent. Raises ``PaperTrailError`` for a named file that is missing."""
    if path is None:
        return ".env"
    if path != os.devnull and not os.path.isfile(path):
        from papertrail.errors import PaperTrailError

        raise PaperTrailError(
            f"--env-file {path}: no such file. Name an existing file of VAR=value lines, "
            "or leave the option out to read ./.env if there is one.",
            code="config",
        )
    return path


def environment(
    env: Mapping[str, str] | None = None, dotenv_path: str | Path | None = ".env"
) -> dict[str, str]:
    """``env`` (default ``os.environ``) over the ``VAR=value`` lines of ``dotenv_path``.

    A variable set in the environment, even to an empty string, wins over the
    file; ``dotenv_path=None`` or a missing file gives the environment alone.
    """
    merged: dict[str, str] = {}
    if dotenv_path and os.path.isfile(dotenv_path):
        merged.update({k: v for k, v in dotenv_values(dotenv_path).items() if v is not None})
    merged.update(os.environ if env is None else env)
    return merged
