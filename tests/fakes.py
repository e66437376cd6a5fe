"""Small real implementations of the pipeline's seams, for fast tests.

``HashEmbedder`` is deterministic and model-free: a bag of hashed word
stems, L2-normalised, so texts sharing words are close. ``ScriptedGenerator``
returns answers written by the test.
"""

from __future__ import annotations

import hashlib
import re
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from contextlib import contextmanager

import numpy as np

from papertrail.types import Draft, Hit

_WORD = re.compile(r"[a-z0-9]+")


class HashEmbedder:
    """Bag-of-words vectors in ``dim`` dimensions; counts embedded texts."""

    def __init__(self, dim: int = 64) -> None:
        self.dim = dim
        self.name = f"hash-{dim}"
        self.calls = 0
        self.texts_embedded = 0

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        self.texts_embedded += len(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in _WORD.findall(text.lower()):
                h = int.from_bytes(
                    hashlib.blake2b(word[:6].encode(), digest_size=4).digest(), "big"
                )
                out[i, h % self.dim] += 1.0
            norm = np.linalg.norm(out[i])
            out[i] = out[i] / norm if norm else 1.0 / np.sqrt(self.dim)
        return out


class WarmingEmbedder(HashEmbedder):
    """A HashEmbedder with the optional ``warm()``: records the threads it ran on."""

    def __init__(self) -> None:
        super().__init__()
        self.warmed: list[str] = []  # thread names, one per warm() call
        self.calls_before_warm: int | None = None  # embed() calls made before warming

    def warm(self) -> None:
        self.calls_before_warm = self.calls
        self.warmed.append(threading.current_thread().name)


class ScriptedGenerator:
    """Returns the next scripted answer; records what it was asked."""

    def __init__(self, *answers: str, mode: str = "scripted") -> None:
        self.answers = list(answers)
        self.mode = mode
        self.asked: list[tuple[str, tuple[Hit, ...]]] = []

    def generate(self, question, hits: Sequence[Hit]) -> Draft:
        text = getattr(question, "text", question)  # the pipeline passes the ``Ask`` read once
        self.asked.append((text, tuple(hits)))
        text = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        return Draft(text=text, mode=self.mode)


def gated_pipeline(settings, *, generator=None):
    """The real pipeline on a hash embedder and an in-memory Chroma, except that
    indexing a file named in ``pipeline.gates`` waits until its Event is set."""

    from papertrail.pipeline import PaperTrail
    from papertrail.store.chroma import ChromaStore

    class GatedPaperTrail(PaperTrail):
        gates: dict[str, threading.Event]

        def ingest(self, channel, name, data, **kwargs):
            if name in self.gates:
                self.gates[name].wait(10)
            return super().ingest(channel, name, data, **kwargs)

    embedder = HashEmbedder()
    pipeline = GatedPaperTrail(
        settings,
        embedder=embedder,
        store=ChromaStore.ephemeral(model=embedder.name),
        generator=generator,
    )
    pipeline.gates = {}
    return pipeline


def source(title: str, png: bytes | None = None, *, filename: str = "", evidence: str = ""):
    """A reply ``Source`` from a title like "[1] report.pdf, page 3" (page 1 if absent)."""
    from adapters.chat.replies import Image, Source

    m = re.match(r"\[(\d+)\]\s*(.*?)(?:, page (\d+))?$", title)
    n, doc, page = int(m[1]), m[2], int(m[3] or 1)
    image = Image(filename or f"{n}-p{page}.png", png, title) if png is not None else None
    return Source(n, doc, page, evidence=evidence, image=image)


class NoLibrary:
    """The library half of ``ChatService`` doing nothing, for fakes that only answer.

    Adapters also index PDFs shared without a mention, ask whether a thread is
    a conversation and forget deleted files; a fake that tests something else
    inherits these no-ops.
    """

    def index_shared(self, channel, attachments, progress=None):
        from adapters.chat.replies import Reply

        return Reply(kind="indexed", text="Indexed.")

    def in_conversation(self, thread: str, text: str = "", *, with_files=False) -> bool:
        return False

    def forget_files(self, files, channel=None) -> list:
        return []

    def forget_post(self, post: str) -> list:
        return []

    def indexing(self, channel: str) -> list:
        return []

    def link(self, messages, thread: str) -> None:
        pass

    def linked(self, message: str) -> str:
        return ""


@contextmanager
def slack_on_pipeline(tmp_path, secret: str, **options):
    """The real Bolt app over loopback HTTP against a FakeSlack, with the real
    ChatService on ``gated_pipeline``; yields (fake, events, pipeline)."""
    from types import SimpleNamespace

    from adapters.chat.service import ChatService
    from papertrail.settings import Settings
    from tests.fake_slack import FakeSlack

    fake = FakeSlack()
    settings = Settings(data_dir=tmp_path / "data", ocr=False, max_pdf_mb=1.0)
    pipeline = gated_pipeline(settings)
    bot = slack_bot(fake, ChatService(pipeline), secret, **options)
    try:
        yield SimpleNamespace(fake=fake, events=bot.events, pipeline=pipeline)
    finally:
        bot.close()
        fake.close()


def slack_bot(fake, service, secret: str, **options):
    """The real Bolt app on ``service``, served over loopback HTTP against the FakeSlack
    ``fake``; a ``RunningBot`` (its ``events`` send signed events, ``close()`` stops it)."""
    from adapters.slack.app import build_slack_app
    from tests.fake_slack import RunningBot

    app = build_slack_app(
        service,
        bot_token=fake.token,
        signing_secret=secret,
        api_url=fake.api_url,
        max_pdf_bytes=service.settings.max_pdf_bytes,
        **options,
    )
    return RunningBot(app, secret)


class LocalLeases:
    """``Leases`` in memory (a dict of key -> (token, expiry) under a lock), with a clock
    tests move: the reference the Redis leases are compared with."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._held: dict[str, tuple[str, float]] = {}
        self._lock = threading.Lock()

    def acquire(self, key: str, ttl: float) -> str | None:
        now = self._clock()
        with self._lock:
            held = self._held.get(key)
            if held is not None and held[1] > now:
                return None
            token = uuid.uuid4().hex
            self._held[key] = (token, now + ttl)
            return token

    def renew(self, key: str, token: str, ttl: float) -> bool:
        now = self._clock()
        with self._lock:
            held = self._held.get(key)
            if held is None or held[0] != token or held[1] <= now:
                return False
            self._held[key] = (token, now + ttl)
            return True

    def release(self, key: str, token: str) -> None:
        with self._lock:
            if self._held.get(key, ("",))[0] == token:
                del self._held[key]
