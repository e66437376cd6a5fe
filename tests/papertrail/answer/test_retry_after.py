"""Reading a provider's wait from its rate-limit headers."""

from datetime import UTC, datetime
from email.utils import format_datetime

import pytest

from papertrail.answer.retry_after import parse_duration, parse_retry_after


def test_parse_retry_after_forms():
    now = 1_700_000_000.0
    date = format_datetime(datetime.fromtimestamp(now + 30, UTC), usegmt=True)
    assert parse_retry_after({"Retry-After": date}, now=now) == pytest.approx(30, abs=1)
    assert parse_retry_after({"retry-after": "7"}) == 7.0
    assert parse_retry_after({"retry-after-ms": "250", "retry-after": "7"}) == 0.25
    groq_headers = {"x-ratelimit-reset-requests": "2m59.56s", "x-ratelimit-reset-tokens": "7.66s"}
    assert parse_retry_after(groq_headers, "on tokens per minute") == pytest.approx(7.66)
    assert parse_retry_after(groq_headers, "on requests per minute") == pytest.approx(179.56)
    assert parse_retry_after(groq_headers) == pytest.approx(179.56)  # unknown: the longer
    assert parse_retry_after(groq_headers, "on tokens per day (TPD)") is None
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None


def test_parse_duration():
    assert parse_duration("2m59.56s") == pytest.approx(179.56)
    assert parse_duration("340ms") == pytest.approx(0.34)
    assert parse_duration("1h2m") == 3720
    assert parse_duration("1.5") == 1.5
    assert parse_duration("2 weeks") is None and parse_duration("") is None
