"""The standard "chat with your PDF" retrieval, to print beside ours.

Page text -> LangChain's RecursiveCharacterTextSplitter(800, 100) ->
all-MiniLM-L6-v2 -> top-k by cosine. Exactly what the seed's comparison ran,
except that the vector search is exact (numpy) where Chroma's HNSW is
approximate, which can only help the baseline. Needs the optional
``langchain-text-splitters`` package (``pip install -e '.[eval]'``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pymupdf

from papertrail.measure.channels import pdfs_of
from papertrail.measure.metrics import DEPTH, retrieval_record, summarise
from papertrail.protocols import Embedder


@dataclass(frozen=True)
class BaselineChunk:
    doc_name: str
    page: int  # 1-based
    text: str


def available() -> bool:
    try:
        import langchain_text_splitters  # noqa: F401
    except ImportError:
        return False
    return True


def split_pdf(path: Path, size: int = 800, overlap: int = 100) -> list[BaselineChunk]:
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    splitter = RecursiveCharacterTextSplitter(chunk_size=size, chunk_overlap=overlap)
    out = []
    with pymupdf.open(path) as doc:
        for i, page in enumerate(doc, 1):
            for text in splitter.split_text(page.get_text()):
                if text.strip():
                    out.append(BaselineChunk(path.name, i, text))
    return out


class BaselineIndex:
    """Exact cosine search over baseline chunks of one or more PDFs."""

    def __init__(self, paths: list[Path], embedder: Embedder) -> None:
        self.embedder = embedder
        self.chunks = [c for p in paths for c in split_pdf(p)]
        self.vectors = np.asarray(embedder.embed([c.text for c in self.chunks]), dtype=np.float32)

    @classmethod
    def of(cls, chunks: list[BaselineChunk], vectors, embedder: Embedder) -> BaselineIndex:
        """An index of chunks already split and embedded (the bench times each step)."""
        index = cls.__new__(cls)
        index.embedder, index.chunks = embedder, chunks
        index.vectors = np.asarray(vectors, dtype=np.float32)
        return index

    def search(self, question: str, k: int = 10) -> list[BaselineChunk]:
        if not self.chunks:
            return []
        q = np.asarray(self.embedder.embed([question]), dtype=np.float32)[0]
        scores = self.vectors @ q
        top = np.argsort(-scores)[:k]
        return [self.chunks[i] for i in top]


def scored(items, embedder: Embedder) -> dict:
    """The baseline's metrics on ``items`` (``evaluate.Item``s), each document (or
    folder, as one channel) indexed the baseline's way."""
    records = []
    for doc in sorted({i.doc for i in items}):
        index = BaselineIndex(pdfs_of(doc), embedder)
        for item in (i for i in items if i.doc == doc):
            ranked = [(c.doc_name, c.page) for c in index.search(item.question, DEPTH)]
            records.append(
                {
                    "scored": bool(item.evidence_pages),
                    "doc_scored": item.answerable and bool(item.gold_docs),
                    **retrieval_record(item, ranked),
                }
            )
    return summarise(records, any(i.doc.is_dir() for i in items))
