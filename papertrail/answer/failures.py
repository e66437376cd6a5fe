"""What went wrong with one call to an LLM provider, and its body fit for the log.

``Failure`` keeps only what decides the next step (a fast failure is retried
within the answer's deadline, a timeout never is, a daily limit falls back at
once); ``redact`` masks organisation ids and keys in a provider's body. The
retrying itself is ``llm.py``'s.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_SECRET = re.compile(r"\b(org|gsk|sk|proj|user|key)([-_])[A-Za-z0-9_-]{4,}", re.IGNORECASE)


def redact(body: object, limit: int = 300) -> str:
    """A provider body fit for the log: ids and keys masked, truncated."""
    text = _SECRET.sub(lambda m: f"{m.group(1)}{m.group(2)}[redacted]", str(body))
    return text if len(text) <= limit else text[:limit] + "…"


@dataclass(eq=False)  # not frozen: raising sets __traceback__ and __cause__
class Failure(Exception):
    """One failed call, already stripped down to what decides the next step."""

    kind: str  # "status" | "timeout" | "hung" (nothing by the first-token time) | ...
    # ... "connection" | "reply"
    status: int = 0
    retry_after: float | None = None
    body: str = ""  # raw provider text: for the (redacted) log only

    @property
    def daily(self) -> bool:
        low = self.body.lower()
        return self.status == 429 and ("per day" in low or "(tpd)" in low or "(rpd)" in low)

    @property
    def retryable(self) -> bool:
        # not a timeout: the server may still be working on the request we gave up on
        return self.kind == "connection" or self.status in (409, 429) or self.status >= 500

    @property
    def reason(self) -> str:
        if self.status == 429:
            return "rate limited"
        if self.status >= 500:
            return "server error"
        return {
            "timeout": "timed out",
            "hung": "sent nothing",
            "connection": "could not connect",
        }.get(self.kind, "")
