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
from edgar_rag.rules import ANNUAL_FORMS, QUARTERLY_FORM, filing_period, form_name

SCHEMA_VERSION = 3
"""2: facts gain ``source`` (``xbrl`` or ``row``), ``label``, ``scale``, ``fiscal_year`` and
``statement``; filings gain ``statements`` (migration ``m002_row_figures`` in both stores).
3: filings gain ``fiscal_quarter`` (10-Qs and earnings releases; migration ``m_quarters``)."""
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
        "fiscal_quarter": meta.fiscal_quarter,
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
        fiscal_quarter=_quarter(row["fiscal_quarter"]),
    )


def _quarter(value: object) -> int | None:
    return int(str(value)) if value is not None else None


FilingsNamed = Callable[[str, object], Sequence[Row]]
"""The filing rows whose column (``ticker`` or ``cik``) holds a value, newest first."""


def resolve_indexed_scope(
    store: FilingStore,
    ticker: str | None,
    cik: int | None,
    fiscal_year: int | None,
    *,
    form: str | None = None,
    fiscal_quarter: int | None = None,
) -> Scope:
    """``store.resolve_scope``, or EmptyIndexError when the store holds no filing at all
    (instead of naming a company not indexed, or searching an empty corpus)."""
    try:
        scope = store.resolve_scope(
            ticker, cik, fiscal_year, form=form, fiscal_quarter=fiscal_quarter
        )
    except NotFoundError:
        if not store.counts()["filings"]:
            raise EmptyIndexError from None
        raise
    if scope.filing is None and not store.counts()["filings"]:
        raise EmptyIndexError
    return scope


def resolve_scope(
    filings_named: FilingsNamed,
    ticker: str | None,
    cik: int | None,
    fiscal_year: int | None,
    *,
    form: str | None = None,
    fiscal_quarter: int | None = None,
) -> Scope:
    """One filing by ticker or CIK (its latest year when none is given), or the corpus.

    Without a form, a company's annual reports are chosen when it has any (a question of a year
    never lands on a 10-Q because one was indexed); a quarter alone means a 10-Q."""
    named = _scope_key(ticker, cik)
    if named is None:
        given = [
            name
            for name, value in (
                ("a fiscal year", fiscal_year),
                ("a form", form),
                ("a quarter", fiscal_quarter),
            )
            if value is not None
        ]
        if given:
            raise NotFoundError(f"{given[0]} needs a ticker or CIK to go with it")
        return Scope()
    key, value, label = named
    if form is None and fiscal_quarter is not None:
        form = QUARTERLY_FORM
    row = _pick_filing(filings_named(key, value), label, fiscal_year, form, fiscal_quarter)
    return Scope(int(row["id"]), meta_from_row(row))


def _scope_key(ticker: str | None, cik: int | None) -> tuple[str, object, str] | None:
    """The filings column, value and words that name a company, or None for the whole corpus."""
    if ticker is not None:
        return "ticker", ticker.upper(), f"ticker {ticker.upper()}"
    if cik is not None:
        return "cik", cik, f"CIK {cik}"
    return None


def _pick_filing(
    rows: Sequence[Row],
    label: str,
    fiscal_year: int | None,
    form: str | None,
    fiscal_quarter: int | None,
) -> Row:
    """The filing row of the form, year and quarter asked, else the latest (rows come newest
    year first, a year's latest quarter first); a NotFoundError naming the company, or listing
    what it has indexed, when there is none."""
    if not rows:
        raise NotFoundError(f"{label} is not indexed")
    if form is None:
        annual = [row for row in rows if row["form"] in ANNUAL_FORMS]
        kept = annual or list(rows)
    else:
        kept = [row for row in rows if row["form"] == form]
    asked = [
        row
        for row in kept
        if (fiscal_year is None or row["fiscal_year"] == fiscal_year)
        and (fiscal_quarter is None or row["fiscal_quarter"] == fiscal_quarter)
    ]
    if asked:
        return max(asked, key=_newest)
    wanted = " ".join(
        part
        for part in (
            form_name(form) if form else None,
            f"Q{fiscal_quarter}" if fiscal_quarter else None,
            f"fiscal year {fiscal_year}" if fiscal_year else None,
        )
        if part
    )
    ordered = sorted(rows, key=_newest)
    if all(row["form"] in ANNUAL_FORMS for row in ordered):
        indexed = "indexed years: " + ", ".join(str(row["fiscal_year"]) for row in ordered)
    else:
        indexed = "indexed: " + ", ".join(_describe(row) for row in ordered)
    raise NotFoundError(f"{label} has no indexed filing for {wanted}; {indexed}")


def _newest(row: Row) -> tuple[int, int, str]:
    return (int(row["fiscal_year"]), int(row["fiscal_quarter"] or 0), str(row["period_end"] or ""))


def _describe(row: Row) -> str:
    """A filing as a message lists it: ``FY2024``, ``10-Q Q2 FY2023``, ``8-K 2022-07-01``."""
    ended = date.fromisoformat(str(row["period_end"])[:10]) if row["period_end"] else None
    return filing_period(
        str(row["form"]), int(row["fiscal_year"]), _quarter(row["fiscal_quarter"]), ended
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
        fiscal_quarter=_quarter(row["fiscal_quarter"]),
        period_end=date.fromisoformat(str(row["period_end"])[:10]) if row["period_end"] else None,
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
