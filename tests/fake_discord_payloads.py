"""The JSON objects tests/fake_discord.py serves: users, the guild, messages, interactions.

Only the fields discord.py 2.7 reads (some with ``data[...]``, so they must be
present) and the ones the tests look at. Ids are 19-digit snowflakes because
``Message.raw_mentions`` only matches ``<@id>`` with 15 to 20 digits.
"""

from __future__ import annotations

BOT_ID = 1100000000000000001
APP_ID = 1100000000000000002
GUILD_ID = 1100000000000000003
CHANNELS = {"general": 1100000000000000010, "random": 1100000000000000011}
FORUM_ID = 1100000000000000012  # a forum channel: posts are threads, it holds no messages
ALICE_ID = 1300000000000000001  # the guild's owner: every permission
BOB_ID = 1300000000000000002  # a member with @everyone's permissions (no Manage Messages)
TIMESTAMP = "2025-01-01T00:00:00.000000+00:00"
UPLOAD_LIMIT = 10 * 1024 * 1024  # bytes, an unboosted guild's


def user(user_id: int, name: str, *, bot: bool = False) -> dict:
    return {
        "id": str(user_id),
        "username": name,
        "global_name": name,
        "discriminator": "0",
        "avatar": None,
        "bot": bot,
    }


BOT = user(BOT_ID, "PaperTrail", bot=True)
ALICE = user(ALICE_ID, "alice")
BOB = user(BOB_ID, "bob")


def member(who: dict) -> dict:
    return {
        "user": who,
        "roles": [],
        "joined_at": TIMESTAMP,
        "deaf": False,
        "mute": False,
        "flags": 0,
    }


def app_info() -> dict:
    return {
        "id": str(APP_ID),
        "name": "PaperTrail",
        "description": "",
        "icon": None,
        "bot_public": True,
        "bot_require_code_grant": False,
        "owner": ALICE,
        "verify_key": "0" * 64,
        "flags": 0,
    }


def ready(gateway_url: str) -> dict:
    return {
        "v": 10,
        "user": BOT,
        "guilds": [{"id": str(GUILD_ID), "unavailable": True}],
        "session_id": "fake-session",
        "resume_gateway_url": gateway_url,
        "application": {"id": str(APP_ID), "flags": 0},
        "private_channels": [],
    }


def guild() -> dict:
    everyone = {
        "id": str(GUILD_ID),
        "name": "@everyone",
        "permissions": "1071698660929",
        "position": 0,
        "color": 0,
        "hoist": False,
        "managed": False,
        "mentionable": False,
    }
    channels = [
        {"id": str(cid), "type": 0, "name": name, "position": i, "permission_overwrites": []}
        for i, (name, cid) in enumerate(CHANNELS.items())
    ]
    channels.append(
        {
            "id": str(FORUM_ID),
            "type": 15,  # GUILD_FORUM
            "name": "questions",
            "position": len(channels),
            "permission_overwrites": [],
            "available_tags": [],
            "flags": 0,
        }
    )
    return {
        "id": str(GUILD_ID),
        "name": "Fake guild",
        "unavailable": False,
        "owner_id": str(ALICE_ID),
        "member_count": 2,
        "large": False,
        "features": [],
        "emojis": [],
        "stickers": [],
        "roles": [everyone],
        "channels": channels,
        "threads": [],
        "members": [member(BOT)],
        "voice_states": [],
        "presences": [],
        "stage_instances": [],
        "guild_scheduled_events": [],
        "soundboard_sounds": [],
        "joined_at": TIMESTAMP,
    }


def message(msg_id: int, channel_id: int, author: dict, content: str, attachments: list) -> dict:
    return {
        "id": str(msg_id),
        "channel_id": str(channel_id),
        "author": author,
        "content": content,
        "timestamp": TIMESTAMP,
        "edited_timestamp": None,
        "tts": False,
        "mention_everyone": False,
        "mentions": [],
        "mention_roles": [],
        "attachments": attachments,
        "embeds": [],
        "pinned": False,
        "type": 0,
        "flags": 0,
    }


def attachment(att_id: int, filename: str, size: int, url: str, content_type: str) -> dict:
    return {
        "id": str(att_id),
        "filename": filename,
        "size": size,
        "url": url,
        "proxy_url": url,
        "content_type": content_type,
    }


def thread(thread_id: int, parent_id: int, name: str) -> dict:
    """A public thread (type 11) in ``parent_id``, as THREAD_CREATE carries it."""
    return {
        "id": str(thread_id),
        "guild_id": str(GUILD_ID),
        "parent_id": str(parent_id),
        "owner_id": str(ALICE_ID),
        "name": name,
        "type": 11,
        "last_message_id": None,
        "rate_limit_per_user": 0,
        "message_count": 0,
        "member_count": 1,
        "flags": 0,
        "thread_metadata": {
            "archived": False,
            "auto_archive_duration": 1440,
            "archive_timestamp": TIMESTAMP,
            "locked": False,
        },
        "newly_created": True,
    }


def interaction(
    interaction_id: int, channel_id: int, command: dict, options: dict, files: dict
) -> dict:
    """A slash command invocation; ``files`` maps option names to attachment payloads."""
    opts = [{"name": k, "type": 3, "value": v} for k, v in options.items()]
    opts += [{"name": k, "type": 11, "value": a["id"]} for k, a in files.items()]
    data = {"id": command["id"], "name": command["name"], "type": 1, "options": opts}
    if files:
        data["resolved"] = {"attachments": {a["id"]: a for a in files.values()}}
    name = next(n for n, c in CHANNELS.items() if c == channel_id)
    return {
        "id": str(interaction_id),
        "application_id": str(APP_ID),
        "type": 2,  # application command
        "token": f"interaction-token-{interaction_id}",
        "version": 1,
        "guild_id": str(GUILD_ID),
        "channel_id": str(channel_id),
        "channel": {"id": str(channel_id), "type": 0, "name": name, "guild_id": str(GUILD_ID)},
        "member": dict(member(ALICE), permissions="1071698660929"),
        "data": data,
        "app_permissions": "1071698660929",
        "locale": "en-US",
        "guild_locale": "en-US",
        "entitlements": [],
        "authorizing_integration_owners": {"0": str(GUILD_ID)},
        "context": 0,
        "attachment_size_limit": UPLOAD_LIMIT,
    }


def component(interaction_id: int, message: dict, custom_id: str, who: dict, channel: dict) -> dict:
    """A click on the button ``custom_id`` of the bot's ``message`` by ``who``."""
    return {
        "id": str(interaction_id),
        "application_id": str(APP_ID),
        "type": 3,  # message component
        "token": f"interaction-token-{interaction_id}",
        "version": 1,
        "guild_id": str(GUILD_ID),
        "channel_id": message["channel_id"],
        "channel": channel,
        "member": dict(member(who), permissions="1071698660929"),
        "message": message,
        "data": {"custom_id": custom_id, "component_type": 2},
        "app_permissions": "1071698660929",
        "locale": "en-US",
        "guild_locale": "en-US",
        "entitlements": [],
        "authorizing_integration_owners": {"0": str(GUILD_ID)},
        "context": 0,
        "attachment_size_limit": UPLOAD_LIMIT,
    }


def autocomplete(interaction_id: int, channel_id: int, command: dict, option: str, typed: str):
    """Someone typing ``typed`` into ``option`` of slash command ``command``."""
    data = interaction(interaction_id, channel_id, command, {}, {})
    data["type"] = 4  # application command autocomplete
    data["data"]["options"] = [{"name": option, "type": 3, "value": typed, "focused": True}]
    return data
