"""The share registry and thread memory on a real redis-server, as several workers see them.

The share registry's behaviour is checked on both implementations of the
``Shares`` seam (the JSON file of one process, and Redis), so the two cannot
drift apart; what only Redis promises (another worker or a restarted one sees
the same state, one winner among racing removers, a TTL on threads, bounded
history) is checked on Redis alone.
"""

from __future__ import annotations

import threading

import pytest

from adapters.chat.conversations import MAX_TURNS, Conversations, Turn
from adapters.chat.forgotten import StoredForgotten
from adapters.chat.library import Share, ShareRegistry
from adapters.chat.local_state import LocalStore, StoredThreads
from bot.redis.coord import connect, key_of
from bot.redis.state import THREAD_TTL, RedisForgotten, RedisShares, RedisThreads

PAPER = Share("slack:F1", "slack:T1:C1", "doc-paper", "paper.pdf", "U1", "slack:C1:1.0")
COPY = Share("slack:F2", "slack:T1:C1", "doc-paper", "copy.pdf", "U2", "slack:C1:2.0")
ELSEWHERE = Share("slack:F1", "slack:T1:C2", "doc-paper", "paper.pdf", "U1", "slack:C2:3.0")
HARBOUR = Share("slack:F3", "slack:T1:C1", "doc-harbour", "harbour.pdf", "U1", "slack:C1:1.0")


@pytest.fixture(params=["json", "redis"])
def shares(request, tmp_path, redis_client):
    if request.param == "json":
        return ShareRegistry(tmp_path / "shares.json")
    return RedisShares(redis_client)


def test_a_share_is_found_by_file_post_and_document(shares):
    for s in (PAPER, COPY, ELSEWHERE, HARBOUR):
        shares.add(s)
    assert shares.get("slack:F1", "slack:T1:C1") == PAPER
    assert shares.get("slack:F1", "slack:T1:C2") == ELSEWHERE
    assert shares.get("slack:F9", "slack:T1:C1") is None
    assert shares.of_post("slack:C1:1.0") == [PAPER, HARBOUR]
    assert shares.of_post("") == []
    assert shares.of_document("slack:T1:C1", "doc-paper") == [PAPER, COPY]


def test_a_channels_shares_are_listed_by_file(shares):
    for s in (HARBOUR, ELSEWHERE, COPY, PAPER):
        shares.add(s)
    assert shares.of_channel("slack:T1:C1") == [PAPER, COPY, HARBOUR]
    assert shares.of_channel("slack:T1:C9") == []


def test_removing_a_file_forgets_it_in_one_or_every_channel(shares):
    for s in (PAPER, COPY, ELSEWHERE, HARBOUR):
        shares.add(s)
    assert shares.remove(["slack:F1"], "slack:T1:C2") == [ELSEWHERE]
    assert shares.get("slack:F1", "slack:T1:C1") == PAPER  # still shared in C1
    shares.add(ELSEWHERE)
    assert sorted(shares.remove(["slack:F1"]), key=lambda s: s.channel) == [PAPER, ELSEWHERE]
    assert shares.remove(["slack:F1"]) == []  # already gone
    assert shares.of_post("slack:C1:1.0") == [HARBOUR]
    assert shares.of_document("slack:T1:C1", "doc-paper") == [COPY]


def test_forgetting_documents_drops_their_shares_in_that_channel_only(shares):
    for s in (PAPER, COPY, ELSEWHERE, HARBOUR):
        shares.add(s)
    shares.drop_documents("slack:T1:C1", {"doc-paper"})
    assert shares.of_document("slack:T1:C1", "doc-paper") == []
    assert shares.of_document("slack:T1:C1", "doc-harbour") == [HARBOUR]
    assert shares.of_document("slack:T1:C2", "doc-paper") == [ELSEWHERE]


def test_another_worker_and_a_restarted_one_see_the_same_shares(redis_server, redis_client):
    a, b = RedisShares(connect(redis_server.url)), RedisShares(connect(redis_server.url))
    a.add(PAPER)
    assert b.get(PAPER.file, PAPER.channel) == PAPER  # who shared it, known to B
    assert b.remove([PAPER.file]) == [PAPER]  # the deletion reached B
    assert a.get(PAPER.file, PAPER.channel) is None and a.of_post(PAPER.post) == []
    a.add(HARBOUR)
    a.client.close()
    restarted = RedisShares(connect(redis_server.url))
    assert restarted.of_document(HARBOUR.channel, HARBOUR.doc_id) == [HARBOUR]
    assert redis_client.ttl(f"papertrail:shares:{key_of(HARBOUR.channel)}") == -1  # never expires


def test_of_racing_removers_exactly_one_is_handed_the_share(redis_server, redis_client):
    workers = [RedisShares(connect(redis_server.url)) for _ in range(8)]
    workers[0].add(PAPER)
    barrier = threading.Barrier(len(workers))
    got: list[list[Share]] = []

    def remove(worker: RedisShares) -> None:
        barrier.wait()
        got.append(worker.remove([PAPER.file]))

    threads = [threading.Thread(target=remove, args=(w,)) for w in workers]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert sorted(len(g) for g in got) == [0] * 7 + [1]  # one worker forgets the document


def test_thread_memory_is_shared_bounded_and_expires(redis_server, redis_client):
    a, b = RedisThreads(connect(redis_server.url)), RedisThreads(connect(redis_server.url))
    thread = "slack:T1:C1:1700000000.000100"
    assert thread not in b and b.turns(thread) == []
    a.record(thread, Turn("How many layers are in the encoder?", ("doc-paper",)))
    assert thread in b
    assert b.turns(thread) == [Turn("How many layers are in the encoder?", ("doc-paper",))]
    for n in range(MAX_TURNS + 2):
        b.record(thread, Turn(f"question {n}", ()))
    assert [t.question for t in a.turns(thread)] == [f"question {n}" for n in range(2, 7)]
    ttl = redis_client.ttl(f"papertrail:thread:{key_of(thread)}")
    assert THREAD_TTL - 60 < ttl <= THREAD_TTL
    short = RedisThreads(redis_client, ttl=1)
    short.record("slack:T1:C1:2.0", Turn("q", ()))
    assert redis_client.pttl(f"papertrail:thread:{key_of('slack:T1:C1:2.0')}") <= 1000
    a.record("", Turn("no thread", ()))
    assert "" not in a and a.turns("") == []
    assert not redis_client.exists(f"papertrail:thread:{key_of('')}")


@pytest.fixture(params=["sqlite", "redis"])
def forgotten(request, tmp_path, redis_client):
    if request.param == "sqlite":
        return StoredForgotten(LocalStore(tmp_path / "chat.sqlite"))
    return RedisForgotten(redis_client)


def test_tombstones_cover_the_forgotten_posts_until_lifted(forgotten):
    forgotten.bury("slack:T1:C1", [PAPER, HARBOUR], {"doc-paper"})
    assert forgotten.buried("slack:T1:C1", PAPER.file, PAPER.post)
    assert not forgotten.buried("slack:T1:C1", PAPER.file, "slack:C1:9.0")  # posted anew
    assert not forgotten.buried("slack:T1:C2", PAPER.file, PAPER.post)  # another channel
    assert not forgotten.buried("slack:T1:C1", COPY.file, COPY.post)  # never forgotten
    assert forgotten.buried_document("slack:T1:C1", "doc-paper")
    assert not forgotten.buried_document("slack:T1:C1", "doc-harbour")  # still shared then
    assert not forgotten.buried_document("slack:T1:C2", "doc-paper")
    forgotten.bury("slack:T1:C1", [Share("slack:F7", "slack:T1:C1", "d", "x.pdf")], ())
    assert forgotten.buried("slack:T1:C1", "slack:F7", "slack:C1:5.0")  # no post: any post
    forgotten.lift("slack:T1:C1", PAPER.file, "doc-paper")
    assert not forgotten.buried("slack:T1:C1", PAPER.file, PAPER.post)
    assert not forgotten.buried_document("slack:T1:C1", "doc-paper")
    assert forgotten.buried("slack:T1:C1", HARBOUR.file, HARBOUR.post)


def test_tombstones_outlive_a_restart(tmp_path, redis_server):
    StoredForgotten(LocalStore(tmp_path / "chat.sqlite")).bury("c", [PAPER], {"doc-paper"})
    RedisForgotten(connect(redis_server.url)).bury("c", [PAPER], {"doc-paper"})
    for again in (
        StoredForgotten(LocalStore(tmp_path / "chat.sqlite")),
        RedisForgotten(connect(redis_server.url)),
    ):
        assert again.buried("c", PAPER.file, PAPER.post) and again.buried_document("c", "doc-paper")


def test_in_memory_stored_and_redis_threads_answer_alike(redis_client, tmp_path):
    turn = Turn("And the decoder?", ("doc-paper", "doc-harbour"))
    stored = StoredThreads(LocalStore(tmp_path / "chat.sqlite"))
    for threads in (Conversations(), stored, RedisThreads(redis_client)):
        threads.record("t1", turn)
        assert "t1" in threads and "t2" not in threads
        assert threads.turns("t1") == [turn] and threads.turns("t2") == []
        threads.link(["discord:answer:1", "discord:answer:2"], "t1")
        assert threads.linked("discord:answer:2") == "t1" and threads.linked("x") == ""
