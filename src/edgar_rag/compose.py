"""Settings in, adapters out: the one place that picks implementations."""

from __future__ import annotations

from pathlib import Path

import httpx

from edgar_rag.config import EmbedderName, Settings
from edgar_rag.domain import Embedder
from edgar_rag.index.embedders import HashingEmbedder, MiniLMEmbedder, OnnxMiniLMEmbedder
from edgar_rag.index.sqlite import SqliteIndex
from edgar_rag.ingest.edgar import EdgarClient
from edgar_rag.retrieve.search import Searcher


def build_embedder(name: EmbedderName, cache_dir: Path) -> Embedder:
    if name == "hashing":
        return HashingEmbedder()
    if name == "minilm":
        return MiniLMEmbedder()
    return OnnxMiniLMEmbedder(cache_dir / "embedders")


def open_index(settings: Settings) -> SqliteIndex:
    return SqliteIndex(settings.db)


def build_searcher(settings: Settings, index: SqliteIndex) -> Searcher:
    """A searcher whose query embedder is the one that built the index."""
    embedder = build_embedder(settings.embedder, settings.model_dir)
    recorded = index.embedder_identity()
    if recorded is not None and recorded != embedder.identity:
        index.ensure_embedder(embedder.identity)
    return Searcher(index, embedder)


def build_edgar_client(settings: Settings) -> EdgarClient:
    return EdgarClient(
        http=httpx.Client(follow_redirects=True),
        contact=settings.sec_contact,
        cache_dir=settings.model_dir,
    )
