"""Multi-worker configuration: REDIS_URL, job idle time, Discord shards and their wiring."""

from __future__ import annotations

import pytest

from adapters.chat.library import Share
from adapters.discord.client import build_client
from bot.config import load_config, require
from bot.redis.coord import RedisSeen
from bot.redis.feedback import RedisFeedback
from bot.redis.state import RedisShares, RedisThreads
from bot.wiring import (
    build_service,
    close_service,
    describe_service,
    discord_options,
    open_coordination,
    slack_options,
)
from papertrail.errors import PaperTrailError
from papertrail.pipeline import PaperTrail
from papertrail.store.chroma import ChromaStore
from tests.fakes import HashEmbedder

TOKEN = "MTEwMDAwMDAwMDAwMDAwMDAwMQ.GrEnDr.dIsCoRdToKeNfOrRenderYamlTest0123456"


def cfg(**env):
    return load_config({k.upper(): v for k, v in env.items()}, dotenv_path=None)


def test_one_process_by_default_needs_no_redis():
    plain = cfg()
    assert open_coordination(plain) is None and slack_options(None) == {}
    assert discord_options(plain) == {}
    assert "several workers" not in describe_service(plain)


def test_redis_url_is_a_secret_and_needs_a_chroma_server():
    with_password = cfg(redis_url="redis://:hunter2-secret@127.0.0.1:6379/0")
    assert with_password.redis_url in with_password.secrets()  # redacted from logs
    assert "hunter2-secret" not in repr(with_password)
    with pytest.raises(PaperTrailError) as err:
        open_coordination(with_password)
    assert "CHROMA_HOST" in err.value.message and err.value.code == "config"


def test_redis_mode_shares_seen_jobs_the_library_and_threads(tmp_path, redis_server, redis_client):
    data = str(tmp_path)
    multi = cfg(redis_url=redis_server.url, chroma_host="127.0.0.1", papertrail_data_dir=data)
    coord = open_coordination(multi)
    store = ChromaStore.ephemeral(model="hash-64")
    pipeline = PaperTrail(multi.settings, embedder=HashEmbedder(), store=store)
    service = build_service(multi, pipeline, coord)
    try:
        options = slack_options(coord)
        assert isinstance(options["seen"], RedisSeen)
        assert options["jobs"].idle == 60.0
        options["jobs"].close()
        assert isinstance(service.shares, RedisShares)
        assert isinstance(service.conversations, RedisThreads)
        assert isinstance(service.feedback, RedisFeedback)  # a vote may reach any worker
        assert service.suggest  # the bots offer checked questions after a drop
        service.shares.add(Share("slack:F1", "slack:T1:C1", "doc", "a.pdf"))
        assert redis_client.keys("papertrail:shares:*") and not (tmp_path / "shares.json").exists()
    finally:
        close_service(service)
        coord.close()


@pytest.mark.parametrize(
    "env, fix",
    [
        ({"discord_shard_ids": "0,1"}, "DISCORD_SHARD_COUNT"),
        ({"discord_shard_count": "2", "discord_shard_ids": "0,2"}, "from 0 to"),
        ({"discord_shard_count": "2", "discord_shard_ids": "1,1"}, "distinct"),
        ({"discord_shard_count": "two"}, "DISCORD_SHARD_COUNT"),
        ({"papertrail_job_idle_seconds": "0"}, "PAPERTRAIL_JOB_IDLE_SECONDS"),
    ],
)
def test_bad_shard_and_idle_settings_name_the_variable(env, fix):
    with pytest.raises(PaperTrailError) as err:
        require(cfg(discord_token=TOKEN, **env), "discord")
    assert fix in err.value.message and err.value.code == "config"


def test_shards_make_an_auto_sharded_client_for_the_listed_shards():
    sharded = cfg(discord_token=TOKEN, discord_shard_count="4", discord_shard_ids="1, 3")
    require(sharded, "discord")
    assert discord_options(sharded) == {"shard_count": 4, "shard_ids": [1, 3]}
    client = build_client(object(), slash_commands=False, **discord_options(sharded))
    assert client.shard_count == 4 and client.shard_ids == [1, 3]
    assert type(client).__name__ == "ShardedPaperTrailClient"
    every = build_client(object(), slash_commands=False, **discord_options(cfg(
        discord_shard_count="2")))  # fmt: skip
    assert every.shard_count == 2 and every.shard_ids is None  # all shards in one process
    assert type(build_client(object(), slash_commands=False)).__name__ == "PaperTrailClient"
