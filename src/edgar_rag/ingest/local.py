"""Finding filings on disk: a file, a folder, or the corpus layout with its ``manifest.csv``.

Hints come from the manifest when a file is listed there, else from the path: the corpus layout
``<TICKER>/<FISCAL_YEAR>/<file>`` or a FinanceBench name ``<COMPANY>_<YEAR>_10K.pdf``.
"""

from __future__ import annotations

import csv
import gzip
import re
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from edgar_rag.domain import FilingHints, RawFiling, parse_accession
from edgar_rag.errors import NotFoundError, ParseError

_GZIP_MAGIC = b"\x1f\x8b"
FILING_SUFFIXES = frozenset({".htm", ".html", ".xhtml", ".txt", ".pdf"})
_YEAR_FOLDER = re.compile(r"^(?:19|20)\d{2}$")
_TICKER_FOLDER = re.compile(r"^[A-Z][A-Z0-9.\-]{0,9}$")
_FINANCEBENCH_NAME = re.compile(r"^(?P<company>.+?)_(?P<year>(?:19|20)\d{2})_10K$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class LocalFiling:
    """A filing file found on disk, with what its manifest or path says about it."""

    path: Path
    hints: FilingHints

    @property
    def name(self) -> str:
        return str(self.path)

    def load(self) -> RawFiling:
        """The file's bytes, decompressed when it is gzipped."""
        try:
            content = self.path.read_bytes()
            if content[:2] == _GZIP_MAGIC:
                content = gzip.decompress(content)
        except (OSError, EOFError, zlib.error) as exc:
            raise ParseError(f"{self.path}: cannot read ({exc})") from exc
        return RawFiling(content, str(self.path), self.hints)

    def matches(self, tickers: Sequence[str], years: Sequence[int]) -> bool:
        """False only when the hints rule the filing out; unknown fields are decided later."""
        ticker, year = self.hints.ticker, self.hints.fiscal_year
        if tickers and ticker is not None and ticker.upper() not in tickers:
            return False
        return not (years and year is not None and year not in years)


def find_local_filings(paths: Iterable[Path]) -> list[LocalFiling]:
    """Every filing file under the given paths, in a stable order; a missing path is an error."""
    found: dict[Path, LocalFiling] = {}
    for path in paths:
        if not path.exists():
            raise NotFoundError(f"{path}: no such file or folder")
        files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
        manifests = _manifests(path)
        for file in files:
            if _filing_suffix(file) not in FILING_SUFFIXES and file != path:
                continue
            resolved = file.resolve()
            hints = manifests.get(resolved) or _hints_from_path(file)
            found.setdefault(resolved, LocalFiling(file, hints))
    return list(found.values())


def _manifests(path: Path) -> dict[Path, FilingHints]:
    """Hints from every ``manifest.csv`` at or under ``path`` (or beside a single file)."""
    folder = path if path.is_dir() else path.parent
    candidates = list(folder.rglob("manifest.csv")) if path.is_dir() else []
    candidates += [p / "manifest.csv" for p in (folder, folder.parent, folder.parent.parent)]
    hints: dict[Path, FilingHints] = {}
    for manifest in dict.fromkeys(candidates):
        if manifest.is_file():
            hints.update(read_manifest(manifest))
    return hints


def read_manifest(manifest: Path) -> dict[Path, FilingHints]:
    """Rows of the corpus manifest, keyed by the resolved path of each filing."""
    corpus_root = manifest.parent.parent if manifest.parent.name == "filings" else manifest.parent
    hints: dict[Path, FilingHints] = {}
    with manifest.open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            if not row.get("path"):
                continue
            hints[(corpus_root / row["path"]).resolve()] = FilingHints(
                ticker=row.get("ticker") or None,
                cik=int(row["cik"]) if row.get("cik") else None,
                company=row.get("company") or None,
                fiscal_year=int(row["fiscal_year"]) if row.get("fiscal_year") else None,
                period_end=_day(row.get("period_end")),
                form=row.get("form") or None,
                accession=parse_accession(row["accession"]) if row.get("accession") else None,
                filing_date=_day(row.get("filing_date")),
                url=row.get("url") or None,
            )
    return hints


def _filing_suffix(file: Path) -> str:
    name = file.name.lower().removesuffix(".gz")
    return Path(name).suffix


def _hints_from_path(file: Path) -> FilingHints:
    match = _FINANCEBENCH_NAME.match(file.name.removesuffix(".gz").rsplit(".", 1)[0])
    if match:
        return FilingHints(
            company=match["company"].replace("_", " "), fiscal_year=int(match["year"]), form="10-K"
        )
    year_folder, ticker_folder = file.parent.name, file.parent.parent.name
    if _YEAR_FOLDER.match(year_folder) and _TICKER_FOLDER.match(ticker_folder):
        return FilingHints(ticker=ticker_folder, fiscal_year=int(year_folder))
    return FilingHints()


def _day(text: str | None) -> date | None:
    return date.fromisoformat(text) if text else None
