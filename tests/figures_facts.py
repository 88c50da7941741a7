"""Real facts for the figures tests: the metric library's facts of HD 2024 and 2023, AAPL 2025
and MCD 2023 as build/corpus.db stores them, copied to tests/data/figures/facts.json (see its
README) so the tests run without the corpus."""

from __future__ import annotations

import json
from datetime import date
from functools import cache
from pathlib import Path
from typing import Any

from edgar_rag.domain import Accession, Fact, FilingMeta, SourceFormat
from edgar_rag.figures.resolve import FilingFigures

FACTS = Path(__file__).parent / "data" / "figures" / "facts.json"
FINANCEBENCH = (
    Path(__file__).parents[1].parent / "shared" / "corpus" / "financebench"
) / "financebench_open_source.jsonl"
"""FinanceBench's questions in the shared corpus, when it is there (tests that read it skip
otherwise)."""


@cache
def corpus_figures() -> dict[str, FilingFigures]:
    """Each copied filing's figures by ``TICKER-FY`` (``HD-2024``)."""
    raw = json.loads(FACTS.read_text(encoding="utf-8"))
    figures = (_filing(entry) for entry in raw["filings"])
    return {f"{f.meta.ticker}-{f.meta.fiscal_year}": f for f in figures}


def _filing(entry: dict[str, Any]) -> FilingFigures:
    m = entry["meta"]
    meta = FilingMeta(
        company=m["company"], cik=m["cik"], ticker=m["ticker"], form=m["form"],
        fiscal_year=m["fiscal_year"], period_end=date.fromisoformat(m["period_end"]),
        accession=Accession(m["accession"]), filing_date=None, url=None,
        years_reported=tuple(m["years_reported"]), source="build/corpus.db", sha256="",
        source_format=SourceFormat.HTML,
    )  # fmt: skip
    facts = tuple(
        Fact(
            concept=f["concept"],
            value=f["value"],
            displayed=f["displayed"],
            unit=f["unit"],
            decimals=f["decimals"],
            period_start=date.fromisoformat(f["period_start"]) if f["period_start"] else None,
            period_end=date.fromisoformat(f["period_end"]),
            dimensions=tuple((axis, member) for axis, member in f["dimensions"]),
            offset=f["offset"],
            chunk_ordinal=f["chunk_ordinal"],
        )
        for f in entry["facts"]
    )
    return FilingFigures(entry["filing_id"], meta, facts)
