"""What the index stores, independent of the database: filing summaries and the index identity."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date

from edgar_rag.domain import Accession, EmbedderIdentity, FilingMeta, SourceFormat

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
