"""The SQLite index: one transaction per filing, idempotent re-ingest, the embedder's identity."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from edgar_rag.domain import Chunk, EmbedderIdentity, ParsedFiling
from edgar_rag.errors import IndexMismatchError, NotFoundError
from edgar_rag.index.embedders import HashingEmbedder
from edgar_rag.index.sqlite import SqliteIndex
from edgar_rag.ingest.indexer import Outcome, index_filings
from edgar_rag.ingest.local import find_local_filings


@pytest.fixture
def index(tmp_path: Path) -> SqliteIndex:
    return SqliteIndex(tmp_path / "index.db")


def test_the_sample_indexes_with_every_row_in_place(index: SqliteIndex, sample_dir: Path) -> None:
    results = list(index_filings(find_local_filings([sample_dir]), index, HashingEmbedder()))
    assert [r.outcome for r in results] == [Outcome.INDEXED] * 5
    summaries = {(s.ticker or s.company, s.fiscal_year): s for s in index.filings()}
    apple = summaries[("AAPL", 2025)]
    assert apple.items == 23
    assert apple.facts > 900
    assert apple.years_reported == (2023, 2024, 2025)
    assert index.counts()["chunks"] == sum(r.chunks for r in results)


def test_reingesting_an_unchanged_filing_is_a_no_op(index: SqliteIndex, sample_dir: Path) -> None:
    sources = find_local_filings([sample_dir])
    list(index_filings(sources, index, HashingEmbedder()))
    before = index.counts()
    again = list(index_filings(sources, index, HashingEmbedder()))
    assert {r.outcome for r in again} == {Outcome.UNCHANGED}
    assert all(r.meta is not None for r in again)
    assert index.counts() == before


def test_a_failed_write_leaves_no_half_filing(index: SqliteIndex, apple_2025: ParsedFiling) -> None:
    broken_chunk = replace(apple_2025.chunks[-1], title=None)  # type: ignore[arg-type]
    broken = replace(apple_2025, chunks=(*apple_2025.chunks[:-1], broken_chunk))
    vectors = np.zeros((len(broken.chunks), 8), dtype=np.float32)
    index.ensure_embedder(EmbedderIdentity("zeros", 8, "none"))
    with pytest.raises(Exception, match="NOT NULL"):
        index.write_filing(broken, vectors)
    assert index.counts() == {"filings": 0, "sections": 0, "chunks": 0, "facts": 0}


def test_a_new_version_of_a_filing_replaces_the_old_one(
    index: SqliteIndex, apple_2025: ParsedFiling
) -> None:
    index.ensure_embedder(EmbedderIdentity("zeros", 8, "none"))
    vectors = np.zeros((len(apple_2025.chunks), 8), dtype=np.float32)
    index.write_filing(apple_2025, vectors)
    newer = replace(apple_2025, meta=replace(apple_2025.meta, sha256="0" * 64))
    index.write_filing(newer, vectors)
    assert [s.fiscal_year for s in index.filings()] == [2025]
    assert index.counts()["chunks"] == len(apple_2025.chunks)


def test_an_index_built_by_another_embedder_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "index.db"
    SqliteIndex(path).ensure_embedder(HashingEmbedder().identity)
    reopened = SqliteIndex(path)
    other = EmbedderIdentity("sentence-transformers/all-MiniLM-L6-v2", 384, "nfkc, L2")
    with pytest.raises(IndexMismatchError, match="was built by hashing"):
        reopened.ensure_embedder(other)


def test_scope_errors_name_the_ticker_and_list_the_indexed_years(
    index: SqliteIndex, sample_dir: Path
) -> None:
    list(index_filings(find_local_filings([sample_dir]), index, HashingEmbedder()))
    with pytest.raises(NotFoundError, match="ticker ZZZZ is not indexed"):
        index.resolve_scope(ticker="zzzz")
    with pytest.raises(NotFoundError, match="fiscal year 2019; indexed years: 2024, 2025"):
        index.resolve_scope(ticker="AAPL", fiscal_year=2019)
    latest = index.resolve_scope(ticker="aapl")
    assert latest.filing is not None
    assert latest.filing.fiscal_year == 2025
    assert index.resolve_scope(cik=320193, fiscal_year=2024).filing is not None
    assert index.resolve_scope().corpus_wide


def test_passages_round_trip_their_chunk_and_filing(
    index: SqliteIndex, apple_2025: ParsedFiling
) -> None:
    index.ensure_embedder(EmbedderIdentity("zeros", 8, "none"))
    vectors = np.eye(len(apple_2025.chunks), 8, dtype=np.float32)
    filing_id = index.write_filing(apple_2025, vectors)
    ids = [chunk_id for chunk_id, _ in index.dense_search(vectors[3], filing_id, 1)]
    passage = index.passages(ids)[ids[0]]
    assert passage.chunk == apple_2025.chunks[3]
    assert passage.filing == apple_2025.meta
    assert isinstance(passage.chunk, Chunk)
    np.testing.assert_array_equal(index.vectors(ids)[0], vectors[3])


def test_a_stored_filing_exports_exactly_as_it_was_written(
    index: SqliteIndex, apple_2025: ParsedFiling
) -> None:
    index.ensure_embedder(EmbedderIdentity("zeros", 8, "none"))
    vectors = np.random.default_rng(0).random((len(apple_2025.chunks), 8), dtype=np.float32)
    filing_id = index.write_filing(apple_2025, vectors)
    exported, exported_vectors = index.export_filing(filing_id)
    assert exported.meta == apple_2025.meta
    assert exported.sections == apple_2025.sections
    assert exported.chunks == apple_2025.chunks
    assert sorted(exported.facts, key=repr) == sorted(apple_2025.facts, key=repr)
    assert exported.text == apple_2025.text
    np.testing.assert_array_equal(exported_vectors, vectors)
