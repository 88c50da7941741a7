"""The company guard: which company a question is about, and when that is not the filer."""

from __future__ import annotations

from contextlib import closing
from pathlib import Path

import pyarrow as pa  # type: ignore[import-untyped]  # pyarrow ships no py.typed
import pyarrow.parquet as pq  # type: ignore[import-untyped]
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from edgar_rag.compose import build_directory
from edgar_rag.domain import FilingMeta, SourceFormat
from edgar_rag.index.sqlite import SqliteIndex
from edgar_rag.question.companies import CompanyDirectory, company_guard
from edgar_rag.rules import read_listing

# In the SEC's order, largest first; the last three fall outside ``PROMINENT`` rows.
LISTING = [
    ("0000320193", "AAPL", "Apple Inc."),
    ("0000789019", "MSFT", "MICROSOFT CORP"),
    ("0001652044", "GOOGL", "Alphabet Inc."),
    ("0001652044", "GOOG", "Alphabet Inc."),
    ("0001326801", "META", "Meta Platforms, Inc."),
    ("0000104169", "WMT", "Walmart Inc."),
    ("0001403161", "V", "VISA INC."),
    ("0000200406", "JNJ", "JOHNSON & JOHNSON"),
    ("0000080424", "PG", "PROCTER & GAMBLE Co"),
    ("0000354950", "HD", "HOME DEPOT, INC."),
    ("0000063908", "MCD", "MCDONALDS CORP"),
    ("0000060667", "LOW", "LOWES COMPANIES INC"),
    ("0000027419", "TGT", "TARGET CORP"),
    ("0000039911", "GAP", "GAP INC"),
    ("0000080661", "PGR", "PROGRESSIVE CORP/OH/"),
    ("0001811210", "ONON", "On Holding AG"),
    ("0001703399", "SE", "Sea Ltd"),
    ("0001418121", "APLE", "Apple Hospitality REIT, Inc."),
    ("0001120193", "NDAQ", "Nasdaq, Inc."),
    ("0000749251", "IT", "GARTNER INC"),
    ("0001000001", "SNR", "SENIOR PLC"),
    ("0001000002", "PAYD", "PAID INC"),
    ("0001000003", "ZWH", "Zeta Widgets Holdings Inc"),
]
PROMINENT = len(LISTING) - 3


def _filing(company: str, ticker: str | None, cik: int | None) -> FilingMeta:
    return FilingMeta(
        company=company,
        cik=cik,
        ticker=ticker,
        form="10-K",
        fiscal_year=2025,
        period_end=None,
        accession=None,
        filing_date=None,
        url=None,
        years_reported=(2023, 2024, 2025),
        source="test",
        sha256="",
        source_format=SourceFormat.HTML,
    )


APPLE = _filing("Apple Inc.", "AAPL", 320193)
HOME_DEPOT = _filing("HOME DEPOT, INC.", "HD", 354950)


@pytest.fixture(scope="module")
def directory(tmp_path_factory: pytest.TempPathFactory) -> CompanyDirectory:
    path = tmp_path_factory.mktemp("companies") / "company_tickers.parquet"
    columns = {
        "cik": [cik for cik, _, _ in LISTING],
        "ticker": [ticker for _, ticker, _ in LISTING],
        "exchange": ["NYSE"] * len(LISTING),
        "name": [name for _, _, name in LISTING],
    }
    pq.write_table(pa.table(columns), path)
    return CompanyDirectory(read_listing(path), prominent=PROMINENT)


def _ciks(directory: CompanyDirectory, question: str) -> list[int | None]:
    return [c.cik for mention in directory.find(question) for c in mention.companies]


def test_a_competitor_named_as_the_filer_s_competitor_passes(directory: CompanyDirectory) -> None:
    assert guard("Who does Lowe's name as competitors?", HOME_DEPOT, directory) is None


@pytest.mark.parametrize(
    "question",
    ["What was Lowe's net income in 2024?", "How much did Lowe's spend on capex?"],
)
def test_a_question_about_a_competitor_s_own_figures_declines(
    directory: CompanyDirectory, question: str
) -> None:
    assert guard(question, HOME_DEPOT, directory) == (
        "the question asks about Lowe's; this filing is HOME DEPOT, INC.'s"
    )


def test_the_filer_s_statement_about_another_company_passes(directory: CompanyDirectory) -> None:
    question = "What does Apple say about its agreement with Google?"
    assert guard(question, APPLE, directory) is None


def test_another_company_s_revenue_declines(directory: CompanyDirectory) -> None:
    assert guard("What was Microsoft's revenue?", APPLE, directory) == (
        "the question asks about Microsoft; this filing is Apple Inc.'s"
    )
    assert guard("What was Microsoft's revenue in fiscal 2025?", APPLE, directory)
    assert guard("MSFT net income 2024", APPLE, directory) == (
        "the question asks about MSFT (Microsoft Corp); this filing is Apple Inc.'s"
    )


def test_a_payment_between_another_company_and_the_filer_passes(
    directory: CompanyDirectory,
) -> None:
    """Decided: naming the filer makes it the subject, so "How much did Google pay Apple?"
    goes on to Apple's filing (which reports the arrangement); the same words asked of
    Microsoft's filing name neither it nor an object of its statements, and decline."""
    assert guard("How much did Google pay Apple?", APPLE, directory) is None
    microsoft = _filing("MICROSOFT CORP", "MSFT", 789019)
    assert guard("How much did Google pay Apple?", microsoft, directory) == (
        "the question asks about Google and Apple; this filing is MICROSOFT CORP's"
    )


@pytest.mark.parametrize(
    "question",
    [
        "What does the filing say about Microsoft?",
        "How does Apple's revenue compare to Microsoft's?",
        "Is Microsoft a competitor?",
        "Which customers, such as Walmart, matter most?",
        "How much revenue came from Google?",
        "Does the 10-K mention Meta?",
    ],
)
def test_another_company_as_an_object_passes(directory: CompanyDirectory, question: str) -> None:
    assert guard(question, APPLE, directory) is None


def test_each_company_the_question_is_about_is_named(directory: CompanyDirectory) -> None:
    detail = guard("What were Microsoft and Google's revenues?", APPLE, directory)
    assert detail == "the question asks about Microsoft and Google; this filing is Apple Inc.'s"


@pytest.mark.parametrize(
    "written",
    ["Home Depot", "The Home Depot", "HOME DEPOT, INC.", "Home Depot Inc.", "HD", "$HD"],
)
def test_short_forms_of_the_filer_are_the_filer(directory: CompanyDirectory, written: str) -> None:
    question = f"What was {written}'s net income, and who are its competitors besides Lowe's?"
    assert guard(question, HOME_DEPOT, directory) is None
    assert guard(f"{written} net income 2024", HOME_DEPOT, directory) is None
    assert guard(f"{written} net income 2024", APPLE, directory) is not None


@pytest.mark.parametrize(
    ("written", "cik"),
    [
        ("Google", 1652044),
        ("Alphabet", 1652044),
        ("GOOG", 1652044),
        ("Facebook", 1326801),
        ("Meta", 1326801),
        ("Wal-Mart", 104169),
        ("Walmart", 104169),
        ("J&J", 200406),
        ("Johnson & Johnson", 200406),
        ("P&G", 80424),
        ("Procter & Gamble", 80424),
        ("McDonald's", 63908),
        ("McDonald’s", 63908),
        ("Lowe's", 60667),
        ("Progressive", 80661),
        ("CIK 789019", 789019),
        ("CIK 0000320193", 320193),
        ("$V", 1403161),
        ("ticker V", 1403161),
    ],
)
def test_names_aliases_tickers_and_ciks_resolve(
    directory: CompanyDirectory, written: str, cik: int
) -> None:
    assert _ciks(directory, f"What did {written} report?") == [cik]


@pytest.mark.parametrize(
    "question",
    [
        "What does the company say about target customers and the gap in pricing?",
        "Does the company accept visa payments?",
        "On what date did the quarter end?",
        "How did attacks in the Red Sea affect shipping?",
        "Which shares trade on Nasdaq?",
        "How many apple orchards does the company own?",
        "How did hd video sales go?",
        "What did V report?",
        "What was the IT budget?",
        "WHAT WAS NET INCOME ON SALES?",
        "What was the rate on the Senior Notes?",
        "Were any employees paid in stock?",
        "Did zeta widgets sell well?",
    ],
)
def test_ordinary_words_are_not_companies(directory: CompanyDirectory, question: str) -> None:
    assert directory.find(question) == ()


@pytest.mark.parametrize(
    ("question", "cik"),
    [
        ("What was Target's revenue?", 27419),
        ("Did Gap close stores?", 39911),
        ("How large is Visa's network?", 1403161),
        ("What does Senior plc make?", 1000001),
        ("What did Zeta Widgets report?", 1000003),
        ("What did Apple Hospitality report?", 1418121),
        ("what was microsoft's revenue", 789019),
    ],
)
def test_capitalised_and_distinctive_names_are_companies(
    directory: CompanyDirectory, question: str, cik: int
) -> None:
    assert _ciks(directory, question) == [cik]


def test_a_filer_missing_from_the_directory_is_known_by_its_own_names(
    directory: CompanyDirectory,
) -> None:
    acme = _filing("Acme Widgets, Inc.", "ACMW", None)
    assert guard("What was Acme Widgets' revenue versus Microsoft?", acme, directory) is None
    assert guard("How much did Acme Widgets and Microsoft earn?", acme, directory) is None
    assert guard("What was Microsoft's revenue?", acme, directory) is not None
    apple_without_cik = _filing("Apple Inc.", None, None)
    assert guard("What was Apple's revenue?", apple_without_cik, directory) is None


def test_an_unknown_cik_is_another_company(directory: CompanyDirectory) -> None:
    assert guard("Revenue of CIK 999999?", APPLE, directory) == (
        "the question asks about CIK 999999; this filing is Apple Inc.'s"
    )


def test_indexed_companies_are_recognised_without_the_listing() -> None:
    directory = CompanyDirectory((), [("Tesla, Inc.", "TSLA", 1318605)])
    assert _ciks(directory, "what was tesla's revenue") == [1318605]
    assert _ciks(directory, "TSLA deliveries") == [1318605]
    assert guard("What were Tesla's deliveries?", APPLE, directory) is not None


FILER_FORMS = {
    HOME_DEPOT: ("Home Depot", "The Home Depot", "HOME DEPOT, INC.", "Home Depot, Inc.", "HD"),
    APPLE: ("Apple", "Apple Inc.", "APPLE INC", "AAPL", "$AAPL", "CIK 320193"),
}
TEMPLATES = (
    "What was {}'s revenue in fiscal 2025?",
    "How much did {} spend on research and development?",
    "{} net income FY25",
    "Does {} pay a dividend, and how much?",
    "What risks does {} describe in Item 1A?",
    "In fiscal 2024, what did {} report as operating income?",
    "How many employees did {} have?",
    "Which segments does {} report?",
)


@settings(deadline=None)
@given(
    filing=st.sampled_from(list(FILER_FORMS)),
    form=st.integers(0, 5),
    template=st.sampled_from(TEMPLATES),
)
def test_a_question_naming_only_the_filer_is_never_declined(
    directory: CompanyDirectory, filing: FilingMeta, form: int, template: str
) -> None:
    forms = FILER_FORMS[filing]
    question = template.format(forms[form % len(forms)])
    assert guard(question, filing, directory) is None


@pytest.mark.slow
def test_the_edgartools_list_knows_microsoft() -> None:
    directory = CompanyDirectory.from_edgartools()
    assert _ciks(directory, "What was Microsoft's revenue?") == [789019]
    assert _ciks(directory, "MSFT revenue") == [789019]
    company = directory.company(789019)
    assert company is not None
    assert "MSFT" in company.tickers


def guard(question: str, filing: FilingMeta, directory: CompanyDirectory) -> str | None:
    """The company guard on the companies ``directory`` finds in ``question``."""
    return company_guard(question, directory.find(question), filing)


def test_a_directory_read_back_from_bytes_finds_what_it_found(
    directory: CompanyDirectory,
) -> None:
    again = CompanyDirectory.from_bytes(directory.to_bytes())
    questions = [template.format(form) for template in TEMPLATES for forms in FILER_FORMS.values()
                 for form in forms]  # fmt: skip
    questions += ["Is Target a competitor of Walmart?", "Paid Inc vs $PAYD", "CIK 1000003 sales"]
    assert [again.find(q) for q in questions] == [directory.find(q) for q in questions]
    with pytest.raises(ValueError, match="not a company directory"):
        CompanyDirectory.from_bytes(b"not marshal")


@pytest.mark.slow
def test_the_directory_is_kept_built_beside_the_model(tmp_path: Path) -> None:
    with closing(SqliteIndex(tmp_path / "index.db")) as index:
        built = build_directory(index, tmp_path / "cache")
        (kept,) = (tmp_path / "cache").glob("companies-*.marshal")
        written = kept.stat().st_mtime_ns
        loaded = build_directory(index, tmp_path / "cache")
        assert kept.stat().st_mtime_ns == written  # read, not written again
        kept.write_bytes(b"torn")
        rebuilt = build_directory(index, tmp_path / "cache")
    question = "How does Microsoft compare with AAPL?"
    assert loaded.find(question) == built.find(question) == rebuilt.find(question)
    assert [c.cik for m in built.find(question) for c in m.companies] == [789019, 320193]
    assert kept.read_bytes() == built.to_bytes()
