"""Answers and 👍/👎 votes on a shared Redis, for several workers (``feedback.py``'s seam).

A click may reach any worker, and Slack instances keep nothing on disk, so in
multi-worker mode the ``Feedback`` of ``adapters/chat/feedback.py`` lives here,
under the same ``papertrail:`` prefix as the rest: ``answer:<id>`` holds the
answer's record as JSON and ``votes:<id>`` a hash of user -> verdict, both
expiring ``ANSWER_TTL`` after the answer; ``answers:<channel key>`` is the set
of a channel's answer ids (to export and to forget them). A vote reads the
old verdict and writes the new one in one ``MULTI``, so a double click counts
once whichever workers get it. Left out: Redis Cluster (keys are not hash-tagged).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable

from adapters.chat.feedback import ANSWER_TTL, CHANGED, RECORDED, SAME, UNKNOWN, check_vote
from bot.redis.coord import PREFIX, key_of


class RedisFeedback:
    """``Feedback`` kept in Redis."""

    def __init__(self, client, *, ttl: float = ANSWER_TTL, prefix: str = PREFIX) -> None:
        self.client, self.ttl, self.prefix = client, int(ttl), prefix

    def _answer(self, answer_id: str) -> str:
        return f"{self.prefix}answer:{answer_id}"

    def _votes(self, answer_id: str) -> str:
        return f"{self.prefix}votes:{answer_id}"

    def _channel(self, channel: str) -> str:
        return f"{self.prefix}answers:{key_of(channel)}"

    def record(self, record: dict) -> None:
        with self.client.pipeline() as pipe:
            pipe.set(self._answer(record["id"]), json.dumps(record), ex=self.ttl)
            pipe.sadd(self._channel(record["channel"]), record["id"])
            pipe.expire(self._channel(record["channel"]), self.ttl)  # outlives its last answer
            pipe.execute()

    def vote(self, channel: str, answer_id: str, user: str, verdict: str) -> str:
        check_vote(verdict)
        raw = self.client.get(self._answer(answer_id))
        if raw is None or json.loads(raw).get("channel") != channel:
            return UNKNOWN  # gone, or another channel's answer: nothing to vote on here
        entry = json.dumps({"verdict": verdict, "at": time.time()})
        with self.client.pipeline() as pipe:  # MULTI: the old verdict and the new, at once
            pipe.hget(self._votes(answer_id), user)
            pipe.hset(self._votes(answer_id), user, entry)
            pipe.expire(self._votes(answer_id), self.ttl)
            before, *_ = pipe.execute()
        if before is None:
            return RECORDED
        return SAME if json.loads(before)["verdict"] == verdict else CHANGED

    def votes(self, channel: str) -> list[dict]:
        found = []
        for answer_id in sorted(m.decode() for m in self.client.smembers(self._channel(channel))):
            raw = self.client.get(self._answer(answer_id))
            if raw is None:  # expired: its id goes too
                self.client.srem(self._channel(channel), answer_id)
                continue
            record = json.loads(raw)
            for user, entry in self.client.hgetall(self._votes(answer_id)).items():
                vote = json.loads(entry)
                found.append(
                    dict(record, user=user.decode(), verdict=vote["verdict"], voted_at=vote["at"])
                )
        return sorted(found, key=lambda v: v["voted_at"])

    def forget(self, channel: str, doc_ids: Iterable[str]) -> int:
        gone = set(doc_ids)
        ids = [m.decode() for m in self.client.smembers(self._channel(channel))]
        dropped = 0
        for answer_id in ids:
            raw = self.client.get(self._answer(answer_id))
            if raw is not None and not gone & set(json.loads(raw).get("doc_ids", ())):
                continue
            self.client.delete(self._answer(answer_id), self._votes(answer_id))
            self.client.srem(self._channel(channel), answer_id)
            dropped += raw is not None
        return dropped
