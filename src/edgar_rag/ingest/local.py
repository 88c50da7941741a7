"""Finding filings on disk: a file, a folder, or the corpus layout with its ``manifest.csv``.

Hints come from the manifest when a file is listed there, else from the path: the corpus layout
``<TICKER>/<FISCAL_YEAR>/<file>`` or a FinanceBench name (``<COMPANY>_<YEAR>_10K.pdf``,
``_2023Q2_10Q``, ``_2023Q4_EARNINGS``, ``_2022_8K_dated-2022-07-01``: form, quarter, date), whose
company is FinanceBench's (``Best Buy``, from ``financebench_document_information.jsonl`` beside
the PDFs' folder) or else the name's (``BESTBUY``). A path names the company only when the
filing does not: the registrant's name on the cover of a PDF or text filing comes first
(``Best Buy Co., Inc.``), and edgartools' list of companies gives the CIK and ticker of either
name when it is one company's.
"""

from __future__ import annotations

import csv
import gzip
import json
import re
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path

from edgar_rag.domain import FilingHints, RawFiling, parse_accession
from edgar_rag.errors import NotFoundError, ParseError
from edgar_rag.ingest.pipeline import sniff_format
from edgar_rag.ingest.plain import read_cover_name
from edgar_rag.ingest.registrants import CompanyList
from edgar_rag.rules import canonical_form

_GZIP_MAGIC = b"\x1f\x8b"
FILING_SUFFIXES = frozenset({".htm", ".html", ".xhtml", ".txt", ".pdf"})
_YEAR_FOLDER = re.compile(r"^(?:19|20)\d{2}$")
_TICKER_FOLDER = re.compile(r"^[A-Z][A-Z0-9.\-]{0,9}$")
_FINANCEBENCH_NAME = re.compile(
    r"^(?P<company>.+?)_(?P<year>(?:19|20)\d{2})(?:Q(?P<quarter>[1-4]))?_(?P<form>10K|10Q|8K|EARNINGS)"
    r"(?:_dated[-_](?P<dated>\d{4}-\d{2}-\d{2}))?$",
    re.IGNORECASE,
)
_FINANCEBENCH_DOCUMENTS = "financebench_document_information.jsonl"


@dataclass(frozen=True, slots=True)
class LocalFiling:
    """A filing file found on disk, with what its manifest or path says about it."""

    path: Path
    hints: FilingHints
    named_by_path: bool = False
    """The hints come from the path, not a manifest: the cover's name, when found, comes first."""
    companies: CompanyList | None = None
    """Gives the CIK and ticker of a company that only its name identifies."""

    @property
    def name(self) -> str:
        return str(self.path)

    def load(self) -> RawFiling:
        """The file's bytes, decompressed when it is gzipped, and its hints."""
        try:
            content = self.path.read_bytes()
            if content[:2] == _GZIP_MAGIC:
                content = gzip.decompress(content)
        except (OSError, EOFError, zlib.error) as exc:
            raise ParseError(f"{self.path}: cannot read ({exc})") from exc
        hints = self.hints
        if self.named_by_path:
            hints = name_from_cover(content, hints, self.companies)
        return RawFiling(content, str(self.path), hints)

    def matches(self, tickers: Sequence[str], years: Sequence[int]) -> bool:
        """False only when the hints rule the filing out; unknown fields are decided later."""
        ticker, year = self.hints.ticker, self.hints.fiscal_year
        if tickers and ticker is not None and ticker.upper() not in tickers:
            return False
        return not (years and year is not None and year not in years)


def find_local_filings(
    paths: Iterable[Path], companies: CompanyList | None = None
) -> list[LocalFiling]:
    """Every filing file under the given paths, in a stable order; a missing path is an error.

    ``companies`` gives a filing named by its path or cover its CIK and ticker (None: none)."""
    found: dict[Path, LocalFiling] = {}
    documents: dict[Path, dict[str, str]] = {}
    for path in paths:
        if not path.exists():
            raise NotFoundError(f"{path}: no such file or folder")
        files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
        manifests = _manifests(path)
        for file in files:
            if _filing_suffix(file) not in FILING_SUFFIXES and file != path:
                continue
            resolved = file.resolve()
            listed = manifests.get(resolved)
            if listed is None and file.parent not in documents:
                documents[file.parent] = _financebench_companies(file.parent)
            local = (
                LocalFiling(file, listed)
                if listed is not None
                else LocalFiling(
                    file,
                    _hints_from_path(file, documents[file.parent]),
                    named_by_path=True,
                    companies=companies,
                )
            )
            found.setdefault(resolved, local)
    return list(found.values())


def name_from_cover(
    content: bytes, hints: FilingHints, companies: CompanyList | None = None
) -> FilingHints:
    """The hints with the registrant's name on the filing's cover, when it has one, for the
    company; and the CIK and ticker of the cover's name, else of the hinted one, when the hints
    have neither and the list knows the name as one company's."""
    cover_name = read_cover_name(content, sniff_format(content))
    names = [name for name in (cover_name, hints.company) if name]
    hints = replace(hints, company=names[0] if names else None)
    if companies is None or hints.cik is not None or hints.ticker is not None:
        return hints
    for name in names:
        registrant = companies.identify(name)
        if registrant is not None:
            return replace(hints, cik=registrant.cik, ticker=registrant.ticker)
    return hints


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


def _financebench_companies(folder: Path) -> dict[str, str]:
    """FinanceBench's company for each document name (``BESTBUY_2019_10K``: ``Best Buy``),
    from its document list beside the PDFs' folder or in it; lines it cannot read are left out."""
    companies: dict[str, str] = {}
    for listing in (folder.parent / _FINANCEBENCH_DOCUMENTS, folder / _FINANCEBENCH_DOCUMENTS):
        if not listing.is_file():
            continue
        for line in listing.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                document = json.loads(line)
            except json.JSONDecodeError:
                continue
            if not isinstance(document, dict):
                continue
            name, company = document.get("doc_name"), document.get("company")
            if isinstance(name, str) and isinstance(company, str) and company.strip():
                companies[name.lower()] = company.strip()
    return companies


def _hints_from_path(file: Path, financebench: dict[str, str]) -> FilingHints:
    stem = file.name.removesuffix(".gz").rsplit(".", 1)[0]
    match = _FINANCEBENCH_NAME.match(stem)
    if match:
        company = financebench.get(stem.lower()) or match["company"].replace("_", " ")
        quarter = match["quarter"]
        return FilingHints(
            company=company,
            fiscal_year=int(match["year"]),
            form=canonical_form(match["form"]),
            fiscal_quarter=int(quarter) if quarter else None,
            filing_date=_day(match["dated"]),
        )
    year_folder, ticker_folder = file.parent.name, file.parent.parent.name
    if _YEAR_FOLDER.match(year_folder) and _TICKER_FOLDER.match(ticker_folder):
        return FilingHints(ticker=ticker_folder, fiscal_year=int(year_folder))
    return FilingHints()


def _day(text: str | None) -> date | None:
    return date.fromisoformat(text) if text else None
