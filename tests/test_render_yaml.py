"""render.yaml: the multi-worker layout, commands that exist, secrets kept out, health checks."""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time
import tomllib
import urllib.request
from pathlib import Path

import yaml

from bot.__main__ import build_parser, main
from bot.config import BotConfig
from bot.config import describe as describe_bot
from bot.health import HEALTH_PATH
from papertrail.settings import describe as describe_settings

ROOT = Path(__file__).resolve().parents[1]
BLUEPRINT = yaml.safe_load((ROOT / "render.yaml").read_text())
SERVICES = {s["name"]: s for s in BLUEPRINT["services"]}
BOTS = {n: s for n, s in SERVICES.items() if s["type"] in ("web", "worker")}
SECRETS = {"SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_APP_TOKEN", "DISCORD_TOKEN"}
SECRETS |= {"GROQ_API_KEY", "PAPERTRAIL_LLM_API_KEY"}
TORCH_INDEX = "https://download.pytorch.org/whl/cpu"
RUNTIME_VARS = {"PYTHON_VERSION", "HF_HUB_OFFLINE", "ORT_DISABLE_TELEMETRY", "ANONYMIZED_TELEMETRY"}


def env_vars(service: dict) -> dict[str, dict]:
    return {v["key"]: v for v in service.get("envVars", [])}


def of_type(kind: str) -> dict:
    (service,) = [s for s in SERVICES.values() if s["type"] == kind]
    return service


def mode_choices() -> list[str]:
    parser = build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return list(sub.choices)


def test_slack_is_a_web_service_and_discord_a_worker():
    assert shlex.split(of_type("web")["startCommand"]) == ["python", "-m", "bot", "slack"]
    assert shlex.split(of_type("worker")["startCommand"]) == ["python", "-m", "bot", "discord"]


def test_start_commands_name_existing_subcommands():
    modes = mode_choices()
    help_text = subprocess.run(
        [sys.executable, "-m", "bot", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    for service in BOTS.values():
        argv = shlex.split(service["startCommand"])
        assert argv[:3] == ["python", "-m", "bot"]
        assert argv[3] in modes and argv[3] in help_text
        build_parser().parse_args(argv[3:])  # the whole command line parses


def test_secrets_are_prompted_never_committed():
    for service in SERVICES.values():
        for key, var in env_vars(service).items():
            if key in SECRETS:
                assert var.get("sync") is False and "value" not in var, (service["name"], key)
            else:
                assert "sync" not in var
    slack, discord = env_vars(of_type("web")), env_vars(of_type("worker"))
    assert {"SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "GROQ_API_KEY"} <= slack.keys()
    assert "SLACK_APP_TOKEN" not in slack  # its presence would switch the bot to Socket Mode
    assert {"DISCORD_TOKEN", "GROQ_API_KEY"} <= discord.keys()


def test_every_variable_is_one_the_code_reads():
    known = {n for n, _, _ in describe_bot()} | {n for n, _, _ in describe_settings()}
    assert known >= SECRETS
    for service in SERVICES.values():
        unknown = set(env_vars(service)) - known - RUNTIME_VARS
        assert not unknown, (service["name"], unknown)


def test_one_chroma_server_holds_the_only_disk_and_the_bots_share_it_and_redis():
    chroma, redis = of_type("pserv"), of_type("keyvalue")
    argv = shlex.split(chroma["startCommand"])
    assert argv[:2] == ["chroma", "run"]
    path, port = argv[argv.index("--path") + 1], argv[argv.index("--port") + 1]
    assert path.startswith(chroma["disk"]["mountPath"] + "/")  # the index is on the disk
    assert (
        chroma["buildCommand"] == f"pip install chromadb=={importlib.metadata.version('chromadb')}"
    )
    assert redis["maxmemoryPolicy"] == "noeviction"  # evicting a lease or a job loses work
    assert redis["ipAllowList"] == []  # internal connections only
    assert [s for s in SERVICES.values() if "disk" in s] == [chroma]
    for service in BOTS.values():
        env = env_vars(service)
        assert env["REDIS_URL"]["fromService"] == {
            "type": "keyvalue", "name": redis["name"], "property": "connectionString"
        }  # fmt: skip
        assert env["CHROMA_HOST"]["fromService"] == {
            "type": "pserv", "name": chroma["name"], "property": "host"
        }  # fmt: skip
        assert env["CHROMA_PORT"]["value"] == port
        assert service.get("plan") not in (None, "free")
    assert of_type("web").get("numInstances", 1) >= 2  # interchangeable Slack instances


def test_build_installs_the_pinned_cpu_torch_first_and_python_311():
    torch = importlib.metadata.version("torch").split("+")[0]
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    for service in BOTS.values():
        steps = [shlex.split(step) for step in service["buildCommand"].split("&&")]
        assert steps == [
            ["pip", "install", "--no-deps", f"torch=={torch}", "--index-url", TORCH_INDEX],
            ["pip", "install", "-r", "requirements.lock"],
            ["pip", "install", "--no-deps", "."],
            ["papertrail", "export-model"],  # the ONNX export, made once at build time
        ]
        version = env_vars(service)["PYTHON_VERSION"]["value"]
        assert re.fullmatch(r"3\.11\.\d+", str(version))  # Render wants a full version
        assert requires == ">=3.11"
        assert env_vars(service)["HF_HUB_OFFLINE"]["value"] == "1"  # model is in a wheel
        # the export lands in the project folder Render ships to every instance
        cache = env_vars(service)["PAPERTRAIL_MODEL_CACHE"]["value"]
        assert cache.startswith("/opt/render/project/src/")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Pipeline:
    """Enough pipeline for start-up: the health check must not need documents or a model."""

    def __init__(self) -> None:
        self.settings = BotConfig().settings


SLACK_TOKEN = "xoxb-5550001112-6660001112223-SlAcKtOkEnFoRrEnDeRtEsT"
DISCORD_TOKEN = "MTEwMDAwMDAwMDAwMDAwMDAwMQ.GrEnDr.dIsCoRdToKeNfOrRenderYamlTest0123456"


def committed_env(service: dict) -> dict[str, str]:
    return {k: str(v["value"]) for k, v in env_vars(service).items() if "value" in v}


def test_web_service_serves_its_health_check_path(restore_logging, capsys):
    from tests.fake_slack import FakeSlack

    web = of_type("web")
    assert web["healthCheckPath"] == HEALTH_PATH
    port = free_port()
    env = committed_env(web) | {"PAPERTRAIL_LOG_LEVEL": "DEBUG"}
    with FakeSlack(token=SLACK_TOKEN) as fake:
        env |= {
            "SLACK_BOT_TOKEN": fake.token,
            "SLACK_SIGNING_SECRET": "8f742231b10e8888abcd99yyyzzz85a5",
            "SLACK_API_URL": fake.api_url,
            "PORT": str(port),  # Render sets PORT for web services
        }
        seen: dict = {}
        finished = threading.Event()  # never signal a pytest process that no longer traps it

        def probe() -> None:
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline and "status" not in seen:
                try:
                    url = f"http://127.0.0.1:{port}{web['healthCheckPath']}"
                    with urllib.request.urlopen(url, timeout=2) as resp:
                        seen["status"] = resp.status
                except OSError:
                    time.sleep(0.05)
            if not finished.is_set():
                os.kill(os.getpid(), signal.SIGTERM)  # what Render sends on deploy/stop

        prober = threading.Thread(target=probe, daemon=True)
        prober.start()
        argv = ["--env-file", os.devnull, *shlex.split(web["startCommand"])[3:]]
        try:
            code = main(argv, env=env, pipeline=Pipeline())
        finally:
            finished.set()
        prober.join(timeout=5)
    assert seen.get("status") == 200
    assert code == 0
    err = capsys.readouterr().err
    assert "Slack HTTP mode on port" in err and "INFO bot: stopped" in err
    assert SLACK_TOKEN not in err


def test_worker_connects_and_stops_on_sigterm(restore_logging, capsys):
    import discord

    from tests.fake_discord import FakeDiscord

    worker = of_type("worker")
    saved = (discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY)
    finished = threading.Event()
    try:
        with FakeDiscord() as fake:
            env = committed_env(worker) | {
                "PAPERTRAIL_LOG_LEVEL": "DEBUG",
                "DISCORD_TOKEN": DISCORD_TOKEN,
                "DISCORD_API_URL": fake.api_url,
                "DISCORD_GATEWAY_URL": fake.gateway_url,
            }

            def stop_when_connected() -> None:
                # signal only once the bot idles in its loop: a KeyboardInterrupt landing in
                # a lazy import under pytest's rewriting hook corrupts later compiles
                deadline = time.monotonic() + 20
                while time.monotonic() < deadline and fake.identify is None:
                    time.sleep(0.05)
                beats = fake.heartbeats
                while time.monotonic() < deadline and fake.heartbeats < beats + 2:
                    time.sleep(0.05)
                if not finished.is_set():
                    os.kill(os.getpid(), signal.SIGTERM)

            threading.Thread(target=stop_when_connected, daemon=True).start()
            argv = ["--env-file", os.devnull, *shlex.split(worker["startCommand"])[3:]]
            try:
                code = main(argv, env=env, pipeline=Pipeline())
            finally:
                finished.set()
            assert fake.identify is not None and fake.identify["token"] == DISCORD_TOKEN
            assert fake.heartbeats >= 1
    finally:
        discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = saved
    assert code == 0
    err = capsys.readouterr().err
    assert "INFO bot: stopped" in err  # the fake's own access log may come after it
    assert DISCORD_TOKEN not in err
