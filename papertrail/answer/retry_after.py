"""How long a rate-limited LLM provider asks us to wait, read from its reply headers.

``parse_retry_after`` understands ``retry-after-ms``, ``retry-after`` (seconds
or an HTTP date) and Groq's ``x-ratelimit-reset-{tokens,requests}`` windows,
written as durations like ``2m59.56s`` (``parse_duration``). Deciding whether
to wait, retry or fall back is ``llm.py``'s; the daily quota is ``budget.py``'s.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from email.utils import parsedate_to_datetime

import httpx

_RESETS = ("tokens", "requests")  # Groq's x-ratelimit-reset-* windows
_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")


def parse_duration(value: str) -> float | None:
    """Seconds in ``"7"``, ``"0.5"``, ``"2m59.56s"``, ``"340ms"`` or ``"1h2m"``; None if not."""
    value = value.strip()
    try:
        return float(value)
    except ValueError:
        pass
    if not value or _DURATION.sub("", value):
        return None  # something other than number+unit pairs
    scale = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}
    return sum(float(num) * scale[unit] for num, unit in _DURATION.findall(value))


def parse_retry_after(
    headers: Mapping[str, str], body: str = "", now: float | None = None
) -> float | None:
    """Seconds the provider asks us to wait, from ``retry-after-ms``, ``retry-after``
    (seconds or an HTTP date) or Groq's ``x-ratelimit-reset-{tokens,requests}``."""
    h = httpx.Headers(headers)  # case-insensitive
    now = time.time() if now is None else now
    if (ms := h.get("retry-after-ms")) and (v := parse_duration(ms)) is not None:
        return max(0.0, v / 1000)
    if raw := h.get("retry-after"):
        if (v := parse_duration(raw)) is not None:
            return max(0.0, v)
        try:
            return max(0.0, parsedate_to_datetime(raw).timestamp() - now)
        except (TypeError, ValueError):
            pass
    low = body.lower()
    if "per day" in low:
        return None  # the reset headers count per-minute windows, not the daily one
    resets = {k: parse_duration(h.get(f"x-ratelimit-reset-{k}", "")) for k in _RESETS}
    which = "tokens" if "token" in low else "requests" if "request" in low else ""
    if which and resets[which] is not None:
        return resets[which]
    known = [v for v in resets.values() if v is not None]
    return max(known) if known else None
