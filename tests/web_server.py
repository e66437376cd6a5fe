"""The web channel served from a background thread, on a real ChatService over a fast pipeline.

Shared by the API tests (tests/adapters/web/) and the browser test
(tests/scenarios/test_web_browser.py): a real ``PaperTrail`` with the hash
embedder and an in-memory Chroma, so the whole chat path runs, model-free.
"""

from __future__ import annotations

import asyncio
import threading
from contextlib import contextmanager

from aiohttp import web

from adapters.chat.service import ChatService
from adapters.web.app import build_web_app
from papertrail.pipeline import PaperTrail
from papertrail.settings import Settings
from papertrail.store.chroma import ChromaStore
from tests.fakes import HashEmbedder


def web_service(tmp_path) -> ChatService:
    embedder = HashEmbedder()
    settings = Settings(data_dir=tmp_path)
    store = ChromaStore.ephemeral(model=embedder.name)
    return ChatService(PaperTrail(settings, embedder=embedder, store=store))


@contextmanager
def serving(service: ChatService, *, max_pdf_bytes: int = 5_000_000):
    """Yields the base URL of the web channel, served on a free loopback port."""
    app = build_web_app(service, max_pdf_bytes=max_pdf_bytes)
    loop = asyncio.new_event_loop()
    runner = web.AppRunner(app, access_log=None)
    ready = threading.Event()
    port: list[int] = []

    def run() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(runner.setup())
        site = web.TCPSite(runner, "127.0.0.1", 0)
        loop.run_until_complete(site.start())
        port.append(site._server.sockets[0].getsockname()[1])
        ready.set()
        loop.run_forever()

    thread = threading.Thread(target=run, name="web-test-server", daemon=True)
    thread.start()
    assert ready.wait(60), "the web channel did not start"
    try:
        yield f"http://127.0.0.1:{port[0]}"
    finally:
        asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(60)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()
