"""The SEC EDGAR client: tickers to CIKs, 10-Ks from the submissions API, documents into a cache.

It owns SEC etiquette (a contact in every User-Agent, at most ``max_requests_per_s`` requests,
backoff on 429 and 5xx) and the on-disk cache. It does not parse filings: ``download`` hands back
a ``RawFiling`` for ``ingest_filing``. Everything it reads from SEC is validated before use.
"""

from __future__ import annotations

import logging
import os
import re
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Annotated, NamedTuple, TypeVar

import httpx
from pydantic import (
    BaseModel,
    BeforeValidator,
    Field,
    TypeAdapter,
    ValidationError,
    model_validator,
)

from edgar_rag.domain import Accession, FilingHints, RawFiling, parse_accession
from edgar_rag.errors import ConfigError, NotFoundError, ParseError, SourceError
from edgar_rag.version import __version__

log = logging.getLogger(__name__)

TICKERS_URL = "https://www.sec.gov/files/company_tickers.json"
SUBMISSIONS_URL = "https://data.sec.gov/submissions/"
ARCHIVES_URL = "https://www.sec.gov/Archives/edgar/data/"
TICKERS_MAX_AGE_S = 24 * 3600.0
RETRYABLE_STATUSES = frozenset({429, 500, 502, 503, 504})
_BACKOFF_BASE_S = 1.0
# A misconfigured or hostile Retry-After must not stall an ingest for hours.
_MAX_RETRY_AFTER_S = 60.0
_STATUS_HINTS = {
    403: " (SEC refuses requests without a contact, or above 10 per second)",
    404: " (not found)",
}
_FILE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_PAGE_NAME = r"^CIK\d{10}-submissions-\d{3}\.json$"

_Model = TypeVar("_Model", bound=BaseModel)
_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class Company:
    """A filer as EDGAR's ticker list names it."""

    ticker: str
    cik: int
    name: str


@dataclass(frozen=True, slots=True)
class EdgarFiling:
    """One 10-K as the submissions API lists it."""

    company: str
    ticker: str
    cik: int
    accession: Accession
    form: str
    filing_date: date
    report_date: date
    primary_document: str

    @property
    def url(self) -> str:
        folder = self.accession.replace("-", "")
        return f"{ARCHIVES_URL}{self.cik}/{folder}/{self.primary_document}"

    def hints(self) -> FilingHints:
        """What EDGAR says about the filing; the fiscal year is left to the parser."""
        return FilingHints(
            ticker=self.ticker,
            cik=self.cik,
            company=self.company,
            period_end=self.report_date,
            form=self.form,
            accession=self.accession,
            filing_date=self.filing_date,
            url=self.url,
        )


class _TickerEntry(BaseModel):
    cik_str: int
    ticker: str
    title: str


_TICKERS = TypeAdapter(dict[str, _TickerEntry])


class _Row(NamedTuple):
    accession: str
    filing_date: date
    report_date: date
    primary_document: str


class _FilingColumns(BaseModel):
    """The submissions API's parallel arrays, one entry per filing."""

    accession_number: list[str] = Field(alias="accessionNumber")
    filing_date: list[date] = Field(alias="filingDate")
    report_date: list[Annotated[date | None, BeforeValidator(lambda value: value or None)]] = Field(
        alias="reportDate"
    )
    form: list[str]
    primary_document: list[str] = Field(alias="primaryDocument")

    @model_validator(mode="after")
    def _same_lengths(self) -> _FilingColumns:
        columns = (self.filing_date, self.report_date, self.form, self.primary_document)
        if any(len(column) != len(self.accession_number) for column in columns):
            raise ValueError("the filing arrays differ in length")
        return self

    def ten_ks(self) -> Iterator[_Row]:
        """The rows of form 10-K (not 10-K/A) that have a report date."""
        rows = zip(
            self.accession_number,
            self.filing_date,
            self.report_date,
            self.form,
            self.primary_document,
            strict=True,
        )
        for accession, filing_date, report_date, form, document in rows:
            if form == "10-K" and report_date is not None:
                yield _Row(accession, filing_date, report_date, document)


class _PageRef(BaseModel):
    name: str = Field(pattern=_PAGE_NAME)


class _Filings(BaseModel):
    recent: _FilingColumns
    files: list[_PageRef] = []


class _Submissions(BaseModel):
    filings: _Filings


def _matches(report_date: date, year: int) -> bool:
    """SEC has no fiscal year: a year ending in January to March may be labelled the year before."""
    return report_date.year == year or (report_date.year == year + 1 and report_date.month <= 3)


def _years_with_ten_k(columns: _FilingColumns) -> set[int]:
    return {
        year
        for row in columns.ten_ks()
        for year in (row.report_date.year - 1, row.report_date.year)
        if _matches(row.report_date, year)
    }


def _to_filing(company: Company, url: str, row: _Row) -> EdgarFiling:
    document = row.primary_document
    if not _FILE_NAME.match(document):
        raise SourceError(f"malformed response from {url}: primary document {document!r}")
    try:
        accession = parse_accession(row.accession)
    except ParseError as exc:
        raise SourceError(f"malformed response from {url}: {exc}") from exc
    return EdgarFiling(
        company=company.name,
        ticker=company.ticker,
        cik=company.cik,
        accession=accession,
        form="10-K",
        filing_date=row.filing_date,
        report_date=row.report_date,
        primary_document=document,
    )


class EdgarClient:
    """Reads SEC EDGAR politely: a contact in every request, a rate limit, retries, a cache."""

    def __init__(
        self,
        http: httpx.Client,
        contact: str | None,
        cache_dir: Path,
        *,
        max_requests_per_s: float = 10,
        max_retries: int = 4,
        timeout_s: float = 30,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        now: Callable[[], float] = time.time,
    ) -> None:
        contact = (contact or "").strip()
        if not contact or not contact.isascii() or not contact.isprintable():
            raise ConfigError(
                "EDGAR_RAG_SEC_CONTACT must be set: SEC requires a name and e-mail in the "
                "User-Agent of every request, in plain ASCII, e.g. 'Jane Doe jane@example.com'"
            )
        if max_requests_per_s <= 0 or max_retries < 0:
            raise ValueError(f"invalid limits: {max_requests_per_s}/s, {max_retries} retries")
        self._http = http
        self._cache_dir = cache_dir / "edgar"
        self._headers = {
            "User-Agent": f"edgar-rag/{__version__} {contact}",
            "Accept-Encoding": "gzip, deflate",
        }
        self._interval_s = 1.0 / max_requests_per_s
        self._max_retries = max_retries
        self._timeout_s = timeout_s
        self._clock = clock
        self._sleep = sleep
        self._now = now
        self._next_slot_s = float("-inf")

    def resolve_tickers(self, tickers: Iterable[str]) -> dict[str, Company]:
        """Look tickers up in any case (``BRK.B`` as ``BRK-B``), keyed as the caller wrote them."""
        by_ticker: dict[str, Company] = {}
        for entry in self._ticker_entries().values():
            by_ticker.setdefault(
                entry.ticker.upper(), Company(entry.ticker.upper(), entry.cik_str, entry.title)
            )
        wanted = {ticker: ticker.strip().upper().replace(".", "-") for ticker in tickers}
        unknown = [edgar for edgar in wanted.values() if edgar not in by_ticker]
        if unknown:
            raise NotFoundError(f"unknown ticker(s) on EDGAR: {', '.join(unknown)}")
        return {ticker: by_ticker[edgar] for ticker, edgar in wanted.items()}

    def annual_reports(self, company: Company, years: Iterable[int]) -> list[EdgarFiling]:
        """The 10-Ks (not 10-K/A) whose report date matches one of ``years``, oldest first.

        A year Y matches a report date in Y or in January to March of Y+1, so a year may yield
        two filings; the caller confirms the fiscal year from each document.
        """
        wanted = set(years)
        url = f"{SUBMISSIONS_URL}CIK{company.cik:010d}.json"
        submissions = self._get_model(url, _Submissions)
        pages = [(url, submissions.filings.recent)]
        found = _years_with_ten_k(submissions.filings.recent)
        for ref in submissions.filings.files:
            if found >= wanted:
                break
            page_url = SUBMISSIONS_URL + ref.name
            pages.append((page_url, self._get_model(page_url, _FilingColumns)))
            found |= _years_with_ten_k(pages[-1][1])
        if missing := sorted(wanted - found):
            raise NotFoundError(
                f"no 10-K for {company.ticker} in {', '.join(map(str, missing))}; "
                f"years with a 10-K: {', '.join(map(str, sorted(found))) or 'none'}"
            )
        filings = {
            filing.accession: filing
            for page_url, columns in pages
            for row in columns.ten_ks()
            if any(_matches(row.report_date, year) for year in wanted)
            for filing in [_to_filing(company, page_url, row)]
        }
        return sorted(filings.values(), key=lambda filing: (filing.report_date, filing.accession))

    def download(self, filing: EdgarFiling) -> RawFiling:
        """The filing's primary document, from the cache or else from EDGAR into the cache."""
        path = self._cache_dir / str(filing.cik) / filing.accession / filing.primary_document
        if path.is_file():
            log.debug("edgar_cache_hit", extra={"path": str(path), "url": filing.url})
            content = path.read_bytes()
        else:
            content = self._get(filing.url).content
            _write_atomically(path, content)
        return RawFiling(content=content, source=filing.url, hints=filing.hints())

    def _ticker_entries(self) -> dict[str, _TickerEntry]:
        path = self._cache_dir / "company_tickers.json"
        if path.is_file() and self._now() - path.stat().st_mtime < TICKERS_MAX_AGE_S:
            try:
                return _TICKERS.validate_json(path.read_bytes())
            except ValidationError:
                log.warning("edgar_cache_invalid", extra={"path": str(path)})
        content = self._get(TICKERS_URL).content
        entries = _validate(TICKERS_URL, lambda: _TICKERS.validate_json(content))
        _write_atomically(path, content)
        return entries

    def _get_model(self, url: str, model: type[_Model]) -> _Model:
        content = self._get(url).content
        return _validate(url, lambda: model.model_validate_json(content))

    def _get(self, url: str) -> httpx.Response:
        last = "no answer"
        attempts = self._max_retries + 1
        for attempt in range(attempts):
            self._wait_for_slot()
            started_s = self._clock()
            try:
                response = self._http.get(url, headers=self._headers, timeout=self._timeout_s)
            except httpx.TransportError as exc:
                last = f"error {type(exc).__name__}"
                delay_s = _BACKOFF_BASE_S * 2**attempt
            except httpx.HTTPError as exc:
                raise SourceError(f"GET {url} failed: {type(exc).__name__}: {exc}") from exc
            else:
                status = response.status_code
                duration_s = round(self._clock() - started_s, 3)
                fields = {"url": url, "status": status, "attempt": attempt + 1}
                log.debug("edgar_request", extra={**fields, "duration_s": duration_s})
                if response.is_success:
                    return response
                if status not in RETRYABLE_STATUSES:
                    hint = _STATUS_HINTS.get(status, "")
                    raise SourceError(f"GET {url} answered status {status}{hint}")
                last = f"status {status}"
                retry_after_s = _retry_after_s(response)
                delay_s = _BACKOFF_BASE_S * 2**attempt if retry_after_s is None else retry_after_s
            if attempt + 1 < attempts:
                log.info(
                    "edgar_retry",
                    extra={"url": url, "last": last, "attempt": attempt + 1, "delay_s": delay_s},
                )
                self._sleep(delay_s)
        raise SourceError(f"GET {url} failed after {attempts} attempts; last {last}")

    def _wait_for_slot(self) -> None:
        """Space requests ``1 / max_requests_per_s`` apart, so no 1-second window holds more."""
        now_s = self._clock()
        if now_s < self._next_slot_s:
            log.debug("edgar_rate_limited", extra={"delay_s": self._next_slot_s - now_s})
            self._sleep(self._next_slot_s - now_s)
            now_s = self._clock()
        self._next_slot_s = max(now_s, self._next_slot_s) + self._interval_s


def _validate(url: str, parse: Callable[[], _T]) -> _T:
    try:
        return parse()
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "body"
        raise SourceError(f"malformed response from {url}: {where}: {first['msg']}") from exc


def _retry_after_s(response: httpx.Response) -> float | None:
    value = response.headers.get("Retry-After", "").strip()
    return min(float(value), _MAX_RETRY_AFTER_S) if value.isdigit() else None


def _write_atomically(path: Path, content: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(descriptor, "wb") as file:
            file.write(content)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
