"""Web uploads without unbounded memory: bodies go to disk, a few at a time.

``UploadSlots`` caps the uploads one process works on at once
(``PER_PROCESS``) and those of one workspace (``PER_WORKSPACE``); a request
over either cap is refused before its body is read, with 429 (this workspace
is busy: wait) or 503 and ``Retry-After`` (the server is busy). ``spool``
streams an accepted body to an unnamed temporary file, hashing it on the
way and refusing it (413) as soon as it passes the size limit, so memory
holds one 64 KiB chunk per upload until the service reads the file. Before
this, 20 parallel 49 MiB uploads raised the process's memory by about
800 MB. Routes and everything after the body are ``app.py``'s.
"""

from __future__ import annotations

import asyncio
import hashlib
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, TypeVar

from aiohttp import web

PER_PROCESS = 4  # uploads read or indexed at once (the web pool has 4 threads)
PER_WORKSPACE = 2  # of those, one workspace's
CHUNK = 64 * 1024  # bytes read from the socket at a time
RETRY_SECONDS = 5  # Retry-After of a 503
T = TypeVar("T")


class UploadSlots:
    """Counts uploads in progress, per process and per workspace. Used from the event
    loop's thread only (``release`` is called back onto it), so it needs no lock."""

    def __init__(self, per_process: int = PER_PROCESS, per_workspace: int = PER_WORKSPACE):
        self.per_process = per_process
        self.per_workspace = per_workspace
        self.busy: Counter[str] = Counter()

    def take(self, workspace: str) -> Callable[[], None]:
        """A slot for one upload into ``workspace``, or a refusal; returns its release."""
        if self.busy[workspace] >= self.per_workspace:
            raise web.HTTPTooManyRequests(
                text=f"This workspace already has {self.per_workspace} uploads in progress: "
                "wait for one to finish, then upload again.",
                headers={"Retry-After": str(RETRY_SECONDS)},
            )
        if sum(self.busy.values()) >= self.per_process:
            raise web.HTTPServiceUnavailable(
                text="The server is busy with other uploads: try again in a few seconds.",
                headers={"Retry-After": str(RETRY_SECONDS)},
            )
        self.busy[workspace] += 1
        released = False

        def release() -> None:
            nonlocal released
            if not released:
                released = True
                self.busy[workspace] -= 1
                if self.busy[workspace] <= 0:
                    del self.busy[workspace]

        return release


@dataclass
class Spooled:
    """An upload's body on disk: its size, sha256, and the bytes when the service asks.
    Holds its slot until ``closing``'s work ends."""

    file: BinaryIO
    size: int
    digest: str
    release: Callable[[], None]  # frees the upload's slot; called on the event loop
    loop: asyncio.AbstractEventLoop

    def read(self) -> bytes:
        self.file.seek(0)
        return self.file.read()

    def close(self) -> None:
        self.file.close()  # unnamed: the space is freed at once
        self.loop.call_soon_threadsafe(self.release)

    def closing(self, work: Callable[[Callable[[str], None]], T]) -> Callable[..., T]:
        """``work`` (run in a worker thread) that closes the body and frees its slot when
        it ends, even when the browser left before."""

        def run(progress: Callable[[str], None]) -> T:
            try:
                return work(progress)
            finally:
                self.close()

        return run


async def spool(
    request: web.Request,
    release: Callable[[], None],
    limit: int,
    too_large: Callable[[], web.HTTPException],
    directory: Path | None = None,
) -> Spooled:
    """Stream the request body to a temporary file in ``directory`` (the system's when
    None); raises ``too_large()`` as soon as it passes ``limit`` bytes (0: no limit).
    ``release`` (from ``UploadSlots.take``) is called when the body is closed, or at once
    when it is refused."""
    digest, size = hashlib.sha256(), 0
    try:
        if directory is not None:
            directory.mkdir(parents=True, exist_ok=True)
        file = tempfile.TemporaryFile(dir=directory)  # noqa: SIM115 (returned open)
    except BaseException:
        release()
        raise
    try:
        async for chunk in request.content.iter_chunked(CHUNK):
            size += len(chunk)
            if limit and size > limit:
                raise too_large()
            digest.update(chunk)
            file.write(chunk)
        file.flush()
    except BaseException:
        file.close()
        release()
        raise
    return Spooled(file, size, digest.hexdigest(), release, asyncio.get_running_loop())
