"""The malloc arena limit: taken by glibc, and a user's MALLOC_ARENA_MAX left alone."""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys

from papertrail.pipeline import malloc


def _glibc() -> bool:
    try:
        return hasattr(ctypes.CDLL("libc.so.6"), "mallopt")
    except OSError:
        return False


def test_glibc_takes_the_limit(monkeypatch):
    monkeypatch.delenv("MALLOC_ARENA_MAX", raising=False)
    assert malloc.limit_arenas() is _glibc()


def test_a_users_setting_wins(monkeypatch):
    monkeypatch.setenv("MALLOC_ARENA_MAX", "4")
    assert malloc.limit_arenas(2) is False


def test_threads_share_the_arenas_it_allows():
    """Eight threads allocating at once in a fresh process: the limit keeps glibc from giving
    them arenas of their own (one more may exist from before the call: an import's thread)."""
    if not _glibc():
        assert malloc.limit_arenas(2) is False
        return
    limited, free = _arenas_seen("on"), _arenas_seen("off")
    assert limited <= 3 < free


def _arenas_seen(mode: str) -> int:
    """Arenas glibc made in a child whose 8 threads allocate at once (``malloc_stats``)."""
    code = (
        "import ctypes, sys, threading\n"
        "from papertrail.pipeline.malloc import limit_arenas\n"
        "if sys.argv[1] == 'on': limit_arenas(2)\n"
        "libc = ctypes.CDLL('libc.so.6')\n"
        "libc.malloc.restype = ctypes.c_void_p\n"
        "libc.malloc.argtypes = [ctypes.c_size_t]\n"
        "libc.free.argtypes = [ctypes.c_void_p]\n"
        "barrier = threading.Barrier(8)\n"
        "def work():\n"
        "    barrier.wait()\n"
        "    for _ in range(20000): libc.free(libc.malloc(4096))\n"
        "ts = [threading.Thread(target=work) for _ in range(8)]\n"
        "[t.start() for t in ts]; [t.join() for t in ts]\n"
        "libc.malloc_stats()\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "MALLOC_ARENA_MAX"}
    done = subprocess.run(
        [sys.executable, "-c", code, mode], capture_output=True, text=True, env=env, check=True
    )
    return done.stderr.count("Arena ")
