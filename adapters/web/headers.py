"""What every response of the web channel carries: its security headers, and a
refusal's reason as JSON (``errors_as_json``: ``{"error": ...}``, never a traceback).

The Content-Security-Policy lets the page run only this server's own
scripts and styles (the page has no inline ones) and show only its own
images; it may not be framed by another site, and it can send requests
nowhere else. ``nosniff`` keeps a browser from reading an upload or a reply
as anything but its declared type; ``no-referrer`` keeps workspace URLs,
which are the workspace's only secret, out of other sites' logs.
"""

from __future__ import annotations

from aiohttp import web

CSP = (
    "default-src 'self'; img-src 'self' data: blob:; object-src 'none'; base-uri 'none'; "
    "frame-ancestors 'none'; form-action 'self'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


async def security_headers(request: web.Request, response: web.StreamResponse) -> None:
    """An ``on_response_prepare`` hook: adds the headers a response does not set itself."""
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)


_BODY_HEADERS = {"content-type", "content-length"}


@web.middleware
async def errors_as_json(request: web.Request, handler):
    """Every refusal as ``{"error": ...}`` with its 4xx status, never a traceback."""
    try:
        return await handler(request)
    except web.HTTPException as exc:
        if exc.status < 400 or exc.content_type == "application/json":
            raise
        reason = exc.text if exc.text and not exc.text.startswith(str(exc.status)) else exc.reason
        keep = {k: v for k, v in exc.headers.items() if k.lower() not in _BODY_HEADERS}
        return web.json_response({"error": reason}, status=exc.status, headers=keep)
