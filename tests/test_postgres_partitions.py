"""PostgreSQL's chunks table partitioned by CIK: the layout, the plans, and the migration of an
index written before it (on the real server the session starts)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import closing
from dataclasses import replace

import numpy as np
import psycopg
import pytest
from pgvector.psycopg import register_vector
from psycopg.rows import dict_row

from edgar_rag.domain import EmbedderIdentity, ParsedFiling, Vectors
from edgar_rag.index import postgres
from edgar_rag.index.postgres import PARTITIONS, PostgresIndex

pytestmark = pytest.mark.postgres

IDENTITY = EmbedderIdentity("random-unit", 8, "L2")


def unit_vectors(count: int, seed: int) -> Vectors:
    matrix = np.random.default_rng(seed).standard_normal((count, IDENTITY.dimensions))
    unit: Vectors = (matrix / np.linalg.norm(matrix, axis=1, keepdims=True)).astype(np.float32)
    return unit


def slim(parsed: ParsedFiling, chunks: int = 30) -> ParsedFiling:
    return replace(parsed, chunks=parsed.chunks[:chunks], facts=parsed.facts[:20])


@pytest.fixture
def store(postgres_url: str) -> Iterator[PostgresIndex]:
    opened = PostgresIndex(postgres_url)
    opened.ensure_embedder(IDENTITY)
    yield opened
    opened.close()


def test_chunks_are_hash_partitioned_by_cik_with_an_hnsw_index_each(store: PostgresIndex) -> None:
    [strategy] = store.db.execute(
        "SELECT partstrat, a.attname FROM pg_partitioned_table p "
        "JOIN pg_attribute a ON a.attrelid = p.partrelid AND a.attnum = p.partattrs[0] "
        "WHERE partrelid = 'chunks'::regclass"
    ).fetchall()
    assert (strategy["partstrat"], strategy["attname"]) == ("h", "cik")
    partitions = store.db.execute(
        "SELECT inhrelid::regclass::text AS name FROM pg_inherits "
        "WHERE inhparent = 'chunks'::regclass"
    ).fetchall()
    assert len(partitions) == PARTITIONS
    assert hnsw_options(store) == [DENSER] * PARTITIONS
    assert hnsw_keys(store) == [f"(embedding::halfvec({IDENTITY.dimensions}))"] * PARTITIONS


DENSER = [f"m={postgres.HNSW_M}", f"ef_construction={postgres.HNSW_EF_CONSTRUCTION}"]


def hnsw_options(store: PostgresIndex) -> list[list[str]]:
    """The build options of each partition's HNSW index."""
    rows = store.db.execute(
        "SELECT c.reloptions FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
        "JOIN pg_am am ON am.oid = c.relam JOIN pg_inherits h ON h.inhrelid = i.indrelid "
        "WHERE h.inhparent = 'chunks'::regclass AND am.amname = 'hnsw'"
    ).fetchall()
    return [sorted(row["reloptions"] or [], reverse=True) for row in rows]


def hnsw_keys(store: PostgresIndex) -> list[str]:
    """What each partition's HNSW index is built on, as the server shows it."""
    rows = store.db.execute(
        "SELECT pg_get_indexdef(i.indexrelid, 1, true) AS key FROM pg_index i "
        "JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am am ON am.oid = c.relam "
        "JOIN pg_inherits h ON h.inhrelid = i.indrelid "
        "WHERE h.inhparent = 'chunks'::regclass AND am.amname = 'hnsw'"
    ).fetchall()
    return [row["key"] for row in rows]


def test_a_corpus_search_reads_each_partition_by_its_half_precision_index(
    store: PostgresIndex, sample_filings: dict[str, ParsedFiling]
) -> None:
    """The query's cast is the index's expression, so the planner can search by it (here made
    to: partitions this small it would otherwise read whole)."""
    parsed = slim(sample_filings["AAPL-2025"])
    store.write_filing(parsed, unit_vectors(len(parsed.chunks), 0))
    store.db.execute("SET enable_seqscan = off")
    plan = "\n".join(store.corpus_search_plan(unit_vectors(1, 9)[0], 10))
    assert len(re.findall(r"Index Scan using \w+ on chunks_\d+", plan)) == PARTITIONS, plan
    assert "Seq Scan" not in plan, plan


def test_every_key_of_chunks_holds_the_distribution_column(store: PostgresIndex) -> None:
    """What Citus asks of a distributed table: its unique keys include the distribution column,
    and its foreign keys go to a table that is not distributed (filings, a reference table)."""
    keys = store.db.execute(
        "SELECT c.relname, array(SELECT attname FROM pg_attribute a WHERE a.attrelid = "
        "i.indrelid AND a.attnum = ANY(i.indkey)) AS columns FROM pg_index i "
        "JOIN pg_class c ON c.oid = i.indexrelid "
        "WHERE i.indrelid = 'chunks'::regclass AND i.indisunique"
    ).fetchall()
    assert {row["relname"] for row in keys} == {"chunks_pkey", "chunks_by_filing"}
    assert all("cik" in row["columns"] for row in keys)
    references = store.db.execute(
        "SELECT confrelid::regclass::text AS target FROM pg_constraint "
        "WHERE conrelid = 'chunks'::regclass AND contype = 'f'"
    ).fetchall()
    assert [row["target"] for row in references] == ["filings"]
    referencing = store.db.execute(
        "SELECT conrelid::regclass::text AS source FROM pg_constraint "
        "WHERE confrelid = 'chunks'::regclass AND contype = 'f'"
    ).fetchall()
    assert referencing == []


def _plan(store: PostgresIndex, statement: str, parameters: tuple[object, ...]) -> str:
    rows = store.db.execute(f"EXPLAIN (COSTS OFF) {statement}", parameters).fetchall()
    return "\n".join(row["QUERY PLAN"] for row in rows)


def _partitions_read(plan: str) -> list[str]:
    return re.findall(r" on (chunks_\d+)\b", plan)


def test_a_scoped_search_reads_one_partition_and_a_corpus_search_all(
    store: PostgresIndex, sample_filings: dict[str, ParsedFiling]
) -> None:
    ids = {}
    for seed, key in enumerate(("AAPL-2025", "HD-2024", "WFC-2024")):
        parsed = slim(sample_filings[key])
        ids[key] = store.write_filing(parsed, unit_vectors(len(parsed.chunks), seed))
    apple, cik = ids["AAPL-2025"], sample_filings["AAPL-2025"].meta.cik
    assert cik is not None
    query = unit_vectors(1, 9)[0]
    scoped = _plan(
        store,
        "SELECT id FROM chunks WHERE filing_id = %s AND cik = %s "
        "ORDER BY cosine_distance(embedding, %s) LIMIT 5",
        (apple, cik, query),
    )
    [home] = store.db.execute(
        "SELECT DISTINCT tableoid::regclass::text AS name FROM chunks WHERE filing_id = %s",
        (apple,),
    ).fetchall()
    assert _partitions_read(scoped) == [home["name"]], scoped
    corpus = _plan(store, "SELECT id FROM chunks ORDER BY embedding <=> %s LIMIT 5", (query,))
    assert sorted(_partitions_read(corpus)) == sorted(f"chunks_{i}" for i in range(PARTITIONS))
    found = store.dense_search(query, apple, 5)
    assert len(found) == 5
    assert {p.filing_id for p in store.passages([i for i, _ in found]).values()} == {apple}


def test_a_corpus_search_over_several_connections_finds_the_exact_nearest(
    postgres_url: str, sample_filings: dict[str, ParsedFiling]
) -> None:
    """Each connection searches its share of the partitions; the merged hits are those one
    connection finds, and (the partitions this small are read whole) the exact nearest."""
    one = PostgresIndex(postgres_url, search_connections=1)
    with closing(one), closing(PostgresIndex(postgres_url, search_connections=3)) as three:
        one.ensure_embedder(IDENTITY)
        for seed, key in enumerate(("AAPL-2025", "HD-2024", "WFC-2024")):
            parsed = slim(sample_filings[key])
            one.write_filing(parsed, unit_vectors(len(parsed.chunks), seed))
        ids = [int(row["id"]) for row in one.db.execute("SELECT id FROM chunks").fetchall()]
        query = unit_vectors(1, 9)[0]
        cosines = one.vectors(ids) @ query
        exact = [ids[i] for i in np.argsort(-cosines, kind="stable")[:10]]
        found = three.dense_search(query, None, 10)
        assert found == one.dense_search(query, None, 10)
        assert [chunk_id for chunk_id, _ in found] == exact
        assert len(three.server_pids()) == 3


def test_a_filing_without_a_cik_files_its_chunks_under_zero(
    store: PostgresIndex, sample_filings: dict[str, ParsedFiling]
) -> None:
    parsed = slim(sample_filings["3M Company-2018"])
    assert parsed.meta.cik is None
    filing_id = store.write_filing(parsed, unit_vectors(len(parsed.chunks), 1))
    rows = store.db.execute("SELECT DISTINCT cik FROM chunks").fetchall()
    assert [row["cik"] for row in rows] == [0]
    assert len(store.dense_search(unit_vectors(1, 2)[0], filing_id, 4)) == 4
    [summary] = store.filings()
    assert summary.chunks == len(parsed.chunks)


def test_an_index_written_before_the_partitions_migrates_with_its_rows_and_ids(
    postgres_url: str, sample_filings: dict[str, ParsedFiling]
) -> None:
    """The layout of m001 and m002, filled as the store wrote it then, opened by this code."""
    with psycopg.connect(postgres_url, autocommit=True, row_factory=dict_row) as db:
        db.execute("CREATE TABLE migrations (name TEXT PRIMARY KEY, at TIMESTAMPTZ)")
        for name, script in postgres.MIGRATIONS[:2]:
            db.execute(script)
            db.execute("INSERT INTO migrations VALUES (%s, now())", (name,))
        register_vector(db)
        db.execute("ALTER TABLE chunks ALTER COLUMN embedding TYPE vector(8)")
        db.execute(
            "CREATE INDEX chunks_by_embedding ON chunks USING hnsw (embedding vector_cosine_ops)"
        )
        db.execute(
            "INSERT INTO meta VALUES ('embedder_model', %s), ('embedder_dimensions', %s), "
            "('embedder_normalisation', %s)",
            (IDENTITY.model, str(IDENTITY.dimensions), IDENTITY.normalisation),
        )
        expected = {}
        for seed, key in enumerate(("AAPL-2025", "3M Company-2018")):
            parsed = slim(sample_filings[key], 12)
            row = db.execute(
                "INSERT INTO filings (sha256, company, cik, form, fiscal_year, years_reported, "
                "source, source_format, text) VALUES (%s, %s, %s, '10-K', %s, '[]', 'x', 'html', "
                "%s) RETURNING id",
                (parsed.meta.sha256, parsed.meta.company, parsed.meta.cik,
                 parsed.meta.fiscal_year, parsed.text),
            ).fetchone()  # fmt: skip
            assert row is not None
            for chunk, vector in zip(parsed.chunks, unit_vectors(12, seed), strict=True):
                inserted = db.execute(
                    "INSERT INTO chunks (filing_id, ordinal, item, title, start, \"end\", kind, "
                    "text, embedding) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s) RETURNING id",
                    (row["id"], chunk.ordinal, chunk.item, chunk.title, chunk.start, chunk.end,
                     chunk.kind.value, chunk.text, vector),
                ).fetchone()  # fmt: skip
                assert inserted is not None
                expected[int(inserted["id"])] = (row["id"], parsed.meta.cik or 0, chunk.text)
    store = PostgresIndex(postgres_url)
    try:
        rows = store.db.execute("SELECT id, filing_id, cik, text FROM chunks").fetchall()
        assert {r["id"]: (r["filing_id"], r["cik"], r["text"]) for r in rows} == expected
        names = {
            row["relname"]
            for row in store.db.execute(
                "SELECT c.relname FROM pg_class c WHERE c.relname LIKE 'chunks%%'"
            ).fetchall()
        }
        assert "chunks_whole" not in names
        assert "chunks_by_embedding" in names
        assert hnsw_options(store) == [DENSER] * PARTITIONS  # m005 built it again, denser
        assert hnsw_keys(store) == [f"(embedding::halfvec({IDENTITY.dimensions}))"] * PARTITIONS
        store.ensure_embedder(IDENTITY)
        parsed = slim(sample_filings["HD-2024"], 5)
        new_id = store.write_filing(parsed, unit_vectors(5, 7))
        new_chunks = store.db.execute(
            "SELECT id FROM chunks WHERE filing_id = %s", (new_id,)
        ).fetchall()
        assert min(row["id"] for row in new_chunks) > max(expected)
        apple_id = next(f for f, c, _ in expected.values() if c != 0)
        assert len(store.dense_search(unit_vectors(1, 3)[0], apple_id, 20)) == 12
        assert len(store.dense_search(unit_vectors(1, 3)[0], None, 40)) == 29
    finally:
        store.close()
