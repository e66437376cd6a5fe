"""Discord sharding: several processes split the guilds, sharing Redis and Chroma.

Discord sends each guild's events on one gateway connection, shard
``(guild_id >> 22) % shard_count``. With ``DISCORD_SHARD_COUNT`` (and
optionally ``DISCORD_SHARD_IDS``, the shards this process runs) the bot's
client class gains ``discord.AutoShardedClient``, which opens one connection
per listed shard (all of them when no ids are given). Processes need no
coordination with each other beyond the shared index: a guild's messages
reach exactly one process. Left out: resharding while running.
"""

from __future__ import annotations

import discord


def client_class(base: type[discord.Client], options: dict) -> type[discord.Client]:
    """``base``, made an ``AutoShardedClient`` when ``options`` ask for shards."""
    if not options.get("shard_count"):
        return base
    return type(f"Sharded{base.__name__}", (base, discord.AutoShardedClient), {})
