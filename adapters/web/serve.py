"""``python -m bot web``'s server: the listening socket first, then the app on it.

The port is bound before anything is printed, so a port another program
holds is one line (a ``PaperTrailError``, exit 2) instead of the page's URL
and then a traceback. Serves until SIGINT/SIGTERM. Routes are ``app.py``'s.
"""

from __future__ import annotations

import socket

from aiohttp import web

from adapters.chat.service import ChatService
from adapters.web.app import build_web_app
from papertrail.errors import PaperTrailError


def run_web(service: ChatService, *, host: str, port: int, max_pdf_bytes: int) -> None:
    """Serve the web channel on ``host:port`` until interrupted."""
    try:
        sock = socket.create_server((host, port))
    except OSError as exc:
        raise PaperTrailError(
            f"Cannot listen on {host}:{port} ({exc.strerror or exc}): another program is "
            "using that port; stop it, or choose another with --port.",
            code="config",
        ) from None
    app = build_web_app(service, max_pdf_bytes=max_pdf_bytes)
    print(f"PaperTrail web channel on http://{host}:{port}/", flush=True)
    web.run_app(app, sock=sock, print=None, access_log=None)
