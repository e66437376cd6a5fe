# One image for every PaperTrail process (compose.yaml): the Slack and Discord bots,
# the console, and the Chroma server (`chroma run` from the same chromadb, so client
# and server are one version). CPU only: torch comes from PyTorch's CPU index.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    HF_HUB_OFFLINE=1 \
    ORT_DISABLE_TELEMETRY=1 \
    ANONYMIZED_TELEMETRY=False \
    PAPERTRAIL_MODEL_CACHE=/opt/papertrail/model-cache \
    PAPERTRAIL_DATA_DIR=/data

WORKDIR /app

# Dependencies first (a layer that survives code changes): the exact versions of
# requirements-runtime.lock (requirements.lock without the test tools), torch from
# the CPU index (the same pin as the Makefile's).
COPY requirements-runtime.lock ./
RUN pip install --no-deps --index-url https://download.pytorch.org/whl/cpu torch==2.13.0 \
 && pip install -r requirements-runtime.lock

COPY pyproject.toml README.md LICENSE ./
COPY papertrail ./papertrail
COPY adapters ./adapters
COPY bot ./bot
# The embedding model ships in a wheel; its ONNX export is made here, once, so no
# container spends ~7 s (and torch's memory) on it at start.
RUN pip install --no-deps . \
 && papertrail export-model \
 && useradd --system --home-dir /data papertrail \
 && mkdir -p /data \
 && chown papertrail /data

USER papertrail
VOLUME /data
EXPOSE 3000
CMD ["python", "-m", "bot", "slack"]
