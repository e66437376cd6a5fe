"""``POST /w/<workspace>/feedback``: a 👍 or 👎 on an answer, one per browser per answer.

The body is ``{"answer_id": "...", "verdict": "up" | "down"}``; the answer must
have been given in this workspace (another workspace's id counts for nothing)
and the browser is the one the page's cookie names, after the same checks as
every state-changing request (``app.py``'s, handed in: this module adds a
route, not a second way to identify callers). The reply is
``{"outcome": ..., "note": ...}``, the note worded as on Slack and Discord.
"""

from __future__ import annotations

import re

from aiohttp import web

from adapters.chat.feedback import VERDICTS, vote_note

ANSWER_ID = re.compile(r"[0-9a-f]{6,32}")


def vote_handler(workspace, caller, read_json, in_pool, service_key):
    """The route's handler, built on the app's own request checks."""

    async def feedback(request: web.Request) -> web.Response:
        ws, user = workspace(request), caller(request)
        body = await read_json(request)
        answer_id, verdict = body.get("answer_id"), body.get("verdict")
        if not isinstance(answer_id, str) or not ANSWER_ID.fullmatch(answer_id):
            raise web.HTTPBadRequest(text="answer_id must name an answer of this workspace.")
        if verdict not in VERDICTS:
            raise web.HTTPBadRequest(text='verdict must be "up" or "down".')
        service = request.app[service_key]
        vote = lambda: service.vote(f"web:{ws}", answer_id, user, verdict)  # noqa: E731
        outcome = await in_pool(request, vote)
        return web.json_response({"outcome": outcome, "note": vote_note(outcome, verdict)})

    return feedback
