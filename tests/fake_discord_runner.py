"""Run a real ``discord.Client`` in its own thread and loop, aimed at a FakeDiscord.

Like the bot process, the client owns its loop; the test thread only watches
the fake, so a blocked client loop shows up as missing traffic. Leaving the
``with`` block waits for replies in flight, closes the client and checks that
no client, heartbeat or worker thread is left behind.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time

from adapters.discord.client import use_endpoints
from tests.fake_discord import FakeDiscord


class BotThread:
    """Runs a real ``discord.Client`` on its own loop in a thread, aimed at a FakeDiscord.

    Like the bot process, the client owns its loop; the test thread only
    watches the fake, so a blocked client loop shows up as missing traffic.
    """

    def __init__(self, client, fake: FakeDiscord) -> None:
        self.client = client
        self.fake = fake
        self.error: BaseException | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self._thread = threading.Thread(target=self._main, name="discord-client")
        self._previous = None
        self._stop: asyncio.Event | None = None

    def _main(self) -> None:
        async def main() -> None:
            self.loop = asyncio.get_running_loop()
            self._stop = asyncio.Event()
            client = asyncio.create_task(self.client.start("fake-token"))
            stop = asyncio.create_task(self._stop.wait())
            await asyncio.wait({client, stop}, return_when=asyncio.FIRST_COMPLETED)
            await self.client.close()
            stop.cancel()
            await client  # re-raises if the client crashed

        try:
            asyncio.run(main())
        except BaseException as e:  # surfaced by __enter__ or __exit__
            self.error = e
            logging.getLogger(__name__).exception("discord client stopped with an error")

    def __enter__(self) -> BotThread:
        self._previous = use_endpoints(self.fake.api_url, self.fake.gateway_url)
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self.client.is_ready():
            if self.error or time.monotonic() > deadline:
                raise AssertionError(f"client never became ready: {self.error!r}")
            time.sleep(0.01)
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            deadline = time.monotonic() + 10
            while self.client.busy and time.monotonic() < deadline:
                time.sleep(0.01)  # let replies in flight land before closing
            assert not self.client.busy, "the bot was still handling a message"
            if self.loop is not None and not self.loop.is_closed():
                self.loop.call_soon_threadsafe(self._stop.set)
            self._thread.join(10)
            assert not self._thread.is_alive(), "discord client thread did not stop"
            assert self.error is None, f"discord client crashed: {self.error!r}"
            left = _threads_left(("keep-alive-handler", "papertrail-worker"), deadline=2.0)
            assert not left, f"threads left running: {left}"
        finally:
            use_endpoints(*self._previous)


def _threads_left(prefixes: tuple[str, ...], deadline: float) -> list[str]:
    """Names of live threads starting with ``prefixes``, after waiting up to ``deadline`` s."""
    end = time.monotonic() + deadline
    while True:
        left = [t.name for t in threading.enumerate() if t.name.startswith(prefixes)]
        if not left or time.monotonic() > end:
            return left
        time.sleep(0.01)
