"""The chat layer's own state on a shared Redis: the share registry and thread memory.

In multi-worker mode (``REDIS_URL``) any worker may receive the deletion of a
file another worker indexed, or the follow-up in a thread another worker
answered, and Slack instances have no disk that outlives a restart; so the
``Shares`` of ``library.py`` and the ``Threads`` of ``conversations.py`` live
here in Redis, under the same ``papertrail:`` prefix as ``coord.py``.

Shares: one hash per channel (``shares:<channel key>``, field = platform file
id, value = the ``Share`` as JSON), with two index sets to find them from a
file id alone (``share-channels:<file key>``: the channels it is shared in)
and from a post (``share-posts:<post key>``: JSON ``[file, channel]`` pairs).
Shares never expire: they are the library, like the documents in Chroma.
Removing one is ``HGET`` + ``HDEL`` in one ``MULTI``, so when two workers get
the same deletion exactly one of them is handed the share to forget.

Threads: one list per thread (``thread:<thread key>``) of JSON turns, trimmed
to the last ``MAX_TURNS`` and expiring ``THREAD_TTL`` after the last answer;
``link:<message key>`` names the thread a bot message belongs to, same TTL.
Tombstones (``forgotten.py``): per channel, a hash ``forgotten-files:<channel
key>`` (field = platform file id, value = JSON list of the posts that carried
it) and a set ``forgotten-docs:<channel key>`` of document ids; like shares
they never expire. Left out: Redis Cluster (keys are not hash-tagged) and
migrating an existing ``shares.json`` into Redis.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import asdict

from adapters.chat.conversations import MAX_TURNS, Turn
from adapters.chat.forgotten import covers
from adapters.chat.library import Share
from bot.redis.coord import PREFIX, key_of

THREAD_TTL = 7 * 86_400  # seconds: a thread goes quiet after a week without an answer


class RedisShares:
    """``Shares`` kept in Redis, the same for every worker and across restarts."""

    def __init__(self, client, *, prefix: str = PREFIX) -> None:
        self.client, self.prefix = client, prefix

    def _library(self, channel: str) -> str:
        return f"{self.prefix}shares:{key_of(channel)}"

    def _channels(self, file: str) -> str:
        return f"{self.prefix}share-channels:{key_of(file)}"

    def _posts(self, post: str) -> str:
        return f"{self.prefix}share-posts:{key_of(post)}"

    def add(self, share: Share) -> None:
        with self.client.pipeline() as pipe:  # MULTI: the share and its indexes together
            pipe.hset(self._library(share.channel), share.file, json.dumps(asdict(share)))
            pipe.sadd(self._channels(share.file), share.channel)
            if share.post:
                pipe.sadd(self._posts(share.post), json.dumps([share.file, share.channel]))
            pipe.execute()

    def get(self, file: str, channel: str) -> Share | None:
        return _share(self.client.hget(self._library(channel), file))

    def remove(self, files: list[str], channel: str | None = None) -> list[Share]:
        """Forget these file ids (in ``channel``, or in every channel); the shares
        this call removed (a concurrent remover of the same share gets none)."""
        gone = []
        for file in dict.fromkeys(files):
            if channel is None:
                channels = sorted(c.decode() for c in self.client.smembers(self._channels(file)))
            else:
                channels = [channel]
            gone += [s for ch in channels if (s := self._take(file, ch)) is not None]
        return gone

    def of_post(self, post: str) -> list[Share]:
        if not post:
            return []
        pairs = [json.loads(m) for m in self.client.smembers(self._posts(post))]
        shares = [self.get(file, channel) for file, channel in sorted(pairs)]
        return [s for s in shares if s is not None and s.post == post]

    def of_document(self, channel: str, doc_id: str) -> list[Share]:
        """The live shares of one document in one channel."""
        return [s for s in self._all(channel) if s.doc_id == doc_id]

    def of_channel(self, channel: str) -> list[Share]:
        """Every live share in one channel."""
        return self._all(channel)

    def drop_documents(self, channel: str, doc_ids: set[str]) -> None:
        """Forget every share of these documents in ``channel`` (after ``forget``)."""
        for share in self._all(channel):
            if share.doc_id in doc_ids:
                self._take(share.file, channel)

    def _all(self, channel: str) -> list[Share]:
        rows = self.client.hvals(self._library(channel))
        return sorted((_share(r) for r in rows), key=lambda s: s.file)

    def _take(self, file: str, channel: str) -> Share | None:
        """Remove one share atomically: the share if this call removed it, else None."""
        with self.client.pipeline() as pipe:  # MULTI: read and delete as one step
            pipe.hget(self._library(channel), file)
            pipe.hdel(self._library(channel), file)
            raw, deleted = pipe.execute()
        share = _share(raw) if deleted else None
        if share is not None:  # indexes only point at shares; a stale entry is harmless
            with self.client.pipeline() as pipe:
                pipe.srem(self._channels(file), channel)
                if share.post:
                    pipe.srem(self._posts(share.post), json.dumps([file, channel]))
                pipe.execute()
        return share


def _share(raw: bytes | None) -> Share | None:
    return None if raw is None else Share(**json.loads(raw))


class RedisThreads:
    """``Threads`` kept in Redis: a follow-up may reach any worker, after any restart."""

    def __init__(self, client, *, ttl: int = THREAD_TTL, prefix: str = PREFIX) -> None:
        self.client, self.ttl, self.prefix = client, int(ttl), prefix

    def _key(self, thread: str) -> str:
        return f"{self.prefix}thread:{key_of(thread)}"

    def __contains__(self, thread: str) -> bool:
        return bool(thread) and bool(self.client.exists(self._key(thread)))

    def turns(self, thread: str) -> list[Turn]:
        if not thread:
            return []
        rows = [json.loads(r) for r in self.client.lrange(self._key(thread), 0, -1)]
        return [Turn(r["question"], tuple(r["doc_ids"])) for r in rows]

    def link(self, messages: list[str], thread: str) -> None:
        """The bot's ``messages`` belong to ``thread``: a reply to one continues it."""
        with self.client.pipeline() as pipe:
            for m in messages:
                pipe.set(f"{self.prefix}link:{key_of(m)}", thread, ex=self.ttl)
            pipe.execute()

    def linked(self, message: str) -> str:
        """The thread a bot message belongs to ("" when unknown or expired)."""
        found = self.client.get(f"{self.prefix}link:{key_of(message)}")
        return found.decode() if found else ""

    def record(self, thread: str, turn: Turn) -> None:
        if not thread:
            return
        key = self._key(thread)
        with self.client.pipeline() as pipe:  # MULTI: append, bound and expire together
            pipe.rpush(key, json.dumps({"question": turn.question, "doc_ids": turn.doc_ids}))
            pipe.ltrim(key, -MAX_TURNS, -1)
            pipe.expire(key, self.ttl)
            pipe.execute()


class RedisForgotten:
    """``Forgotten`` (tombstones) kept in Redis, the same for every worker."""

    def __init__(self, client, *, prefix: str = PREFIX) -> None:
        self.client, self.prefix = client, prefix

    def _files(self, channel: str) -> str:
        return f"{self.prefix}forgotten-files:{key_of(channel)}"

    def _docs(self, channel: str) -> str:
        return f"{self.prefix}forgotten-docs:{key_of(channel)}"

    def bury(self, channel: str, shares: Sequence[Share], doc_ids: Iterable[str]) -> None:
        for share in shares:  # read-merge-write: a lost race only loses a post, never the file
            known = self.client.hget(self._files(channel), share.file)
            posts = set(json.loads(known) if known else []) | {share.post}
            self.client.hset(self._files(channel), share.file, json.dumps(sorted(posts)))
        docs = sorted(set(doc_ids))
        if docs:
            self.client.sadd(self._docs(channel), *docs)

    def buried(self, channel: str, file: str, post: str) -> bool:
        known = self.client.hget(self._files(channel), file)
        return known is not None and covers(json.loads(known), post)

    def buried_document(self, channel: str, doc_id: str) -> bool:
        return bool(self.client.sismember(self._docs(channel), doc_id))

    def lift(self, channel: str, file: str, doc_id: str) -> None:
        with self.client.pipeline() as pipe:
            pipe.hdel(self._files(channel), file)
            pipe.srem(self._docs(channel), doc_id)
            pipe.execute()
