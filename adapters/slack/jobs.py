"""Running a Slack question that arrived as a job (multi-worker mode, ``bot/redis/jobs.py``).

``run_job`` puts the job on the bot's per-channel pool and acknowledges it
when the answer is written. A job taken over from a worker that died
mid-question finds that worker's progress message ("Indexing report.pdf —
40/120 pages") still in the thread: ``retire_stale_progress`` rewrites the
bot's unfinished progress messages into a short note first, then the answer
follows as usual. Found statelessly with ``conversations.replies``, so nothing
about the dead worker's messages has to be stored. Jobs are the plain-data
units of ``SlackBot.queue`` (answer, drop, forget, command); carrying them out
is ``SlackBot.run`` in ``adapters/slack/events.py``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

log = logging.getLogger(__name__)

PROGRESS = ":hourglass"  # how slack_format.progress_message starts
TAKEN_OVER = ":arrows_counterclockwise: The worker handling this stopped; another one took over."


def retire_stale_progress(client: WebClient, channel: str, thread_ts: str, bot_user: str) -> int:
    """Rewrite the bot's unfinished progress messages in the thread; how many were."""
    try:
        found = client.conversations_replies(channel=channel, ts=thread_ts, limit=200)
    except SlackApiError as err:
        log.warning("could not read thread %s/%s: %s", channel, thread_ts, err.response["error"])
        return 0
    stale = [
        m
        for m in found.get("messages", [])
        if m.get("user") == bot_user and str(m.get("text", "")).startswith(PROGRESS)
    ]
    for message in stale:
        try:
            client.chat_update(channel=channel, ts=message["ts"], text=TAKEN_OVER, blocks=[])
        except SlackApiError as err:
            log.warning("could not update a stale progress message: %s", err.response["error"])
    return len(stale)


def run_job(bot, payload: dict, done: Callable[[], None]) -> None:
    """Run a ``SlackBot.queue`` job on ``bot``'s pool (a ``SlackBot``); ``done()`` acks it."""
    job = dict(payload)
    bot.bot_user_id = bot.bot_user_id or job.get("bot_user_id", "")  # a worker never asked
    what = (job.get("event") or {}).get("ts") or job.get("ts") or job.get("file_id") or ""
    log.info("job for %s/%s (%s)", job.get("channel"), what, job.get("kind"))

    def work() -> None:
        try:
            if job.get("kind") == "answer" and job.get("deliveries", 1) > 1:
                # taken over: a dead worker's progress is stale, and so is its message
                event = job["event"]
                thread = event.get("thread_ts") or event["ts"]
                retire_stale_progress(bot.client, job["channel"], thread, bot.bot_user_id)
                job["progress_ts"] = None
            bot.run(job)
        finally:
            done()

    bot.worker.submit((job["team"], job["channel"] or "*"), work)
