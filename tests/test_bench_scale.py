"""The scale benchmark's synthetic index: replicated chunks under made-up CIKs, no two vectors
equal, and an exact scan that agrees with comparing every vector."""

from __future__ import annotations

import subprocess
from contextlib import closing
from pathlib import Path
from typing import Any

import numpy as np
import psycopg
import pytest

from edgar_rag.index.embedders import HashingEmbedder
from edgar_rag.index.sqlite import SqliteIndex
from edgar_rag.ingest.indexer import index_filings
from edgar_rag.ingest.local import find_local_filings
from edgar_rag_dev.bench.postgres_server import running_postgres
from edgar_rag_dev.bench.scale import (
    PG_SEARCHES,
    ScaleSettings,
    _in_own_process,
    exact_top,
    render,
    write_synthetic,
)


def test_the_synthetic_index_replicates_the_chunks_with_noise_under_made_up_ciks(
    tmp_path: Path, sample_dir: Path
) -> None:
    source = tmp_path / "source.db"
    with closing(SqliteIndex(source)) as index:
        list(index_filings(find_local_filings([sample_dir]), index, HashingEmbedder()))
        real_chunks = index.counts()["chunks"]
    target = tmp_path / "synthetic.db"
    write_synthetic(source, target, ScaleSettings(chunks=2 * real_chunks + 7))
    with closing(SqliteIndex(target)) as index:
        assert index.counts()["chunks"] == 2 * real_chunks + 7
        ciks = [int(row[0]) for row in index.db.execute("SELECT cik FROM filings")]
        assert min(ciks) >= 9_000_000_000  # no real CIK has ten digits
        assert {(cik - 9_000_000_000) // 10_000_000 for cik in ciks} == {0, 1, 2}  # the copies
        rows = index.db.execute("SELECT id, vector FROM chunks").fetchall()
    vectors = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), -1)
    assert len({v.tobytes() for v in vectors}) == len(rows)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1, atol=1e-5)
    queries = HashingEmbedder().embed(["net sales", "research and development", "risk factors"])
    ids = np.array([r[0] for r in rows])
    expected = [[int(i) for i in ids[np.argsort(-(vectors @ q))[:10]]] for q in queries]
    assert exact_top(target, queries, 10) == expected


STORE = {
    "p50_ms": 3.2,
    "p95_ms": 5.1,
    "recall_at_10": 0.987,
    "query_rss_mib": 900.0,
    "query_s": 4.2,
    "build_s": 600.0,
    "build_rss_mib": 1200.0,
    "disk_mib": 900.0,
}


def _report(stores: dict[str, Any]) -> dict[str, Any]:
    return {
        "settings": {"noise": 0.01, "query_every": 4},
        "source_chunks": 14297,
        "chunks": 1_000_000,
        "queries": 220,
        "tables_s": 300.0,
        "sqlite_mib": 4000.0,
        "exact_scan_s_per_query": 0.05,
        "graph_parameters": {
            "connectivity": 16,
            "expansion_add": 128,
            "expansion_search": 1024,
            "oversample": 2,
        },
        "stores": stores,
    }


def test_the_page_renders_each_store_measured() -> None:
    page = render(
        _report({"graph, expansion 1024": STORE, "sqlite-vec": STORE | {"recall_at_10": 1.0}})
    )
    assert "| graph, expansion 1024 | 3.20 | 5.10 | 0.987 | 900 |" in page
    assert "| sqlite-vec | 3.20 | 5.10 | 1.000 |" in page
    assert "1,000,000 chunks" in page
    assert "keeps the graph: at its default expansion (1024)" in page


def test_the_page_says_how_postgres_searched() -> None:
    searched = STORE | {"shared_buffers": "3GB", "plan_uses_hnsw": True}
    report = _report(
        {
            "postgres, ef_search 600": searched,
            "postgres, ef_search 1000": searched | {"plan_uses_hnsw": False, "hnsw_partitions": 3},
        }
    ) | {
        "postgres_parameters": {
            "partitions": 8,
            "ef_search": 600,
            "search_connections": 2,
            "m": 24,
            "ef_construction": 128,
            "maintenance_work_mem": "2GB",
        }
    }
    page = render(report)
    assert "(shared_buffers 3GB, which holds the indexes)" in page
    assert "over 2 connections that search at once" in page
    assert "| postgres, ef_search 600 | 3.20 |" in page
    assert "| postgres, ef_search 1000 (HNSW in 3 partitions, the others read whole) |" in page


def test_the_postgres_store_is_loaded_with_the_sqlite_ids_and_searched_through_hnsw(
    tmp_path: Path, sample_dir: Path, postgres_url: str
) -> None:
    """The bench's PostgreSQL row, end to end on a small synthetic index: the rows copied in
    keep their SQLite ids, HNSW finds the exact top 10, and a database with filings is refused."""
    source = tmp_path / "source.db"
    with closing(SqliteIndex(source)) as index:
        list(index_filings(find_local_filings([sample_dir]), index, HashingEmbedder()))
    db = tmp_path / "synthetic.db"
    write_synthetic(source, db, ScaleSettings(chunks=50_000))
    queries = HashingEmbedder().embed(["net sales", "research and development", "risk factors"])
    np.save(tmp_path / "queries.npy", queries)
    runs = _in_own_process("postgres", db, tmp_path, postgres_url)
    assert [(run["ef_search"], run["connections"]) for run in runs] == list(PG_SEARCHES)
    exact = exact_top(db, queries, 10)
    for run in runs:
        assert run["disk_mib"] > 0
        assert run["build_s"] > 0
        assert run["query_rss_mib"] > 0
        found = run["top"]
        assert (
            np.mean([len(set(f) & set(e)) / 10 for f, e in zip(found, exact, strict=True)]) >= 0.9
        )
    # at the smallest list, HNSW in some partitions (at 50,000 chunks, larger lists read them whole)
    assert runs[0]["hnsw_partitions"] > 0
    with pytest.raises(subprocess.CalledProcessError):  # the second load finds filings there
        _in_own_process("postgres", db, tmp_path, postgres_url)


@pytest.mark.postgres
def test_a_local_server_starts_with_the_settings_it_is_given(tmp_path: Path) -> None:
    """shared_buffers is read only at start: the bench's server is started again with it."""
    with running_postgres(tmp_path, {"shared_buffers": "48MB"}) as url, psycopg.connect(url) as db:
        row = db.execute("SHOW shared_buffers").fetchone()
    assert row == ("48MB",)
