"""HTTP to ``ChatService`` and back: the web channel's routes, on aiohttp.

Routes, ``{ws}`` being the workspace (the channel ``web:{ws}``):

- ``GET /`` sends a new visitor to a fresh workspace of their own.
- ``GET /w/{ws}`` is the page; ``GET /w/{ws}/library`` the documents as JSON.
- ``POST /w/{ws}/upload`` takes one PDF as the raw body (name in ``X-File-Name``)
  and ``POST /w/{ws}/ask`` a JSON question; both answer NDJSON: progress lines
  while the service works, then the reply (``payloads.reply_json``).
- ``POST /w/{ws}/forget`` forgets one document; ``GET /w/{ws}/img/{id}.png``
  serves a reply's image; ``GET /healthz`` says the process is up.

Who is asking is a random id in an HttpOnly, SameSite=Strict cookie, so only
the browser that uploaded a file may forget it. Every POST must carry the
``X-PaperTrail`` header, which a page on another site cannot add without a
CORS permission this server never grants. Bodies are read with a bound (the
chat size limit for PDFs, 16 KB for JSON) and anything malformed gets a 4xx;
a PDF goes to disk, a few at a time (``uploads.py``). Every response carries
the security headers of ``headers.py``; ``serve.py`` runs the app. No
indexing or answering logic lives here.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import secrets
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import unquote

from aiohttp import web

from adapters.chat.service import Attachment, ChatService, Mention, Reply
from adapters.web.headers import errors_as_json, security_headers
from adapters.web.payloads import ImageShelf, document_json, reply_json
from adapters.web.uploads import UploadSlots, spool
from adapters.web.votes import vote_handler

log = logging.getLogger(__name__)

STATIC = Path(__file__).parent / "static"
WORKSPACE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
CONVERSATION = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
COOKIE = "papertrail_user"
HEADER = "X-PaperTrail"  # the page's own requests carry it; a cross-site form cannot
MAX_JSON_BYTES = 16_000  # a question or a file name; far above what the page sends
MAX_QUESTION_CHARS = 4_000  # as a Slack message's text
WORKERS = 4  # threads running the service: questions in other workspaces go on meanwhile
SERVICE = web.AppKey("service", ChatService)
SHELF = web.AppKey("shelf", ImageShelf)
POOL = web.AppKey("pool", ThreadPoolExecutor)
LIMIT = web.AppKey("limit", int)
SLOTS = web.AppKey("slots", UploadSlots)
SPOOL = web.AppKey("spool", object)  # Path | None: where upload bodies wait on disk

Work = Callable[[Callable[[str], None]], Reply]


def build_web_app(
    service: ChatService, *, max_pdf_bytes: int, slots: UploadSlots | None = None
) -> web.Application:
    """The web channel's application; ``max_pdf_bytes`` is the chat upload limit."""
    app = web.Application(client_max_size=MAX_JSON_BYTES, middlewares=[errors_as_json])
    app.on_response_prepare.append(security_headers)
    data_dir = getattr(getattr(service, "settings", None), "data_dir", None)
    app[SPOOL] = Path(data_dir) / "uploads" if data_dir else None
    app[SLOTS] = slots or UploadSlots()
    app[SERVICE] = service
    app[SHELF] = ImageShelf()
    app[POOL] = ThreadPoolExecutor(WORKERS, thread_name_prefix="web")
    app[LIMIT] = max_pdf_bytes
    app.on_cleanup.append(_close_pool)
    app.router.add_get("/", _new_workspace)
    app.router.add_get("/healthz", _health)
    app.router.add_static("/static/", STATIC, show_index=False)
    app.router.add_get("/w/{ws}", _page)
    app.router.add_get("/w/{ws}/library", _library)
    app.router.add_post("/w/{ws}/upload", _upload)
    app.router.add_post("/w/{ws}/ask", _ask)
    app.router.add_post("/w/{ws}/forget", _forget)
    votes = vote_handler(_workspace, _caller, _json, _in_pool, SERVICE)  # votes.py
    app.router.add_post("/w/{ws}/feedback", votes)
    app.router.add_get("/w/{ws}/img/{name}.png", _image)
    return app


async def _close_pool(app: web.Application) -> None:
    app[POOL].shutdown(wait=False, cancel_futures=True)


# -- pages -----------------------------------------------------------------------


async def _new_workspace(request: web.Request) -> web.Response:
    raise web.HTTPFound(f"/w/{secrets.token_urlsafe(6).replace('_', 'x').replace('-', 'y')}")


async def _health(request: web.Request) -> web.Response:
    return web.json_response({"ok": True, "mode": "web"})


async def _page(request: web.Request) -> web.Response:
    _workspace(request)
    response = web.FileResponse(STATIC / "page.html", headers={"Cache-Control": "no-store"})
    if not _valid_user(request.cookies.get(COOKIE, "")):
        response.set_cookie(
            COOKIE, secrets.token_hex(16), httponly=True, samesite="Strict", max_age=400 * 86400
        )
    return response


async def _image(request: web.Request) -> web.Response:
    png = request.app[SHELF].get(_workspace(request), request.match_info["name"])
    if png is None:
        raise web.HTTPNotFound(text="That image has expired: ask the question again.")
    return web.Response(body=png, content_type="image/png", headers={"Cache-Control": "private"})


# -- the channel's actions ---------------------------------------------------------


async def _library(request: web.Request) -> web.Response:
    ws = _workspace(request)
    service = request.app[SERVICE]
    reply = await _in_pool(request, lambda: service.handle(_mention(request, ws, "list")))
    docs = [document_json(d) for d in reply.documents]
    return web.json_response({"text": reply.text, "documents": docs})


async def _upload(request: web.Request) -> web.StreamResponse:
    ws, user = _workspace(request), _caller(request)
    name = unquote(request.headers.get("X-File-Name", "")).strip() or "upload.pdf"
    limit = request.app[LIMIT]
    if request.content_length is not None and limit and request.content_length > limit:
        raise _too_large(name, limit)
    # 429/503 before a byte of the body is read; then the body goes to disk
    body = await spool(
        request,
        request.app[SLOTS].take(ws),
        limit,
        lambda: _too_large(name, limit),
        request.app[SPOOL],
    )
    attachment = Attachment(
        name=name,
        fetch=body.read,
        size=body.size,
        mimetype=request.headers.get("Content-Type", ""),
        key=f"web:{user}:{body.digest}",  # one share per person and file: a re-upload is a no-op
        source="message",
        owner=user,
    )
    mention = _mention(request, ws, "", (attachment,))
    service = request.app[SERVICE]
    return await _stream(request, body.closing(lambda progress: service.handle(mention, progress)))


async def _ask(request: web.Request) -> web.StreamResponse:
    ws = _workspace(request)
    body = await _json(request)
    text = body.get("text")
    if not isinstance(text, str) or not text.strip():
        raise web.HTTPBadRequest(text="Type a question about the documents of this workspace.")
    if len(text) > MAX_QUESTION_CHARS:
        raise web.HTTPRequestEntityTooLarge(
            MAX_QUESTION_CHARS, len(text), text="That question is too long: keep it short."
        )
    conversation = body.get("conversation", "")
    if not isinstance(conversation, str) or (conversation and not CONVERSATION.match(conversation)):
        raise web.HTTPBadRequest(text="conversation must be a short id of letters and digits.")
    thread = f"web:{ws}:{conversation}" if conversation else ""
    mention = _mention(request, ws, text.strip(), thread=thread)
    service = request.app[SERVICE]
    return await _stream(request, lambda progress: service.handle(mention, progress))


async def _forget(request: web.Request) -> web.Response:
    ws = _workspace(request)
    body = await _json(request)
    name = body.get("name")
    if not isinstance(name, str) or not name.strip() or len(name) > 300:
        raise web.HTTPBadRequest(text="Say which document to forget.")
    mention = _mention(request, ws, f"forget {name.strip()}")
    service = request.app[SERVICE]
    reply = await _in_pool(request, lambda: service.handle(mention))
    return web.json_response(reply_json(reply, ws, request.app[SHELF], f"/w/{ws}"))


# -- translation ---------------------------------------------------------------------


def _workspace(request: web.Request) -> str:
    ws = request.match_info["ws"]
    if not WORKSPACE.match(ws):
        raise web.HTTPNotFound(
            text="A workspace name is 1-64 letters, digits, '-' or '_'. Open / for a new one."
        )
    return ws


def _valid_user(value: str) -> bool:
    return bool(re.fullmatch(r"[0-9a-f]{32}", value))


def _caller(request: web.Request) -> str:
    """The asking browser, after the checks every state-changing request must pass."""
    if request.headers.get(HEADER) != "1":
        raise web.HTTPForbidden(text=f"Requests must come from the PaperTrail page ({HEADER}).")
    user = request.cookies.get(COOKIE, "")
    if not _valid_user(user):
        raise web.HTTPForbidden(text="Open the workspace page first: it identifies this browser.")
    return f"web:{user}"


def _mention(request, ws: str, text: str, attachments=(), *, thread: str = "") -> Mention:
    user = _caller(request) if request.method == "POST" else ""
    # no one is an admin here: a file is forgotten by the browser that shared it
    return Mention(f"web:{ws}", text, tuple(attachments), user=user, thread=thread, admin=None)


async def _json(request: web.Request) -> dict:
    _caller(request)
    if request.content_type != "application/json":
        raise web.HTTPUnsupportedMediaType(text="Send JSON (Content-Type: application/json).")
    raw = await _read_bounded(request, MAX_JSON_BYTES, "the request")
    try:
        body = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise web.HTTPBadRequest(text="The request body is not valid JSON.") from None
    if not isinstance(body, dict):
        raise web.HTTPBadRequest(text="The request body must be a JSON object.")
    return body


async def _read_bounded(request: web.Request, limit: int, name: str) -> bytes:
    """The body, refusing (413) as soon as it passes ``limit`` bytes (0 = no limit)."""
    _caller(request)
    parts, size = [], 0
    async for chunk in request.content.iter_chunked(64 * 1024):
        size += len(chunk)
        if limit and size > limit:
            raise _too_large(name, limit)
        parts.append(chunk)
    return b"".join(parts)


def _too_large(name: str, limit: int) -> web.HTTPRequestEntityTooLarge:
    from papertrail.read.uploads import too_large

    message = too_large(name, None, limit).message  # the chat's own wording
    return web.HTTPRequestEntityTooLarge(limit, limit + 1, text=message)


async def _in_pool(request: web.Request, call):
    return await asyncio.get_running_loop().run_in_executor(request.app[POOL], call)


async def _stream(request: web.Request, work: Work) -> web.StreamResponse:
    """Run ``work`` in the pool; stream its progress lines, then its reply, as NDJSON."""
    loop = asyncio.get_running_loop()
    lines: asyncio.Queue[str] = asyncio.Queue()

    def progress(status: str) -> None:
        loop.call_soon_threadsafe(lines.put_nowait, status)

    job = loop.run_in_executor(request.app[POOL], work, progress)
    response = web.StreamResponse(
        headers={"Content-Type": "application/x-ndjson", "Cache-Control": "no-store"}
    )
    await response.prepare(request)
    ws = _workspace(request)
    try:
        while not job.done() or not lines.empty():
            getter = asyncio.ensure_future(lines.get())
            await asyncio.wait({getter, job}, return_when=asyncio.FIRST_COMPLETED)
            if getter.done():
                await _line(response, {"progress": getter.result()})
            else:
                getter.cancel()
        reply = job.result()
        payload = reply_json(reply, ws, request.app[SHELF], f"/w/{ws}")
        await _line(response, {"reply": payload})
        await response.write_eof()
    except ConnectionResetError:  # the browser went away; the work itself still completes
        log.info("client left before the reply in %s", ws)
    return response


async def _line(response: web.StreamResponse, obj: dict) -> None:
    await response.write(json.dumps(obj, ensure_ascii=False).encode() + b"\n")
