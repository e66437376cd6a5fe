"""How a PaperTrail process ends: its own clean-up first, then at once, never in teardown.

Native libraries keep threads of their own: ONNX Runtime's and torch's thread
pools, the tokenizers' and Chroma's Rust runtimes, gRPC. When the interpreter
finalises while one of them is busy (the model still loading or warming up in
a background thread when SIGTERM arrives, a batch of chunks being embedded),
C++ static destructors run beside it and the process dies with "terminate
called without an active exception" (signal 6, exit 134): about one stop in
three on a busy 2-core machine. ``finish`` is what the entry points
(``python -m bot``, ``papertrail``) call once they have closed what they
opened (stores, connections, servers): it flushes the logs and the standard
streams and ends the process with ``os._exit``, so neither finalisation nor
static destructors run and nothing is left that can abort. Library code and
tests never call it: it is for the very end of ``__main__``.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
import threading
from typing import NoReturn

RESEND = 0.05  # seconds before a swallowed stop is sent again


def finish(code: int) -> NoReturn:
    """End the process with ``code`` after flushing logs, stdout and stderr."""
    with contextlib.suppress(Exception):
        logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)


class Stop:
    """SIGTERM (what Docker, Render and supervisors send) unwinds the main thread like
    Ctrl-C, through every ``finally``; ``requested`` then says the stop was asked for,
    so the caller can exit 0 instead of reporting an interruption."""

    def __init__(self) -> None:
        self.requested = False
        self.previous = None
        self.previous_hook = None

    def install(self) -> Stop:
        if threading.current_thread() is threading.main_thread():  # tests may run us elsewhere
            self.previous = signal.signal(signal.SIGTERM, self._handle)
            self.previous_hook, sys.unraisablehook = sys.unraisablehook, self._unraisable
        return self

    def restore(self) -> None:
        if self.previous is not None:
            signal.signal(signal.SIGTERM, self.previous)
            self.previous = None
        if self.previous_hook is not None:
            sys.unraisablehook, self.previous_hook = self.previous_hook, None

    def _unraisable(self, unraisable) -> None:
        """The stop raised where Python swallows exceptions (a weakref callback of the
        import system, a ``__del__``): the process would go on as if never asked to stop,
        so the signal is sent again, to land where it unwinds."""
        if isinstance(unraisable.exc_value, KeyboardInterrupt) and self.requested:
            self.requested = False
            again = threading.Timer(RESEND, os.kill, (os.getpid(), signal.SIGTERM))
            again.daemon = True
            again.start()
            return
        (self.previous_hook or sys.__unraisablehook__)(unraisable)

    def _handle(self, signum, frame) -> None:
        if not self.requested:  # a second SIGTERM during the clean-up does not cut it short
            self.requested = True
            raise KeyboardInterrupt
