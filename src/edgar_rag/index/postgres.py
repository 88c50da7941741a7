"""The shared index: PostgreSQL with pgvector, the same contract as ``SqliteIndex``.

Chunks carry a ``vector`` column searched with HNSW across the corpus and exactly (a B-tree on
the filing, then a sort) within one filing, and a generated ``tsvector`` with a GIN index for
lexical search. The chunks table is hash-partitioned by CIK (``PARTITIONS`` partitions, each with
its own HNSW index), its distribution column should it move to Citus; a search within one filing
reads one partition; a search of the corpus reads every partition, spread over a few connections
that search at once, and merges their hits. Each filing is written in one transaction. The
database records which embedder built it and refuses vectors from another.
"""

from __future__ import annotations

import heapq
import json
import threading
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from itertools import chain
from typing import Any, LiteralString

import numpy as np
import psycopg
from pgvector.psycopg import register_vector
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from psycopg.rows import DictRow, dict_row

from edgar_rag.domain import (
    ChunkKind,
    EmbedderIdentity,
    Fact,
    FactRef,
    FigureSource,
    FilingMeta,
    FilingSummary,
    ParsedFiling,
    Passage,
    Scope,
    ScoredIds,
    Section,
    Vectors,
)
from edgar_rag.errors import ConfigError, IndexMismatchError, NotFoundError, SourceError
from edgar_rag.index.schema import (
    SCHEMA_VERSION,
    Row,
    chunk_from_row,
    fact_from_row,
    fact_ref_from_row,
    identity_fields,
    identity_from_fields,
    meta_from_row,
    meta_row,
    passages_from_rows,
    resolve_scope,
    same_filing_key,
    section_from_row,
    summary_from_row,
)

# The embedding column has no fixed dimension here: the embedder, and so N, is known only when
# ``ensure_embedder`` first records it; that step types the column vector(N) and builds HNSW.
_M001_INITIAL = """
    CREATE EXTENSION IF NOT EXISTS vector;
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE filings (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        sha256 TEXT NOT NULL UNIQUE,
        company TEXT NOT NULL, cik BIGINT, ticker TEXT, form TEXT NOT NULL,
        fiscal_year INTEGER NOT NULL, period_end DATE,
        accession TEXT, filing_date DATE, url TEXT,
        years_reported TEXT NOT NULL,
        source TEXT NOT NULL, source_format TEXT NOT NULL,
        text TEXT NOT NULL,
        ingested_at TIMESTAMPTZ NOT NULL DEFAULT now()
    );
    CREATE INDEX filings_by_ticker ON filings (ticker, fiscal_year);
    CREATE INDEX filings_by_cik ON filings (cik, fiscal_year);
    CREATE TABLE sections (
        filing_id BIGINT NOT NULL REFERENCES filings (id) ON DELETE CASCADE,
        ordinal INTEGER NOT NULL,
        item TEXT NOT NULL, part TEXT, title TEXT NOT NULL,
        start INTEGER NOT NULL, "end" INTEGER NOT NULL,
        cross_reference BOOLEAN NOT NULL,
        PRIMARY KEY (filing_id, ordinal)
    );
    CREATE TABLE chunks (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        filing_id BIGINT NOT NULL REFERENCES filings (id) ON DELETE CASCADE,
        ordinal INTEGER NOT NULL,
        item TEXT NOT NULL, title TEXT NOT NULL,
        start INTEGER NOT NULL, "end" INTEGER NOT NULL,
        kind TEXT NOT NULL, text TEXT NOT NULL,
        embedding vector NOT NULL,
        lexemes TSVECTOR GENERATED ALWAYS AS (to_tsvector('english', text)) STORED
    );
    CREATE UNIQUE INDEX chunks_by_filing ON chunks (filing_id, ordinal);
    CREATE INDEX chunks_by_lexeme ON chunks USING gin (lexemes);
    CREATE TABLE facts (
        filing_id BIGINT NOT NULL REFERENCES filings (id) ON DELETE CASCADE,
        concept TEXT NOT NULL, value DOUBLE PRECISION NOT NULL, displayed TEXT NOT NULL,
        unit TEXT, decimals INTEGER,
        period_start DATE, period_end DATE NOT NULL,
        dimensions JSONB NOT NULL,
        "offset" INTEGER, chunk_ordinal INTEGER
    );
    CREATE INDEX facts_by_filing ON facts (filing_id, concept);
"""

_M002_ROW_FIGURES = """
    ALTER TABLE facts ADD COLUMN id BIGINT GENERATED ALWAYS AS IDENTITY,
        ADD COLUMN source TEXT NOT NULL DEFAULT 'xbrl', ADD COLUMN label TEXT,
        ADD COLUMN scale INTEGER, ADD COLUMN fiscal_year INTEGER, ADD COLUMN statement TEXT;
    ALTER TABLE filings ADD COLUMN statements TEXT NOT NULL DEFAULT '[]';
"""

PARTITIONS = 8
"""Hash partitions of the chunks table on its ``cik`` column."""
HNSW_M = 24
HNSW_EF_CONSTRUCTION = 128
"""The HNSW graph of each partition: pgvector's defaults (m 16, ef_construction 64) reach
recall@10 0.95 over a million chunks only at ef_search 1000, 100 ms a query on two cores
(docs/scale.md); a denser graph built with a wider candidate list reaches it at a fraction."""
HNSW_INDEX: LiteralString = (
    "CREATE INDEX IF NOT EXISTS chunks_by_embedding ON chunks USING hnsw "
    "((embedding::halfvec({dimensions})) halfvec_cosine_ops) WITH (m = 24, ef_construction = 128)"
)
"""One HNSW index a partition (created on the partitioned table), of the embedding in half
precision: 0.6x the size of a graph of float32 vectors (docs/scale.md), so a million chunks'
indexes fit the query's memory, while the column keeps float32 for the hits' distances. Its
numbers are HNSW_M and HNSW_EF_CONSTRUCTION (a test holds them equal); ``{dimensions}`` is the
embedder's."""


def hnsw_index(dimensions: int) -> sql.Composed:
    """HNSW_INDEX for an embedding of ``dimensions``."""
    return sql.SQL(HNSW_INDEX).format(dimensions=sql.Literal(dimensions))


# Chunks are hash-partitioned by CIK, their distribution column: the primary key and the unique
# key include it, and their one foreign key goes to filings, which stays whole (in Citus, a
# reference table), so ``create_distributed_table('chunks', 'cik')`` would take the table as it
# is. A filing without a CIK files its chunks under CIK 0, which the SEC assigns to no one. The
# rows keep their ids and the embedding its type; m005 builds the HNSW index (one a partition).
_M003_CHUNKS_BY_CIK = """
    ALTER TABLE chunks RENAME TO chunks_whole;
    ALTER INDEX chunks_by_filing RENAME TO chunks_whole_by_filing;
    ALTER INDEX chunks_by_lexeme RENAME TO chunks_whole_by_lexeme;
    ALTER INDEX chunks_pkey RENAME TO chunks_whole_pkey;
    ALTER TABLE chunks_whole RENAME CONSTRAINT chunks_filing_id_fkey TO chunks_whole_filing_id_fkey;
    DROP INDEX IF EXISTS chunks_by_embedding;
    CREATE TABLE chunks (
        id BIGINT GENERATED ALWAYS AS IDENTITY,
        cik BIGINT NOT NULL,
        filing_id BIGINT NOT NULL REFERENCES filings (id) ON DELETE CASCADE,
        ordinal INTEGER NOT NULL,
        item TEXT NOT NULL, title TEXT NOT NULL,
        start INTEGER NOT NULL, "end" INTEGER NOT NULL,
        kind TEXT NOT NULL, text TEXT NOT NULL,
        embedding vector NOT NULL,
        lexemes TSVECTOR GENERATED ALWAYS AS (to_tsvector('english', text)) STORED,
        PRIMARY KEY (id, cik)
    ) PARTITION BY HASH (cik);
    DO $$
    DECLARE
        typed TEXT := (
            SELECT format_type(atttypid, atttypmod) FROM pg_attribute
            WHERE attrelid = 'chunks_whole'::regclass AND attname = 'embedding'
        );
        next_id BIGINT := (SELECT coalesce(max(id), 0) + 1 FROM chunks_whole);
    BEGIN
        FOR remainder IN 0..LAST_PARTITION LOOP
            EXECUTE format(
                'CREATE TABLE chunks_%s PARTITION OF chunks '
                'FOR VALUES WITH (MODULUS PARTITIONS, REMAINDER %s)', remainder, remainder
            );
        END LOOP;
        EXECUTE format('ALTER TABLE chunks ALTER COLUMN embedding TYPE %s', typed);
        EXECUTE format('ALTER TABLE chunks ALTER COLUMN id RESTART WITH %s', next_id);
    END $$;
    INSERT INTO chunks (id, cik, filing_id, ordinal, item, title, start, "end", kind, text,
        embedding)
    OVERRIDING SYSTEM VALUE
    SELECT c.id, coalesce(f.cik, 0), c.filing_id, c.ordinal, c.item, c.title, c.start, c."end",
        c.kind, c.text, c.embedding
    FROM chunks_whole c JOIN filings f ON f.id = c.filing_id;
    DROP TABLE chunks_whole;
    CREATE UNIQUE INDEX chunks_by_filing ON chunks (filing_id, ordinal, cik);
    CREATE INDEX chunks_by_lexeme ON chunks USING gin (lexemes);
""".replace("LAST_PARTITION", str(PARTITIONS - 1)).replace(
    "MODULUS PARTITIONS", f"MODULUS {PARTITIONS}"
)

# m004 built the HNSW index again, denser than pgvector's default, of float32 vectors; m005 now
# builds it as HNSW_INDEX does, so m004 only drops the old one (a database that ran it before
# has its float32 index dropped by m005).
_M004_DENSER_HNSW = "DROP INDEX IF EXISTS chunks_by_embedding"

# The HNSW index as HNSW_INDEX builds it, where the embedding has its type (a database whose
# embedder is not yet recorded gets it when it is: ensure_embedder).
_M005_HALF_PRECISION_HNSW = """
    DO $$
    DECLARE
        dimensions INTEGER := (SELECT atttypmod FROM pg_attribute
            WHERE attrelid = 'chunks'::regclass AND attname = 'embedding');
    BEGIN
        IF dimensions > 0 THEN
            DROP INDEX IF EXISTS chunks_by_embedding;
            EXECUTE format('HNSW_INDEX', dimensions);
        END IF;
    END $$;
""".replace("HNSW_INDEX", HNSW_INDEX.replace("{dimensions}", "%s"))

MIGRATIONS: tuple[tuple[str, LiteralString], ...] = (
    ("m001_initial", _M001_INITIAL),
    ("m002_row_figures", _M002_ROW_FIGURES),
    ("m003_chunks_by_cik", _M003_CHUNKS_BY_CIK),
    ("m004_denser_hnsw", _M004_DENSER_HNSW),
    ("m005_half_precision_hnsw", _M005_HALF_PRECISION_HNSW),
    ("m006_quarters", "ALTER TABLE filings ADD COLUMN fiscal_quarter INTEGER;"),
)
"""Named migrations, each run once, in order, inside its own transaction."""

_MIGRATION_LOCK = 0x65646761  # any constant: serialises two processes migrating one database
EF_SEARCH = 600
"""HNSW candidate list of each partition for corpus-wide search (pgvector's default is 40, at
most 1000): over a million chunks, the smallest measured whose recall@10 passes 0.95; its time
beside the others' is in docs/scale.md."""
SEARCH_CONNECTIONS = 2
"""Connections a corpus-wide search spreads the partitions over (one query each, all at once,
the hits merged by distance): the partitions' HNSW searches then run on as many cores, where one
query over the partitioned table searches them one after another (docs/scale.md)."""
CHUNK_TYPES = ("int8", "int8", "int4", "text", "text", "int4", "int4", "text", "text", "vector")


class PostgresIndex:
    """The index in a PostgreSQL database with the pgvector extension."""

    def __init__(self, url: str, search_connections: int = SEARCH_CONNECTIONS) -> None:
        try:
            params = conninfo_to_dict(url)
        except psycopg.ProgrammingError as exc:
            raise ConfigError(f"not a PostgreSQL URL: {_first_line(exc)}") from exc
        self.where = f"database {params.get('dbname', '(default)')} on {params.get('host', '?')}"
        self.ef_search = EF_SEARCH
        self.search_connections = search_connections
        self._url = url
        self.db = self._connect()
        try:
            self._migrate()
        except psycopg.Error as exc:
            self.db.close()
            raise SourceError(
                f"cannot migrate the PostgreSQL {self.where}: {_first_line(exc)}"
            ) from exc
        register_vector(self.db)
        self._searchers: list[psycopg.Connection[DictRow]] = []
        self._search_threads: ThreadPoolExecutor | None = None
        self._partitions: list[sql.Identifier] = []
        self._dimensions = 0
        self._opening = threading.Lock()

    def _connect(self) -> psycopg.Connection[DictRow]:
        try:
            return psycopg.connect(
                self._url, autocommit=True, row_factory=dict_row, connect_timeout=10
            )
        except psycopg.OperationalError as exc:
            password = str(conninfo_to_dict(self._url).get("password") or "")
            reason = _first_line(exc).replace(password, "***") if password else _first_line(exc)
            raise SourceError(f"cannot connect to the PostgreSQL {self.where}: {reason}") from exc

    def close(self) -> None:
        if self._search_threads is not None:
            self._search_threads.shutdown()
        for searcher in self._searchers:
            searcher.close()
        self.db.close()

    def _migrate(self) -> None:
        db = self.db
        db.execute("SELECT pg_advisory_lock(%s)", (_MIGRATION_LOCK,))
        try:
            db.execute(
                "CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, at TIMESTAMPTZ)"
            )
            done = {row["name"] for row in db.execute("SELECT name FROM migrations")}
            for name, script in MIGRATIONS:
                if name in done:
                    continue
                with db.transaction():
                    db.execute(script)
                    db.execute("INSERT INTO migrations VALUES (%s, now())", (name,))
                    self._set_meta({"schema_version": str(SCHEMA_VERSION)})
        finally:
            db.execute("SELECT pg_advisory_unlock(%s)", (_MIGRATION_LOCK,))

    def _set_meta(self, fields: dict[str, str]) -> None:
        with self.db.cursor() as cursor:
            cursor.executemany(
                "INSERT INTO meta VALUES (%s, %s) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                list(fields.items()),
            )

    def embedder_identity(self) -> EmbedderIdentity | None:
        """The embedder that built this index, or None while it is empty."""
        rows = self.db.execute("SELECT key, value FROM meta").fetchall()
        return identity_from_fields({row["key"]: row["value"] for row in rows})

    def ensure_embedder(self, identity: EmbedderIdentity) -> None:
        """Record ``identity`` in an empty index; refuse one built by another embedder."""
        recorded = self.embedder_identity()
        if recorded is None:
            with self.db.transaction():
                self._set_meta(identity_fields(identity))
                self.db.execute(
                    sql.SQL("ALTER TABLE chunks ALTER COLUMN embedding TYPE vector({})").format(
                        sql.Literal(identity.dimensions)
                    )
                )
                self.db.execute(hnsw_index(identity.dimensions))
        elif recorded != identity:
            raise IndexMismatchError(
                f"the index in the {self.where} was built by {recorded.describe()}, but this run "
                f"embeds with {identity.describe()}; use the same embedder (EDGAR_RAG_EMBEDDER) or "
                "another database (EDGAR_RAG_DATABASE_URL)"
            )

    def stored_filing(self, sha256: str) -> FilingMeta | None:
        """The filing indexed from exactly these bytes, if any."""
        row = self.db.execute("SELECT * FROM filings WHERE sha256 = %s", (sha256,)).fetchone()
        return meta_from_row(row) if row is not None else None

    def write_filing(self, parsed: ParsedFiling, vectors: Vectors) -> int:
        """Store one filing and its chunk vectors in one transaction, replacing an older
        version of the same filing (same company, fiscal year and form). Returns its id."""
        if len(vectors) != len(parsed.chunks):
            raise ValueError("one vector per chunk is required")
        meta = parsed.meta
        row = meta_row(meta) | {
            "period_end": meta.period_end,
            "filing_date": meta.filing_date,
            "text": parsed.text,
        }
        matrix = np.ascontiguousarray(vectors, dtype=np.float32)
        with self.db.transaction(), self.db.cursor() as cursor:
            key, value = same_filing_key(meta)
            cursor.execute(
                sql.SQL(
                    "DELETE FROM filings WHERE {} = %s AND fiscal_year = %s AND form = %s "
                    "AND fiscal_quarter IS NOT DISTINCT FROM %s "
                    "AND (form <> '8-K' OR period_end IS NOT DISTINCT FROM %s)"
                ).format(sql.Identifier(key)),
                (value, meta.fiscal_year, meta.form, meta.fiscal_quarter, meta.period_end),
            )
            inserted = cursor.execute(
                sql.SQL("INSERT INTO filings ({}) VALUES ({}) RETURNING id").format(
                    sql.SQL(", ").join(map(sql.Identifier, row)),
                    sql.SQL(", ").join(sql.Placeholder() * len(row)),
                ),
                list(row.values()),
            ).fetchone()
            assert inserted is not None
            filing_id = int(inserted["id"])
            copy_rows(
                cursor,
                'sections (filing_id, ordinal, item, part, title, start, "end", cross_reference)',
                (
                    (filing_id, i, s.item, s.part, s.title, s.start, s.end, s.cross_reference)
                    for i, s in enumerate(parsed.sections)
                ),
            )
            cik = chunk_cik(meta.cik)
            copy_rows(
                cursor,
                'chunks (cik, filing_id, ordinal, item, title, start, "end", kind, text, '
                "embedding)",
                (
                    (
                        cik,
                        filing_id,
                        c.ordinal,
                        c.item,
                        c.title,
                        c.start,
                        c.end,
                        c.kind.value,
                        c.text,
                        v,
                    )
                    for c, v in zip(parsed.chunks, matrix, strict=True)
                ),
                types=CHUNK_TYPES,
            )
            copy_rows(
                cursor,
                "facts (filing_id, concept, value, displayed, unit, decimals, period_start, "
                'period_end, dimensions, "offset", chunk_ordinal, source, label, scale, '
                "fiscal_year, statement)",
                (_fact_row(filing_id, fact) for fact in parsed.facts),
            )
        return filing_id

    def filings(self) -> list[FilingSummary]:
        """Every indexed filing, by ticker (or company) and fiscal year."""
        rows = self.db.execute(
            """
            SELECT f.id AS filing_id, f.ticker, f.cik, f.company, f.fiscal_year, f.accession,
                f.form, f.years_reported, f.source, f.statements, f.fiscal_quarter, f.period_end,
                (SELECT count(*) FROM sections s
                    WHERE s.filing_id = f.id AND s.item LIKE '%%Item %%') AS items,
                (SELECT count(*) FROM chunks c
                    WHERE c.filing_id = f.id AND c.cik = coalesce(f.cik, 0)) AS chunks,
                (SELECT count(*) FROM facts x WHERE x.filing_id = f.id AND x.source = 'xbrl')
                    AS facts
            FROM filings f
            ORDER BY coalesce(f.ticker, f.company), f.fiscal_year
            """
        )
        return [summary_from_row(row) for row in rows]

    def filing_meta(self, filing_id: int) -> FilingMeta:
        row = self.db.execute("SELECT * FROM filings WHERE id = %s", (filing_id,)).fetchone()
        if row is None:
            raise NotFoundError(f"filing {filing_id} is not indexed")
        return meta_from_row(row)

    def _cik_of(self, filing_id: int) -> int:
        """The partition key of the filing's chunks (0 for a filing without a CIK, or none)."""
        row = self.db.execute("SELECT cik FROM filings WHERE id = %s", (filing_id,)).fetchone()
        return chunk_cik(row["cik"] if row is not None else None)

    def filing_text(self, filing_id: int) -> str:
        """The clean text of a filing, which citation offsets point into."""
        row = self.db.execute("SELECT text FROM filings WHERE id = %s", (filing_id,)).fetchone()
        if row is None:
            raise NotFoundError(f"filing {filing_id} is not indexed")
        return str(row["text"])

    def narrowest_section(self, filing_id: int, start: int, end: int) -> Section | None:
        """The narrowest Item of a filing that holds ``[start, end)`` of its text, if any."""
        row = self.db.execute(
            'SELECT item, part, title, start, "end", cross_reference FROM sections '
            'WHERE filing_id = %s AND start <= %s AND "end" >= %s ORDER BY "end" - start LIMIT 1',
            (filing_id, start, end),
        ).fetchone()
        return section_from_row(row) if row is not None else None

    def export_filing(self, filing_id: int) -> tuple[ParsedFiling, Vectors]:
        """A stored filing as it was written, vectors included (to copy it to another store)."""
        meta = self.filing_meta(filing_id)
        sections = tuple(
            section_from_row(row)
            for row in self.db.execute(
                "SELECT * FROM sections WHERE filing_id = %s ORDER BY ordinal", (filing_id,)
            )
        )
        rows = self.db.execute(
            'SELECT id, ordinal, item, title, start, "end", kind, text FROM chunks '
            "WHERE filing_id = %s AND cik = %s ORDER BY ordinal",
            (filing_id, chunk_cik(meta.cik)),
        ).fetchall()
        facts = tuple(
            fact_from_row(row)
            for row in self.db.execute("SELECT * FROM facts WHERE filing_id = %s", (filing_id,))
        )
        chunks = tuple(chunk_from_row(row) for row in rows)
        parsed = ParsedFiling(meta, self.filing_text(filing_id), sections, chunks, facts)
        return parsed, self.vectors([int(row["id"]) for row in rows])

    def figures(self, filing_id: int, source: FigureSource | None = None) -> list[Fact]:
        """The filing's reported figures (XBRL facts and statement-row figures), in the order
        they were written; only those of ``source`` when given."""
        rows = self.db.execute(
            "SELECT * FROM facts WHERE filing_id = %s AND (%s::text IS NULL OR source = %s) "
            "ORDER BY id",
            (filing_id, source.value if source else None, source.value if source else None),
        ).fetchall()
        return [fact_from_row(row) for row in rows]

    def counts(self) -> dict[str, int]:
        """Rows per table, for health checks and benchmarks."""
        tables = ("filings", "sections", "chunks", "facts")
        row = self.db.execute(
            sql.SQL("SELECT {}").format(
                sql.SQL(", ").join(
                    sql.SQL("(SELECT count(*) FROM {0}) AS {0}").format(sql.Identifier(table))
                    for table in tables
                )
            )
        ).fetchone()
        assert row is not None
        return {table: int(row[table]) for table in tables}

    # -- search -------------------------------------------------------------------------------

    def resolve_scope(
        self,
        ticker: str | None = None,
        cik: int | None = None,
        fiscal_year: int | None = None,
        *,
        form: str | None = None,
        fiscal_quarter: int | None = None,
    ) -> Scope:
        """One filing by ticker or CIK (its latest year when none is given), or the corpus."""
        return resolve_scope(
            self._filings_named, ticker, cik, fiscal_year, form=form, fiscal_quarter=fiscal_quarter
        )

    def _filings_named(self, key: str, value: object) -> list[Row]:
        return list(
            self.db.execute(
                sql.SQL("SELECT * FROM filings WHERE {} = %s ORDER BY fiscal_year DESC").format(
                    sql.Identifier(key)
                ),
                (value,),
            ).fetchall()
        )

    def candidate_list(self, k: int) -> int:
        """``hnsw.ef_search`` for a corpus-wide query of ``k``: pgvector returns at most that
        many rows, and takes at most 1000."""
        return min(max(k, self.ef_search), 1000)

    def dense_search(self, vector: Vectors, filing_id: int | None, k: int) -> ScoredIds:
        """Exact cosine within one filing; approximate (HNSW) over the whole corpus."""
        query = np.ascontiguousarray(vector, dtype=np.float32)
        if filing_id is not None:
            # cosine_distance() is not an indexable operator, so the planner cannot pick HNSW
            # (which filters after the fact and may return fewer than k rows): it reads only the
            # filing's rows (B-tree on filing_id, or a scan while the corpus is small) and sorts.
            # The filing's CIK prunes the search to its one partition.
            rows = self.db.execute(
                "SELECT id, 1 - cosine_distance(embedding, %s) AS cosine FROM chunks "
                "WHERE filing_id = %s AND cik = %s ORDER BY cosine DESC, id LIMIT %s",
                (query, filing_id, self._cik_of(filing_id), k),
            ).fetchall()
        else:
            return self._search_corpus(query, k)
        return [(int(row["id"]), float(row["cosine"])) for row in rows]

    def _search_corpus(self, query: Vectors, k: int) -> ScoredIds:
        """Each connection searches its share of the partitions, at once; the k nearest of all
        their hits (each partition's k nearest) are the corpus's."""
        if not self.dimensions():
            return []  # no embedder recorded, so no chunks
        searchers, threads = self._open_searchers()
        partitions = self.chunk_partitions()
        shares = [partitions[i :: len(searchers)] for i in range(len(searchers))]
        found = threads.map(
            lambda searcher, share: self._search_partitions(searcher, share, query, k),
            searchers,
            shares,
        )
        nearest = heapq.nsmallest(k, chain.from_iterable(found), key=lambda hit: (hit[1], hit[0]))
        return [(chunk_id, 1 - distance) for chunk_id, distance in nearest]

    def _search_partitions(
        self,
        db: psycopg.Connection[DictRow],
        partitions: Sequence[sql.Identifier],
        query: Vectors,
        k: int,
    ) -> list[tuple[int, float]]:
        if not partitions:
            return []
        statement = nearest_in_partitions(partitions, self.dimensions())
        rows = self._under_candidate_list(db, statement, query, k)
        return [(int(row["id"]), float(row["distance"])) for row in rows]

    def _under_candidate_list(
        self, db: psycopg.Connection[DictRow], statement: sql.Composed, query: Vectors, k: int
    ) -> list[DictRow]:
        """The rows of ``statement`` (taking ``query`` and ``k``) run with the candidate list a
        corpus-wide search of ``k`` sets."""
        with db.transaction():
            db.execute(
                "SELECT set_config('hnsw.ef_search', %s, true)", (str(self.candidate_list(k)),)
            )
            return db.execute(statement, {"query": query, "k": k}).fetchall()

    def _open_searchers(self) -> tuple[list[psycopg.Connection[DictRow]], ThreadPoolExecutor]:
        """The store's connection and, opened on the first corpus-wide search, the others it
        spreads the partitions over; with the threads that search them at once."""
        with self._opening:
            if self._search_threads is None:
                for _ in range(self.search_connections - 1):
                    searcher = self._connect()
                    register_vector(searcher)
                    self._searchers.append(searcher)
                self._search_threads = ThreadPoolExecutor(
                    self.search_connections, thread_name_prefix="chunks-search"
                )
            return [self.db, *self._searchers], self._search_threads

    def chunk_partitions(self) -> list[sql.Identifier]:
        """The partitions of the chunks table (read once: migrations alone change them)."""
        if self._partitions:
            return self._partitions
        rows = self.db.execute(
            "SELECT n.nspname AS namespace, c.relname AS name FROM pg_inherits i "
            "JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE i.inhparent = 'chunks'::regclass ORDER BY c.relname"
        ).fetchall()
        self._partitions = [sql.Identifier(row["namespace"], row["name"]) for row in rows]
        return self._partitions

    def dimensions(self) -> int:
        """The embedding's dimensions as its column is typed; 0 before the embedder is recorded
        (read until it is: it is typed once)."""
        if not self._dimensions:
            row = self.db.execute(
                "SELECT atttypmod FROM pg_attribute "
                "WHERE attrelid = 'chunks'::regclass AND attname = 'embedding'"
            ).fetchone()
            self._dimensions = max(int(row["atttypmod"]), 0) if row is not None else 0
        return self._dimensions

    def corpus_search_plan(self, vector: Vectors, k: int) -> list[str]:
        """The lines of the plan of a corpus-wide search's query (one connection's, all
        partitions), under the candidate list the search sets."""
        query = np.ascontiguousarray(vector, dtype=np.float32)
        nearest = nearest_in_partitions(self.chunk_partitions(), self.dimensions())
        explain = sql.SQL("EXPLAIN ") + nearest
        plan = self._under_candidate_list(self.db, explain, query, k)
        return [str(next(iter(row.values()))) for row in plan]

    def server_pids(self) -> list[int]:
        """The server processes that run this store's queries (to measure their memory)."""
        return [
            int(row["pid"])
            for db in self._open_searchers()[0]
            for row in db.execute("SELECT pg_backend_pid() AS pid").fetchall()
        ]

    def lexical_search(self, terms: Sequence[str], filing_id: int | None, k: int) -> ScoredIds:
        """Cover-density rank (``ts_rank_cd``) over the given terms (any of them may match)."""
        if not terms:
            return []
        tsquery = sql.SQL(" || ").join(
            sql.SQL("plainto_tsquery('english', {})").format(sql.Placeholder()) for _ in terms
        )
        scope = sql.SQL("AND filing_id = %s AND cik = %s") if filing_id is not None else sql.SQL("")
        scoped = [filing_id, self._cik_of(filing_id)] if filing_id is not None else []
        parameters = [*terms, *scoped, k]
        rows = self.db.execute(
            sql.SQL(
                "SELECT id, ts_rank_cd(lexemes, q.query) AS rank "
                "FROM chunks, (SELECT {} AS query) AS q "
                "WHERE lexemes @@ q.query {} ORDER BY rank DESC, id LIMIT %s"
            ).format(tsquery, scope),
            parameters,
        ).fetchall()
        return [(int(row["id"]), float(row["rank"])) for row in rows]

    def passages(self, chunk_ids: Sequence[int]) -> dict[int, Passage]:
        if not chunk_ids:
            return {}
        rows = self.db.execute(
            'SELECT id, filing_id, ordinal, item, title, start, "end", kind, text '
            "FROM chunks WHERE id = ANY(%s)",
            (list(chunk_ids),),
        ).fetchall()
        return passages_from_rows(rows, self.filing_meta)

    def passages_at(self, filing_id: int, ordinals: Sequence[int]) -> dict[int, Passage]:
        if not ordinals:
            return {}
        rows = self.db.execute(
            'SELECT id, filing_id, ordinal, item, title, start, "end", kind, text '
            "FROM chunks WHERE filing_id = %s AND cik = %s AND ordinal = ANY(%s)",
            (filing_id, self._cik_of(filing_id), list(ordinals)),
        ).fetchall()
        found = passages_from_rows(rows, self.filing_meta)
        return {passage.chunk.ordinal: passage for passage in found.values()}

    def table_passages(self, filing_id: int) -> dict[int, Passage]:
        rows = self.db.execute(
            'SELECT id, filing_id, ordinal, item, title, start, "end", kind, text '
            "FROM chunks WHERE filing_id = %s AND cik = %s AND kind = %s",
            (filing_id, self._cik_of(filing_id), ChunkKind.TABLE.value),
        ).fetchall()
        found = passages_from_rows(rows, self.filing_meta)
        return {passage.chunk.ordinal: passage for passage in found.values()}

    def displayed_facts(self, filing_id: int) -> list[FactRef]:
        """The filing's facts that its text displays, with the chunk that prints each."""
        rows = self.db.execute(
            "SELECT f.concept, c.id AS chunk_id, f.period_end, f.dimensions, f.label, f.statement "
            "FROM facts f "
            "JOIN chunks c ON c.filing_id = f.filing_id AND c.ordinal = f.chunk_ordinal "
            "WHERE f.filing_id = %s AND c.cik = %s",
            (filing_id, self._cik_of(filing_id)),
        ).fetchall()
        return [fact_ref_from_row(row) for row in rows]

    def vectors(self, chunk_ids: Sequence[int]) -> Vectors:
        if not chunk_ids:
            return np.zeros((0, 0), dtype=np.float32)
        rows = self.db.execute(
            "SELECT id, embedding FROM chunks WHERE id = ANY(%s)", (list(chunk_ids),)
        ).fetchall()
        found = {int(row["id"]): row["embedding"].to_numpy() for row in rows}
        return np.stack([found[i] for i in chunk_ids]).astype(np.float32)


def nearest_in_partitions(partitions: Sequence[sql.Identifier], dimensions: int) -> sql.Composed:
    """The ``k`` chunks nearest ``query`` in each partition by its half-precision HNSW index (on
    a small partition, analysed, the planner may prefer an exact scan), each with its cosine
    ``distance`` from the float32 embedding, by which the partitions' hits are merged. Asking
    each partition for twice ``k`` and keeping the nearest by float32 found the same top 10
    over a million chunks (recall@10 0.962 either way) while its heap reads took about 200 MiB
    more of the server's memory."""
    half = sql.SQL("halfvec({})").format(sql.Literal(dimensions))
    return sql.SQL(" UNION ALL ").join(
        sql.SQL(
            "(SELECT id, embedding <=> %(query)s AS distance FROM {} "
            "ORDER BY embedding::{} <=> %(query)s::{} LIMIT %(k)s)"
        ).format(partition, half, half)
        for partition in partitions
    )


def chunk_cik(cik: int | None) -> int:
    """The value of the chunks' ``cik`` column, their partition and distribution key: the
    filing's CIK, or 0 (which the SEC assigns to no one) when it has none."""
    return cik if cik is not None else 0


def create_database(server_url: str, name: str) -> str:
    """Create the database ``name`` on the server at ``server_url``; returns the URL that opens
    it (for benchmarks, which start a server of their own)."""
    with psycopg.connect(server_url, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    return make_conninfo(server_url, dbname=name)


def set_server_settings(server_url: str, settings: dict[str, str]) -> None:
    """Write server parameters (ALTER SYSTEM) on the server at ``server_url``; those read only
    at start (``shared_buffers``) apply once it is started again (for benchmarks)."""
    with psycopg.connect(server_url, autocommit=True) as admin:
        for name, value in settings.items():
            admin.execute(
                sql.SQL("ALTER SYSTEM SET {} = {}").format(sql.Identifier(name), sql.Literal(value))
            )


def _fact_row(filing_id: int, fact: Fact) -> tuple[object, ...]:
    return (
        filing_id, fact.concept, fact.value, fact.displayed, fact.unit, fact.decimals,
        fact.period_start, fact.period_end, json.dumps(fact.dimensions), fact.offset,
        fact.chunk_ordinal, fact.source.value, fact.label, fact.scale, fact.fiscal_year,
        fact.statement,
    )  # fmt: skip


def copy_rows(
    cursor: psycopg.Cursor[DictRow],
    target: LiteralString,
    rows: Iterable[tuple[Any, ...]],
    types: Sequence[str] | None = None,
) -> None:
    """COPY rows into ``target``: binary when the column types are given, text otherwise."""
    statement = (
        f"COPY {target} FROM STDIN (FORMAT BINARY)" if types else f"COPY {target} FROM STDIN"
    )
    with cursor.copy(statement) as copy:
        if types is not None:
            copy.set_types(list(types))
        for row in rows:
            copy.write_row(row)


def _first_line(error: Exception) -> str:
    return next(
        (line.strip() for line in str(error).splitlines() if line.strip()), type(error).__name__
    )
