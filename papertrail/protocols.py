"""The seams of the pipeline: tiny Protocols with one required method each.

Real implementations live next to their idea (``embed.py``, ``generate.py``);
tests pass in small real fakes (``tests/fakes.py``) instead of monkeypatching.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

from papertrail.types import Draft, Hit


class Embedder(Protocol):
    """Turns texts into L2-normalised vectors, one row per text.

    ``name`` identifies the model, so vectors of different models never share
    a collection.
    """

    name: str

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


class Generator(Protocol):
    """Writes an answer to ``question`` citing ``hits`` as ``[1]``..``[len(hits)]``."""

    def generate(self, question: str, hits: Sequence[Hit]) -> Draft: ...
