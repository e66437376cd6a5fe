"""LLM answers from Groq or any OpenAI-compatible server, with an offline fallback.

Builds the prompt (numbered excerpts labelled with file and page, rules for
citing and refusing, excerpts fenced as data), calls the provider within one
deadline per answer (``PAPERTRAIL_LLM_TIMEOUT``, retries included) and a
short wait for its first byte or token (``PAPERTRAIL_LLM_FIRST_TOKEN_TIMEOUT``:
a server that sends nothing is hung, one that streams may take the whole
deadline; OpenAI-compatible servers stream, ``llm_stream.py``), keeps the
daily token budget, and falls back to another Generator (the extractive one)
with a user-facing note when the provider is down, rate limited, out of
tokens, too slow or rejects the key. Only fast failures are retried (429 and
5xx, honouring rate-limit headers read by ``retry_after``, and refused or
dropped connections), and only when the wait fits in the deadline: after a
timeout the server may still be working on the request, and a retry would
queue behind it. The answer's ``mode`` is the model the server says answered.
Raw provider bodies carry organisation ids: they only reach the log, redacted.
Not here: checking citations (``verify``), the extractive answerer.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Sequence

import groq
import httpx

from papertrail.answer.budget import TokenBudget, estimate_tokens
from papertrail.answer.failures import Failure as _Failure
from papertrail.answer.failures import redact
from papertrail.answer.llm_stream import read_completion
from papertrail.answer.prompt import SYSTEM_PROMPT, build_messages, clean_output, excerpt_label
from papertrail.answer.retry_after import parse_retry_after
from papertrail.errors import PaperTrailError
from papertrail.protocols import Generator
from papertrail.settings import REFUSAL, Settings
from papertrail.types import Ask, Draft, Hit

log = logging.getLogger(__name__)

__all__ = [
    "SYSTEM_PROMPT",
    "GroqGenerator",
    "OpenAICompatibleGenerator",
    "build_messages",
    "clean_output",
    "excerpt_label",
    "get_generator",
]

MAX_ANSWER_TOKENS = 600  # a short cited answer; also bounds what one call can cost
MAX_WAIT = 20.0  # seconds; a longer retry-after means "not now": fall back at once
BASE_DELAY = 0.5  # seconds before the first retry without retry-after, doubled each time


class _ChatGenerator:
    """The retry loop, budget and fallback shared by both providers."""

    provider = "The LLM server"
    key_env = "PAPERTRAIL_LLM_API_KEY"
    model_env = "PAPERTRAIL_LLM_MODEL"

    def __init__(
        self,
        settings: Settings,
        model: str,
        *,
        fallback: Generator,
        budget: TokenBudget,
        base_delay: float = BASE_DELAY,
        max_wait: float = MAX_WAIT,
    ) -> None:
        self.model = model
        self.fallback = fallback
        self.budget = budget
        self.retries = settings.llm_retries
        self.deadline = settings.llm_timeout  # seconds for one answer, retries included
        # seconds to the first byte or token: nothing by then means hung, not slow
        self.first_token = min(settings.llm_first_token_timeout, settings.llm_timeout)
        self.base_delay = base_delay
        self.max_wait = max_wait

    def _complete(
        self, messages: list[dict[str, str]], timeout: float
    ) -> tuple[str, int | None, str]:
        """(answer text, total tokens used if reported, model that answered); waits at
        most ``timeout`` seconds; raises ``_Failure``."""
        raise NotImplementedError

    def complete(self, messages: list[dict[str, str]]) -> str:
        """One plain chat call (no retry, budget or fallback): the ``ChatModel`` seam that
        condenses follow-ups (``followup.condense``, which falls back on failure)."""
        return self._complete(messages)[0]

    def generate(self, question: Ask | str, hits: Sequence[Hit]) -> Draft:
        if not hits:
            return Draft(text=REFUSAL, mode=self.model)  # nothing to cite: no call needed
        messages = build_messages(question.text if isinstance(question, Ask) else question, hits)
        estimate = sum(estimate_tokens(m["content"]) for m in messages) + MAX_ANSWER_TOKENS
        if not self.budget.allow(estimate):
            if self.budget.exhausted:
                why = f"{self.provider}'s daily token limit is used up"
            else:
                why = "Today's LLM token budget (PAPERTRAIL_DAILY_TOKENS) is used up"
            return self._fall_back(question, hits, why)
        attempt, ends = 0, time.monotonic() + self.deadline
        while True:
            try:
                left = ends - time.monotonic()
                if left <= 0:
                    raise _Failure("timeout")
                text, used, served = self._complete(messages, left)
                self.budget.spend(used if used else estimate)
                text = clean_output(text)
                if not text:
                    raise _Failure("reply", body="empty answer")
                return Draft(text=text, mode=served or self.model)
            except _Failure as f:
                log.warning(
                    "%s call failed (%s, HTTP %s, attempt %d of %d, model %s): %s",
                    self.provider, f.kind, f.status or "-", attempt + 1, self.retries + 1,
                    self.model, redact(f.body),
                )  # fmt: skip
                why = self._give_up(f)
                if why is None and attempt < self.retries:
                    wait = self._wait(attempt, f.retry_after)
                    if wait is not None and time.monotonic() + wait < ends:
                        time.sleep(wait)
                        attempt += 1
                        continue
                return self._fall_back(question, hits, why or self._unavailable(f))

    def _give_up(self, f: _Failure) -> str | None:
        """The note when retrying is pointless, else None."""
        if f.status in (401, 403):
            return f"{self.provider} rejected the key (check {self.key_env})"
        if f.daily:
            until = time.time() + f.retry_after if f.retry_after else None
            self.budget.exhaust(until)  # no further calls until it resets
            return f"{self.provider}'s daily token limit is used up"
        if f.kind == "reply":
            return f"{self.provider} sent an unusable reply"
        if f.kind in ("timeout", "hung"):  # never retried: the server may still be working
            return self._unavailable(f)
        if not f.retryable:
            hint = f", check {self.model_env}" if f.status == 404 else ""
            return f"{self.provider} could not answer (HTTP {f.status}{hint})"
        return None

    def _unavailable(self, f: _Failure) -> str:
        if f.kind == "hung":
            return (
                f"{self.provider} sent nothing for {self.first_token:g} s and looks hung "
                "(PAPERTRAIL_LLM_FIRST_TOKEN_TIMEOUT)"
            )
        if f.kind == "timeout":
            return (
                f"{self.provider} did not answer within {self.deadline:g} s "
                "(PAPERTRAIL_LLM_TIMEOUT)"
            )
        return f"{self.provider} is unavailable right now ({f.reason})"

    def _wait(self, attempt: int, retry_after: float | None) -> float | None:
        """Seconds before the next try, or None when the provider wants longer than we wait."""
        if retry_after is not None and retry_after > self.max_wait:
            return None
        # Jitter spreads out bots that failed together.
        backoff = self.base_delay * 2**attempt * random.uniform(1.0, 1.5)
        return min(max(backoff, retry_after or 0.0), self.max_wait)

    def _fall_back(self, question: Ask | str, hits: Sequence[Hit], why: str) -> Draft:
        draft = self.fallback.generate(question, hits)
        note = f"{why}; this answer is {draft.mode}."
        return Draft(text=draft.text, mode=draft.mode, notes=(note, *draft.notes))


class GroqGenerator(_ChatGenerator):
    """Answers with Groq's chat API through the official client (its own retries off)."""

    provider = "Groq"
    key_env = "GROQ_API_KEY"
    model_env = "GROQ_MODEL"

    def __init__(self, settings: Settings, *, fallback: Generator, budget: TokenBudget, **kw):
        super().__init__(settings, settings.groq_model, fallback=fallback, budget=budget, **kw)
        self.client = groq.Groq(
            # a local server behind GROQ_BASE_URL needs no key; the client wants one
            api_key=settings.groq_api_key or "no-key",
            base_url=settings.groq_base_url or None,
            max_retries=0,  # our loop retries, so budget and fallback see every failure
            timeout=settings.llm_timeout,
        )

    def _complete(self, messages: list[dict[str, str]], timeout: float):
        # Groq sends a whole answer in seconds: no first byte within first_token is hung
        first = max(0.1, min(self.first_token, timeout))
        try:
            reply = self.client.chat.completions.create(
                model=self.model,
                messages=messages,  # type: ignore[arg-type]
                temperature=0,
                max_tokens=MAX_ANSWER_TOKENS,
                timeout=httpx.Timeout(timeout, connect=first, read=first, write=first, pool=first),
            )
        except groq.APITimeoutError:
            raise _Failure("hung" if first < timeout else "timeout") from None
        except groq.APIConnectionError as exc:
            raise _Failure("connection", body=str(exc)) from None
        except groq.APIStatusError as exc:
            body = exc.response.text
            after = parse_retry_after(exc.response.headers, body)
            raise _Failure("status", exc.status_code, after, body) from None
        except groq.GroqError as exc:  # e.g. a reply that is not a completion
            raise _Failure("reply", body=f"{type(exc).__name__}: {exc}") from None
        if not reply.choices:
            raise _Failure("reply", body="no choices")
        usage = reply.usage.total_tokens if reply.usage else None
        return reply.choices[0].message.content or "", usage, str(reply.model or "")

    def close(self) -> None:
        self.client.close()


class OpenAICompatibleGenerator(_ChatGenerator):
    """Answers with an OpenAI-compatible ``/chat/completions`` (Ollama, vLLM, llama.cpp)."""

    def __init__(self, settings: Settings, *, fallback: Generator, budget: TokenBudget, **kw):
        if not settings.llm_model:
            raise PaperTrailError(
                "PAPERTRAIL_LLM_MODEL is empty: set it to a model your server at "
                f"{settings.llm_base_url} serves (for Ollama, e.g. llama3.1:8b).",
                code="config",
            )
        super().__init__(settings, settings.llm_model, fallback=fallback, budget=budget, **kw)
        self.url = settings.llm_base_url.rstrip("/") + "/chat/completions"
        auth = {"Authorization": f"Bearer {settings.llm_api_key}"} if settings.llm_api_key else {}
        self.client = httpx.Client(timeout=settings.llm_timeout, headers=auth)

    def _complete(self, messages: list[dict[str, str]], timeout: float):
        payload = {
            "model": self.model,
            "messages": messages,
            "temperature": 0,
            "max_tokens": MAX_ANSWER_TOKENS,
        }
        return read_completion(
            self.client, self.url, payload, deadline=timeout, first_token=self.first_token
        )

    def close(self) -> None:
        self.client.close()


def get_generator(
    settings: Settings, *, fallback: Generator, budget: TokenBudget | None = None
) -> Generator:
    """Groq when GROQ_API_KEY is set, else the OpenAI-compatible server
    (PAPERTRAIL_LLM_BASE_URL), else the Groq client at GROQ_BASE_URL without a key (a
    local server), else ``fallback``."""
    if not settings.llm_configured:
        return fallback
    if budget is None:
        budget = TokenBudget(settings.data_dir / "llm_tokens.json", settings.daily_token_budget)
    if settings.groq_api_key or not settings.llm_base_url:
        return GroqGenerator(settings, fallback=fallback, budget=budget)
    return OpenAICompatibleGenerator(settings, fallback=fallback, budget=budget)
