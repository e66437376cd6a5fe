"""Builds what every bot process shares: config -> ``PaperTrail`` -> ``ChatService``.

One place decides how the pipeline is assembled, so the Slack, Discord and
local processes answer identically. At start the model loads and the libraries are
carried over to a changed index key (``papertrail/pipeline/carrying.py``), both in
the background. Tests pass their own pipeline (built from
``tests/fakes.py``) instead of the real embedder, store and generator. With
``REDIS_URL`` (multi-worker mode) ``open_coordination`` connects to Redis and
hands the shared seams to the pipeline (indexing leases, token budget) and to
the adapters (de-duplication, jobs, Discord shards, the share registry and
thread memory of ``bot/redis/state.py``). Which platform to start
is ``bot/__main__.py``'s business.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from adapters.chat.dedup import Seen
from adapters.chat.service import ChatService
from bot.config import BotConfig, shard_ids
from bot.redis.coord import RedisTokenBudget
from papertrail.answer.followup import Complete
from papertrail.coord import Leases
from papertrail.errors import PaperTrailError
from papertrail.pipeline import PaperTrail
from papertrail.protocols import ChatModel

log = logging.getLogger(__name__)


class Connection(Protocol):
    """The Redis connection (``bot/redis/coord.connect``), as far as wiring goes: it ends."""

    def close(self) -> None: ...


@dataclass(frozen=True)
class Coordination:
    """What the workers of one deployment share through Redis."""

    client: Connection  # redis.Redis: only bot/redis/ talks to it
    seen: Seen
    leases: Leases
    budget: RedisTokenBudget
    job_idle: float  # seconds

    def jobs(self, name: str, capacity: int):
        from bot.redis.jobs import RedisJobs

        return RedisJobs(self.client, name, idle=self.job_idle, capacity=capacity)

    def service_options(self) -> dict:
        """``ChatService`` keyword arguments: shares, tombstones, thread memory, seen-set,
        answers and votes."""
        from bot.redis.feedback import RedisFeedback
        from bot.redis.state import RedisForgotten, RedisShares, RedisThreads

        return {
            "shares": RedisShares(self.client),
            "threads": RedisThreads(self.client),
            "forgotten": RedisForgotten(self.client),
            "seen": self.seen,
            "feedback": RedisFeedback(self.client),
        }

    def close(self) -> None:
        self.client.close()


def open_coordination(cfg: BotConfig) -> Coordination | None:
    """Connect to ``REDIS_URL``; None without it (the one-process default)."""
    if not cfg.redis_url:
        return None
    if not cfg.settings.chroma_host:
        raise PaperTrailError(
            "REDIS_URL is set but CHROMA_HOST is not: several workers must share one Chroma "
            "server (`chroma run`). Set CHROMA_HOST/CHROMA_PORT, or unset REDIS_URL.",
            code="config",
        )
    from bot.redis.coord import RedisLeases, RedisSeen, RedisTokenBudget, connect

    client = connect(cfg.redis_url)
    return Coordination(
        client=client,
        seen=RedisSeen(client),
        leases=RedisLeases(client),
        budget=RedisTokenBudget(client, cfg.settings.daily_token_budget),
        job_idle=cfg.job_idle_seconds,
    )


SLACK_WORKERS = 8  # threads answering Slack jobs in one process (build_slack_app's default)


def slack_options(coord: Coordination | None) -> dict:
    """``build_slack_app`` keyword arguments for multi-worker mode ({} by default)."""
    if coord is None:
        return {}
    return {"seen": coord.seen, "jobs": coord.jobs("slack", SLACK_WORKERS)}


DISCORD_JOBS = 8  # Discord questions and drops one process runs at once


def discord_jobs(cfg: BotConfig, coord: Coordination | None):
    """Where accepted Discord work is queued durably: the shared Redis stream with
    several workers, else a journal in the data directory (found again on restart)."""
    if coord is not None:
        return coord.jobs("discord", DISCORD_JOBS)
    from adapters.chat.journal import LocalJobs

    return LocalJobs(Path(cfg.settings.data_dir) / "discord-jobs.sqlite3")


def discord_options(cfg: BotConfig) -> dict:
    """discord.py client options for sharding: ``shard_count`` and ``shard_ids``."""
    if not cfg.discord_shard_count:
        return {}
    ids = shard_ids(cfg.discord_shard_ids) if cfg.discord_shard_ids else None
    return {"shard_count": cfg.discord_shard_count, "shard_ids": list(ids) if ids else None}


def build_service(
    cfg: BotConfig, pipeline: PaperTrail | None = None, coord: Coordination | None = None
) -> ChatService:
    """The shared ``ChatService``; ``pipeline`` defaults to ``PaperTrail.from_settings``."""
    if pipeline is None:
        shared = {"leases": coord.leases, "budget": coord.budget} if coord else {}
        pipeline = PaperTrail.from_settings(cfg.settings, **shared)
    # the model loads while the bot connects, not when the first PDF arrives (~8 s)
    warm_up = getattr(pipeline, "warm_up", None)
    if callable(warm_up):
        warm_up()
    # documents indexed under an earlier index key (model, chunking, contextual) are indexed
    # again behind the bot's start: it answers at once, from each as soon as it is carried
    carry_over = getattr(pipeline, "carry_over", None)
    if callable(carry_over):
        start_carry_over(carry_over)
    state = coord.service_options() if coord else {}
    return ChatService(
        pipeline, cfg.settings, complete=_llm_complete(pipeline), suggest=True, **state
    )


def start_carry_over(carry_over: Callable[[], object]) -> threading.Thread:
    """Run ``carry_over`` (``PaperTrail.carry_over``, which logs what it carried) in a
    daemon thread, so start-up does not wait for the re-indexing; a failure is logged."""

    def run() -> None:
        try:
            carry_over()
        except Exception:  # the documents stay under their old key until the next start
            log.exception("carrying the libraries over to the current index failed")

    thread = threading.Thread(target=run, name="pt-carry-over", daemon=True)
    thread.start()
    return thread


def _llm_complete(pipeline: PaperTrail) -> Complete | None:
    """The answering LLM as a plain ``messages -> text`` call, to condense follow-ups;
    None offline. Its failures fall back to the offline rewrite (papertrail/answer/followup.py)."""
    generator = getattr(pipeline, "generator", None)
    return generator.complete if isinstance(generator, ChatModel) else None


def describe_service(cfg: BotConfig) -> str:
    """One log line saying what the process will run with (no secrets)."""
    s = cfg.settings
    if s.groq_api_key:
        llm = f"Groq {s.groq_model}"
    elif s.llm_base_url:
        llm = f"{s.llm_model or 'default model'} at {s.llm_base_url}"
    else:
        llm = "offline extractive answers (no GROQ_API_KEY)"
    store = f"Chroma at {s.chroma_host}:{s.chroma_port}" if s.chroma_host else f"{s.data_dir}"
    workers = "; several workers (REDIS_URL)" if cfg.redis_url else ""
    return f"answers: {llm}; index: {store}{workers}"


def close_service(service: ChatService) -> None:
    """Release what the service holds: its pipeline's store client and LLM connection
    (``ChatService.close``). Errors are logged, because shutdown must go on."""
    try:
        service.close()
    except Exception:
        log.exception("error while closing %s", type(service).__name__)
