"""The shared corpus's filings as the narrative question sets are checked against them: each
filing parsed once per test run by ``ingest_filing`` and its text grouped by Item."""

from __future__ import annotations

import csv
from collections import defaultdict
from functools import cache
from pathlib import Path

from edgar_rag.domain import RawFiling
from edgar_rag.ingest.pipeline import ingest_filing

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
MANIFEST = CORPUS / "filings" / "manifest.csv"

# The companies of the corpus manifest, for when the corpus is not next to the repository.
CORPUS_TICKERS = frozenset(
    {"AAPL", "NVDA", "AMZN", "TSLA", "WMT", "HD", "JNJ", "META"}
    | {"WFC", "V", "PGR", "UNP", "BA", "PG", "MCD", "GOOGL"}
)


@cache
def manifest() -> tuple[dict[str, str], ...]:
    """The corpus manifest's rows."""
    with MANIFEST.open(newline="", encoding="utf-8") as handle:
        return tuple(csv.DictReader(handle))


def filing_paths() -> dict[tuple[str, int], Path]:
    """Each filing of the manifest by ``(ticker, fiscal_year)``."""
    return {(row["ticker"], int(row["fiscal_year"])): CORPUS / row["path"] for row in manifest()}


@cache
def item_texts(ticker: str, fiscal_year: int) -> dict[str, tuple[str, ...]]:
    """The parsed text of each section of one filing, by the Item our parser names it."""
    path = filing_paths()[ticker, fiscal_year]
    parsed = ingest_filing(RawFiling(path.read_bytes(), str(path)))
    items: dict[str, list[str]] = defaultdict(list)
    for section in parsed.sections:
        items[section.item].append(parsed.text[section.start : section.end])
    return {item: tuple(texts) for item, texts in items.items()}
