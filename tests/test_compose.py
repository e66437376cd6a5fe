"""compose.yaml and the Dockerfile run what render.yaml runs: same services, commands, variables.

Also: one Chroma version for the client (pyproject.toml) and every server, one
torch pin and CPU index for the Makefile, the Dockerfile and render.yaml, and
the image exports the embedding model where the bots look for it.
"""

from __future__ import annotations

import re
import shlex
import tomllib
from pathlib import Path

import yaml

from tests.test_render_yaml import SECRETS, SERVICES, TORCH_INDEX, env_vars

ROOT = Path(__file__).resolve().parents[1]
COMPOSE = yaml.safe_load((ROOT / "compose.yaml").read_text())["services"]
DOCKERFILE = (ROOT / "Dockerfile").read_text()
MAKEFILE = (ROOT / "Makefile").read_text()
RENDER_ONLY = {"PYTHON_VERSION"}  # Render's runtime picks Python by it; the image has its own
# where each platform keeps the ONNX export: made at build time in both
MODEL_CACHE = {"compose": "/opt/papertrail/model-cache", "render": "/opt/render/project/src/"}


COMPOSE_ONLY = {"SLACK_APP_TOKEN"}  # Socket Mode: compose runs it too; Render runs HTTP mode


def compose_bots(command: str, profile: str | None = None) -> list[dict]:
    """The bots that run ``command`` (each with ``--if-configured``: compose may start a
    platform nobody configured), of ``profile`` when given."""
    return [
        s
        for s in COMPOSE.values()
        if s.get("command") == f"{command} --if-configured"
        and (profile is None or s.get("profiles") == [profile])
    ]


def render_of(kind: str) -> dict:
    (service,) = [s for s in SERVICES.values() if s["type"] == kind]
    return service


def test_the_same_services_run_with_the_same_commands():
    slack, discord = render_of("web"), render_of("worker")
    assert len(compose_bots(slack["startCommand"], "slack-http")) == slack["numInstances"] == 2
    assert len(compose_bots(slack["startCommand"], "slack-socket")) == 2
    assert len(compose_bots(discord["startCommand"])) == 1
    chroma = render_of("pserv")
    argv = shlex.split(chroma["startCommand"])
    (server,) = [s for s in COMPOSE.values() if str(s.get("command", "")).startswith("chroma run")]
    compose_argv = shlex.split(server["command"])
    assert compose_argv[:2] == argv[:2] == ["chroma", "run"]
    port = argv[argv.index("--port") + 1]
    assert compose_argv[compose_argv.index("--port") + 1] == port
    (redis,) = [s for s in COMPOSE.values() if s.get("image", "").startswith("redis:")]
    assert "--maxmemory-policy noeviction" in redis["command"]  # as render's maxmemoryPolicy
    assert render_of("keyvalue")["maxmemoryPolicy"] == "noeviction"


def test_the_bots_get_the_same_variables():
    for kind, command in (("web", "python -m bot slack"), ("worker", "python -m bot discord")):
        render = env_vars(render_of(kind))
        assert render_of(kind)["startCommand"] == command
        for service in compose_bots(command):
            env = service["environment"]
            assert set(env) - COMPOSE_ONLY == set(render) - RENDER_ONLY, command
            for key, var in render.items():
                if key in SECRETS:  # from .env or the environment, never written here
                    assert env[key] == f"${{{key}:-}}"
                elif "value" in var and key not in ("PAPERTRAIL_MODEL_CACHE", "PYTHON_VERSION"):
                    assert str(env[key]) == str(var["value"]), key
            host = env["CHROMA_HOST"]
            assert host in COMPOSE and COMPOSE[host]["command"].startswith("chroma run")
            redis_host = re.match(r"redis://([^:/]+)", env["REDIS_URL"]).group(1)
            assert COMPOSE[redis_host]["image"].startswith("redis:")
            assert env["PAPERTRAIL_MODEL_CACHE"] == MODEL_CACHE["compose"]
            assert render["PAPERTRAIL_MODEL_CACHE"]["value"].startswith(MODEL_CACHE["render"])


def test_one_chroma_version_for_client_and_servers():
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    (pin,) = [d for d in deps if d.startswith("chromadb")]
    assert re.fullmatch(r"chromadb==[\d.]+", pin)
    assert render_of("pserv")["buildCommand"] == f"pip install {pin}"
    lock = (ROOT / "requirements.lock").read_text()
    assert re.search(rf"^{re.escape(pin)}$", lock, re.M)
    # compose's server is the image's own chromadb, installed from the lock
    (server,) = [s for s in COMPOSE.values() if str(s.get("command", "")).startswith("chroma run")]
    assert server["build"] == "."


def test_one_torch_pin_from_the_cpu_index_everywhere():
    (make_pin,) = re.findall(r"^TORCH := (torch==[\d.]+)$", MAKEFILE, re.M)
    assert f"TORCH_INDEX := {TORCH_INDEX}" in MAKEFILE
    assert "--no-deps --index-url $(TORCH_INDEX) $(TORCH)" in MAKEFILE  # its deps: the lock
    assert f"--no-deps --index-url {TORCH_INDEX} {make_pin}" in DOCKERFILE
    step = f"pip install --no-deps {make_pin} --index-url {TORCH_INDEX}"
    for kind in ("web", "worker"):
        assert step in render_of(kind)["buildCommand"]


def test_the_image_exports_the_model_where_the_bots_look():
    assert f"PAPERTRAIL_MODEL_CACHE={MODEL_CACHE['compose']}" in DOCKERFILE
    assert "papertrail export-model" in DOCKERFILE
    assert "pip install -r requirements-runtime.lock" in DOCKERFILE
    for path in re.findall(r"^COPY (\S+) ", DOCKERFILE, re.M):
        assert (ROOT / path).exists(), path
