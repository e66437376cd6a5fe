"""Test-wide environment: no network, no telemetry, no hub downloads."""

import logging
import sys
import threading

import pytest

from papertrail.offline import offline_env
from tests.services import chroma_server, redis_client, redis_server  # noqa: F401 (fixtures)

offline_env()


@pytest.fixture
def restore_logging():
    """Undo what bot.logs.setup_logging does to the process (handlers, hooks, factory)."""
    root = logging.getLogger()
    saved = (root.handlers[:], root.level, logging.getLogRecordFactory())
    hooks = (sys.excepthook, threading.excepthook)
    yield
    root.handlers[:] = saved[0]
    root.setLevel(saved[1])
    logging.setLogRecordFactory(saved[2])
    sys.excepthook, threading.excepthook = hooks
    logging.captureWarnings(False)
