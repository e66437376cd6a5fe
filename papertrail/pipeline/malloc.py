"""glibc's malloc held to one arena per core, so memory one thread frees the next one reuses.

glibc gives a thread that allocates while another holds the allocator's lock an
arena of its own, up to 8 per core (16 on this 2-core host). An ingest runs a
score of threads (embedding workers and feeders, OCR pages and line readers,
the store, the model warm-up), and what one of them frees stays in its arena:
neither reused by the others nor given back to the OS. ``limit_arenas`` sets
``M_ARENA_MAX`` to the number of cores for the whole process (``mallopt``, before
the pipeline's threads start; a ``MALLOC_ARENA_MAX`` set by the user wins).
Measured on the 352-page book in one process at load 5-6: peak 757 -> 727 MB,
at the end of the ingest 688 -> 602 MB. Python's own small objects never go
through it. It leaves out other allocators (musl, macOS): there it does nothing.
"""

from __future__ import annotations

import ctypes
import os

M_ARENA_MAX = -8  # mallopt parameter number, from glibc's malloc.h


def limit_arenas(count: int | None = None) -> bool:
    """At most ``count`` (default: the cores, at least 2) malloc arenas; True if glibc took it."""
    if os.environ.get("MALLOC_ARENA_MAX"):  # the user's choice, read by glibc at start
        return False
    arenas = count or max(2, os.cpu_count() or 1)
    try:
        libc = ctypes.CDLL("libc.so.6")
        return bool(libc.mallopt(M_ARENA_MAX, arenas))
    except (OSError, AttributeError):  # not glibc
        return False
