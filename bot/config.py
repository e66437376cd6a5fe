"""The bot processes' configuration: pipeline ``Settings`` plus platform tokens and ports.

``load_config`` reads the environment and a ``.env`` file (the real
environment wins) into a frozen ``BotConfig``; ``require`` checks that the
variables one mode needs are present and well formed. Every problem is a
``PaperTrailError(code="config")`` whose one-line message names the variable
and says what to do, and never repeats a secret's value. Starting the
platforms is left to ``bot/__main__.py``.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from papertrail.envvars import describe as describe_fields
from papertrail.envvars import env_field, env_fields, environment, read_env
from papertrail.errors import PaperTrailError
from papertrail.settings import Settings

MODES = ("slack", "discord", "local", "web")
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
_DISCORD_TOKEN = re.compile(r"^[\w-]+\.[\w-]+\.[\w-]+$")  # id.timestamp.hmac, base64url parts


_f = env_field


@dataclass(frozen=True)
class BotConfig:
    """Everything a bot process needs; ``settings`` is what the pipeline sees."""

    settings: Settings = field(default_factory=Settings, repr=False)
    slack_bot_token: str = _f(
        "", "SLACK_BOT_TOKEN", "Slack Bot User OAuth Token (xoxb-...).", secret=True
    )
    slack_app_token: str = _f(
        "",
        "SLACK_APP_TOKEN",
        "Slack app-level token (xapp-...) with connections:write; set it for Socket Mode.",
        secret=True,
    )
    slack_signing_secret: str = _f(
        "",
        "SLACK_SIGNING_SECRET",
        "Slack signing secret; needed for HTTP mode (no SLACK_APP_TOKEN).",
        secret=True,
    )
    slack_api_url: str = _f(
        "", "SLACK_API_URL", "Override of https://slack.com/api/ (tests, proxies)."
    )
    discord_token: str = _f("", "DISCORD_TOKEN", "Discord bot token.", secret=True)
    discord_api_url: str = _f(
        "", "DISCORD_API_URL", "Override of Discord's REST base URL (tests, proxies)."
    )
    discord_gateway_url: str = _f(
        "", "DISCORD_GATEWAY_URL", "Override of Discord's gateway URL (tests, proxies)."
    )
    port: int = _f(3000, "PORT", "Port of the Slack HTTP-mode server (Render sets it).")
    health_port: int = _f(
        0,
        "PAPERTRAIL_HEALTH_PORT",
        "Port for /healthz in discord, local and Socket Mode processes; 0 = no health server.",
    )
    log_level: str = _f(
        "",
        "PAPERTRAIL_LOG_LEVEL",
        "DEBUG, INFO, WARNING or ERROR; empty = INFO for the bots, WARNING for local.",
    )
    # -- multi-worker mode (README "Several workers") ----------------------------
    redis_url: str = _f(
        "",
        "REDIS_URL",
        "Redis for several interchangeable workers (with CHROMA_HOST); empty = one process.",
        secret=True,  # may carry a password
    )
    job_idle_seconds: float = _f(
        60.0,
        "PAPERTRAIL_JOB_IDLE_SECONDS",
        "With REDIS_URL: seconds after a worker's death before another takes over its jobs.",
    )
    discord_shard_count: int = _f(
        0, "DISCORD_SHARD_COUNT", "Discord shards in total; 0 = one process, no sharding."
    )
    discord_shard_ids: str = _f(
        "", "DISCORD_SHARD_IDS", "Comma-separated shards this process runs, e.g. 0,1."
    )

    def secrets(self) -> tuple[str, ...]:
        """Every configured secret value, for the log redactor."""
        own = [getattr(self, f.name) for f in _platform_fields() if f.metadata["secret"]]
        own += [self.settings.groq_api_key, self.settings.llm_api_key]
        return tuple(s for s in own if s)

    def replace(self, **changes) -> BotConfig:
        return dataclasses.replace(self, **changes)


def _platform_fields() -> list[dataclasses.Field]:
    return env_fields(BotConfig)


def describe() -> list[tuple[str, str, str]]:
    """(env var, default, help) for every bot variable: for ``.env.example`` and the README."""
    return describe_fields(BotConfig)


def load_config(
    env: Mapping[str, str] | None = None, dotenv_path: str | Path | None = ".env"
) -> BotConfig:
    """Read ``env`` (default ``os.environ``) over the ``.env`` file at ``dotenv_path``.

    A variable set in the environment, even to an empty string, wins over the
    file; ``dotenv_path=None`` or a missing file reads the environment only.
    """
    merged = environment(env, dotenv_path)
    values = read_env(BotConfig, merged, _parse)
    return BotConfig(settings=Settings.from_env(merged), **values)


def _parse(f: dataclasses.Field, raw: str):
    name = f.metadata["env"]
    if f.name in ("port", "health_port"):
        try:
            port = int(raw)
        except ValueError:
            port = -1
        low = 0 if f.name == "health_port" else 1
        if not low <= port <= 65535:
            raise PaperTrailError(
                f"{name}={raw!r} is not a port number: set it to a whole number "
                f"from {low} to 65535 or remove it (default {f.default}).",
                code="config",
            )
        return port
    if f.name in ("job_idle_seconds", "discord_shard_count"):
        return _number(f, raw)
    if f.name == "discord_shard_ids":
        return ",".join(str(i) for i in shard_ids(raw))
    if f.name == "log_level":
        level = raw.upper()
        if level not in LOG_LEVELS:
            raise PaperTrailError(
                f"{name}={raw!r} is not a log level: use one of {', '.join(LOG_LEVELS)}.",
                code="config",
            )
        return level
    return raw


def _number(f: dataclasses.Field, raw: str):
    kind = type(f.default)
    try:
        value = kind(raw)
    except ValueError:
        value = -1
    if value < 0 or (kind is float and value == 0):
        raise PaperTrailError(
            f"{f.metadata['env']}={raw!r} is not valid: {f.metadata['help']}", code="config"
        )
    return value


def shard_ids(raw: str) -> tuple[int, ...]:
    """``"0, 2"`` -> ``(0, 2)``; PaperTrailError naming DISCORD_SHARD_IDS otherwise."""
    try:
        ids = tuple(int(p) for p in raw.split(",") if p.strip())
    except ValueError:
        ids = (-1,)
    if not ids or min(ids) < 0 or len(set(ids)) != len(ids):
        raise PaperTrailError(
            f"DISCORD_SHARD_IDS={raw!r} is not a list of distinct shard numbers: "
            "write them like 0,1.",
            code="config",
        )
    return ids


def slack_mode(cfg: BotConfig) -> str:
    """``"socket"`` when an app token is set (no public URL needed), else ``"http"``."""
    return "socket" if cfg.slack_app_token else "http"


def require(cfg: BotConfig, mode: str) -> None:
    """Raise ``PaperTrailError(code="config")`` unless ``mode`` has what it needs."""
    if mode not in MODES:
        raise PaperTrailError(
            f"Unknown mode {mode!r}: use one of {', '.join(MODES)}.", code="config"
        )
    if mode == "slack":
        _require_slack(cfg)
    elif mode == "discord":
        _require_discord(cfg)
        _require_shards(cfg)


def _require_slack(cfg: BotConfig) -> None:
    if not cfg.slack_bot_token:
        _missing(
            "SLACK_BOT_TOKEN",
            "copy the Bot User OAuth Token (xoxb-...) from your Slack app's "
            "OAuth & Permissions page into .env or the environment",
        )
    _prefix(
        "SLACK_BOT_TOKEN",
        cfg.slack_bot_token,
        "xoxb-",
        "use the Bot User OAuth Token from OAuth & Permissions, not a user or app token",
    )
    if cfg.slack_app_token:
        _prefix(
            "SLACK_APP_TOKEN",
            cfg.slack_app_token,
            "xapp-",
            "create an app-level token with connections:write under Basic Information",
        )
    elif not cfg.slack_signing_secret:
        _missing(
            "SLACK_APP_TOKEN or SLACK_SIGNING_SECRET",
            "set SLACK_APP_TOKEN (xapp-...) for Socket Mode, or SLACK_SIGNING_SECRET "
            "(Basic Information > App Credentials) for HTTP mode",
        )


def _require_discord(cfg: BotConfig) -> None:
    token = cfg.discord_token
    if not token:
        _missing(
            "DISCORD_TOKEN",
            "copy the bot token from the Discord developer portal (Bot > Reset Token) "
            "into .env or the environment",
        )
    if token.lower().startswith(("bot ", "bearer ")):
        raise PaperTrailError(
            "DISCORD_TOKEN starts with a 'Bot ' prefix: set the token alone, without the prefix.",
            code="config",
        )
    if not _DISCORD_TOKEN.match(token):
        raise PaperTrailError(
            "DISCORD_TOKEN does not look like a bot token (three parts separated by dots): "
            "copy it from Bot > Reset Token in the developer portal, not the client secret "
            "or application id.",
            code="config",
        )


def _require_shards(cfg: BotConfig) -> None:
    ids = shard_ids(cfg.discord_shard_ids) if cfg.discord_shard_ids else ()
    if ids and not cfg.discord_shard_count:
        _missing("DISCORD_SHARD_COUNT", "set the total number of shards with DISCORD_SHARD_IDS")
    if ids and max(ids) >= cfg.discord_shard_count:
        raise PaperTrailError(
            f"DISCORD_SHARD_IDS names shard {max(ids)} but DISCORD_SHARD_COUNT is "
            f"{cfg.discord_shard_count}: shards are numbered from 0 to DISCORD_SHARD_COUNT - 1.",
            code="config",
        )


def _missing(name: str, fix: str) -> None:
    raise PaperTrailError(f"{name} is not set: {fix}.", code="config")


def _prefix(name: str, value: str, prefix: str, fix: str) -> None:
    # the message names the expected prefix but never echoes the value: it is a secret
    if not value.startswith(prefix) or any(c.isspace() for c in value):
        raise PaperTrailError(
            f"{name} does not look right (it should start with {prefix} and contain no "
            f"spaces): {fix}.",
            code="config",
        )
