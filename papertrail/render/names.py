"""File names for the pictures of one answer, unique to that answer.

``image_name`` names a snippet by its citation number, page and document, plus
a short tag of the answer it illustrates (a digest of the question and the
answer text), so the pictures of the next question citing the same page do not
overwrite these. It does not make the name safe for a file system; callers pass
it through ``safe_filename``.
"""

from __future__ import annotations

import hashlib

from papertrail.types import Answer, Snippet

TAG_CHARS = 8  # hex digits of the answer's digest: collisions are one in four billion


def answer_tag(answer: Answer) -> str:
    """A short tag that differs between answers (question or text differ)."""
    digest = hashlib.sha256(f"{answer.question}\n{answer.text}".encode()).hexdigest()
    return digest[:TAG_CHARS]


def image_name(snippet: Snippet, answer: Answer) -> str:
    """``"1-p3-1a2b3c4d-report.png"``: citation, page, answer tag, document stem (last,
    so that shortening a long name keeps the tag)."""
    stem = snippet.doc_name.rsplit(".", 1)[0]
    return f"{snippet.n}-p{snippet.page}-{answer_tag(answer)}-{stem}.png"
