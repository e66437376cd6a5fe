"""Safe file names: what an upload is called wherever it reaches disk or markup.

Upload names come from strangers. ``safe_filename`` keeps a readable name but
drops directories, control characters and the characters that chat markup or
shells treat specially. ``image_name`` names an answer's pictures uniquely to that
answer (a short digest of the question and text), so the next question citing
the same page does not overwrite them.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

from papertrail.types import Answer, Snippet

_UNSAFE = re.compile(r"[^\w.\- ()+,]")  # \w is Unicode-aware: keeps accents, CJK
_SPACES = re.compile(r"\s+")
MAX_LEN = 100  # characters; long enough to recognise, short enough for a message line


def safe_filename(name: str, *, default: str = "document.pdf", suffix: str = ".pdf") -> str:
    """Return ``name`` without paths, control or markup characters, at most MAX_LEN long."""
    name = unicodedata.normalize("NFC", name or "")
    name = name.replace("\\", "/").rsplit("/", 1)[-1]
    name = "".join(ch for ch in name if unicodedata.category(ch)[0] != "C")
    name = _UNSAFE.sub("_", name)
    name = _SPACES.sub(" ", name).strip(" ._")
    if not name:
        name = default
    stem, dot, ext = name.rpartition(".")
    if not dot and not suffix:  # no extension, and none required: the name is all stem
        return name[:MAX_LEN].rstrip(" ._") or default
    if suffix and (not dot or "." + ext.lower() != suffix):
        stem, ext = name, suffix.lstrip(".")
    stem = stem[: MAX_LEN - len(ext) - 1].rstrip(" ._") or "document"
    return f"{stem}.{ext}"


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
