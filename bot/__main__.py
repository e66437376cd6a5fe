"""``python -m bot slack|discord|local|web``: start one PaperTrail process.

Loads the configuration (environment over ``.env``), checks what the mode
needs, sets up redacted logging, builds the shared ``ChatService`` and runs
the platform adapter until SIGTERM/SIGINT, then closes the pipeline, logs
"stopped" and exits 0 without interpreter teardown (``papertrail/exits.py``).
A ``PaperTrailError`` at start-up (a missing or malformed variable, an
unusable data directory) prints one line on stderr and exits 2;
an unexpected start-up failure is logged, redacted, and exits 1. The adapters
themselves live in ``adapters/``.
"""

from __future__ import annotations

import argparse
import logging
import re
import sys
from collections.abc import Mapping, Sequence
from typing import TextIO

from bot.config import BotConfig, load_config, require, slack_mode
from bot.health import health_payload, serve_health
from bot.logs import redact, setup_logging
from papertrail.envvars import dotenv_file
from papertrail.errors import PaperTrailError
from papertrail.exits import Stop, finish
from papertrail.offline import offline_env

log = logging.getLogger("bot")

EXIT_CONFIG = 2  # same code argparse uses for a bad command line


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bot",
        description="Run PaperTrail: a chat bot that answers questions about PDFs "
        "with verified citations.",
        epilog="Configuration comes from the environment and .env (see .env.example).\n"
        "Try it without tokens:\n"
        '  python -m bot local --pdf report.pdf --ask "What is the warranty period?"\n'
        "  python -m bot web      # then open http://127.0.0.1:8000/",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--env-file", help="file of VAR=value lines read under the environment (default: .env)"
    )
    modes = "{slack,discord,local,web,feedback}"
    sub = parser.add_subparsers(dest="mode", required=True, metavar=modes)
    port_help = "port to listen on: Slack HTTP events, or /healthz for the other processes"
    slack = sub.add_parser(
        "slack",
        help="Slack bot: Socket Mode with SLACK_APP_TOKEN, else HTTP mode on PORT",
    )
    slack.add_argument("--port", type=int, help=port_help)
    discord = sub.add_parser("discord", help="Discord bot (gateway connection)")
    discord.add_argument("--port", type=int, help=port_help)
    for platform, token in ((slack, "SLACK_BOT_TOKEN"), (discord, "DISCORD_TOKEN")):
        platform.add_argument(
            "--if-configured",
            action="store_true",
            help=f"without {token} at all, say so in one line and exit 0 instead of 2 "
            "(for a service a deployment may not use, as in compose.yaml)",
        )
    local = sub.add_parser("local", help="console channel, no tokens needed")
    local.add_argument("--port", type=int, help=port_help)
    local.add_argument("--pdf", action="append", default=[], metavar="FILE", help="PDF to add")
    local.add_argument(
        "--ask", action="append", default=[], metavar="QUESTION", help="question to ask"
    )
    local.add_argument("--out", default="out", help="folder for snippet PNGs (default ./out)")
    local.add_argument("--channel", default="local:console", help="channel id for the index")
    web = sub.add_parser("web", help="web page channel in a browser, no tokens needed")
    web.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: this computer only)",
    )
    web.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    feedback = sub.add_parser("feedback", help="export 👍/👎 on answers as test cases")
    feedback.add_argument("action", choices=["export"], help="write JSONL on stdout")
    feedback.add_argument("--channel", required=True, help="the library, e.g. slack:T01:C02")
    feedback.add_argument("--format", choices=["eval", "verifier"], default="eval",
                          help="eval: QA cases; verifier: claim/passage pairs")  # fmt: skip
    return parser


def main(
    argv: Sequence[str] | None = None,
    *,
    env: Mapping[str, str] | None = None,
    pipeline=None,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
) -> int:
    """Run one process; returns its exit code. ``pipeline`` lets tests skip the model."""
    stop = Stop().install()  # SIGTERM unwinds like Ctrl-C from here on: exit 0, "stopped"
    try:
        return _main(argv, env, pipeline, stdin, stdout, stop)
    except KeyboardInterrupt:  # between a step's clean-up and the next
        return 0
    finally:
        stop.restore()


def _main(argv, env, pipeline, stdin, stdout, stop: Stop | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        cfg = load_config(env, dotenv_path=dotenv_file(args.env_file))
        if args.mode == "feedback":  # reads the bots' store; starts nothing
            from bot.feedback import export_feedback

            return export_feedback(cfg, args.channel, args.format, stdout)
        if args.port is not None and args.mode != "web":
            cfg = cfg.replace(port=args.port, health_port=args.port)
        if getattr(args, "if_configured", False) and not configured(cfg, args.mode):
            token = "SLACK_BOT_TOKEN" if args.mode == "slack" else "DISCORD_TOKEN"
            print(f"papertrail: {token} is not set: no {args.mode} bot here.", file=sys.stderr)
            return 0
        require(cfg, args.mode)
    except PaperTrailError as exc:
        return _fail(exc)

    offline_env()
    default_level = "WARNING" if args.mode in ("local", "web") else "INFO"
    setup_logging(cfg.log_level or default_level, cfg.secrets())
    service = health = coord = None
    try:
        from bot.wiring import build_service, describe_service, open_coordination

        log.info("starting %s; %s", args.mode, describe_service(cfg))
        if args.mode == "slack":
            check_slack_token(cfg)  # seconds, before the model loads (a bad token fails fast)
        coord = open_coordination(cfg)  # None unless REDIS_URL: several workers
        service = build_service(cfg, pipeline, coord)
        if (
            cfg.health_port
            and args.mode != "web"
            and not (args.mode == "slack" and slack_mode(cfg) == "http")
        ):
            # Slack HTTP mode and the web channel serve /healthz on their own server
            health = serve_health(cfg.health_port, lambda: health_payload(service, mode=args.mode))
        return _run(args, cfg, service, coord, stdin=stdin, stdout=stdout)
    except PaperTrailError as exc:
        return _fail(exc)
    except KeyboardInterrupt:
        log.info("interrupted")
        return 0
    except Exception as exc:
        if stop is not None and stop.requested:
            # the stop landed inside a library that turned it into an error of its own
            # (pydantic-core, building a model class while groq is imported): still a stop
            log.info("interrupted (%s while stopping)", type(exc).__name__)
            return 0
        known = platform_error(exc)
        if known is not None:
            return _fail(known)
        log.exception("PaperTrail stopped on an unexpected error")
        return 1
    finally:
        if health is not None:
            health.close()
        if service is not None:
            from bot.wiring import close_service

            close_service(service)
        if coord is not None:
            coord.close()
        log.info("stopped")


def _run(args, cfg: BotConfig, service, coord, *, stdin, stdout) -> int:
    from bot.wiring import discord_jobs, discord_options, slack_options

    if args.mode == "slack":
        from adapters.slack.app import build_slack_app, run_http, run_socket_mode

        app = build_slack_app(
            service,
            bot_token=cfg.slack_bot_token,
            signing_secret=cfg.slack_signing_secret or None,
            api_url=cfg.slack_api_url or None,
            max_pdf_bytes=cfg.settings.max_pdf_bytes,
            **slack_options(coord),
        )
        if slack_mode(cfg) == "socket":
            log.info("Slack Socket Mode")
            run_socket_mode(app, cfg.slack_app_token)
        else:
            log.info("Slack HTTP mode on port %d", cfg.port)
            run_http(app, cfg.port)
        return 0
    if args.mode == "discord":
        from adapters.discord.client import run

        run(
            cfg.discord_token,
            service,
            api_url=cfg.discord_api_url or None,
            gateway_url=cfg.discord_gateway_url or None,
            jobs=discord_jobs(cfg, coord),
            **discord_options(cfg),
        )
        return 0
    if args.mode == "web":
        from adapters.web.serve import run_web

        run_web(service, host=args.host, port=args.port, max_pdf_bytes=cfg.settings.max_pdf_bytes)
        return 0
    from adapters.local import LocalConsole, run_batch, run_interactive

    console = LocalConsole(service, out=stdout, out_dir=args.out, channel=args.channel)
    if args.pdf or args.ask:
        return run_batch(console, args.pdf, args.ask)
    return run_interactive(console, stdin)


def configured(cfg: BotConfig, mode: str) -> bool:
    """Whether the platform's own token is set at all (a malformed one is ``require``'s)."""
    token = {"slack": cfg.slack_bot_token, "discord": cfg.discord_token}.get(mode, "x")
    return bool(token.strip())


def check_slack_token(cfg: BotConfig) -> None:
    """``auth.test`` with the bot token; a refusal raises what ``platform_error`` maps."""
    from slack_sdk import WebClient
    from slack_sdk.errors import SlackApiError

    base = cfg.slack_api_url or None
    options = {"base_url": base if base.endswith("/") else base + "/"} if base else {}
    try:
        WebClient(token=cfg.slack_bot_token, timeout=30, **options).auth_test()
    except SlackApiError as err:
        reason = err.response.get("error", "refused")
        raise PaperTrailError(
            f"Slack rejected SLACK_BOT_TOKEN ({reason}): reinstall the app to the workspace "
            "and copy the Bot User OAuth Token again.",
            code="config",
        ) from None


def platform_error(exc: BaseException) -> PaperTrailError | None:
    """A platform's refusal of our credentials or setup, as a one-line fix; else None."""
    kind = f"{type(exc).__module__}.{type(exc).__name__}"
    text = str(exc)
    if kind == "slack_bolt.error.BoltError" and "auth.test" in text:
        found = re.search(r"'error': '([\w.-]+)'", text)
        reason = f" ({found.group(1)})" if found else ""
        return PaperTrailError(
            f"Slack rejected SLACK_BOT_TOKEN{reason}: reinstall the app to the workspace and "
            "copy the Bot User OAuth Token again.",
            code="config",
        )
    if kind in ("urllib.error.URLError", "socket.timeout", "builtins.TimeoutError"):
        # slack_sdk's auth.test at start-up: no network, a proxy, or a wrong SLACK_API_URL
        reason = getattr(exc, "reason", None) or text or type(exc).__name__
        return PaperTrailError(
            f"PaperTrail could not reach Slack ({reason}): check the network connection "
            "(and SLACK_API_URL if set), then start it again.",
            code="config",
        )
    if kind.startswith("aiohttp.client_exceptions.ClientConnector"):
        return PaperTrailError(
            f"PaperTrail could not reach Discord ({text}): check the network connection "
            "(and DISCORD_API_URL if set), then start it again.",
            code="config",
        )
    if kind == "discord.errors.LoginFailure":
        return PaperTrailError(
            "Discord rejected DISCORD_TOKEN: reset the token (developer portal > Bot > "
            "Reset Token) and set the new one.",
            code="config",
        )
    if kind == "discord.errors.PrivilegedIntentsRequired":
        return PaperTrailError(
            "Discord refused the Message Content intent: enable it in the developer portal "
            "(Bot > Privileged Gateway Intents > Message Content Intent) and restart.",
            code="config",
        )
    return None


def _fail(exc: PaperTrailError) -> int:
    print(f"papertrail: {redact(exc.message)}", file=sys.stderr)
    return EXIT_CONFIG


if __name__ == "__main__":
    # after main's own clean-up, end at once: interpreter teardown beside a native thread
    # still busy (the model warming up) aborted the process (papertrail/exits.py)
    finish(main())
