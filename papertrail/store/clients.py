"""Opening a Chroma client: an embedded folder, a server, or a fresh in-memory database.

Each failure to open becomes a ``PaperTrailError`` saying what to fix
(``PAPERTRAIL_DATA_DIR``, ``CHROMA_HOST``/``CHROMA_PORT``). Telemetry is off.
What is stored in the database is ``chroma.py``'s and ``registry.py``'s.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import chromadb
from chromadb.config import Settings as ChromaSettings

from papertrail.errors import PaperTrailError


def _settings() -> ChromaSettings:
    # A fresh object each time: chromadb's client constructors modify the one they get.
    return ChromaSettings(anonymized_telemetry=False)


def persistent_client(path: Path):
    """Embedded Chroma in the folder ``path`` (created if missing)."""
    try:
        Path(path).mkdir(parents=True, exist_ok=True)
        return chromadb.PersistentClient(path=str(path), settings=_settings())
    except (OSError, ValueError, RuntimeError) as exc:
        raise PaperTrailError(
            f"The index at {path} could not be opened ({exc}). Check that "
            "PAPERTRAIL_DATA_DIR is writable and used by one PaperTrail at a time.",
            code="store",
        ) from exc


def http_client(host: str, port: int):
    """A Chroma server, e.g. ``chroma run --host 127.0.0.1 --port 8000``."""
    try:
        return chromadb.HttpClient(host=host, port=port, settings=_settings())
    except Exception as exc:
        raise PaperTrailError(
            f"The Chroma server at {host}:{port} did not answer ({exc}). Start it, "
            "or fix CHROMA_HOST / CHROMA_PORT (leave CHROMA_HOST empty for a local index).",
            code="store",
        ) from exc


def ephemeral_client():
    """In memory and empty: a fresh database each call (for tests)."""
    database = f"pt-{uuid.uuid4().hex}"
    client = chromadb.EphemeralClient(settings=_settings())
    chromadb.AdminClient(client.get_settings()).create_database(database)
    client.set_database(database)
    return client
