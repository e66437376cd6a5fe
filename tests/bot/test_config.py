"""bot/config.py: reading the environment and .env, per-mode checks, one-line start-up errors."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.config import BotConfig, describe, load_config, require, slack_mode
from papertrail.errors import PaperTrailError
from papertrail.settings import describe as describe_settings

ROOT = Path(__file__).resolve().parents[2]
BOT = "xoxb-1111111111-2222222222222-AbCdEfGhIjKlMnOpQrStUvWx"
APP = "xapp-1-A0123456789-1234567890123-0123456789abcdef0123456789abcdef"
SIGNING = "8f742231b10e8888abcd99yyyzzz85a5"
DISCORD = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GabcDE.abcdefghijklmnopqrstuvwxyz0123456789AB"


def test_reads_platform_fields_and_pipeline_settings():
    cfg = load_config(
        {
            "SLACK_BOT_TOKEN": BOT,
            "PORT": "8080",
            "PAPERTRAIL_HEALTH_PORT": "9000",
            "PAPERTRAIL_LOG_LEVEL": "debug",
            "PAPERTRAIL_TOP_K": "7",
            "GROQ_API_KEY": "gsk_abcdefghijklmnopqrstuvwxyz012345",
        },
        dotenv_path=None,
    )
    assert cfg.slack_bot_token == BOT
    assert (cfg.port, cfg.health_port, cfg.log_level) == (8080, 9000, "DEBUG")
    assert cfg.settings.top_k == 7
    assert cfg.settings.groq_api_key.startswith("gsk_")


def test_defaults_without_any_variable(tmp_path):
    cfg = load_config({}, dotenv_path=tmp_path / "missing.env")
    assert cfg == BotConfig()
    assert (cfg.port, cfg.health_port, cfg.log_level) == (3000, 0, "")


def test_dotenv_file_is_read_and_the_environment_wins(tmp_path):
    dotenv = tmp_path / ".env"
    dotenv.write_text(
        f"SLACK_BOT_TOKEN={BOT}\nPORT=4000\nPAPERTRAIL_TOP_K=9\n# a comment\nDISCORD_TOKEN=\n"
    )
    cfg = load_config({"PORT": "5000"}, dotenv_path=dotenv)
    assert cfg.slack_bot_token == BOT  # only in the file
    assert cfg.port == 5000  # environment over file
    assert cfg.settings.top_k == 9  # pipeline settings come from the file too
    assert cfg.discord_token == ""


@pytest.mark.parametrize(
    ("var", "value"),
    [("PORT", "abc"), ("PORT", "70000"), ("PORT", "0"), ("PAPERTRAIL_HEALTH_PORT", "-1")],
)
def test_malformed_ports_name_the_variable(var, value):
    with pytest.raises(PaperTrailError) as e:
        load_config({var: value}, dotenv_path=None)
    assert e.value.code == "config"
    assert var in e.value.message and "\n" not in e.value.message


def test_malformed_log_level_and_pipeline_setting():
    with pytest.raises(PaperTrailError, match="PAPERTRAIL_LOG_LEVEL"):
        load_config({"PAPERTRAIL_LOG_LEVEL": "loud"}, dotenv_path=None)
    with pytest.raises(PaperTrailError, match="PAPERTRAIL_TOP_K") as e:
        load_config({"PAPERTRAIL_TOP_K": "many"}, dotenv_path=None)
    assert e.value.code == "config"


def cfg_of(**env) -> BotConfig:
    return load_config(env, dotenv_path=None)


def test_slack_socket_mode_and_http_mode():
    socket = cfg_of(SLACK_BOT_TOKEN=BOT, SLACK_APP_TOKEN=APP)
    require(socket, "slack")
    assert slack_mode(socket) == "socket"
    http = cfg_of(SLACK_BOT_TOKEN=BOT, SLACK_SIGNING_SECRET=SIGNING)
    require(http, "slack")
    assert slack_mode(http) == "http"


@pytest.mark.parametrize(
    ("env", "names"),
    [
        ({}, "SLACK_BOT_TOKEN"),
        ({"SLACK_BOT_TOKEN": BOT}, "SLACK_APP_TOKEN or SLACK_SIGNING_SECRET"),
        ({"SLACK_BOT_TOKEN": "xoxp-123-456-user-token", "SLACK_APP_TOKEN": APP}, "SLACK_BOT_TOKEN"),
        ({"SLACK_BOT_TOKEN": APP, "SLACK_APP_TOKEN": APP}, "SLACK_BOT_TOKEN"),
        ({"SLACK_BOT_TOKEN": BOT, "SLACK_APP_TOKEN": "xoxb-not-an-app-token"}, "SLACK_APP_TOKEN"),
        ({"SLACK_BOT_TOKEN": f"{BOT} trailing", "SLACK_APP_TOKEN": APP}, "SLACK_BOT_TOKEN"),
    ],
)
def test_slack_problems_are_one_line_naming_the_variable(env, names):
    with pytest.raises(PaperTrailError) as e:
        require(cfg_of(**env), "slack")
    msg = e.value.message
    assert e.value.code == "config" and msg.startswith(names) and "\n" not in msg
    for secret in env.values():  # the message never repeats a token
        assert secret not in msg


def test_discord_requirements():
    require(cfg_of(DISCORD_TOKEN=DISCORD), "discord")
    for bad, hint in [
        ("", "not set"),
        (f"Bot {DISCORD}", "prefix"),
        ("0123456789abcdef0123456789abcdef", "three parts"),  # a client secret, pasted by mistake
        ("123456789012345678", "three parts"),  # the application id
    ]:
        with pytest.raises(PaperTrailError) as e:
            require(cfg_of(DISCORD_TOKEN=bad), "discord")
        assert "DISCORD_TOKEN" in e.value.message and hint in e.value.message
        assert not bad or bad not in e.value.message


def test_local_needs_nothing_and_unknown_mode_is_refused():
    require(cfg_of(), "local")
    with pytest.raises(PaperTrailError, match="Unknown mode"):
        require(cfg_of(), "irc")


def test_secrets_are_listed_and_kept_out_of_repr():
    cfg = cfg_of(
        SLACK_BOT_TOKEN=BOT,
        SLACK_APP_TOKEN=APP,
        SLACK_SIGNING_SECRET=SIGNING,
        DISCORD_TOKEN=DISCORD,
        GROQ_API_KEY="gsk_abcdefghijklmnopqrstuvwxyz012345",
        PAPERTRAIL_LLM_API_KEY="local-llm-key-123",
    )
    secrets = set(cfg.secrets())
    assert secrets == {
        BOT,
        APP,
        SIGNING,
        DISCORD,
        "gsk_abcdefghijklmnopqrstuvwxyz012345",
        "local-llm-key-123",
    }
    text = repr(cfg)
    assert "port=3000" in text
    for secret in secrets:
        assert secret not in text


def test_env_example_lists_every_variable():
    text = (ROOT / ".env.example").read_text()
    names = [n for n, _, _ in describe()] + [n for n, _, _ in describe_settings()]
    for name in names:
        assert f"\n{name}=" in text or f"\n# {name}=" in text, name
    # every line is a comment, blank, or an empty assignment: no secret can be committed
    for line in text.splitlines():
        assert not line or line.startswith("#") or line.endswith("="), line


def test_env_example_loads_as_the_defaults(tmp_path):
    cfg = load_config({}, dotenv_path=ROOT / ".env.example")
    assert cfg == BotConfig()


def run_bot(*args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    base = {"PATH": os.environ.get("PATH", ""), "HOME": str(cwd), "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        env={**base, **env},
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize(
    ("args", "env", "names"),
    [
        (["slack"], {}, "SLACK_BOT_TOKEN"),
        (["slack"], {"SLACK_BOT_TOKEN": "xoxp-1-2-3", "SLACK_APP_TOKEN": APP}, "SLACK_BOT_TOKEN"),
        (["discord"], {}, "DISCORD_TOKEN"),
        (["local"], {"PORT": "abc"}, "PORT"),
        (["local"], {"PAPERTRAIL_CHUNK_SIZE": "big"}, "PAPERTRAIL_CHUNK_SIZE"),
    ],
)
def test_start_up_errors_print_one_line_and_exit_2(tmp_path, args, env, names):
    proc = run_bot(*args, env=env, cwd=tmp_path)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("papertrail: ") and names in lines[0]
    assert "Traceback" not in proc.stderr and proc.stdout == ""


def test_dotenv_in_working_directory_is_used(tmp_path):
    (tmp_path / ".env").write_text("DISCORD_TOKEN=not-a-token\n")
    proc = run_bot("discord", env={}, cwd=tmp_path)
    assert proc.returncode == 2 and "three parts" in proc.stderr


def test_platform_refusals_become_one_line_fixes():
    import discord
    from slack_bolt.error import BoltError

    from bot.__main__ import platform_error

    slack = platform_error(
        BoltError("`token` is invalid (auth.test result: {'ok': False, 'error': 'invalid_auth'})")
    )
    assert slack.code == "config" and slack.message.startswith(
        "Slack rejected SLACK_BOT_TOKEN (invalid_auth):"
    )
    login = platform_error(discord.LoginFailure("Improper token has been passed."))
    assert "DISCORD_TOKEN" in login.message
    intents = platform_error(discord.PrivilegedIntentsRequired(None))
    assert "Message Content Intent" in intents.message
    assert platform_error(RuntimeError("something else")) is None
    assert platform_error(BoltError("unrelated bolt problem")) is None


def test_a_revoked_slack_token_is_one_line_and_exit_2(tmp_path, capsys):
    import logging
    import threading

    from bot.__main__ import main
    from tests.fake_slack import FakeSlack

    root = logging.getLogger()
    saved = (root.handlers[:], root.level, logging.getLogRecordFactory())
    hooks = (sys.excepthook, threading.excepthook)

    class NotYet:
        """A pipeline that must not even be warmed up before the token is checked."""

        warmed = False

        def warm_up(self) -> None:
            NotYet.warmed = True

    try:
        with FakeSlack() as fake:  # answers invalid_auth to any other token
            code = main(
                ["--env-file", os.devnull, "slack", "--port", "0"],
                env={
                    "SLACK_BOT_TOKEN": "xoxb-revoked-0000000000-token",
                    "SLACK_SIGNING_SECRET": SIGNING,
                    "SLACK_API_URL": fake.api_url,
                },
                pipeline=NotYet(),
            )
    finally:
        root.handlers[:] = saved[0]
        root.setLevel(saved[1])
        logging.setLogRecordFactory(saved[2])
        sys.excepthook, threading.excepthook = hooks
        logging.captureWarnings(False)
    err = capsys.readouterr().err
    assert code == 2
    errors = [line for line in err.splitlines() if line.startswith("papertrail: ")]
    assert errors == [
        "papertrail: Slack rejected SLACK_BOT_TOKEN (invalid_auth): reinstall the app to the "
        "workspace and copy the Bot User OAuth Token again."
    ]
    assert "Traceback" not in err and "xoxb-revoked-0000000000-token" not in err
    assert not NotYet.warmed  # refused before the model started loading
