"""Builds what every bot process shares: config -> ``PaperTrail`` -> ``ChatService``.

One place decides how the pipeline is assembled, so the Slack, Discord and
local processes answer identically. Tests pass their own pipeline (built from
``tests/fakes.py``) instead of the real embedder, store and generator. Which
platform to start is ``bot/__main__.py``'s business.
"""

from __future__ import annotations

import logging

from adapters.service import ChatService
from bot.config import BotConfig
from papertrail.pipeline import PaperTrail

log = logging.getLogger(__name__)


def build_service(cfg: BotConfig, pipeline: PaperTrail | None = None) -> ChatService:
    """The shared ``ChatService``; ``pipeline`` defaults to ``PaperTrail.from_settings``."""
    if pipeline is None:
        pipeline = PaperTrail.from_settings(cfg.settings)
    # the model loads while the bot connects, not when the first PDF arrives (~8 s)
    warm_up = getattr(pipeline, "warm_up", None)
    if callable(warm_up):
        warm_up()
    return ChatService(pipeline, cfg.settings, complete=_llm_complete(pipeline))


def _llm_complete(pipeline: PaperTrail):
    """The answering LLM as a plain ``messages -> text`` call, to condense follow-ups;
    None offline. Its failures fall back to the offline rewrite (papertrail/followup.py)."""
    complete = getattr(getattr(pipeline, "generator", None), "_complete", None)
    if not callable(complete):
        return None
    return lambda messages: complete(messages)[0]  # (text, tokens used)


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
    return f"answers: {llm}; index: {store}"


def close_service(service: ChatService) -> None:
    """Release the service's and pipeline's resources (thread pools, store clients).

    Each is closed only if it offers ``close()``; errors are logged, because
    shutdown must go on.
    """
    pipeline = getattr(service, "pipeline", None)
    for obj in (service, pipeline):
        close = getattr(obj, "close", None)
        if callable(close):
            try:
                close()
            except Exception:
                log.exception("error while closing %s", type(obj).__name__)
