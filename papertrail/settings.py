"""One ``Settings`` object for the pipeline, read once at the edge.

``Settings.from_env`` turns environment variables into typed fields; a
malformed value raises ``PaperTrailError`` naming the variable. Everything else
receives a ``Settings`` and never reads the environment itself. Chat-platform
tokens are not here: ``bot/config.py`` holds them.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from papertrail.envvars import describe as describe_fields
from papertrail.envvars import env_field, read_env
from papertrail.errors import PaperTrailError

REFUSAL = "The documents provided do not contain the answer to this question."
DEFAULT_MAX_PDF_MB = 50.0  # PAPERTRAIL_MAX_PDF_MB's default, and the adapters' download cap
BUNDLED_NAME = "all-MiniLM-L6-v2"  # the name of the bundled model, used for collection names


def model_name(model: str = "") -> str:
    """The stable identifier of embedding ``model`` ("" = bundled) without loading it."""
    model = model.strip()
    if not model:
        return BUNDLED_NAME
    return model.rstrip("/") or model


_f = env_field

# (lowest, highest) accepted for each numeric setting; a float's lowest is exclusive
# when it is 0 (a size, a time or a zoom of 0 makes no sense)
RANGES: dict[str, tuple[float, float]] = {
    "chroma_port": (1, 65535),
    "max_pdf_mb": (0, 10_000),
    "max_pages": (1, 100_000),
    "max_index_seconds": (0, 86_400),
    "max_concurrent_indexing": (1, 64),
    "chunk_size": (100, 20_000),
    "chunk_overlap": (0, 10_000),
    "top_k": (1, 100),
    "llm_timeout": (1, 3_600),  # seconds: an answer nobody waits an hour for
    "llm_first_token_timeout": (1, 3_600),  # seconds until the first byte or token
    "llm_retries": (0, 10),
    "daily_token_budget": (0, 1_000_000_000),
    "render_zoom": (0.25, 8),
    "max_image_width": (100, 20_000),
}


@dataclass(frozen=True)
class Settings:
    """Every knob of the pipeline, with the environment variable that sets it."""

    data_dir: Path = _f(
        Path("data"), "PAPERTRAIL_DATA_DIR", "Where the local index and uploaded PDFs live."
    )
    chroma_host: str = _f(
        "", "CHROMA_HOST", "Chroma server host; empty = embedded PersistentClient in data_dir."
    )
    chroma_port: int = _f(8000, "CHROMA_PORT", "Chroma server port (with CHROMA_HOST).")
    embedding_model: str = _f(
        "",
        "PAPERTRAIL_EMBEDDING_MODEL",
        "Local path or model id for sentence-transformers; empty = bundled all-MiniLM-L6-v2.",
    )
    embed_backend: str = _f(
        "auto",
        "PAPERTRAIL_EMBED_BACKEND",
        "What runs the embedding model: auto (OpenVINO, else ONNX Runtime, when the model "
        "allows; else torch), openvino, onnx, torch.",
    )
    model_cache: Path = _f(
        Path.home() / ".cache" / "papertrail",
        "PAPERTRAIL_MODEL_CACHE",
        "Where the embedding model's ONNX export and its OpenVINO copy are kept (made once, ~8 s).",
    )
    max_pdf_mb: float = _f(
        DEFAULT_MAX_PDF_MB, "PAPERTRAIL_MAX_PDF_MB", "Largest PDF accepted, in megabytes."
    )
    max_pages: int = _f(1000, "PAPERTRAIL_MAX_PAGES", "Most pages accepted in one PDF.")
    max_index_seconds: float = _f(
        600.0, "PAPERTRAIL_MAX_INDEX_SECONDS", "Indexing of one PDF is abandoned after this."
    )
    max_concurrent_indexing: int = _f(
        2,
        "PAPERTRAIL_MAX_CONCURRENT_INDEXING",
        "PDFs indexed at once per process, across all channels and re-indexing.",
    )
    chunk_size: int = _f(800, "PAPERTRAIL_CHUNK_SIZE", "Target chunk length in characters.")
    chunk_overlap: int = _f(100, "PAPERTRAIL_CHUNK_OVERLAP", "Characters shared by neighbours.")
    contextual: bool = _f(
        False,
        "PAPERTRAIL_CONTEXTUAL",
        "Embed a recognised document's passages with its title and section heading.",
    )
    top_k: int = _f(5, "PAPERTRAIL_TOP_K", "Excerpts retrieved per question.")
    ocr: bool = _f(
        True,
        "PAPERTRAIL_OCR",
        "OCR pages without a text layer, and pictures on pages with one, if an engine exists.",
    )
    groq_api_key: str = _f("", "GROQ_API_KEY", "Groq key; empty = offline extractive answers.")
    groq_model: str = _f("llama-3.3-70b-versatile", "GROQ_MODEL", "Groq chat model.")
    groq_base_url: str = _f(
        "",
        "GROQ_BASE_URL",
        "Override of Groq's API base URL; without GROQ_API_KEY no key is sent (a local server).",
    )
    llm_base_url: str = _f(
        "",
        "PAPERTRAIL_LLM_BASE_URL",
        "OpenAI-compatible server (Ollama, vLLM, llama.cpp), e.g. http://localhost:11434/v1.",
    )
    llm_api_key: str = _f("", "PAPERTRAIL_LLM_API_KEY", "Key for the OpenAI-compatible server.")
    llm_model: str = _f("", "PAPERTRAIL_LLM_MODEL", "Model name on the OpenAI-compatible server.")
    llm_timeout: float = _f(
        120.0,
        "PAPERTRAIL_LLM_TIMEOUT",
        "Deadline in seconds for one LLM answer, retries included (1-3600); then offline.",
    )
    llm_first_token_timeout: float = _f(
        15.0,
        "PAPERTRAIL_LLM_FIRST_TOKEN_TIMEOUT",
        "Seconds to wait for the LLM's first byte or token before calling it hung (offline); "
        "a model that streams keeps PAPERTRAIL_LLM_TIMEOUT.",
    )
    llm_retries: int = _f(
        3,
        "PAPERTRAIL_LLM_RETRIES",
        "Retries on fast failures (429, 5xx), within the deadline (0-10).",
    )
    daily_token_budget: int = _f(
        100_000,
        "PAPERTRAIL_DAILY_TOKENS",
        "LLM tokens per UTC day before falling back offline (0 = no limit).",
    )
    render_zoom: float = _f(2.0, "PAPERTRAIL_RENDER_ZOOM", "Snippet scale (2.0 = 144 dpi).")
    max_image_width: int = _f(1600, "PAPERTRAIL_MAX_IMAGE_WIDTH", "Widest snippet, in pixels.")
    without: tuple[str, ...] = _f(
        (),
        "PAPERTRAIL_WITHOUT",
        "Answerers, retrieval rules or citation checks switched off, by name, comma-separated "
        "(for measuring).",
    )

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides) -> Settings:
        """Read every field from ``env`` (default ``os.environ``); unset keeps the default."""
        values = read_env(cls, os.environ if env is None else env, _parse)
        values.update(overrides)
        settings = cls(**values)
        if settings.chunk_overlap >= settings.chunk_size:
            raise PaperTrailError(
                f"PAPERTRAIL_CHUNK_OVERLAP ({settings.chunk_overlap}) must be smaller than "
                f"PAPERTRAIL_CHUNK_SIZE ({settings.chunk_size}).",
                code="config",
            )
        return settings

    def replace(self, **changes) -> Settings:
        return dataclasses.replace(self, **changes)

    @property
    def max_pdf_bytes(self) -> int:
        return int(self.max_pdf_mb * 1_000_000)

    @property
    def llm_configured(self) -> bool:
        return bool(self.groq_api_key or self.llm_base_url or self.groq_base_url)


def _parse(f: dataclasses.Field, raw: str):
    name = f.metadata["env"]
    kind = type(f.default)
    try:
        if kind is bool:
            low = raw.lower()
            if low in ("1", "true", "yes", "on"):
                return True
            if low in ("0", "false", "no", "off"):
                return False
            raise ValueError(raw)
        if kind is Path:
            return Path(raw).expanduser()
        if kind is tuple:
            return tuple(x.strip() for x in raw.split(",") if x.strip())
        value = kind(raw)
    except ValueError:
        raise PaperTrailError(
            f"{name}={raw!r} is not a valid {kind.__name__}: {f.metadata['help']}",
            code="config",
        ) from None
    if kind in (int, float):
        _check_range(f, raw, value)
    return value


def _check_range(f: dataclasses.Field, raw: str, value: float) -> None:
    low, high = RANGES.get(f.name, (0, float("inf")))
    exclusive = isinstance(value, float) and low == 0
    if value < low or value > high or (exclusive and value == low):
        lowest = f"more than {low:g}" if exclusive else f"from {low:g}"
        raise PaperTrailError(
            f"{f.metadata['env']}={raw} is out of range: use a number {lowest} to {high:g} "
            f"(default {f.default}). {f.metadata['help']}",
            code="config",
        )


def describe() -> list[tuple[str, str, str]]:
    """(env var, default, help) for every setting: for the README and ``--help``."""
    return describe_fields(Settings)
