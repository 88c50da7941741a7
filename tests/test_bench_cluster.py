"""The engine comparison's page and its size count (the measurements themselves need Dask or
Ray: ``make bench-cluster``, ``python -m edgar_rag_dev.bench.engines``)."""

from __future__ import annotations

from edgar_rag_dev.bench.cluster import render
from edgar_rag_dev.bench.engines import installed_bytes


def test_installed_bytes_count_a_distribution_and_what_it_requires() -> None:
    alone = installed_bytes("annotated-types")
    assert alone > 0
    assert installed_bytes("pydantic") > installed_bytes("pydantic-core") + alone


def test_the_page_shows_each_engine_and_the_engine_against_plain_ratio() -> None:
    killed = [{"retried": True, "seconds_to_result": 0.1}, {"retried": False, "error": "E"}]
    engine = {
        "version": "1.0",
        "installed_mib": 38.9,
        "import_s": 0.4,
        "local_cluster_start_s": 0.82,
        "killed_task": killed,
        "repeats": 2,
    }
    row = {"embedder": "hashing", "filings": 4, "chunks": 1502, "plain_s": 2.0, "engine_s": 2.2}

    page = render({"engines": {"dask": engine}, "ingest": [row]})

    assert "| dask | 1.0 | 38.9 | 0.40 | 0.82 | 1 of 2 |" in page
    assert "| hashing | 4 | 1502 | 2.0 | 2.2 | 1.10 | 7,200 | 6,545 |" in page
    assert "Medians of 2 runs" in page
