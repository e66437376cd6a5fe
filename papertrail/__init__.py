"""PaperTrail: answers about PDFs whose every citation is checked in code.

The package is the platform-neutral pipeline: read a PDF into positioned text
blocks, cut page-bounded chunks, embed and store them per channel, retrieve,
answer, verify each citation against its sentence, and render the cited region.
Chat platforms live in ``adapters/``; processes and configuration in ``bot/``.
"""

from papertrail.errors import PaperTrailError
from papertrail.types import Answer, Block, Chunk, Citation, Document, Hit, Line, Rect

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
