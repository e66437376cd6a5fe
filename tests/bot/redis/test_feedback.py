"""Answers and votes, on both implementations of the ``Feedback`` seam (chat.sqlite, Redis).

The same behaviour on both, so they cannot drift apart: one vote per person per
answer, votes only in the answer's own channel, changes of mind, export order,
and forgetting a document's answers with their votes.
"""

from __future__ import annotations

import pytest

from adapters.chat.feedback import CHANGED, RECORDED, SAME, UNKNOWN, StoredFeedback
from adapters.chat.local_state import LocalStore
from bot.redis.feedback import RedisFeedback


def record(answer_id: str, channel: str, *doc_ids: str) -> dict:
    return {
        "id": answer_id,
        "channel": channel,
        "question": f"question {answer_id}?",
        "answer": "An answer [1].",
        "citations": [
            {
                "n": 1,
                "claim": "An answer.",
                "doc_id": d,
                "doc_name": f"{d}.pdf",
                "page": 1,
                "chunk_text": "An answer.",
                "verdict": "verified",
                "reason": "stated",
            }
            for d in doc_ids
        ],  # fmt: skip
        "doc_ids": list(doc_ids),
    }


@pytest.fixture(params=["sqlite", "redis"])
def feedback(request, tmp_path, redis_client):
    if request.param == "sqlite":
        store = LocalStore(tmp_path / "chat.sqlite")
        yield StoredFeedback(store)
        store.close()
    else:
        yield RedisFeedback(redis_client)


def test_one_vote_per_person_per_answer(feedback):
    feedback.record(record("a1a1a1", "slack:T1:C1", "doc-1"))
    assert feedback.vote("slack:T1:C1", "a1a1a1", "U1", "down") == RECORDED
    assert feedback.vote("slack:T1:C1", "a1a1a1", "U1", "down") == SAME
    assert feedback.vote("slack:T1:C2", "a1a1a1", "U3", "down") == UNKNOWN  # another channel
    assert feedback.vote("slack:T1:C1", "ffffff", "U1", "down") == UNKNOWN  # no such answer
    assert feedback.vote("slack:T1:C1", "a1a1a1", "U2", "up") == RECORDED
    votes = feedback.votes("slack:T1:C1")
    assert [(v["user"], v["verdict"]) for v in votes] == [("U1", "down"), ("U2", "up")]
    assert votes[0]["question"] == "question a1a1a1?"
    assert feedback.vote("slack:T1:C1", "a1a1a1", "U1", "up") == CHANGED  # a change of mind
    assert sorted(v["verdict"] for v in feedback.votes("slack:T1:C1")) == ["up", "up"]
    assert feedback.votes("slack:T1:C2") == []
    with pytest.raises(ValueError):
        feedback.vote("slack:T1:C1", "a1a1a1", "U1", "meh")


def test_forgetting_a_document_forgets_its_answers_and_votes(feedback):
    feedback.record(record("b1b1b1", "discord:1", "doc-1"))
    feedback.record(record("b2b2b2", "discord:1", "doc-2"))
    feedback.record(record("b3b3b3", "discord:2", "doc-1"))  # the same PDF elsewhere stays
    for answer_id, channel in (("b1b1b1", "discord:1"), ("b2b2b2", "discord:1"),
                               ("b3b3b3", "discord:2")):  # fmt: skip
        feedback.vote(channel, answer_id, "7", "down")
    assert feedback.forget("discord:1", ["doc-1"]) == 1
    assert [v["id"] for v in feedback.votes("discord:1")] == ["b2b2b2"]
    assert feedback.vote("discord:1", "b1b1b1", "8", "up") == UNKNOWN  # its buttons stop
    assert [v["id"] for v in feedback.votes("discord:2")] == ["b3b3b3"]


def test_the_bot_exports_votes_kept_in_redis(tmp_path, redis_server, redis_client):
    import io
    import json

    from bot.__main__ import main

    feedback = RedisFeedback(redis_client)
    feedback.record(record("c1c1c1", "slack:T9:C9", "doc-9"))
    feedback.vote("slack:T9:C9", "c1c1c1", "U1", "up")
    env = {"REDIS_URL": redis_server.url, "PAPERTRAIL_DATA_DIR": str(tmp_path)}
    out = io.StringIO()
    args = ["feedback", "export", "--channel", "slack:T9:C9", "--format", "verifier"]
    assert main(args, env=env, stdout=out) == 0
    (pair,) = [json.loads(line) for line in out.getvalue().splitlines()]
    assert pair["supported"] is True and pair["claim"] == "An answer."
    out = io.StringIO()
    assert main(["feedback", "export", "--channel", "slack:T9:C9"], env=env, stdout=out) == 0
    (case,) = [json.loads(line) for line in out.getvalue().splitlines()]
    assert case["answer"] == "An answer [1]." and case["meta"]["votes"] == {"up": 1, "down": 0}


def test_expired_answers_are_swept_from_chat_sqlite(tmp_path):
    now = [1000.0]
    store = LocalStore(tmp_path / "chat.sqlite")
    feedback = StoredFeedback(store, clock=lambda: now[0])
    feedback.record(record("d1d1d1", "web:team", "doc-1"))
    feedback.vote("web:team", "d1d1d1", "web:u1", "up")
    now[0] += 100 * 86_400  # past ANSWER_TTL
    assert feedback.vote("web:team", "d1d1d1", "web:u2", "up") == UNKNOWN
    store._writes = 0  # the next write sweeps
    feedback.record(record("d2d2d2", "web:team", "doc-2"))
    rows = store.run(lambda db: db.execute("SELECT COUNT(*) FROM votes").fetchone()[0])
    ids = store.run(lambda db: [r[0] for r in db.execute("SELECT id FROM answers")])
    assert rows == 0 and ids == ["d2d2d2"]
    store.close()
