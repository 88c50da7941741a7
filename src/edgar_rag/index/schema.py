"""What the index stores, independent of the database: the index identity, and the mapping
between values and the rows both stores read and write.

Each store runs its own SQL and hands its rows here; nothing here talks to a database.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import date
from typing import Any, Protocol

from edgar_rag.domain import (
    Accession,
    Chunk,
    ChunkKind,
    EmbedderIdentity,
    Fact,
    FactRef,
    FigureSource,
    FilingMeta,
    FilingStore,
    FilingSummary,
    Passage,
    Scope,
    Section,
    SourceFormat,
    StatementFound,
)
from edgar_rag.errors import EmptyIndexError, NotFoundError

SCHEMA_VERSION = 2
"""2: facts gain ``source`` (``xbrl`` or ``row``), ``label``, ``scale``, ``fiscal_year`` and
``statement``; filings gain ``statements`` (migration ``m002_row_figures`` in both stores)."""
FACT_COLUMNS = (
    "filing_id, concept, value, displayed, unit, decimals, period_start, period_end, dimensions, "
    '"offset", chunk_ordinal, source, label, scale, fiscal_year, statement'
)


class Row(Protocol):
    """A result row read by column name: a ``sqlite3.Row`` or a psycopg ``dict_row``."""

    def __getitem__(self, key: str, /) -> Any: ...


def identity_fields(identity: EmbedderIdentity) -> dict[str, str]:
    return {
        "embedder_model": identity.model,
        "embedder_dimensions": str(identity.dimensions),
        "embedder_normalisation": identity.normalisation,
    }


def identity_from_fields(fields: dict[str, str]) -> EmbedderIdentity | None:
    if "embedder_model" not in fields:
        return None
    return EmbedderIdentity(
        fields["embedder_model"],
        int(fields["embedder_dimensions"]),
        fields["embedder_normalisation"],
    )


def meta_row(meta: FilingMeta) -> dict[str, object]:
    """A filing's metadata as database column values."""
    return {
        "company": meta.company,
        "cik": meta.cik,
        "ticker": meta.ticker,
        "form": meta.form,
        "fiscal_year": meta.fiscal_year,
        "period_end": meta.period_end.isoformat() if meta.period_end else None,
        "accession": meta.accession,
        "filing_date": meta.filing_date.isoformat() if meta.filing_date else None,
        "url": meta.url,
        "years_reported": json.dumps(list(meta.years_reported)),
        "source": meta.source,
        "sha256": meta.sha256,
        "source_format": meta.source_format.value,
        "statements": json.dumps([_statement_fields(s) for s in meta.statements]),
    }


def _statement_fields(found: StatementFound) -> dict[str, object]:
    return {
        "kind": found.kind,
        "title": found.title,
        "page": found.page,
        "years": list(found.years),
        "rows": found.rows,
    }


def _statements(value: object) -> tuple[StatementFound, ...]:
    fields: list[dict[str, Any]] = json.loads(str(value)) if value else []
    return tuple(
        StatementFound(f["kind"], f["title"], f["page"], tuple(f["years"]), f["rows"])
        for f in fields
    )


def meta_from_row(row: Row) -> FilingMeta:
    """The inverse of ``meta_row``."""

    def day(value: object) -> date | None:
        return date.fromisoformat(str(value)) if value else None

    return FilingMeta(
        company=str(row["company"]),
        cik=int(str(row["cik"])) if row["cik"] is not None else None,
        ticker=str(row["ticker"]) if row["ticker"] else None,
        form=str(row["form"]),
        fiscal_year=int(str(row["fiscal_year"])),
        period_end=day(row["period_end"]),
        accession=Accession(str(row["accession"])) if row["accession"] else None,
        filing_date=day(row["filing_date"]),
        url=str(row["url"]) if row["url"] else None,
        years_reported=tuple(json.loads(str(row["years_reported"]))),
        source=str(row["source"]),
        sha256=str(row["sha256"]),
        source_format=SourceFormat(str(row["source_format"])),
        statements=_statements(row["statements"]),
    )


FilingsNamed = Callable[[str, object], Sequence[Row]]
"""The filing rows whose column (``ticker`` or ``cik``) holds a value, newest first."""


def resolve_indexed_scope(
    store: FilingStore, ticker: str | None, cik: int | None, fiscal_year: int | None
) -> Scope:
    """``store.resolve_scope``, or EmptyIndexError when the store holds no filing at all
    (instead of naming a company not indexed, or searching an empty corpus)."""
    try:
        scope = store.resolve_scope(ticker, cik, fiscal_year)
    except NotFoundError:
        if not store.counts()["filings"]:
            raise EmptyIndexError from None
        raise
    if scope.filing is None and not store.counts()["filings"]:
        raise EmptyIndexError
    return scope


def resolve_scope(
    filings_named: FilingsNamed, ticker: str | None, cik: int | None, fiscal_year: int | None
) -> Scope:
    """One filing by ticker or CIK (its latest year when none is given), or the corpus."""
    named = _scope_key(ticker, cik)
    if named is None:
        if fiscal_year is not None:
            raise NotFoundError("a fiscal year needs a ticker or CIK to go with it")
        return Scope()
    key, value, label = named
    row = _pick_filing(filings_named(key, value), label, fiscal_year)
    return Scope(int(row["id"]), meta_from_row(row))


def _scope_key(ticker: str | None, cik: int | None) -> tuple[str, object, str] | None:
    """The filings column, value and words that name a company, or None for the whole corpus."""
    if ticker is not None:
        return "ticker", ticker.upper(), f"ticker {ticker.upper()}"
    if cik is not None:
        return "cik", cik, f"CIK {cik}"
    return None


def _pick_filing(rows: Sequence[Row], label: str, fiscal_year: int | None) -> Row:
    """The filing row of the year asked, or the latest (rows come newest first); a NotFoundError
    naming the company, or listing its indexed years, when there is none."""
    if not rows:
        raise NotFoundError(f"{label} is not indexed")
    if fiscal_year is None:
        return rows[0]
    for row in rows:
        if row["fiscal_year"] == fiscal_year:
            return row
    years = ", ".join(str(row["fiscal_year"]) for row in reversed(rows))
    raise NotFoundError(
        f"{label} has no indexed filing for fiscal year {fiscal_year}; indexed years: {years}"
    )


def same_filing_key(meta: FilingMeta) -> tuple[str, int | str]:
    """The filings column and value that name the company of ``meta``: a newer filing of the
    same company, fiscal year and form replaces the older one."""
    if meta.cik is not None:
        return "cik", meta.cik
    return ("ticker", meta.ticker) if meta.ticker is not None else ("company", meta.company)


def summary_from_row(row: Row) -> FilingSummary:
    """A filing's summary from its columns and its ``items``, ``chunks`` and ``facts`` counts."""
    return FilingSummary(
        filing_id=row["filing_id"],
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
        statements=_statements(row["statements"]),
    )


def section_from_row(row: Row) -> Section:
    return Section(
        row["item"],
        row["part"],
        row["title"],
        row["start"],
        row["end"],
        bool(row["cross_reference"]),
    )


def chunk_from_row(row: Row) -> Chunk:
    return Chunk(
        row["ordinal"],
        row["item"],
        row["title"],
        row["start"],
        row["end"],
        row["text"],
        ChunkKind(row["kind"]),
    )


def passages_from_rows(
    rows: Sequence[Row], filing_meta: Callable[[int], FilingMeta]
) -> dict[int, Passage]:
    """Chunk rows (with their ``id`` and ``filing_id``) as passages, each filing read once."""
    filings = {fid: filing_meta(fid) for fid in {int(row["filing_id"]) for row in rows}}
    return {
        int(row["id"]): Passage(
            int(row["id"]),
            int(row["filing_id"]),
            chunk_from_row(row),
            filings[int(row["filing_id"])],
        )
        for row in rows
    }


def fact_from_row(row: Row) -> Fact:
    period_start = row["period_start"]
    return Fact(
        concept=row["concept"],
        value=row["value"],
        displayed=row["displayed"],
        unit=row["unit"],
        decimals=row["decimals"],
        period_start=as_date(period_start) if period_start else None,
        period_end=as_date(row["period_end"]),
        dimensions=_dimensions(row["dimensions"]),
        offset=row["offset"],
        chunk_ordinal=row["chunk_ordinal"],
        source=FigureSource(row["source"]),
        label=row["label"],
        scale=row["scale"],
        fiscal_year=row["fiscal_year"],
        statement=row["statement"],
    )


def fact_ref_from_row(row: Row) -> FactRef:
    """A displayed fact from its ``concept``, ``chunk_id``, ``period_end``, ``dimensions``,
    ``label`` and ``statement``."""
    return FactRef(
        str(row["concept"]),
        int(row["chunk_id"]),
        as_date(row["period_end"]),
        bool(_dimensions(row["dimensions"])),
        row["label"],
        row["statement"],
    )


def as_date(value: object) -> date:
    """A date column: ISO text in SQLite, a ``date`` from PostgreSQL."""
    return value if isinstance(value, date) else date.fromisoformat(str(value))


def _dimensions(value: object) -> tuple[tuple[str, str], ...]:
    """Axis and member pairs: JSON text in SQLite, decoded JSONB from PostgreSQL."""
    pairs: Any = json.loads(value) if isinstance(value, str) else value
    return tuple(tuple(pair) for pair in pairs)
