"""The web channel: PaperTrail in a browser, on the same ``ChatService`` as the bots.

``python -m bot web`` serves one page (plain HTML and a little JavaScript, no
build step) where a workspace named in the URL is a channel: drop PDFs, ask,
see answers with their marked pages inline. ``app.py`` translates HTTP to
``Mention``s and ``Reply``s; ``payloads.py`` turns replies into JSON and keeps
the reply images; ``static/`` is the page.
"""
