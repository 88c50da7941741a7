"""The embedded index: one SQLite file with filings, sections, chunks (FTS5 and float32 vectors)
and XBRL facts.

Each filing is written in one transaction, so a killed ingest leaves no half filing. The file
records which embedder built it and refuses to mix in vectors from another.

numpy is imported by the methods that read or write vectors, not by the module: listing the
filings (``edgar-rag filings``) opens this store and must not wait for it.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

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
from edgar_rag.errors import IndexMismatchError, NotFoundError, SourceError
from edgar_rag.index.graph import VectorGraph, chunk_count, record_change
from edgar_rag.index.schema import (
    FACT_COLUMNS,
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

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

_M001_INITIAL = """
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE filings (
            id INTEGER PRIMARY KEY,
            sha256 TEXT NOT NULL UNIQUE,
            company TEXT NOT NULL,
            cik INTEGER,
            ticker TEXT,
            form TEXT NOT NULL,
            fiscal_year INTEGER NOT NULL,
            period_end TEXT,
            accession TEXT,
            filing_date TEXT,
            url TEXT,
            years_reported TEXT NOT NULL,
            source TEXT NOT NULL,
            source_format TEXT NOT NULL,
            text TEXT NOT NULL,
            ingested_at TEXT NOT NULL
        );
        CREATE INDEX filings_by_ticker ON filings (ticker, fiscal_year);
        CREATE INDEX filings_by_cik ON filings (cik, fiscal_year);
        CREATE TABLE sections (
            filing_id INTEGER NOT NULL REFERENCES filings (id) ON DELETE CASCADE,
            ordinal INTEGER NOT NULL,
            item TEXT NOT NULL,
            part TEXT,
            title TEXT NOT NULL,
            start INTEGER NOT NULL,
            "end" INTEGER NOT NULL,
            cross_reference INTEGER NOT NULL,
            PRIMARY KEY (filing_id, ordinal)
        );
        CREATE TABLE chunks (
            id INTEGER PRIMARY KEY,
            filing_id INTEGER NOT NULL REFERENCES filings (id) ON DELETE CASCADE,
            ordinal INTEGER NOT NULL,
            item TEXT NOT NULL,
            title TEXT NOT NULL,
            start INTEGER NOT NULL,
            "end" INTEGER NOT NULL,
            kind TEXT NOT NULL,
            text TEXT NOT NULL,
            vector BLOB NOT NULL
        );
        CREATE UNIQUE INDEX chunks_by_filing ON chunks (filing_id, ordinal);
        CREATE VIRTUAL TABLE chunks_fts USING fts5 (
            text, content='chunks', content_rowid='id', tokenize='porter unicode61'
        );
        CREATE TRIGGER chunks_fts_insert AFTER INSERT ON chunks BEGIN
            INSERT INTO chunks_fts (rowid, text) VALUES (new.id, new.text);
        END;
        CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN
            INSERT INTO chunks_fts (chunks_fts, rowid, text) VALUES ('delete', old.id, old.text);
        END;
        CREATE TABLE facts (
            filing_id INTEGER NOT NULL REFERENCES filings (id) ON DELETE CASCADE,
            concept TEXT NOT NULL,
            value REAL NOT NULL,
            displayed TEXT NOT NULL,
            unit TEXT,
            decimals INTEGER,
            period_start TEXT,
            period_end TEXT NOT NULL,
            dimensions TEXT NOT NULL,
            "offset" INTEGER,
            chunk_ordinal INTEGER
        );
        CREATE INDEX facts_by_filing ON facts (filing_id, concept);
"""

_M002_ROW_FIGURES = """
        ALTER TABLE facts ADD COLUMN source TEXT NOT NULL DEFAULT 'xbrl';
        ALTER TABLE facts ADD COLUMN label TEXT;
        ALTER TABLE facts ADD COLUMN scale INTEGER;
        ALTER TABLE facts ADD COLUMN fiscal_year INTEGER;
        ALTER TABLE facts ADD COLUMN statement TEXT;
        ALTER TABLE filings ADD COLUMN statements TEXT NOT NULL DEFAULT '[]';
"""

_M003_VECTOR_CHANGES = """
        CREATE TABLE vector_changes (
            generation INTEGER PRIMARY KEY, removed TEXT NOT NULL, filing_id INTEGER NOT NULL
        );
"""

_M004_QUARTERS = """
        ALTER TABLE filings ADD COLUMN fiscal_quarter INTEGER;
"""

MIGRATIONS: tuple[tuple[str, str], ...] = (
    ("m001_initial", _M001_INITIAL),
    ("m002_row_figures", _M002_ROW_FIGURES),
    ("m003_vector_changes", _M003_VECTOR_CHANGES),
    ("m004_quarters", _M004_QUARTERS),
)
"""Named migrations, each run once, in order, inside its own transaction."""


GRAPH_MIN_CHUNKS = 50_000
"""Below this many chunks a corpus-wide search compares the query with every vector: exact, and
as fast as the graph (docs/scale.md)."""


class SqliteIndex:
    """The index in one SQLite file (or ``:memory:``).

    A corpus-wide search over ``graph_min_chunks`` chunks or more asks the vector graph beside
    the file (``index.graph``); a scoped search always compares every vector of its filing."""

    def __init__(self, path: Path | str, graph_min_chunks: int = GRAPH_MIN_CHUNKS) -> None:
        self.path = str(path)
        try:
            self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise SourceError(f"cannot open the index {self.path}: {exc}") from exc
        self.db.row_factory = sqlite3.Row
        try:
            self.db.execute("PRAGMA foreign_keys = ON")
            self.db.execute("PRAGMA journal_mode = WAL")
            self.db.execute("PRAGMA synchronous = NORMAL")
            self._migrate()
        except sqlite3.DatabaseError as exc:  # a file that is no SQLite database, or is damaged
            self.db.close()
            raise SourceError(f"{self.path} is not an edgar-rag index: {exc}") from exc
        self._matrices: dict[int | None, tuple[npt.NDArray[np.int64], Vectors]] = {}
        self._facts: dict[int, list[FactRef]] = {}
        self._generation = self._data_version()
        self.graph_min_chunks = graph_min_chunks
        self.graph = None if self.path == ":memory:" else VectorGraph(self.db, Path(self.path))
        self._uses_graph: bool | None = None

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def _migrate(self) -> None:
        db = self.db
        db.execute("CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, at TEXT)")
        done = {row[0] for row in db.execute("SELECT name FROM migrations")}
        for name, script in MIGRATIONS:
            if name not in done:
                db.executescript(
                    f"BEGIN IMMEDIATE;\n{script}\n"
                    f"INSERT INTO migrations VALUES ('{name}', '{_now()}');\n"
                    f"INSERT OR REPLACE INTO meta VALUES ('schema_version', '{SCHEMA_VERSION}');\n"
                    "COMMIT;"
                )

    def _meta(self) -> dict[str, str]:
        return {row["key"]: row["value"] for row in self.db.execute("SELECT key, value FROM meta")}

    def embedder_identity(self) -> EmbedderIdentity | None:
        """The embedder that built this index, or None while it is empty."""
        return identity_from_fields(self._meta())

    def ensure_embedder(self, identity: EmbedderIdentity) -> None:
        """Record ``identity`` in an empty index; refuse one built by another embedder."""
        recorded = self.embedder_identity()
        if recorded is None:
            with self._transaction() as db:
                db.executemany(
                    "INSERT OR REPLACE INTO meta VALUES (?, ?)", identity_fields(identity).items()
                )
        elif recorded != identity:
            raise IndexMismatchError(
                f"the index {self.path} was built by {recorded.describe()}, but this run embeds "
                f"with {identity.describe()}; use the same embedder (EDGAR_RAG_EMBEDDER) or "
                "another index file (EDGAR_RAG_DB)"
            )

    def stored_filing(self, sha256: str) -> FilingMeta | None:
        """The filing indexed from exactly these bytes, if any."""
        row = self.db.execute("SELECT * FROM filings WHERE sha256 = ?", (sha256,)).fetchone()
        return meta_from_row(dict(row)) if row is not None else None

    def write_filing(self, parsed: ParsedFiling, vectors: Vectors) -> int:
        """Store one filing and its chunk vectors in one transaction, replacing an older
        version of the same filing (same company, fiscal year and form). Returns its id."""
        import numpy as np  # noqa: PLC0415 (see the module docstring)

        if len(vectors) != len(parsed.chunks):
            raise ValueError("one vector per chunk is required")
        meta = parsed.meta
        row = meta_row(meta) | {"text": parsed.text, "ingested_at": _now()}
        with self._transaction() as db:
            removed: list[int] = []
            for filing_id in self._same_filing(meta):
                removed += [
                    int(row[0])
                    for row in db.execute("SELECT id FROM chunks WHERE filing_id = ?", (filing_id,))
                ]
                db.execute("DELETE FROM filings WHERE id = ?", (filing_id,))
            columns = ", ".join(row)
            marks = ", ".join("?" for _ in row)
            cursor = db.execute(
                f"INSERT INTO filings ({columns}) VALUES ({marks})", list(row.values())
            )
            filing_id = int(cursor.lastrowid or 0)
            db.executemany(
                "INSERT INTO sections VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (filing_id, i, s.item, s.part, s.title, s.start, s.end, int(s.cross_reference))
                    for i, s in enumerate(parsed.sections)
                ],
            )
            matrix = np.ascontiguousarray(vectors, dtype=np.float32)
            db.executemany(
                'INSERT INTO chunks (filing_id, ordinal, item, title, start, "end", kind, text, '
                "vector) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        filing_id,
                        c.ordinal,
                        c.item,
                        c.title,
                        c.start,
                        c.end,
                        c.kind.value,
                        c.text,
                        matrix[i].tobytes(),
                    )
                    for i, c in enumerate(parsed.chunks)
                ],
            )
            db.executemany(
                f"INSERT INTO facts ({FACT_COLUMNS}) VALUES ({', '.join('?' * 16)})",
                [
                    (
                        filing_id,
                        f.concept,
                        f.value,
                        f.displayed,
                        f.unit,
                        f.decimals,
                        f.period_start.isoformat() if f.period_start else None,
                        f.period_end.isoformat(),
                        json.dumps(f.dimensions),
                        f.offset,
                        f.chunk_ordinal,
                        f.source.value,
                        f.label,
                        f.scale,
                        f.fiscal_year,
                        f.statement,
                    )
                    for f in parsed.facts
                ],
            )
            record_change(db, removed, filing_id)
        return filing_id

    def _same_filing(self, meta: FilingMeta) -> list[int]:
        key, value = same_filing_key(meta)
        rows = self.db.execute(
            f"SELECT id FROM filings WHERE {key} = ? AND fiscal_year = ? AND form = ? "
            "AND fiscal_quarter IS ? AND (form <> '8-K' OR period_end IS ?)",
            (value, meta.fiscal_year, meta.form, meta.fiscal_quarter, meta_row(meta)["period_end"]),
        )
        return [int(row[0]) for row in rows]

    def filings(self) -> list[FilingSummary]:
        """Every indexed filing, by ticker (or company) and fiscal year."""
        rows = self.db.execute(
            """
            SELECT f.id AS filing_id, f.ticker, f.cik, f.company, f.fiscal_year, f.accession,
                f.form, f.years_reported, f.source, f.statements, f.fiscal_quarter, f.period_end,
                (SELECT count(*) FROM sections s WHERE s.filing_id = f.id AND s.item LIKE '%Item %')
                    AS items,
                (SELECT count(*) FROM chunks c WHERE c.filing_id = f.id) AS chunks,
                (SELECT count(*) FROM facts x WHERE x.filing_id = f.id AND x.source = 'xbrl')
                    AS facts
            FROM filings f
            ORDER BY coalesce(f.ticker, f.company), f.fiscal_year
            """
        )
        return [summary_from_row(row) for row in rows]

    def filing_meta(self, filing_id: int) -> FilingMeta:
        row = self.db.execute("SELECT * FROM filings WHERE id = ?", (filing_id,)).fetchone()
        if row is None:
            raise NotFoundError(f"filing {filing_id} is not indexed")
        return meta_from_row(dict(row))

    def filing_text(self, filing_id: int) -> str:
        """The clean text of a filing, which citation offsets point into."""
        row = self.db.execute("SELECT text FROM filings WHERE id = ?", (filing_id,)).fetchone()
        if row is None:
            raise NotFoundError(f"filing {filing_id} is not indexed")
        return str(row[0])

    def narrowest_section(self, filing_id: int, start: int, end: int) -> Section | None:
        """The narrowest Item of a filing that holds ``[start, end)`` of its text, if any."""
        row = self.db.execute(
            'SELECT item, part, title, start, "end", cross_reference FROM sections '
            'WHERE filing_id = ? AND start <= ? AND "end" >= ? ORDER BY "end" - start LIMIT 1',
            (filing_id, start, end),
        ).fetchone()
        return section_from_row(row) if row is not None else None

    def export_filing(self, filing_id: int) -> tuple[ParsedFiling, Vectors]:
        """A stored filing as it was written, vectors included (to copy it to another store)."""
        import numpy as np  # noqa: PLC0415 (see the module docstring)

        meta = self.filing_meta(filing_id)
        sections = tuple(
            section_from_row(row)
            for row in self.db.execute(
                "SELECT * FROM sections WHERE filing_id = ? ORDER BY ordinal", (filing_id,)
            )
        )
        rows = self.db.execute(
            "SELECT * FROM chunks WHERE filing_id = ? ORDER BY ordinal", (filing_id,)
        ).fetchall()
        chunks = tuple(chunk_from_row(row) for row in rows)
        vectors = np.frombuffer(b"".join(row["vector"] for row in rows), dtype=np.float32)
        facts = tuple(
            fact_from_row(row)
            for row in self.db.execute("SELECT * FROM facts WHERE filing_id = ?", (filing_id,))
        )
        parsed = ParsedFiling(meta, self.filing_text(filing_id), sections, chunks, facts)
        return parsed, vectors.reshape(len(chunks), -1)

    def figures(self, filing_id: int, source: FigureSource | None = None) -> list[Fact]:
        """The filing's reported figures (XBRL facts and statement-row figures), in the order
        they were written; only those of ``source`` when given."""
        where = "filing_id = ?" + (" AND source = ?" if source is not None else "")
        parameters: list[object] = [filing_id, *([source.value] if source is not None else [])]
        rows = self.db.execute(f"SELECT * FROM facts WHERE {where} ORDER BY rowid", parameters)
        return [fact_from_row(row) for row in rows]

    def counts(self) -> dict[str, int]:
        """Rows per table, for health checks and benchmarks."""
        return {
            table: int(self.db.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
            for table in ("filings", "sections", "chunks", "facts")
        }

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
        return self.db.execute(
            f"SELECT * FROM filings WHERE {key} = ? ORDER BY fiscal_year DESC", (value,)
        ).fetchall()

    def _data_version(self) -> tuple[int, ...]:
        """Changes whenever a filing is written, here or by another connection."""
        version = self.db.execute("PRAGMA data_version").fetchone()[0]
        count, last = self.db.execute(
            "SELECT count(*), coalesce(max(id), 0) FROM filings"
        ).fetchone()
        return (int(version), int(count), int(last))

    def _refresh(self) -> None:
        """Drop what is kept in memory when a filing was written since it was read."""
        generation = self._data_version()
        if generation != self._generation:
            self._matrices.clear()
            self._facts.clear()
            self._uses_graph = None
            self._generation = generation

    def _matrix(self, filing_id: int | None) -> tuple[npt.NDArray[np.int64], Vectors]:
        import numpy as np  # noqa: PLC0415 (see the module docstring)

        self._refresh()
        if filing_id not in self._matrices:
            if filing_id is None:
                rows = self.db.execute("SELECT id, vector FROM chunks ORDER BY id").fetchall()
            else:
                rows = self.db.execute(
                    "SELECT id, vector FROM chunks WHERE filing_id = ? ORDER BY id", (filing_id,)
                ).fetchall()
            ids = np.fromiter((row[0] for row in rows), dtype=np.int64, count=len(rows))
            blob = b"".join(row[1] for row in rows)
            matrix = np.frombuffer(blob, dtype=np.float32).reshape(len(rows), -1 if rows else 0)
            if len(self._matrices) > 8:
                self._matrices.pop(next(iter(self._matrices)))
            self._matrices[filing_id] = (ids, matrix)
        return self._matrices[filing_id]

    def dense_search(self, vector: Vectors, filing_id: int | None, k: int) -> ScoredIds:
        """Exact cosine (vectors are unit length) over one filing or a small corpus; the vector
        graph's candidates, scored exactly, over a large corpus."""
        import numpy as np  # noqa: PLC0415 (see the module docstring)

        if filing_id is None and self._corpus_uses_graph():
            assert self.graph is not None
            return self.graph.search(vector, k)
        ids, matrix = self._matrix(filing_id)
        if not len(ids):
            return []
        scores = matrix @ vector.astype(np.float32)
        top = np.argpartition(-scores, min(k, len(ids) - 1))[:k]
        top = top[np.argsort(-scores[top])]
        return [(int(ids[i]), float(scores[i])) for i in top]

    def _corpus_uses_graph(self) -> bool:
        if self.graph is None:
            return False
        self._refresh()
        if self._uses_graph is None:
            self._uses_graph = chunk_count(self.db) >= self.graph_min_chunks
        return self._uses_graph

    def lexical_search(self, terms: Sequence[str], filing_id: int | None, k: int) -> ScoredIds:
        """BM25 through FTS5 over the given terms (any of them may match)."""
        if not terms:
            return []
        match = " OR ".join('"' + term.replace('"', "") + '"' for term in terms)
        scope = "AND c.filing_id = ?" if filing_id is not None else ""
        parameters: list[object] = [match, *([filing_id] if filing_id is not None else []), k]
        rows = self.db.execute(
            f"""
            SELECT c.id, bm25(chunks_fts) AS rank
            FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid
            WHERE chunks_fts MATCH ? {scope}
            ORDER BY rank LIMIT ?
            """,
            parameters,
        ).fetchall()
        return [(int(row[0]), -float(row[1])) for row in rows]

    def passages(self, chunk_ids: Sequence[int]) -> dict[int, Passage]:
        if not chunk_ids:
            return {}
        marks = ", ".join("?" for _ in chunk_ids)
        rows = self.db.execute(
            f'SELECT id, filing_id, ordinal, item, title, start, "end", kind, text '
            f"FROM chunks WHERE id IN ({marks})",
            list(chunk_ids),
        ).fetchall()
        return passages_from_rows(rows, self.filing_meta)

    def passages_at(self, filing_id: int, ordinals: Sequence[int]) -> dict[int, Passage]:
        if not ordinals:
            return {}
        marks = ", ".join("?" for _ in ordinals)
        rows = self.db.execute(
            f'SELECT id, filing_id, ordinal, item, title, start, "end", kind, text '
            f"FROM chunks WHERE filing_id = ? AND ordinal IN ({marks})",
            [filing_id, *ordinals],
        ).fetchall()
        found = passages_from_rows(rows, self.filing_meta)
        return {passage.chunk.ordinal: passage for passage in found.values()}

    def table_passages(self, filing_id: int) -> dict[int, Passage]:
        rows = self.db.execute(
            'SELECT id, filing_id, ordinal, item, title, start, "end", kind, text '
            "FROM chunks WHERE filing_id = ? AND kind = ?",
            (filing_id, ChunkKind.TABLE.value),
        ).fetchall()
        found = passages_from_rows(rows, self.filing_meta)
        return {passage.chunk.ordinal: passage for passage in found.values()}

    def displayed_facts(self, filing_id: int) -> list[FactRef]:
        """The filing's facts that its text displays, with the chunk that prints each (kept in
        memory per filing until the index changes, like the vector matrices)."""
        self._matrix(filing_id)
        cached = self._facts.get(filing_id)
        if cached is not None:
            return cached
        rows = self.db.execute(
            "SELECT f.concept, c.id AS chunk_id, f.period_end, f.dimensions, f.label, f.statement "
            "FROM facts f "
            "JOIN chunks c ON c.filing_id = f.filing_id AND c.ordinal = f.chunk_ordinal "
            "WHERE f.filing_id = ?",
            (filing_id,),
        ).fetchall()
        facts = [fact_ref_from_row(row) for row in rows]
        self._facts[filing_id] = facts
        return facts

    def vectors(self, chunk_ids: Sequence[int]) -> Vectors:
        import numpy as np  # noqa: PLC0415 (see the module docstring)

        if not chunk_ids:
            return np.zeros((0, 0), dtype=np.float32)
        marks = ", ".join("?" for _ in chunk_ids)
        found = {
            int(row[0]): row[1]
            for row in self.db.execute(
                f"SELECT id, vector FROM chunks WHERE id IN ({marks})", list(chunk_ids)
            )
        }
        blob = b"".join(found[i] for i in chunk_ids)
        return np.frombuffer(blob, dtype=np.float32).reshape(len(chunk_ids), -1)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
