"""Domains: what a kind of document adds to generic retrieval (``protocols.Domain``).

``KNOWN`` lists the domains shipped, in the order they are asked to recognise
a document. To add one, write a class with the ``Domain`` methods in a folder
of its own here and append an instance to ``KNOWN`` (or hand your own tuple to
``PaperTrail(domains=...)``).
"""

from __future__ import annotations

from papertrail.domains.finance.domain import Finance

KNOWN = (Finance(),)
