"""Reading one chat completion as it streams, telling a hung server from a slow one.

``read_completion`` posts a ``stream: true`` request to an OpenAI-compatible
``/chat/completions`` and reads the server-sent events as they come. Two
clocks run: the first token must arrive within ``first_token`` seconds of
sending (and no later chunk may be more than that apart), else the server is
hung and ``Failure("hung")`` is raised at once; the whole answer must be done
within ``deadline`` seconds, however steadily it streams. A server that
ignores ``stream`` and answers with one JSON completion is read as such (its
first byte is its whole answer). It leaves out retries, budgets and
fallbacks (``llm.py``).
"""

from __future__ import annotations

import json
import time

import httpx

from papertrail.answer.failures import Failure
from papertrail.answer.retry_after import parse_retry_after


def read_completion(
    client: httpx.Client, url: str, payload: dict, *, deadline: float, first_token: float
) -> tuple[str, int | None, str]:
    """(answer text, total tokens if reported, model that answered); raises ``Failure``."""
    started = time.monotonic()
    ends = started + deadline
    gap = max(0.1, min(first_token, deadline))  # seconds one read may wait
    timeout = httpx.Timeout(deadline, connect=gap, read=gap, write=gap, pool=gap)
    body = {**payload, "stream": True, "stream_options": {"include_usage": True}}
    try:
        with client.stream("POST", url, json=body, timeout=timeout) as resp:
            if resp.status_code >= 400:
                resp.read()
                after = parse_retry_after(resp.headers, resp.text)
                raise Failure("status", resp.status_code, after, resp.text)
            if "text/event-stream" not in resp.headers.get("content-type", ""):
                resp.read()
                return _whole(resp.text)
            return _events(resp, started + gap, ends)
    except httpx.ReadTimeout:
        raise Failure("hung" if gap < deadline else "timeout") from None
    except httpx.ConnectTimeout:
        raise Failure("connection", body="connect timed out") from None
    except httpx.TimeoutException:
        raise Failure("timeout") from None
    except httpx.HTTPError as exc:
        raise Failure("connection", body=f"{type(exc).__name__}: {exc}") from None


def _events(resp: httpx.Response, first_by: float, ends: float) -> tuple[str, int | None, str]:
    parts: list[str] = []
    used: int | None = None
    served = ""
    for line in resp.iter_lines():
        now = time.monotonic()
        if now > ends:
            raise Failure("timeout")
        if not parts and now > first_by:
            raise Failure("hung", body="bytes but no token")  # keep-alives only
        if not line.startswith("data:"):
            continue
        data = line[5:].strip()
        if data == "[DONE]":
            break
        try:
            chunk = json.loads(data)
        except ValueError:
            raise Failure("reply", body=data) from None
        if not isinstance(chunk, dict):
            raise Failure("reply", body=data)
        if isinstance(chunk.get("error"), dict):
            raise Failure("status", 500, None, data)  # an error reported mid-stream
        served = chunk.get("model") or served
        for choice in chunk.get("choices") or []:
            delta = (choice or {}).get("delta") or {}
            text = delta.get("content")
            if isinstance(text, str) and text:
                parts.append(text)
        usage = chunk.get("usage") or (chunk.get("x_groq") or {}).get("usage") or {}
        total = usage.get("total_tokens") if isinstance(usage, dict) else None
        if isinstance(total, int | float):
            used = int(total)
    return "".join(parts), used, served if isinstance(served, str) else ""


def _whole(text: str) -> tuple[str, int | None, str]:
    try:
        data = json.loads(text)
        answer = data["choices"][0]["message"]["content"] or ""
        usage = (data.get("usage") or {}).get("total_tokens")
        served = data.get("model") or ""
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        raise Failure("reply", body=text) from None
    used = int(usage) if isinstance(usage, int | float) else None
    return str(answer), used, served if isinstance(served, str) else ""
