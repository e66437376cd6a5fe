"""bot.wiring: the service is built around the given pipeline and starts its model loading."""

from __future__ import annotations

import logging
import time

from bot.config import load_config
from bot.wiring import build_service, close_service, describe_service
from papertrail.pipeline import PaperTrail
from papertrail.settings import Settings
from papertrail.store.chroma import ChromaStore
from tests import pdfs
from tests.fakes import WarmingEmbedder


def test_build_service_starts_loading_the_model_in_the_background(tmp_path):
    embedder = WarmingEmbedder()
    settings = Settings(data_dir=tmp_path)
    pipeline = PaperTrail(settings, embedder=embedder, store=ChromaStore.ephemeral(model="h"))
    cfg = load_config({"PAPERTRAIL_DATA_DIR": str(tmp_path)}, dotenv_path=None)
    service = build_service(cfg, pipeline)
    try:
        deadline = time.monotonic() + 5
        while not embedder.warmed and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(embedder.warmed) == 1 and service.pipeline is pipeline
    finally:
        close_service(service)


def test_describe_service_names_the_offline_mode_without_a_key(tmp_path):
    cfg = load_config({"PAPERTRAIL_DATA_DIR": str(tmp_path)}, dotenv_path=None)
    assert "offline extractive answers" in describe_service(cfg)


class ChattyGenerator:
    """An LLM generator's shape: the ``ChatModel`` seam, ``complete`` answers text."""

    mode = "chatty"

    def __init__(self) -> None:
        self.calls = []

    def complete(self, messages):
        self.calls.append(messages)
        return "How many layers does the decoder have?"


def test_follow_ups_are_condensed_by_the_answering_llm_and_offline_without_one(tmp_path):
    cfg = load_config({"PAPERTRAIL_DATA_DIR": str(tmp_path)}, dotenv_path=None)
    store = ChromaStore.ephemeral(model="h")
    llm = ChattyGenerator()
    pipeline = PaperTrail(cfg.settings, embedder=WarmingEmbedder(), store=store, generator=llm)
    service = build_service(cfg, pipeline)
    try:
        assert service.complete([{"role": "user", "content": "x"}]) == (
            "How many layers does the decoder have?"
        )
        assert llm.calls
    finally:
        close_service(service)
    offline = PaperTrail(cfg.settings, embedder=WarmingEmbedder(), store=store)
    service = build_service(cfg, offline)
    try:
        assert service.complete is None  # the extractive generator: offline rewrites
    finally:
        close_service(service)


class ClosingPipeline(PaperTrail):
    closed = 0

    def close(self) -> None:
        self.closed += 1


def test_close_service_closes_the_pipeline(tmp_path):
    cfg = load_config({"PAPERTRAIL_DATA_DIR": str(tmp_path)}, dotenv_path=None)
    embedder = WarmingEmbedder()
    pipeline = ClosingPipeline(
        cfg.settings, embedder=embedder, store=ChromaStore.ephemeral(model="h")
    )
    close_service(build_service(cfg, pipeline))
    assert pipeline.closed == 1


def test_build_service_carries_the_libraries_over_in_the_background(tmp_path, caplog):
    from tests.papertrail.pipeline.test_carrying import opened

    opened(tmp_path, contextual=False).ingest("c1", "paper.pdf", pdfs.paper_pdf())
    pipeline = opened(tmp_path, contextual=True)  # PAPERTRAIL_CONTEXTUAL turned on
    cfg = load_config({"PAPERTRAIL_DATA_DIR": str(tmp_path)}, dotenv_path=None)
    with caplog.at_level(logging.INFO, logger="papertrail.pipeline.carrying"):
        service = build_service(cfg, pipeline)
        try:
            deadline = time.monotonic() + 60
            while not pipeline.documents("c1") and time.monotonic() < deadline:
                time.sleep(0.05)
            assert [d.name for d in pipeline.documents("c1")] == ["paper.pdf"]
        finally:
            close_service(service)
        deadline = time.monotonic() + 5  # the log line follows the document's commit
        while "carried 1 document" not in caplog.text and time.monotonic() < deadline:
            time.sleep(0.01)
    assert "carried 1 document of 1 channel over to the new index" in caplog.text
