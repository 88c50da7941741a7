"""What the index stores, independent of the database: filing summaries and the index identity."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from edgar_rag.domain import Accession, EmbedderIdentity, FilingMeta, SourceFormat
from edgar_rag.errors import NotFoundError

SCHEMA_VERSION = 1


@dataclass(frozen=True, slots=True)
class FilingSummary:
    """One indexed filing, as ``edgar-rag filings`` lists it."""

    filing_id: int
    ticker: str | None
    cik: int | None
    company: str
    fiscal_year: int
    accession: str | None
    form: str
    items: int
    chunks: int
    facts: int
    years_reported: tuple[int, ...]
    source: str


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
    }


def meta_from_row(row: dict[str, object]) -> FilingMeta:
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
    )


def scope_key(ticker: str | None, cik: int | None) -> tuple[str, object, str] | None:
    """The filings column, value and words that name a company, or None for the whole corpus."""
    if ticker is not None:
        return "ticker", ticker.upper(), f"ticker {ticker.upper()}"
    if cik is not None:
        return "cik", cik, f"CIK {cik}"
    return None


def pick_filing(
    rows: Sequence[Mapping[str, Any]], label: str, fiscal_year: int | None
) -> Mapping[str, Any]:
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
