"""PaperTrail: answers about PDFs whose every citation is checked in code.

The package is the platform-neutral pipeline: read a PDF into positioned text
blocks, cut page-bounded chunks, embed and store them per channel, retrieve,
answer, verify each citation against its sentence, and render the cited region.
Chat platforms live in ``adapters/``; processes and configuration in ``bot/``.
"""

import sys

# pymupdf >= 2 imports its optional layout analyser at import time when the
# pymupdf-layout wheel is present, which builds ONNX sessions (~1 s, ~100 MB).
# PaperTrail never calls ``Page.get_layout``; a None entry makes that optional
# import fail the way pymupdf expects when the wheel is absent.
sys.modules.setdefault("pymupdf.layout", None)

from papertrail.errors import PaperTrailError  # noqa: E402
from papertrail.types import Answer, Block, Chunk, Citation, Document, Hit, Line, Rect  # noqa: E402

__all__ = [
    "Answer",
    "Block",
    "Chunk",
    "Citation",
    "Document",
    "Hit",
    "Line",
    "PaperTrailError",
    "Rect",
]
__version__ = "0.1.0"
