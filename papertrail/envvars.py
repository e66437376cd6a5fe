"""Dataclass fields that an environment variable sets, and reading them.

``env_field`` declares a field with the variable that sets it and a one-line
help text (and, for secrets, keeps the value out of ``repr``); ``read_env``
collects the set, non-blank variables of such a dataclass through a parser the
caller supplies; ``describe`` lists (variable, default, help) for the README,
``.env.example`` and ``--help``. ``papertrail.settings`` (the pipeline) and
``bot.config`` (tokens and ports) both build on it. How a raw string becomes
a typed value, and what is malformed, stays with each of them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any


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
