"""Pointing discord.py at other REST and gateway URLs (a loopback fake, a proxy).

``DISCORD_API_URL`` / ``DISCORD_GATEWAY_URL`` (``bot/config.py``) end up here.
It changes class attributes discord.py reads at use, so it applies to every
client of the process; nothing else about the client is touched.
"""

from __future__ import annotations

import discord
import yarl


def use_endpoints(
    api_url: str | None = None, gateway_url: str | None = None
) -> tuple[str, yarl.URL]:
    """Point every discord.py client in this process at other REST/gateway URLs.

    discord.py builds each REST URL from ``Route.BASE`` and a non-sharded
    client connects to ``DiscordWebSocket.DEFAULT_GATEWAY`` (it never asks
    ``/gateway/bot``); both are class attributes, read at use. Returns the
    previous values so tests can restore them.
    """
    previous = (discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY)
    if api_url:
        discord.http.Route.BASE = api_url.rstrip("/")
    if gateway_url:
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url)
    return previous
