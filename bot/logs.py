"""Logging for the bot processes, with every secret redacted from every line.

Three layers, because libraries log in different ways:

* a log-record factory redacts each record as it is created, anywhere in the
  process (message, ``%s`` args, exception and stack text), so handlers added
  later by libraries (discord.py's ``Client.run`` adds its own) print clean text;
* the root handler's ``RedactingFormatter`` redacts the final line again, which
  covers records built before ``setup_logging`` ran;
* uncaught exceptions (main thread and other threads) and ``warnings`` are
  routed through logging instead of being printed raw.

What counts as a secret: the configured values themselves (``add_secrets``)
and token shapes (Slack ``xoxb-``/``xoxp-``/``xapp-``/``xoxe-``, ``Bearer``
authorization values, Groq ``gsk_`` keys, ``sk-`` keys, Discord
bot tokens). It leaves out anything written with ``print`` or straight to a
stream, which the bot code does not do for secrets.
"""

from __future__ import annotations

import logging
import re
import sys
import threading
from collections.abc import Iterable

REDACTED = "[REDACTED]"
MIN_SECRET_LEN = 8  # shorter configured "secrets" (placeholders) would redact ordinary words

# (pattern, replacement): prefixes are kept so a reader can tell which token leaked
_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\bxoxe\.xox[a-z]-[\w-]+"), "xoxe." + REDACTED),  # rotating Slack tokens
    (re.compile(r"\b(xox[a-z]|xapp)-[\w-]+"), r"\1-" + REDACTED),
    (re.compile(r"\b(gsk_|sk-)[A-Za-z0-9_-]{16,}"), r"\1" + REDACTED),  # Groq, OpenAI-style
    # an Authorization value; the digit look-ahead spares English ("bearer authentication")
    (re.compile(r"(?i)\b(bearer\s+)(?=[\w.~+/=-]*\d)[\w.~+/=-]{8,}"), r"\1" + REDACTED),
    (re.compile(r"\b[\w-]{20,}\.[\w-]{5,8}\.[\w-]{25,}"), REDACTED),  # Discord token / JWT
)

# kept in front of a registered secret's redaction, like the patterns above do
_PREFIX = re.compile(r"^(xoxe\.|xox[a-z]-|xapp-|gsk_|sk-)")


class Redactor:
    """Replaces known secret values and token shapes in text."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._lock = threading.Lock()
        self._secrets: tuple[str, ...] = ()
        self.add(secrets)

    def add(self, secrets: Iterable[str]) -> None:
        new = {s.strip() for s in secrets if s and len(s.strip()) >= MIN_SECRET_LEN}
        with self._lock:
            # longest first, so a secret containing another is replaced whole
            self._secrets = tuple(sorted(set(self._secrets) | new, key=len, reverse=True))

    def redact(self, text: str) -> str:
        for secret in self._secrets:
            if secret in text:
                prefix = _PREFIX.match(secret)
                text = text.replace(secret, (prefix.group(0) if prefix else "") + REDACTED)
        for pattern, repl in _PATTERNS:
            text = pattern.sub(repl, text)
        return text


REDACTOR = Redactor()


def add_secrets(*values: str) -> None:
    """Register configured secret values (tokens, API keys) for redaction."""
    REDACTOR.add(values)


def redact(text: str) -> str:
    return REDACTOR.redact(text)


def redact_record(record: logging.LogRecord) -> logging.LogRecord:
    """Bake a record's message, exception and stack text, redacted, into the record."""
    try:
        message = record.getMessage()
    except Exception:  # malformed %-args: logging reports those itself later
        return record
    record.msg, record.args = redact(message), None
    if record.exc_info and not record.exc_text:
        record.exc_text = logging.Formatter().formatException(record.exc_info)
    if record.exc_text:
        record.exc_text = redact(record.exc_text)
    if record.stack_info:
        record.stack_info = redact(record.stack_info)
    return record


class RedactingFormatter(logging.Formatter):
    """A formatter whose every output line has passed through the redactor."""

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


class RedactingFilter(logging.Filter):
    """For handlers the bot does not create: redacts the record in place."""

    def filter(self, record: logging.LogRecord) -> bool:
        redact_record(record)
        return True


_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
_installed_factory = None


def setup_logging(level: str = "INFO", secrets: Iterable[str] = (), stream=None) -> logging.Handler:
    """Configure the root logger to write redacted lines to ``stream`` (default stderr).

    Safe to call more than once: the previous PaperTrail handler is replaced.
    Returns the handler, so tests can remove it.
    """
    global _installed_factory
    REDACTOR.add(secrets)
    root = logging.getLogger()
    for old in [h for h in root.handlers if getattr(h, "_papertrail", False)]:
        root.removeHandler(old)
    handler = logging.StreamHandler(sys.stderr if stream is None else stream)
    handler.setFormatter(RedactingFormatter(_FORMAT))
    handler.addFilter(RedactingFilter())
    handler._papertrail = True  # type: ignore[attr-defined]
    # on the handler too: libraries that set their own logger to DEBUG (bm25s) still
    # propagate here, and the root level alone would not stop them
    handler.setLevel(level)
    root.addHandler(handler)
    root.setLevel(level)
    # chatty libraries: their INFO lines carry URLs and payload sizes, not news
    for name in ("httpx", "httpcore", "urllib3", "chromadb", "sentence_transformers"):
        logging.getLogger(name).setLevel(max(logging.WARNING, root.level))

    current = logging.getLogRecordFactory()
    if current is not _installed_factory:
        base = current

        def factory(*args, **kwargs) -> logging.LogRecord:
            return redact_record(base(*args, **kwargs))

        logging.setLogRecordFactory(factory)
        _installed_factory = factory

    logging.captureWarnings(True)
    sys.excepthook = _log_uncaught
    threading.excepthook = _log_thread_exception
    return handler


def _log_uncaught(exc_type, exc, tb) -> None:
    if issubclass(exc_type, KeyboardInterrupt):
        sys.__excepthook__(exc_type, exc, tb)
        return
    logging.getLogger("papertrail").critical("Uncaught exception", exc_info=(exc_type, exc, tb))


def _log_thread_exception(args: threading.ExceptHookArgs) -> None:
    if args.exc_type is SystemExit:
        return
    name = args.thread.name if args.thread else "?"
    if issubclass(args.exc_type, KeyboardInterrupt):
        # signals reach only the main thread: this is its stop, handed on by a future the
        # event loop settled while unwinding (discord.py's heartbeat thread waits on one)
        logging.getLogger("papertrail").info("thread %s ended by the stop", name)
        return
    logging.getLogger("papertrail").error(
        "Uncaught exception in thread %s",
        name,
        exc_info=(args.exc_type, args.exc_value, args.exc_traceback),
    )
