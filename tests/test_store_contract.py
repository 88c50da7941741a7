"""One contract for every store: SQLite in a temporary file, and PostgreSQL + pgvector on a real
server that this session starts itself (``EDGAR_RAG_TEST_DATABASE_URL`` names an existing one).

Vectors are random unit vectors, seeded by filing: what is tested is storage and search, not
meaning.
"""

from __future__ import annotations

import re
import sqlite3
import uuid
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import date
from pathlib import Path

import numpy as np
import psycopg
import pytest
from psycopg import sql

from edgar_rag.domain import (
    EmbedderIdentity,
    Fact,
    FigureSource,
    FilingStore,
    ParsedFiling,
    Scope,
    StatementFound,
    Vectors,
)
from edgar_rag.errors import IndexMismatchError, NotFoundError, SourceError
from edgar_rag.index import postgres, sqlite
from edgar_rag.index.postgres import PostgresIndex
from edgar_rag.index.sqlite import SqliteIndex

Store = SqliteIndex | PostgresIndex
Opener = Callable[[], Store]

IDENTITY = EmbedderIdentity("random-unit", 384, "L2")


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def open_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Opener]:
    """Opens the same store again on each call; every handle is closed after the test."""
    target = (
        str(tmp_path / "index.db")
        if request.param == "sqlite"
        else str(request.getfixturevalue("postgres_url"))
    )
    opened: list[Store] = []

    def open_again() -> Store:
        store = SqliteIndex(target) if request.param == "sqlite" else PostgresIndex(target)
        opened.append(store)
        return store

    yield open_again
    for store in opened:
        store.close()


@pytest.fixture
def store(open_store: Opener) -> FilingStore:
    """A store seen only through the port the rest of the package uses."""
    opened = open_store()
    opened.ensure_embedder(IDENTITY)
    return opened


def unit_vectors(parsed: ParsedFiling) -> Vectors:
    rng = np.random.default_rng(int(parsed.meta.sha256[:16], 16))
    matrix = rng.standard_normal((len(parsed.chunks), IDENTITY.dimensions)).astype(np.float32)
    unit: Vectors = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
    return unit


def write(store: FilingStore, parsed: ParsedFiling) -> int:
    return store.write_filing(parsed, unit_vectors(parsed))


def slim(parsed: ParsedFiling, chunks: int = 40) -> ParsedFiling:
    """The filing with its first chunks only: HNSW upkeep makes each chunk cost ~1 ms to write."""
    return replace(parsed, chunks=parsed.chunks[:chunks], facts=parsed.facts[:50])


def migration_names(store: Store) -> list[str]:
    return [str(row["name"]) for row in store.db.execute("SELECT name FROM migrations").fetchall()]


def test_opening_twice_runs_each_migration_once(
    open_store: Opener, sample_filings: dict[str, ParsedFiling]
) -> None:
    first = open_store()
    first.ensure_embedder(IDENTITY)
    write(first, slim(sample_filings["AAPL-2025"]))
    second = open_store()
    migrations = postgres.MIGRATIONS if isinstance(second, PostgresIndex) else sqlite.MIGRATIONS
    assert sorted(migration_names(second)) == sorted(name for name, _ in migrations)
    assert second.counts() == first.counts()
    assert second.embedder_identity() == IDENTITY


def test_the_index_records_its_embedder_and_refuses_another(open_store: Opener) -> None:
    first = open_store()
    assert first.embedder_identity() is None
    first.ensure_embedder(IDENTITY)
    first.ensure_embedder(IDENTITY)
    reopened = open_store()
    assert reopened.embedder_identity() == IDENTITY
    other = EmbedderIdentity("sentence-transformers/all-MiniLM-L6-v2", 384, "nfkc, L2")
    with pytest.raises(IndexMismatchError, match=re.escape("was built by random-unit (384")):
        reopened.ensure_embedder(other)
    assert reopened.embedder_identity() == IDENTITY


def test_a_written_filing_reads_back(
    store: FilingStore, sample_filings: dict[str, ParsedFiling]
) -> None:
    apple = sample_filings["AAPL-2025"]
    filing_id = write(store, apple)
    assert store.stored_filing(apple.meta.sha256) == apple.meta
    assert store.stored_filing("0" * 64) is None
    assert store.filing_meta(filing_id) == apple.meta
    [summary] = store.filings()
    assert (summary.filing_id, summary.ticker, summary.cik) == (filing_id, "AAPL", apple.meta.cik)
    assert (summary.fiscal_year, summary.form, summary.accession) == (
        2025,
        "10-K",
        apple.meta.accession,
    )
    assert summary.items == sum(s.item.startswith("Item ") for s in apple.sections)
    assert (summary.chunks, summary.facts) == (len(apple.chunks), len(apple.facts))
    assert summary.years_reported == apple.meta.years_reported
    assert store.counts() == {
        "filings": 1,
        "sections": len(apple.sections),
        "chunks": len(apple.chunks),
        "facts": len(apple.facts),
    }


def test_a_failed_write_leaves_nothing(
    store: FilingStore, sample_filings: dict[str, ParsedFiling]
) -> None:
    apple = sample_filings["AAPL-2025"]
    broken_chunk = replace(apple.chunks[-1], title=None)  # type: ignore[arg-type]
    broken = replace(apple, chunks=(*apple.chunks[:-1], broken_chunk))
    with pytest.raises(Exception, match=r"(?i)not.null"):
        write(store, broken)
    assert store.counts() == {"filings": 0, "sections": 0, "chunks": 0, "facts": 0}
    write(store, slim(apple))
    assert store.counts()["filings"] == 1


def test_a_newer_version_of_a_filing_replaces_the_old_one(
    store: FilingStore, sample_filings: dict[str, ParsedFiling]
) -> None:
    apple, older = slim(sample_filings["AAPL-2025"]), slim(sample_filings["AAPL-2024"])
    write(store, apple)
    write(store, older)
    newer = replace(apple, meta=replace(apple.meta, sha256="0" * 64), chunks=apple.chunks[:-1])
    write(store, newer)
    assert [s.fiscal_year for s in store.filings()] == [2024, 2025]
    assert store.stored_filing(apple.meta.sha256) is None
    assert store.stored_filing("0" * 64) == newer.meta
    assert store.resolve_scope(ticker="AAPL").filing == newer.meta
    assert store.counts()["chunks"] == len(newer.chunks) + len(older.chunks)


def test_a_scope_is_the_latest_filing_of_a_ticker_or_cik_unless_a_year_is_named(
    store: FilingStore, sample_filings: dict[str, ParsedFiling]
) -> None:
    ids = {
        key: write(store, slim(sample_filings[key]))
        for key in ("AAPL-2024", "AAPL-2025", "HD-2024")
    }
    latest = store.resolve_scope(ticker="aapl")
    assert (latest.filing_id, latest.filing) == (ids["AAPL-2025"], sample_filings["AAPL-2025"].meta)
    assert store.resolve_scope(ticker="AAPL", fiscal_year=2024).filing_id == ids["AAPL-2024"]
    assert (
        store.resolve_scope(cik=sample_filings["AAPL-2025"].meta.cik).filing_id == ids["AAPL-2025"]
    )
    assert store.resolve_scope(ticker="HD").filing_id == ids["HD-2024"]
    assert store.resolve_scope() == Scope()
    assert store.resolve_scope().corpus_wide


def _as_form(parsed: ParsedFiling, form: str, sha: str, **fields: object) -> ParsedFiling:
    """The filing under another form's identity (its text and figures stay the 10-K's)."""
    meta = replace(parsed.meta, form=form, sha256=sha * 64, **fields)  # type: ignore[arg-type]
    return replace(slim(parsed, chunks=2), meta=meta)


def test_a_10k_10qs_and_8ks_of_one_year_are_each_their_own_filing(
    store: FilingStore, sample_filings: dict[str, ParsedFiling]
) -> None:
    apple = sample_filings["AAPL-2025"]
    annual = write(store, slim(apple, chunks=2))
    second = write(
        store, _as_form(apple, "10-Q", "a", fiscal_quarter=2, period_end=date(2025, 3, 29))
    )
    third = write(
        store, _as_form(apple, "10-Q", "b", fiscal_quarter=3, period_end=date(2025, 6, 28))
    )
    july = write(store, _as_form(apple, "8-K", "c", period_end=date(2025, 7, 31)))
    may = write(store, _as_form(apple, "8-K", "d", period_end=date(2025, 5, 1)))
    assert len({annual, second, third, july, may}) == len(store.filings()) == 5
    assert store.resolve_scope(ticker="AAPL").filing_id == annual  # a year means its 10-K
    assert store.resolve_scope(ticker="AAPL", fiscal_year=2025).filing_id == annual
    assert store.resolve_scope(ticker="AAPL", form="10-Q").filing_id == third
    assert store.resolve_scope(ticker="AAPL", fiscal_quarter=2).filing_id == second
    assert store.resolve_scope(ticker="AAPL", form="8-K").filing_id == july
    with pytest.raises(NotFoundError) as caught:
        store.resolve_scope(ticker="AAPL", fiscal_quarter=1)
    assert str(caught.value) == (
        "ticker AAPL has no indexed filing for 10-Q Q1; indexed: 8-K 2025-05-01, "
        "8-K 2025-07-31, FY2025, 10-Q Q2 FY2025, 10-Q Q3 FY2025"
    )
    scope = store.resolve_scope(ticker="AAPL", fiscal_quarter=2)
    assert scope.filing is not None
    assert scope.filing.period == "10-Q Q2 FY2025"
    newer = _as_form(apple, "10-Q", "e", fiscal_quarter=2, period_end=date(2025, 3, 29))
    replaced = write(store, newer)
    assert len(store.filings()) == 5  # a newer copy of the same quarter replaces the old
    assert store.resolve_scope(ticker="AAPL", fiscal_quarter=2).filing_id == replaced


@pytest.mark.parametrize(
    ("where", "message"),
    [
        ({"ticker": "zzzz"}, "ticker ZZZZ is not indexed"),
        ({"cik": 1}, "CIK 1 is not indexed"),
        (
            {"ticker": "aapl", "fiscal_year": 2019},
            "ticker AAPL has no indexed filing for fiscal year 2019; indexed years: 2024, 2025",
        ),
        ({"fiscal_year": 2025}, "a fiscal year needs a ticker or CIK to go with it"),
    ],
)
def test_a_scope_that_names_nothing_indexed_says_what_is(
    store: FilingStore,
    sample_filings: dict[str, ParsedFiling],
    where: dict[str, str | int],
    message: str,
) -> None:
    for key in ("AAPL-2025", "AAPL-2024", "HD-2024"):
        write(store, slim(sample_filings[key], chunks=2))
    with pytest.raises(NotFoundError) as caught:
        store.resolve_scope(**where)  # type: ignore[arg-type]
    assert str(caught.value) == message


def test_a_scoped_dense_search_is_exact_and_never_leaves_its_filing(
    store: FilingStore, sample_filings: dict[str, ParsedFiling]
) -> None:
    older, newer = slim(sample_filings["AAPL-2024"], 150), slim(sample_filings["AAPL-2025"], 150)
    older_id, newer_id = write(store, older), write(store, newer)
    query = unit_vectors(older)[7]
    [(best, cosine)] = store.dense_search(query, older_id, 1)
    assert cosine == pytest.approx(1.0, abs=1e-5)
    assert store.passages([best])[best].chunk == older.chunks[7]

    hits = store.dense_search(query, newer_id, 10)
    expected = np.sort(unit_vectors(newer) @ query)[::-1][:10]
    np.testing.assert_allclose([score for _, score in hits], expected, atol=1e-5)
    assert {p.filing_id for p in store.passages([chunk for chunk, _ in hits]).values()} == {
        newer_id
    }


def test_a_corpus_wide_dense_search_reaches_every_filing(
    store: FilingStore, sample_filings: dict[str, ParsedFiling]
) -> None:
    filings = [
        slim(sample_filings[key], chunks=100) for key in ("AAPL-2025", "HD-2024", "WFC-2024")
    ]
    ids = [write(store, filing) for filing in filings]
    picked = np.stack([unit_vectors(filing)[3] for filing in filings])
    query = picked.sum(axis=0) / np.linalg.norm(picked.sum(axis=0))
    hits = store.dense_search(query, None, 3)
    assert {p.filing_id for p in store.passages([chunk for chunk, _ in hits]).values()} == set(ids)
    assert all(cosine > 0.4 for _, cosine in hits)
    [(_, exact)] = store.dense_search(picked[1], None, 1)
    assert exact == pytest.approx(1.0, abs=1e-5)


def rare_word(inside: ParsedFiling, outside: ParsedFiling) -> tuple[str, int]:
    """A long word that one chunk of ``inside`` holds and that no other chunk (of either filing)
    shares even a stem with; and that chunk's ordinal."""
    texts = [c.text.lower() for c in (*inside.chunks, *outside.chunks)]
    for ordinal, chunk in enumerate(inside.chunks):
        for word in sorted(set(re.findall(r"\b[a-z]{10,}\b", chunk.text.lower()))):
            if sum(word[:7] in text for text in texts) == 1:
                return word, ordinal
    raise AssertionError("no rare word in the sample")


def test_a_lexical_search_finds_a_rare_word_and_keeps_to_its_scope(
    store: FilingStore, sample_filings: dict[str, ParsedFiling]
) -> None:
    inside, outside = slim(sample_filings["HD-2024"], 150), slim(sample_filings["AAPL-2025"], 150)
    inside_id, outside_id = write(store, inside), write(store, outside)
    word, ordinal = rare_word(inside, outside)
    for scope in (None, inside_id):
        hits = store.lexical_search([word, "qqqzzzqqq"], scope, 5)
        assert len(hits) == 1
        assert store.passages([hits[0][0]])[hits[0][0]].chunk == inside.chunks[ordinal]
        assert hits[0][1] > 0
    assert store.lexical_search([word], outside_id, 5) == []
    assert store.lexical_search([], None, 5) == []
    ranked = store.lexical_search(["net", "sales"], outside_id, 20)
    assert len(ranked) > 5
    assert [score for _, score in ranked] == sorted((score for _, score in ranked), reverse=True)


def test_passages_and_vectors_read_back_what_was_written(
    store: FilingStore, sample_filings: dict[str, ParsedFiling]
) -> None:
    apple = slim(sample_filings["AAPL-2025"], 60)
    filing_id = write(store, apple)
    vectors = unit_vectors(apple)
    chunk_ids = [store.dense_search(vectors[i], filing_id, 1)[0][0] for i in (5, 0, 42)]
    passages = store.passages(chunk_ids)
    assert [passages[c].chunk for c in chunk_ids] == [apple.chunks[i] for i in (5, 0, 42)]
    assert {(p.filing_id, p.filing) for p in passages.values()} == {(filing_id, apple.meta)}
    np.testing.assert_array_equal(store.vectors(chunk_ids), vectors[[5, 0, 42]])
    assert store.vectors(chunk_ids).dtype == np.float32
    assert store.passages([]) == {}
    assert store.vectors([]).shape == (0, 0)


def test_an_unreachable_database_is_a_source_error_that_hides_the_password(
    tmp_path: Path,
) -> None:
    url = f"postgresql://edgar:s3cret-pw@/filings?host={tmp_path}"
    with pytest.raises(SourceError) as caught:
        PostgresIndex(url)
    message = str(caught.value)
    assert "s3cret-pw" not in message
    assert "filings" in message
    assert str(tmp_path) in message
    assert "\n" not in message


def test_a_stored_filing_exports_exactly_as_it_was_written(
    store: FilingStore, sample_filings: dict[str, ParsedFiling]
) -> None:
    apple = sample_filings["AAPL-2025"]
    filing_id = write(store, apple)
    exported, vectors = store.export_filing(filing_id)
    assert exported.meta == apple.meta
    assert exported.text == store.filing_text(filing_id) == apple.text
    assert exported.sections == apple.sections
    assert exported.chunks == apple.chunks
    assert sorted(exported.facts, key=repr) == sorted(apple.facts, key=repr)
    np.testing.assert_array_equal(vectors, unit_vectors(apple))
    assert vectors.dtype == np.float32


def test_a_span_is_held_by_the_narrowest_section_around_it(
    store: FilingStore, sample_filings: dict[str, ParsedFiling]
) -> None:
    apple = slim(sample_filings["AAPL-2025"], chunks=2)
    filing_id = write(store, apple)
    for chunk in (apple.chunks[0], apple.chunks[-1]):
        holding = [s for s in apple.sections if s.start <= chunk.start and s.end >= chunk.end]
        found = store.narrowest_section(filing_id, chunk.start, chunk.end)
        assert found in holding
        assert found.end - found.start == min(s.end - s.start for s in holding)
    end = len(apple.text)
    assert store.narrowest_section(filing_id, end + 10, end + 20) is None
    assert store.narrowest_section(filing_id + 1, 0, 1) is None


def test_displayed_facts_name_the_chunk_that_prints_each(
    store: FilingStore, sample_filings: dict[str, ParsedFiling]
) -> None:
    apple = sample_filings["AAPL-2025"]
    filing_id = write(store, apple)
    refs = store.displayed_facts(filing_id)
    passages = store.passages([ref.chunk_id for ref in refs])
    found = sorted(
        (r.concept, passages[r.chunk_id].chunk.ordinal, r.period_end, r.dimensional) for r in refs
    )
    expected = sorted(
        (f.concept, f.chunk_ordinal, f.period_end, bool(f.dimensions))
        for f in apple.facts
        if f.chunk_ordinal is not None
    )
    assert found == expected
    assert any(r.dimensional for r in refs)
    assert any(not r.dimensional for r in refs)


@pytest.mark.postgres
def test_a_database_created_on_a_server_opens_as_an_empty_store(postgres_server: str) -> None:
    name = f"created_{uuid.uuid4().hex[:12]}"
    created = postgres.create_database(postgres_server, name)
    try:
        store = PostgresIndex(created)
        assert store.counts() == {"filings": 0, "sections": 0, "chunks": 0, "facts": 0}
        store.close()
    finally:
        with psycopg.connect(postgres_server, autocommit=True) as admin:
            admin.execute(sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(name)))


def test_row_figures_are_stored_beside_xbrl_facts_and_read_back_by_source(
    store: FilingStore, sample_filings: dict[str, ParsedFiling]
) -> None:
    apple = slim(sample_filings["AAPL-2025"])
    row = Fact(
        concept="",
        value=-1_577e6,
        displayed="(1,577)",
        unit="USD",
        decimals=None,
        period_start=date(2018, 1, 1),
        period_end=date(2018, 12, 31),
        dimensions=(),
        offset=120,
        chunk_ordinal=0,
        source=FigureSource.ROW,
        label="Purchases of property, plant and equipment (PP&E)",
        scale=6,
        fiscal_year=2018,
        statement="cash_flow",
    )
    found = StatementFound("cash_flow", "Consolidated Statement of Cash Flows", 59, (2018,), 32)
    parsed = replace(
        apple, facts=(*apple.facts, row), meta=replace(apple.meta, statements=(found,))
    )
    filing_id = write(store, parsed)
    assert store.figures(filing_id, FigureSource.ROW) == [row]
    assert store.figures(filing_id, FigureSource.XBRL) == list(apple.facts)
    assert store.figures(filing_id) == [*apple.facts, row]
    assert store.filing_meta(filing_id).statements == (found,)
    # Search reads a row by its label, as an XBRL fact by its concept.
    shown_rows = [ref for ref in store.displayed_facts(filing_id) if not ref.concept]
    assert [ref.label for ref in shown_rows] == [row.label]
    assert [ref.statement for ref in shown_rows] == ["cash_flow"]  # the statement ranking's
    [summary] = store.filings()
    assert summary.facts == len(apple.facts)
    assert summary.statements == (found,)


def test_an_index_written_before_row_figures_migrates_and_reads_its_facts_as_xbrl(
    tmp_path: Path, sample_filings: dict[str, ParsedFiling]
) -> None:
    path = tmp_path / "old.db"
    old = sqlite3.connect(path)
    old.executescript(sqlite.MIGRATIONS[0][1])
    old.execute("CREATE TABLE migrations (name TEXT PRIMARY KEY, at TEXT)")
    old.execute("INSERT INTO migrations VALUES ('m001_initial', 'then')")
    old.execute(
        "INSERT INTO filings VALUES (1, 'ab', 'Apple Inc.', 320193, 'AAPL', '10-K', 2025, NULL, "
        "NULL, NULL, NULL, '[2025]', 'old.htm', 'html', 'text', 'then')"
    )
    old.execute(
        "INSERT INTO facts VALUES (1, 'us-gaap:Revenues', 416161000000.0, '416,161', 'USD', -6, "
        "'2024-09-29', '2025-09-27', '[]', 10, 0)"
    )
    old.commit()
    old.close()
    index = SqliteIndex(path)
    [fact] = index.figures(1)
    assert (fact.concept, fact.source, fact.label, fact.scale) == (
        "us-gaap:Revenues",
        FigureSource.XBRL,
        None,
        None,
    )
    assert index.filing_meta(1).statements == ()
    index.ensure_embedder(IDENTITY)
    apple = slim(sample_filings["AAPL-2025"])
    filing_id = write(index, apple)
    assert index.figures(filing_id) == list(apple.facts)
    index.close()
