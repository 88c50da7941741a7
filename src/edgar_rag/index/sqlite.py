"""The embedded index: one SQLite file with filings, sections, chunks (FTS5 and float32 vectors)
and XBRL facts.

Each filing is written in one transaction, so a killed ingest leaves no half filing. The file
records which embedder built it and refuses to mix in vectors from another.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from edgar_rag.domain import EmbedderIdentity, FilingMeta, ParsedFiling, Vectors
from edgar_rag.errors import IndexMismatchError, SourceError
from edgar_rag.index.schema import (
    SCHEMA_VERSION,
    FilingSummary,
    identity_fields,
    identity_from_fields,
    meta_from_row,
    meta_row,
)

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

MIGRATIONS: tuple[tuple[str, str], ...] = (("m001_initial", _M001_INITIAL),)
"""Named migrations, each run once, in order, inside its own transaction."""


class SqliteIndex:
    """The index in one SQLite file (or ``:memory:``)."""

    def __init__(self, path: Path | str) -> None:
        self.path = str(path)
        try:
            self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise SourceError(f"cannot open the index {self.path}: {exc}") from exc
        self.db.row_factory = sqlite3.Row
        self.db.execute("PRAGMA foreign_keys = ON")
        self.db.execute("PRAGMA journal_mode = WAL")
        self.db.execute("PRAGMA synchronous = NORMAL")
        self._migrate()

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
        if len(vectors) != len(parsed.chunks):
            raise ValueError("one vector per chunk is required")
        meta = parsed.meta
        row = meta_row(meta) | {"text": parsed.text, "ingested_at": _now()}
        with self._transaction() as db:
            for filing_id in self._same_filing(meta):
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
                "INSERT INTO facts VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
                    )
                    for f in parsed.facts
                ],
            )
        return filing_id

    def _same_filing(self, meta: FilingMeta) -> list[int]:
        if meta.cik is not None:
            key, value = "cik", str(meta.cik)
        elif meta.ticker is not None:
            key, value = "ticker", meta.ticker
        else:
            key, value = "company", meta.company
        rows = self.db.execute(
            f"SELECT id FROM filings WHERE {key} = ? AND fiscal_year = ? AND form = ?",
            (value, meta.fiscal_year, meta.form),
        )
        return [int(row[0]) for row in rows]

    def filings(self) -> list[FilingSummary]:
        """Every indexed filing, by ticker (or company) and fiscal year."""
        rows = self.db.execute(
            """
            SELECT f.*,
                (SELECT count(*) FROM sections s WHERE s.filing_id = f.id AND s.item LIKE 'Item %')
                    AS items,
                (SELECT count(*) FROM chunks c WHERE c.filing_id = f.id) AS chunks,
                (SELECT count(*) FROM facts x WHERE x.filing_id = f.id) AS facts
            FROM filings f
            ORDER BY coalesce(f.ticker, f.company), f.fiscal_year
            """
        )
        return [
            FilingSummary(
                filing_id=row["id"],
                ticker=row["ticker"],
                cik=row["cik"],
                company=row["company"],
                fiscal_year=row["fiscal_year"],
                accession=row["accession"],
                form=row["form"],
                items=row["items"],
                chunks=row["chunks"],
                facts=row["facts"],
                years_reported=tuple(json.loads(row["years_reported"])),
                source=row["source"],
            )
            for row in rows
        ]

    def filing_meta(self, filing_id: int) -> FilingMeta:
        row = self.db.execute("SELECT * FROM filings WHERE id = ?", (filing_id,)).fetchone()
        return meta_from_row(dict(row))

    def counts(self) -> dict[str, int]:
        """Rows per table, for health checks and benchmarks."""
        return {
            table: int(self.db.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
            for table in ("filings", "sections", "chunks", "facts")
        }


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
