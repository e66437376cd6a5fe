"""bot/logs.py: no secret reaches a log line, whoever logs it and however."""

from __future__ import annotations

import io
import logging
import sys
import threading
import warnings

import pytest

from bot.logs import REDACTED, Redactor, redact, setup_logging

SECRETS = {
    "slack_bot": "xoxb-9182736450-1029384756102-QwErTyUiOpAsDfGhJkLzXcVb",
    "slack_app": "xapp-1-A07QWERTY12-7788990011223-f00dfeedbeefcafe0123456789abcdef",
    "slack_user": "xoxp-1234567890-0987654321-1122334455-aabbccddeeff00112233445566778899",
    "slack_refresh": "xoxe-1-My0xLTEyMzQ1Njc4OTAtMTIzNDU2Nzg5MA",
    "signing": "4d1f0c9a8b7e6d5c4b3a29180f7e6d5c",
    "discord": "MTE5ODc2NTQzMjEwOTg3NjU0Mw.GxYzAb.Q1w2E3r4T5y6U7i8O9p0AaSsDdFfGgHhJjKkLl",
    "groq": "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",
    "llm": "sk-local-0123456789abcdefABCDEF",
}
LIBRARY_LOGGERS = (
    "slack_bolt.App",
    "slack_sdk.socket_mode",
    "discord.gateway",
    "httpx",
    "groq._base_client",
    "papertrail.answer.llm",
    "papertrail",
    "slack_bolt",
    "slack_sdk",
    "discord",
    "groq",
)
# a secret with no recognisable shape: only its registration can catch it
PLAIN = "correct-horse-battery-staple-42"


@pytest.fixture
def captured():
    """Set up PaperTrail logging into a buffer; restore the process's logging afterwards."""
    root = logging.getLogger()
    saved = (
        root.handlers[:],
        root.level,
        logging.getLogRecordFactory(),
        sys.excepthook,
        threading.excepthook,
    )
    # Bolt sets its own loggers' levels when an app is built (another test may have
    # built one): let them inherit from the root again for the duration.
    named = [logging.getLogger(n) for n in LIBRARY_LOGGERS]
    levels = [(lg.level, lg.disabled) for lg in named]
    for lg in named:
        lg.setLevel(logging.NOTSET)
        lg.disabled = False
    stream = io.StringIO()
    handler = setup_logging("DEBUG", [*SECRETS.values(), PLAIN], stream=stream)
    yield stream
    for lg, (level, disabled) in zip(named, levels, strict=True):
        lg.setLevel(level)
        lg.disabled = disabled
    root.removeHandler(handler)
    root.handlers[:] = saved[0]
    root.setLevel(saved[1])
    logging.setLogRecordFactory(saved[2])
    sys.excepthook, threading.excepthook = saved[3], saved[4]
    logging.captureWarnings(False)


def assert_clean(text: str) -> None:
    for secret in [*SECRETS.values(), PLAIN]:
        assert secret not in text
        # no long fragment either (e.g. a token cut after its prefix)
        assert secret[-16:] not in text


def test_library_loggers_args_and_fstrings_are_redacted(captured):
    s = SECRETS
    logging.getLogger("slack_bolt.App").info("auth.test with token=%s", s["slack_bot"])
    logging.getLogger("slack_sdk.socket_mode").debug("connecting with %r", {"app": s["slack_app"]})
    logging.getLogger("discord.gateway").warning("IDENTIFY payload %s", {"token": s["discord"]})
    logging.getLogger("httpx").warning(
        "headers: %s", {"Authorization": f"Bearer {s['slack_user']}"}
    )
    logging.getLogger("groq._base_client").error(f"api_key={s['groq']} rejected")
    logging.getLogger("papertrail.answer.llm").info("llm key %s and %s", s["llm"], PLAIN)
    logging.getLogger().info(
        "refresh %(t)s signing %(s)s", {"t": s["slack_refresh"], "s": s["signing"]}
    )
    out = captured.getvalue()
    assert_clean(out)
    assert out.count(REDACTED) >= 8
    assert "auth.test with token=xoxb-" + REDACTED in out  # the prefix says which token it was
    assert "discord.gateway" in out and "IDENTIFY payload" in out


def test_exception_tracebacks_are_redacted(captured):
    log = logging.getLogger("slack_bolt.App")
    try:
        raise RuntimeError(f"invalid_auth for {SECRETS['slack_bot']} / {PLAIN}")
    except RuntimeError:
        log.exception("request failed with %s", SECRETS["groq"])
    try:
        token = SECRETS["discord"]
        raise ValueError(token)
    except ValueError as exc:
        logging.getLogger("discord.client").error("login failed", exc_info=exc)
    logging.getLogger("papertrail").info("where am I", stack_info=True)
    out = captured.getvalue()
    assert "Traceback (most recent call last)" in out and "RuntimeError: invalid_auth for" in out
    assert "ValueError" in out
    assert_clean(out)


def test_handlers_added_later_by_libraries_see_redacted_records(captured):
    # discord.py's Client.run() attaches its own StreamHandler to the "discord" logger
    own = io.StringIO()
    lib = logging.getLogger("discord.http")
    handler = logging.StreamHandler(own)
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    lib.addHandler(handler)
    try:
        lib.warning("PATCH with Authorization: Bot %s", SECRETS["discord"])
        try:
            raise KeyError(SECRETS["slack_app"])
        except KeyError:
            lib.exception("boom")
    finally:
        lib.removeHandler(handler)
    assert "PATCH with Authorization" in own.getvalue()
    assert_clean(own.getvalue())
    assert_clean(captured.getvalue())


def test_uncaught_exceptions_and_warnings_go_through_redaction(captured):
    try:
        raise ConnectionError(f"socket closed for {SECRETS['slack_app']}")
    except ConnectionError:
        sys.excepthook(*sys.exc_info())

    def worker():
        raise RuntimeError(f"thread died holding {PLAIN}")

    t = threading.Thread(target=worker, name="indexer")
    t.start()
    t.join()
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.warn(f"deprecated call with {SECRETS['groq']}", UserWarning, stacklevel=1)
    out = captured.getvalue()
    assert "ConnectionError: socket closed for xapp-" in out
    assert "Uncaught exception in thread indexer" in out
    assert "UserWarning" in out
    assert_clean(out)


def test_a_stop_handed_on_to_a_thread_is_logged_without_a_traceback(captured):
    # discord.py's heartbeat thread waits on a future the event loop settles with the
    # main thread's KeyboardInterrupt when SIGTERM lands inside a heartbeat send
    def heartbeat():
        raise KeyboardInterrupt

    t = threading.Thread(target=heartbeat, name="keep-alive")
    t.start()
    t.join()
    out = captured.getvalue()
    assert "thread keep-alive ended by the stop" in out
    assert "Traceback" not in out and "Uncaught exception" not in out


def test_unregistered_token_shapes_are_redacted():
    r = Redactor()
    for secret in SECRETS.values():
        if secret is SECRETS["signing"]:
            continue  # 32 hex characters: only caught when registered
        assert secret not in r.redact(f"value={secret};"), secret
    assert r.redact("Authorization: Bearer abc123def456ghi") == "Authorization: Bearer " + REDACTED


def test_ordinary_text_is_left_alone():
    sha = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
    for text in [
        "the bot answered in 1.2 s with 3 citations",
        "bearer authentication is not configured",
        f"indexed report.pdf ({sha[:12]}) into {sha}",
        "loading /work/main/.venv/lib/python3.11/site-packages/sentence_transformers/x.py",
        "sk-learn and task_manager are fine; so is xoxo",
    ]:
        assert redact(text) == text


def test_short_configured_values_are_not_treated_as_secrets():
    r = Redactor(["x", "ollama", "secret-value-123"])
    assert r.redact("using ollama, value x") == "using ollama, value x"
    assert r.redact("key=secret-value-123") == "key=" + REDACTED


def test_setup_twice_keeps_one_handler(captured):
    root = logging.getLogger()
    before = [h for h in root.handlers if getattr(h, "_papertrail", False)]
    stream = io.StringIO()
    setup_logging("INFO", [], stream=stream)
    after = [h for h in root.handlers if getattr(h, "_papertrail", False)]
    assert len(before) == len(after) == 1
    logging.getLogger("x").info("token %s", SECRETS["slack_bot"])
    assert SECRETS["slack_bot"] not in stream.getvalue() and "token xoxb-" in stream.getvalue()


def test_records_built_outside_the_factory_are_redacted_by_the_handler(captured):
    # makeLogRecord bypasses the record factory, like records created before setup_logging
    record = logging.makeLogRecord(
        {
            "name": "slack_sdk",
            "levelno": logging.ERROR,
            "levelname": "ERROR",
            "msg": "token %s",
            "args": (SECRETS["slack_bot"],),
        }
    )
    logging.getLogger("slack_sdk").handle(record)
    out = captured.getvalue()
    assert "token xoxb-" + REDACTED in out
    assert_clean(out)


def test_level_holds_for_libraries_that_lower_their_own(captured):
    stream = io.StringIO()
    setup_logging("WARNING", [], stream=stream)
    chatty = logging.getLogger("bm25s")
    saved = chatty.level
    chatty.setLevel(logging.DEBUG)  # what bm25s does to itself
    try:
        chatty.debug("Building index from tokens")
        chatty.warning("kept")
    finally:
        chatty.setLevel(saved)
    assert "Building index" not in stream.getvalue() and "kept" in stream.getvalue()
