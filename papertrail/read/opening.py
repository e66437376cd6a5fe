"""Opening PDF bytes: refusing what is not a usable PDF, passwords, a decrypted copy.

``check_bytes`` refuses empty, non-PDF and oversized input before anything
parses it; ``open_document`` opens bytes with MuPDF (authenticating when a
password is given) and turns its failures into a ``PaperTrailError`` the user
can act on; ``decrypted`` keeps a password-free copy. Reading pages is
``pdf.py``'s.
"""

from __future__ import annotations

import threading
import unicodedata

import pymupdf

from papertrail.errors import PaperTrailError
from papertrail.read.uploads import SIGNATURE_WINDOW, check_size, has_pdf_signature
from papertrail.settings import Settings

# MuPDF repairing two large damaged files at once, in two threads, crashed the process
# (SIGSEGV in fz_open_document): one open at a time; reading opened pages stays parallel
_OPENING = threading.Lock()


def check_bytes(data: bytes, settings: Settings) -> None:
    """Refuse empty, non-PDF and oversized input before parsing anything."""
    if not data:
        raise PaperTrailError("The file is empty (0 bytes). Upload the PDF again.", code="empty")
    if not has_pdf_signature(data):
        low = data[:SIGNATURE_WINDOW].lstrip().lower()
        if low.startswith((b"<!doctype html", b"<html", b"<?xml")) or b"<html" in low:
            raise PaperTrailError(  # the Slack adapter explains its own sign-in pages
                "This file is a web page (HTML), not a PDF. Upload the PDF itself, not a saved "
                "page or a link to one.",
                code="not_pdf",
            )
        raise PaperTrailError(
            "This file is not a PDF (it does not start with %PDF). Upload the PDF itself, "
            "not a link, image or other document.",
            code="not_pdf",
        )
    check_size("This PDF", len(data), settings.max_pdf_bytes)


def open_document(data: bytes, password: str | None = None) -> pymupdf.Document:
    """Open PDF bytes, authenticating if needed; raises PaperTrailError on failure."""
    try:
        with _OPENING:
            doc = pymupdf.open(stream=data, filetype="pdf")
    except Exception as exc:  # FileDataError, EmptyFileError, RuntimeError from MuPDF
        raise PaperTrailError(
            "This PDF is damaged and cannot be read. Re-export or re-download it and upload "
            "it again.",
            code="corrupt",
        ) from exc
    if doc.needs_pass and not _authenticate(doc, password):
        doc.close()
        wrong = "That password did not open it. " if password else ""
        raise PaperTrailError(
            f"This PDF is password-protected. {wrong}Upload an unprotected copy, or give "
            "the password (CLI: --password).",
            code="encrypted",
        )
    if doc.page_count == 0:
        doc.close()
        raise PaperTrailError(
            "This PDF has no readable pages (its page tree is missing or broken). "
            "Re-export it from the original application and upload it again.",
            code="no_pages",
        )
    return doc


def decrypted(data: bytes, password: str | None) -> bytes:
    """``data`` without its password (kept so page images render without it); as is if none."""
    if not password:
        return data
    with open_document(data, password=password) as doc:
        return doc.tobytes(encryption=1)  # PDF_ENCRYPT_NONE


def _authenticate(doc: pymupdf.Document, password: str | None) -> bool:
    if not password:
        return False
    tries = [password] + [unicodedata.normalize(f, password) for f in ("NFC", "NFKC", "NFD")]
    return any(doc.authenticate(p) for p in dict.fromkeys(tries))
