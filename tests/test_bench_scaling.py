"""docs/scaling.md: the projection for a year of EDGAR is computed from the benches' figures."""

from __future__ import annotations

import re
from typing import Any

from edgar_rag_dev.bench.report import (
    EDGAR_10K_PER_YEAR,
    QUERY_MEMORY_MIB,
    _scale_figures,
    render_scaling,
)


def _stage(chunks: int) -> dict[str, float]:
    return {
        "parse_s": 0.1, "chunk_s": 0.0, "embed_s": 9.7, "store_sqlite_s": 0.1,
        "store_postgres_s": 0.1, "chunks": chunks, "bytes": 1,
    }  # fmt: skip


PERFORMANCE = {
    "stages": [_stage(500), _stage(500)],
    "memory": {"sqlite_bytes_per_chunk": 4096.0},
    "corpus_counts": {"chunks": 6000, "filings": 10},
}
CLUSTER = {
    "ingest": [
        {"embedder": "hashing", "filings": 4, "chunks": 1000, "plain_s": 1.0, "engine_s": 2.0,
         "workers": 2},
        {"embedder": "minilm-onnx", "filings": 4, "chunks": 1800, "plain_s": 30.0,
         "engine_s": 36.0, "workers": 2},
    ]
}  # fmt: skip
SCALE: dict[str, Any] = {
    "chunks": 1_000_000,
    "graph_parameters": {"expansion_search": 4096},
    "stores": {
        "graph, expansion 4096": {
            "p50_ms": 8.0, "p95_ms": 12.0, "recall_at_10": 0.97, "query_rss_mib": 1024.0,
            "disk_mib": 900.0, "build_s": 500.0,
        }
    },
}  # fmt: skip


def test_a_year_through_the_engine_is_projected_from_its_default_embedders_rate() -> None:
    page = render_scaling(PERFORMANCE, CLUSTER, SCALE)
    per_hour = 1800 / 36.0 * 3600 / 600  # chunks/s through the engine, 600 chunks a filing
    assert f"so {per_hour:,.0f} filings an hour a machine" in page
    assert f"| 4 | {4 * per_hour:,.0f} | {EDGAR_10K_PER_YEAR / (4 * per_hour):,.1f} |" in page
    assert "97% of one filing's ingest" in page  # 9.7 of 10.0 seconds


def test_what_breaks_first_is_the_query_memory_of_a_years_graph() -> None:
    page = render_scaling(PERFORMANCE, CLUSTER, SCALE)
    year_chunks = EDGAR_10K_PER_YEAR * 600
    assert f"about {1024.0 * year_chunks / 1e6:,.0f} MiB for a year's graph" in page
    held = 1_000_000 * QUERY_MEMORY_MIB / 1024.0 / 1e6
    assert f"one process holds at most about {held:.1f} million chunks" in page


def test_without_the_engine_and_scale_benches_the_page_says_what_is_missing() -> None:
    page = render_scaling(PERFORMANCE)
    assert "not measured yet (`make bench-cluster`)" in page
    assert "What breaks first" not in page
    assert not re.search(r"machine-hours", page)


def _pg(p50: float, recall: float, *, uses_hnsw: bool = True) -> dict[str, object]:
    return {
        "p50_ms": p50, "recall_at_10": recall, "disk_mib": 1900.0, "build_s": 200.0,
        "plan_uses_hnsw": uses_hnsw, "query_rss_mib": 900.0,
    }  # fmt: skip


def test_postgres_is_reported_at_the_stores_own_list_and_the_first_that_reaches_the_recall() -> (
    None
):
    stores = {
        "postgres, ef_search 100": _pg(15.0, 0.74),
        "postgres, ef_search 400": _pg(500.0, 0.99, uses_hnsw=False),  # a scan is no HNSW arm
        "postgres, ef_search 1000": _pg(99.0, 0.96),
        "postgres, ef_search 100, 1 connection": _pg(30.0, 0.74),  # not a row of the list
    }
    scale = SCALE | {
        "stores": SCALE["stores"] | stores,
        "postgres_parameters": {
            "partitions": 8,
            "ef_search": 100,
            "ef_searches_measured": [100, 400, 1000],
            "search_connections": 2,
        },
    }
    page = render_scaling(PERFORMANCE, CLUSTER, scale)
    assert "an HNSW index each, searched over 2 connections at once" in page
    assert "at the store's own ef_search (100) P50 15.0 ms with recall@10 0.740" in page
    assert "recall@10 reaches 0.95 first at ef_search 1000, P50 99.0 ms." in page
    assert "the same list takes P50 30.0 ms (2.0x)." in page
    assert "Its query processes' memory" not in page  # 900 MiB: within what is allowed
    heavy = scale["stores"] | {
        "postgres, ef_search 100": _pg(15.0, 0.74) | {"query_rss_mib": 4000.0}
    }
    assert "searched) is 4,000 MiB as measured (each process" in render_scaling(
        PERFORMANCE, CLUSTER, scale | {"stores": heavy}
    )
    bounded = heavy | {
        "postgres, ef_search 100": heavy["postgres, ef_search 100"] | {"query_pss_mib": 2500.0}
    }
    assert "between 2,500 MiB (proportional set size" in render_scaling(
        PERFORMANCE, CLUSTER, scale | {"stores": bounded}
    )
    assert "4,000 MiB (peak RSS: counted by each process): over the 2,048 MiB" in render_scaling(
        PERFORMANCE, CLUSTER, scale | {"stores": bounded}
    )
    short = scale | {"stores": SCALE["stores"] | {"postgres, ef_search 100": _pg(15.0, 0.74)}}
    assert "no ef_search measured reaches recall@10 0.95 (at 100: 0.740" in render_scaling(
        PERFORMANCE, CLUSTER, short
    )
    assert "PostgreSQL at the same" not in render_scaling(PERFORMANCE, CLUSTER, SCALE)


def test_the_readme_gives_each_stores_corpus_search_at_its_own_setting() -> None:
    scale = SCALE | {
        "stores": SCALE["stores"]
        | {"postgres, ef_search 600": _pg(23.3, 0.96), "postgres, ef_search 100": _pg(9.0, 0.8)},
        "postgres_parameters": {"partitions": 8, "ef_search": 600, "search_connections": 2},
    }
    [(measured, figure, page)] = _scale_figures(scale)
    assert measured.endswith("SQLite's graph; PostgreSQL (8 CIK partitions over 2 connections)")
    assert figure == "8.0 ms, 0.970; 23.3 ms, 0.960"
    assert page == "[scale](docs/scale.md)"
    [(_, graph_only, _)] = _scale_figures(SCALE)
    assert graph_only == "8.0 ms, 0.970"
