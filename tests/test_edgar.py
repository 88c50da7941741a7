"""The EDGAR client against a fake SEC served through ``httpx.MockTransport``: no network."""

from __future__ import annotations

import gzip
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from edgar_rag import __version__
from edgar_rag.domain import Accession, FilingHints
from edgar_rag.errors import ConfigError, NotFoundError, SourceError
from edgar_rag.ingest.edgar import Company, EdgarClient, EdgarFiling

CONTACT = "Jane Doe jane@example.com"
TICKERS_URL = "https://www.sec.gov/files/company_tickers.json"
APPLE = Company(ticker="AAPL", cik=320193, name="Apple Inc.")
APPLE_URL = "https://data.sec.gov/submissions/CIK0000320193.json"
APPLE_PAGE_1 = "https://data.sec.gov/submissions/CIK0000320193-submissions-001.json"
APPLE_PAGE_2 = "https://data.sec.gov/submissions/CIK0000320193-submissions-002.json"
DOCUMENT_URL = "https://www.sec.gov/Archives/edgar/data/320193/000032019325000079/aapl-20250927.htm"
DOCUMENT = b"<html><body><p>Apple Inc. Form 10-K for the fiscal year ended September 27, 2025"

TICKERS = {
    "0": {"cik_str": 320193, "ticker": "AAPL", "title": "Apple Inc."},
    "1": {"cik_str": 789019, "ticker": "MSFT", "title": "MICROSOFT CORP"},
    "2": {"cik_str": 1067983, "ticker": "BRK-B", "title": "BERKSHIRE HATHAWAY INC"},
}

FilingRow = tuple[str, str, str, str, str]
"""accession, filing date, report date, form, primary document"""

APPLE_RECENT: list[FilingRow] = [
    ("0000320193-25-000079", "2025-10-31", "2025-09-27", "10-K", "aapl-20250927.htm"),
    ("0000320193-25-000073", "2025-08-01", "2025-06-28", "10-Q", "aapl-20250628.htm"),
    ("0001140361-25-000001", "2025-01-02", "", "SC 13G", "sc13g.htm"),
    ("0001140361-24-000002", "2024-12-02", "2024-11-27", "4", "xslF345X05/wk-form4.xml"),
    ("0000320193-24-000130", "2024-12-01", "2024-09-28", "10-K/A", "aapl-20240928a.htm"),
    ("0000320193-24-000123", "2024-11-01", "2024-09-28", "10-K", "aapl-20240928.htm"),
]
APPLE_OLDER: list[FilingRow] = [
    ("0000320193-19-000119", "2019-10-31", "2019-09-28", "10-K", "a10-k20199282019.htm"),
    ("0000320193-19-000076", "2019-07-31", "2019-06-29", "10-Q", "a10-q20196292019.htm"),
]


def columns(rows: list[FilingRow]) -> dict[str, list[object]]:
    keys = ("accessionNumber", "filingDate", "reportDate", "form", "primaryDocument")
    table: dict[str, list[object]] = {key: [row[i] for row in rows] for i, key in enumerate(keys)}
    table["isXBRL"] = [1 for _ in rows]
    return table


def submissions(recent: list[FilingRow], pages: tuple[str, ...] = ()) -> dict[str, object]:
    files = [{"name": name, "filingCount": 2, "filingFrom": "2019-01-01"} for name in pages]
    return {
        "cik": "320193",
        "name": "Apple Inc.",
        "tickers": ["AAPL"],
        "filings": {"recent": columns(recent), "files": files},
    }


@dataclass(frozen=True)
class Reply:
    status: int = 200
    body: bytes = b""
    headers: tuple[tuple[str, str], ...] = ()


def json_reply(data: object) -> Reply:
    return Reply(body=json.dumps(data).encode(), headers=(("Content-Type", "application/json"),))


APPLE_SUBMISSIONS = json_reply(
    submissions(
        APPLE_RECENT,
        pages=("CIK0000320193-submissions-001.json", "CIK0000320193-submissions-002.json"),
    )
)


@dataclass
class FakeClock:
    now_s: float = 1000.0
    sleeps: list[float] = field(default_factory=list)

    def __call__(self) -> float:
        return self.now_s

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now_s += seconds


class FakeSec:
    """Serves EDGAR URLs from a table: each URL's replies in order, the last one repeating."""

    def __init__(
        self,
        routes: dict[str, Reply | Exception | list[Reply | Exception]],
        clock: FakeClock | None = None,
    ) -> None:
        self.routes = {url: r if isinstance(r, list) else [r] for url, r in routes.items()}
        self.clock = clock
        self.requests: list[httpx.Request] = []
        self.times: list[float] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if self.clock is not None:
            self.times.append(self.clock())
        replies = self.routes.get(str(request.url), [Reply(404, b"Not Found")])
        reply = replies.pop(0) if len(replies) > 1 else replies[0]
        if isinstance(reply, Exception):
            raise reply
        return httpx.Response(reply.status, content=reply.body, headers=list(reply.headers))

    @property
    def urls(self) -> list[str]:
        return [str(request.url) for request in self.requests]


def make_client(
    sec: FakeSec,
    cache_dir: Path,
    clock: FakeClock | None = None,
    now: Callable[[], float] | None = None,
    **options: float,
) -> EdgarClient:
    clock = clock or FakeClock()
    http = httpx.Client(transport=httpx.MockTransport(sec))
    return EdgarClient(
        http,
        CONTACT,
        cache_dir,
        clock=clock,
        sleep=clock.sleep,
        now=now or time.time,
        max_requests_per_s=options.get("max_requests_per_s", 10),
        max_retries=int(options.get("max_retries", 4)),
        timeout_s=options.get("timeout_s", 30),
    )


def busiest_second(times: list[float]) -> int:
    """The most requests inside any half-open window of one second (less float noise)."""
    return max(sum(start <= t < start + 1 - 1e-9 for t in times) for start in times)


def apple_filing() -> EdgarFiling:
    return EdgarFiling(
        company="Apple Inc.",
        ticker="AAPL",
        cik=320193,
        accession=Accession("0000320193-25-000079"),
        form="10-K",
        filing_date=date(2025, 10, 31),
        report_date=date(2025, 9, 27),
        primary_document="aapl-20250927.htm",
    )


# The contact and the headers SEC asks for


@pytest.mark.parametrize("contact", [None, "", "   "])
def test_a_missing_contact_is_a_config_error(contact: str | None, tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as raised:
        EdgarClient(httpx.Client(transport=httpx.MockTransport(FakeSec({}))), contact, tmp_path)
    message = str(raised.value)
    assert "EDGAR_RAG_SEC_CONTACT" in message
    assert "name and e-mail" in message
    assert "\n" not in message


def test_a_contact_that_cannot_travel_in_a_header_is_a_config_error(tmp_path: Path) -> None:
    http = httpx.Client(transport=httpx.MockTransport(FakeSec({})))
    with pytest.raises(ConfigError, match="EDGAR_RAG_SEC_CONTACT"):
        EdgarClient(http, "José Núñez jose@example.com", tmp_path)
    with pytest.raises(ConfigError, match="EDGAR_RAG_SEC_CONTACT"):
        EdgarClient(http, "Jane\r\nX-Injected: 1", tmp_path)


def test_every_request_names_the_contact_and_accepts_compression(tmp_path: Path) -> None:
    sec = FakeSec({TICKERS_URL: json_reply(TICKERS), APPLE_URL: APPLE_SUBMISSIONS})
    other_defaults = {"User-Agent": "python-httpx", "Accept-Encoding": "identity"}
    http = httpx.Client(transport=httpx.MockTransport(sec), headers=other_defaults)
    client = EdgarClient(http, f"  {CONTACT} ", tmp_path)
    client.resolve_tickers(["AAPL"])
    client.annual_reports(APPLE, [2025])
    assert len(sec.requests) == 2
    for request in sec.requests:
        assert request.headers["User-Agent"] == f"edgar-rag/{__version__} {CONTACT}"
        assert request.headers["Accept-Encoding"] == "gzip, deflate"


def test_every_request_carries_the_timeout(tmp_path: Path) -> None:
    sec = FakeSec({APPLE_URL: APPLE_SUBMISSIONS})
    make_client(sec, tmp_path, timeout_s=12).annual_reports(APPLE, [2025])
    assert sec.requests[0].extensions["timeout"] == dict.fromkeys(
        ("connect", "read", "write", "pool"), 12
    )


# Rate limit


def test_25_requests_at_10_per_second_take_at_least_2_4_seconds(tmp_path: Path) -> None:
    clock = FakeClock()
    sec = FakeSec({APPLE_URL: APPLE_SUBMISSIONS}, clock=clock)
    client = make_client(sec, tmp_path, clock=clock)
    for _ in range(25):
        client.annual_reports(APPLE, [2025])
    assert len(sec.times) == 25
    assert sec.times[-1] - sec.times[0] >= 2.4 - 1e-9
    assert clock.sleeps
    assert busiest_second(sec.times) <= 10


def test_requests_already_spaced_out_do_not_sleep(tmp_path: Path) -> None:
    clock = FakeClock()
    client = make_client(FakeSec({APPLE_URL: APPLE_SUBMISSIONS}), tmp_path, clock=clock)
    for _ in range(5):
        client.annual_reports(APPLE, [2025])
        clock.now_s += 0.2
    assert clock.sleeps == []


@settings(max_examples=40, deadline=None)
@given(
    rate=st.sampled_from([1, 3, 10]),
    gaps=st.lists(st.floats(min_value=0, max_value=0.3), min_size=2, max_size=30),
)
def test_no_second_ever_holds_more_requests_than_the_rate(rate: int, gaps: list[float]) -> None:
    clock = FakeClock()
    sec = FakeSec({APPLE_URL: APPLE_SUBMISSIONS}, clock=clock)
    client = make_client(sec, Path("never-written"), clock=clock, max_requests_per_s=rate)
    for gap in gaps:
        clock.now_s += gap
        client.annual_reports(APPLE, [2025])
    assert busiest_second(sec.times) <= rate


# Retries and failures


@pytest.mark.parametrize("status", [429, 500, 502, 503, 504])
def test_throttling_and_server_errors_are_retried_with_exponential_backoff(
    status: int, tmp_path: Path
) -> None:
    clock = FakeClock()
    failing = Reply(status, b"busy")
    sec = FakeSec({APPLE_URL: [failing, failing, failing, APPLE_SUBMISSIONS]})
    filings = make_client(sec, tmp_path, clock=clock).annual_reports(APPLE, [2025])
    assert [filing.accession for filing in filings] == ["0000320193-25-000079"]
    assert clock.sleeps == [1.0, 2.0, 4.0]


@pytest.mark.parametrize(("retry_after", "expected_s"), [("7", 7.0), ("0", 0.0), ("86400", 60.0)])
def test_a_numeric_retry_after_is_honoured_up_to_a_minute(
    retry_after: str, expected_s: float, tmp_path: Path
) -> None:
    clock = FakeClock()
    throttled = Reply(429, b"slow down", headers=(("Retry-After", retry_after),))
    sec = FakeSec({APPLE_URL: [throttled, APPLE_SUBMISSIONS]})
    make_client(sec, tmp_path, clock=clock).annual_reports(APPLE, [2025])
    assert len(sec.requests) == 2
    assert clock.sleeps[0] == expected_s


def test_a_retry_after_date_falls_back_to_exponential_backoff(tmp_path: Path) -> None:
    clock = FakeClock()
    throttled = Reply(503, headers=(("Retry-After", "Wed, 21 Oct 2025 07:28:00 GMT"),))
    sec = FakeSec({APPLE_URL: [throttled, APPLE_SUBMISSIONS]})
    make_client(sec, tmp_path, clock=clock).annual_reports(APPLE, [2025])
    assert clock.sleeps == [1.0]


def test_timeouts_and_connection_errors_are_retried(tmp_path: Path) -> None:
    clock = FakeClock()
    request = httpx.Request("GET", APPLE_URL)
    sec = FakeSec(
        {
            APPLE_URL: [
                httpx.ReadTimeout("read timed out", request=request),
                httpx.ConnectError("connection refused", request=request),
                APPLE_SUBMISSIONS,
            ]
        }
    )
    filings = make_client(sec, tmp_path, clock=clock).annual_reports(APPLE, [2025])
    assert len(filings) == 1
    assert len(sec.requests) == 3
    assert clock.sleeps == [1.0, 2.0]


def test_exhausted_retries_are_a_source_error_naming_the_url_and_last_status(
    tmp_path: Path,
) -> None:
    sec = FakeSec({APPLE_URL: Reply(503, b"unavailable")})
    with pytest.raises(SourceError) as raised:
        make_client(sec, tmp_path, max_retries=2).annual_reports(APPLE, [2025])
    message = str(raised.value)
    assert APPLE_URL in message
    assert "503" in message
    assert "\n" not in message
    assert len(sec.requests) == 3


def test_exhausted_retries_after_timeouts_name_the_timeout(tmp_path: Path) -> None:
    timeout = httpx.ReadTimeout("timed out", request=httpx.Request("GET", APPLE_URL))
    sec = FakeSec({APPLE_URL: timeout})
    with pytest.raises(SourceError, match="ReadTimeout") as raised:
        make_client(sec, tmp_path, max_retries=1).annual_reports(APPLE, [2025])
    assert APPLE_URL in str(raised.value)
    assert len(sec.requests) == 2


def test_a_refusal_is_not_retried_and_says_why(tmp_path: Path) -> None:
    sec = FakeSec({APPLE_URL: Reply(403, b"Request Rate Threshold Exceeded")})
    with pytest.raises(SourceError, match=r"403.*contact") as raised:
        make_client(sec, tmp_path).annual_reports(APPLE, [2025])
    assert APPLE_URL in str(raised.value)
    assert len(sec.requests) == 1


def test_retries_are_logged_with_the_url_and_the_delay(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="edgar_rag.ingest.edgar")
    sec = FakeSec({APPLE_URL: [Reply(500), APPLE_SUBMISSIONS]})
    make_client(sec, tmp_path).annual_reports(APPLE, [2025])
    retries = [record for record in caplog.records if record.msg == "edgar_retry"]
    assert len(retries) == 1
    assert retries[0].__dict__["url"] == APPLE_URL
    assert retries[0].__dict__["delay_s"] == 1.0


# Tickers


def test_tickers_resolve_in_any_case_keyed_as_the_caller_wrote_them(tmp_path: Path) -> None:
    sec = FakeSec({TICKERS_URL: json_reply(TICKERS)})
    companies = make_client(sec, tmp_path).resolve_tickers(["aapl", " MSFT ", "brk.b"])
    assert companies == {
        "aapl": APPLE,
        " MSFT ": Company(ticker="MSFT", cik=789019, name="MICROSOFT CORP"),
        "brk.b": Company(ticker="BRK-B", cik=1067983, name="BERKSHIRE HATHAWAY INC"),
    }


def test_unknown_tickers_are_named_together_in_one_not_found_error(tmp_path: Path) -> None:
    sec = FakeSec({TICKERS_URL: json_reply(TICKERS)})
    with pytest.raises(NotFoundError) as raised:
        make_client(sec, tmp_path).resolve_tickers(["AAPL", "zzzz", "QQQQX"])
    message = str(raised.value)
    assert "ZZZZ" in message
    assert "QQQQX" in message
    assert "AAPL" not in message


def test_the_ticker_list_is_cached_for_24_hours(tmp_path: Path) -> None:
    sec = FakeSec({TICKERS_URL: json_reply(TICKERS)})
    make_client(sec, tmp_path).resolve_tickers(["AAPL"])
    written_s = (tmp_path / "edgar" / "company_tickers.json").stat().st_mtime

    make_client(sec, tmp_path, now=lambda: written_s + 23 * 3600).resolve_tickers(["MSFT"])
    assert len(sec.requests) == 1

    make_client(sec, tmp_path, now=lambda: written_s + 25 * 3600).resolve_tickers(["MSFT"])
    assert len(sec.requests) == 2


def test_a_corrupt_cached_ticker_list_is_fetched_again(tmp_path: Path) -> None:
    cached = tmp_path / "edgar" / "company_tickers.json"
    cached.parent.mkdir(parents=True)
    cached.write_bytes(b'{"0": {"cik_str": 3')
    sec = FakeSec({TICKERS_URL: json_reply(TICKERS)})
    assert make_client(sec, tmp_path).resolve_tickers(["AAPL"]) == {"AAPL": APPLE}
    assert len(sec.requests) == 1
    assert json.loads(cached.read_bytes()) == TICKERS


def test_a_malformed_ticker_list_is_a_source_error_and_is_not_cached(tmp_path: Path) -> None:
    sec = FakeSec({TICKERS_URL: json_reply({"0": {"ticker": "AAPL", "title": "Apple Inc."}})})
    with pytest.raises(SourceError, match="malformed response") as raised:
        make_client(sec, tmp_path).resolve_tickers(["AAPL"])
    assert TICKERS_URL in str(raised.value)
    assert not (tmp_path / "edgar" / "company_tickers.json").exists()


# Annual reports


def test_only_10k_filings_of_the_requested_years_are_returned(tmp_path: Path) -> None:
    sec = FakeSec({APPLE_URL: APPLE_SUBMISSIONS})
    filings = make_client(sec, tmp_path).annual_reports(APPLE, [2025, 2024])
    assert filings == [
        EdgarFiling(
            company="Apple Inc.",
            ticker="AAPL",
            cik=320193,
            accession=Accession("0000320193-24-000123"),
            form="10-K",
            filing_date=date(2024, 11, 1),
            report_date=date(2024, 9, 28),
            primary_document="aapl-20240928.htm",
        ),
        apple_filing(),
    ]
    assert sec.urls == [APPLE_URL]


def test_older_pages_are_read_only_until_the_missing_years_are_found(tmp_path: Path) -> None:
    sec = FakeSec(
        {
            APPLE_URL: APPLE_SUBMISSIONS,
            APPLE_PAGE_1: json_reply(columns(APPLE_OLDER)),
            APPLE_PAGE_2: Reply(500),
        }
    )
    filings = make_client(sec, tmp_path).annual_reports(APPLE, [2019, 2025])
    assert [filing.report_date for filing in filings] == [date(2019, 9, 28), date(2025, 9, 27)]
    assert sec.urls == [APPLE_URL, APPLE_PAGE_1]


def test_a_year_without_a_10k_names_the_ticker_the_year_and_the_years_that_have_one(
    tmp_path: Path,
) -> None:
    sec = FakeSec(
        {
            APPLE_URL: APPLE_SUBMISSIONS,
            APPLE_PAGE_1: json_reply(columns(APPLE_OLDER)),
            APPLE_PAGE_2: json_reply(columns([])),
        }
    )
    with pytest.raises(NotFoundError) as raised:
        make_client(sec, tmp_path).annual_reports(APPLE, [2021, 2024])
    message = str(raised.value)
    assert "AAPL" in message
    assert "2021" in message
    assert "2019, 2024, 2025" in message
    assert sec.urls == [APPLE_URL, APPLE_PAGE_1, APPLE_PAGE_2]


@pytest.mark.parametrize(
    ("year", "report_dates"),
    [
        (2024, [date(2024, 1, 28), date(2025, 2, 2)]),
        (2025, [date(2025, 2, 2)]),
        (2023, [date(2024, 1, 28)]),
    ],
)
def test_a_year_ending_in_january_to_march_also_matches_the_year_before(
    year: int, report_dates: list[date], tmp_path: Path
) -> None:
    retailer: list[FilingRow] = [
        ("0000354950-25-000011", "2025-03-14", "2025-02-02", "10-K", "hd-20250202.htm"),
        ("0000354950-24-000010", "2024-03-13", "2024-01-28", "10-K", "hd-20240128.htm"),
    ]
    sec = FakeSec({APPLE_URL: json_reply(submissions(retailer))})
    filings = make_client(sec, tmp_path).annual_reports(APPLE, [year])
    assert [filing.report_date for filing in filings] == report_dates


def test_a_year_ending_after_march_does_not_match_the_year_before(tmp_path: Path) -> None:
    april: list[FilingRow] = [
        ("0000012345-24-000001", "2024-06-20", "2024-04-30", "10-K", "x-20240430.htm"),
    ]
    sec = FakeSec({APPLE_URL: json_reply(submissions(april))})
    with pytest.raises(NotFoundError, match="2023"):
        make_client(sec, tmp_path).annual_reports(APPLE, [2023])


@pytest.mark.parametrize(
    "body",
    [
        b"<html>Service Unavailable</html>",
        json.dumps({"filings": {"recent": {"form": ["10-K"]}}}).encode(),
        json.dumps(
            {"filings": {"recent": {**columns(APPLE_RECENT), "form": ["10-K"]}, "files": []}}
        ).encode(),
        json.dumps(submissions(APPLE_RECENT, pages=("../../files/company_tickers.json",))).encode(),
    ],
    ids=["html", "missing-arrays", "arrays-of-different-lengths", "page-outside-submissions"],
)
def test_malformed_submissions_are_a_source_error_naming_the_url(
    body: bytes, tmp_path: Path
) -> None:
    sec = FakeSec({APPLE_URL: Reply(body=body)})
    with pytest.raises(SourceError) as raised:
        make_client(sec, tmp_path).annual_reports(APPLE, [2019])
    assert APPLE_URL in str(raised.value)
    assert "\n" not in str(raised.value)
    assert sec.urls == [APPLE_URL]


@pytest.mark.parametrize(
    ("accession", "document"),
    [
        ("0000320193-25-000079", "../../../../etc/passwd"),
        ("0000320193-25-000079", ""),
        ("not-an-accession", "aapl-20250927.htm"),
    ],
)
def test_a_10k_that_cannot_be_named_safely_is_a_source_error(
    accession: str, document: str, tmp_path: Path
) -> None:
    rows: list[FilingRow] = [(accession, "2025-10-31", "2025-09-27", "10-K", document)]
    sec = FakeSec({APPLE_URL: json_reply(submissions(rows))})
    with pytest.raises(SourceError, match="malformed response"):
        make_client(sec, tmp_path).annual_reports(APPLE, [2025])


# Filings and downloads


def test_a_filing_knows_its_archive_url_and_its_hints() -> None:
    filing = apple_filing()
    assert filing.url == DOCUMENT_URL
    assert filing.hints() == FilingHints(
        ticker="AAPL",
        cik=320193,
        company="Apple Inc.",
        fiscal_year=None,
        period_end=date(2025, 9, 27),
        form="10-K",
        accession=Accession("0000320193-25-000079"),
        filing_date=date(2025, 10, 31),
        url=DOCUMENT_URL,
    )


def test_a_document_is_downloaded_into_the_cache(tmp_path: Path) -> None:
    sec = FakeSec({DOCUMENT_URL: Reply(body=DOCUMENT)})
    raw = make_client(sec, tmp_path).download(apple_filing())
    assert raw.content == DOCUMENT
    assert raw.source == DOCUMENT_URL
    assert raw.hints == apple_filing().hints()
    folder = tmp_path / "edgar" / "320193" / "0000320193-25-000079"
    assert [path.name for path in folder.iterdir()] == ["aapl-20250927.htm"]
    assert (folder / "aapl-20250927.htm").read_bytes() == DOCUMENT


def test_a_cached_document_is_read_without_a_request(tmp_path: Path) -> None:
    make_client(FakeSec({DOCUMENT_URL: Reply(body=DOCUMENT)}), tmp_path).download(apple_filing())
    offline = FakeSec({})
    raw = make_client(offline, tmp_path).download(apple_filing())
    assert raw.content == DOCUMENT
    assert offline.requests == []


def test_a_compressed_document_is_stored_decompressed(tmp_path: Path) -> None:
    compressed = Reply(body=gzip.compress(DOCUMENT), headers=(("Content-Encoding", "gzip"),))
    raw = make_client(FakeSec({DOCUMENT_URL: compressed}), tmp_path).download(apple_filing())
    assert raw.content == DOCUMENT
    cached = tmp_path / "edgar" / "320193" / "0000320193-25-000079" / "aapl-20250927.htm"
    assert cached.read_bytes() == DOCUMENT


def test_a_missing_document_is_a_source_error_and_leaves_nothing_cached(tmp_path: Path) -> None:
    sec = FakeSec({})
    with pytest.raises(SourceError, match="404") as raised:
        make_client(sec, tmp_path).download(apple_filing())
    assert DOCUMENT_URL in str(raised.value)
    assert len(sec.requests) == 1
    assert list(tmp_path.rglob("*")) == []
