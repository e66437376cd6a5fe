"""compose.yaml starts what .env configures: Socket Mode or HTTP, Slack, Discord or both.

For each way a user configures PaperTrail (Slack in Socket Mode or HTTP mode,
only Slack, only Discord, both), a ``.env`` is written as docs/deploy.md says
and compose.yaml is resolved: with ``docker compose config`` where Docker
Compose is installed, else with the same rules here (YAML anchors and
merges, ``COMPOSE_PROFILES`` from the environment or ``.env``, ``${VAR:-x}``
interpolation from the environment over ``.env``, ``env_file`` entries
under each service's ``environment``). Then it checks which services start,
and that each bot started gets the variables its mode needs: the bot's own
configuration code reads them as the container would.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from bot.__main__ import configured
from bot.config import load_config, require, slack_mode

ROOT = Path(__file__).resolve().parents[1]
TOKENS = {
    "SLACK_BOT_TOKEN": "xoxb-1-2-abc",
    "SLACK_APP_TOKEN": "xapp-1-A1-2-def",
    "SLACK_SIGNING_SECRET": "0123456789abcdef0123456789abcdef",
    "DISCORD_TOKEN": "MTEx.discord.token",
}
ALWAYS = {"papertrail-chroma", "papertrail-redis"}
HTTP = {"papertrail-slack-1", "papertrail-slack-2", "papertrail-slack"}
SOCKET = {"papertrail-slack-socket-1", "papertrail-slack-socket-2"}
DISCORD = {"papertrail-discord"}


def _compose_available() -> bool:
    if shutil.which("docker") is None:
        return False
    probe = subprocess.run(["docker", "compose", "version"], capture_output=True, timeout=30)
    return probe.returncode == 0


def _interpolate(value: object, env: dict[str, str]) -> object:
    if not isinstance(value, str):
        return value

    def one(m: re.Match) -> str:
        name, op, arg = m.group(1), m.group(2) or "", m.group(3) or ""
        have = env.get(name, "")
        if op == ":-":
            return have or arg
        if op == "-":
            return env.get(name, arg)
        if op == ":?" and not have:
            raise ValueError(f"{name}: {arg}")
        return have

    return re.sub(r"\$\{(\w+)(:-|-|:\?)?([^}]*)\}", one, value)


def _dotenv(path: Path) -> dict[str, str]:
    out = {}
    for line in path.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            key, _, value = line.partition("=")
            out[key.strip()] = value.strip()
    return out


def _resolve_here(folder: Path, shell: dict[str, str]) -> dict[str, dict[str, str]]:
    """Service -> its container environment, by Compose's rules (see the docstring)."""
    dotenv = _dotenv(folder / ".env") if (folder / ".env").exists() else {}
    env = {**dotenv, **shell}  # the shell wins over .env for interpolation
    profiles = {p for p in env.get("COMPOSE_PROFILES", "").split(",") if p}
    services = yaml.safe_load((folder / "compose.yaml").read_text())["services"]
    started = {}
    for name, service in services.items():
        if service.get("profiles") and not profiles & set(service["profiles"]):
            continue
        container: dict[str, str] = {}
        for entry in service.get("env_file", []):
            path = folder / (entry["path"] if isinstance(entry, dict) else entry)
            if path.exists():
                container.update(_dotenv(path))
            elif not isinstance(entry, dict) or entry.get("required", True):
                raise FileNotFoundError(path)
        for key, value in (service.get("environment") or {}).items():
            container[key] = str(_interpolate(value, env))
        started[name] = container
    for name, service in services.items():
        if name in started:
            assert set(service.get("depends_on", [])) <= set(started), name
    return started


def _resolve_docker(folder: Path, shell: dict[str, str]) -> dict[str, dict[str, str]]:
    out = subprocess.run(
        ["docker", "compose", "config", "--format", "json"],
        cwd=folder,
        env={"PATH": "/usr/bin:/bin:/usr/local/bin", **shell},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    services = json.loads(out.stdout)["services"]
    return {n: {k: str(v or "") for k, v in (s.get("environment") or {}).items()}
            for n, s in services.items()}  # fmt: skip


def resolve(folder: Path, shell: dict[str, str]) -> dict[str, dict[str, str]]:
    shutil.copy(ROOT / "compose.yaml", folder / "compose.yaml")
    return (_resolve_docker if _compose_available() else _resolve_here)(folder, shell)


# (mode, platforms) -> what .env holds, as docs/deploy.md says
CASES = {
    ("socket", "slack"): ("slack-socket", ["SLACK_BOT_TOKEN", "SLACK_APP_TOKEN"]),
    ("socket", "discord"): ("discord", ["DISCORD_TOKEN"]),
    ("socket", "both"): (
        "slack-socket,discord", ["SLACK_BOT_TOKEN", "SLACK_APP_TOKEN", "DISCORD_TOKEN"]
    ),
    ("http", "slack"): ("slack-http", ["SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET"]),
    ("http", "discord"): ("discord", ["DISCORD_TOKEN"]),
    # an .env kept from Socket Mode: the app token must not switch the HTTP workers over
    ("http", "both"): ("slack-http,discord", list(TOKENS)),
}  # fmt: skip


@pytest.mark.parametrize(("mode", "platforms"), list(CASES))
def test_compose_starts_what_dotenv_configures(tmp_path, mode, platforms):
    profiles, keys = CASES[(mode, platforms)]
    lines = [f"COMPOSE_PROFILES={profiles}"] + [f"{k}={TOKENS[k]}" for k in keys]
    (tmp_path / ".env").write_text("\n".join(lines) + "\n")
    started = resolve(tmp_path, {})

    want = set(ALWAYS)
    if platforms in ("slack", "both"):
        want |= SOCKET if mode == "socket" else HTTP
    if platforms in ("discord", "both"):
        want |= DISCORD
    assert set(started) == want

    for name, env in started.items():
        if name in SOCKET | HTTP - {"papertrail-slack"}:
            cfg = load_config(env, dotenv_path=None)
            require(cfg, "slack")
            assert configured(cfg, "slack")
            assert slack_mode(cfg) == mode, name
            assert env["REDIS_URL"] and env["CHROMA_HOST"] == "papertrail-chroma"
        elif name in DISCORD:
            cfg = load_config(env, dotenv_path=None)
            require(cfg, "discord")
            assert env["DISCORD_TOKEN"] == TOKENS["DISCORD_TOKEN"]


def test_a_platform_started_without_its_token_stops_once_with_a_message(tmp_path):
    # every profile on, only Discord configured: the Slack workers start, see no token
    (tmp_path / ".env").write_text(
        "COMPOSE_PROFILES=slack-socket,slack-http,discord\n"
        f"DISCORD_TOKEN={TOKENS['DISCORD_TOKEN']}\n"
    )
    started = resolve(tmp_path, {})
    assert set(started) >= SOCKET | HTTP | DISCORD
    for name in SOCKET | HTTP - {"papertrail-slack"}:
        assert not configured(load_config(started[name], dotenv_path=None), "slack"), name
    assert configured(load_config(started["papertrail-discord"], dotenv_path=None), "discord")
    services = yaml.safe_load((ROOT / "compose.yaml").read_text())["services"]
    for name in SOCKET | HTTP - {"papertrail-slack"} | DISCORD:
        assert services[name]["command"].endswith("--if-configured"), name
        # exit 0 is not restarted; a misconfigured bot (exit 2) is retried 3 times only
        assert services[name]["restart"] == "on-failure:3", name


def test_the_shell_environment_wins_over_dotenv(tmp_path):
    (tmp_path / ".env").write_text("COMPOSE_PROFILES=discord\nDISCORD_TOKEN=from-dotenv\n")
    started = resolve(tmp_path, {"DISCORD_TOKEN": "from-shell"})
    assert started["papertrail-discord"]["DISCORD_TOKEN"] == "from-shell"


def test_the_load_balancer_sends_to_both_http_workers():
    services = yaml.safe_load((ROOT / "compose.yaml").read_text())["services"]
    balancer = services["papertrail-slack"]
    assert balancer["ports"] == ["3000:3000"] and balancer["profiles"] == ["slack-http"]
    for worker in ("papertrail-slack-1", "papertrail-slack-2"):
        assert f"--to {worker}:3000" in balancer["command"]
        assert "ports" not in services[worker]  # reached through the balancer only
