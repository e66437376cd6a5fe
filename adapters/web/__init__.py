"""The web channel: PaperTrail in a browser, on the same ``ChatService`` as the bots.

``python -m bot web`` serves one page (plain HTML and a little JavaScript, no
build step) where a workspace named in the URL is a channel: drop PDFs, ask,
see answers with their marked pages inline. ``app.py`` translates HTTP to
``Mention``s and ``Reply``s; ``payloads.py`` turns replies into JSON and keeps
the reply images; ``uploads.py`` bounds uploads; ``headers.py`` sets what
every response carries; ``serve.py`` runs it; ``static/`` is the page.
"""
