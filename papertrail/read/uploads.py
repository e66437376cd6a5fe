"""What an upload must be before the pipeline reads it: a PDF, and not too large.

One answer to "is this a PDF" for names and media types (``looks_like_pdf``,
used by the adapters to pick attachments) and for bytes (``has_pdf_signature``),
and one size limit with one wording (``check_size`` / ``too_large``), used by
``pdf.check_bytes`` and by the adapters before and after a download. Parsing,
encryption and page limits are ``pdf.py``'s; downloading is the adapters'.
"""

from __future__ import annotations

from papertrail.errors import PaperTrailError
from papertrail.settings import DEFAULT_MAX_PDF_MB

PDF_MIMETYPE = "application/pdf"
SIGNATURE_WINDOW = 1024  # bytes: the PDF spec allows junk before "%PDF" within the first KiB
DEFAULT_MAX_PDF_BYTES = int(DEFAULT_MAX_PDF_MB * 1_000_000)


def looks_like_pdf(name: str, mimetype: str = "") -> bool:
    """True when the file name ends in .pdf or the media type (parameters aside) is PDF."""
    kind = mimetype.split(";")[0].strip().lower()
    return name.lower().endswith(".pdf") or kind == PDF_MIMETYPE


def has_pdf_signature(data: bytes) -> bool:
    """True when ``%PDF`` appears within the first ``SIGNATURE_WINDOW`` bytes."""
    return b"%PDF" in data[:SIGNATURE_WINDOW]


def too_large(name: str, size: int | None, limit: int) -> PaperTrailError:
    """The refusal of a file over ``limit`` bytes; ``size`` None = cut off, true size unknown."""
    amount = f"{size / 1e6:.1f} MB" if size is not None else f"more than {limit / 1e6:g} MB"
    return PaperTrailError(
        f"{name} is {amount}; the limit is {limit / 1e6:g} MB, so it is larger than I can "
        "read. Upload a smaller PDF or split it (an admin can raise PAPERTRAIL_MAX_PDF_MB).",
        code="too_large",
    )


def check_size(name: str, size: int | None, limit: int) -> None:
    """Raise ``too_large`` when ``size`` (bytes, None = unknown) is over ``limit`` (0 = none)."""
    if size is not None and limit > 0 and size > limit:
        raise too_large(name, size, limit)
