"""10-Qs, 8-Ks and earnings releases as filings of their own (issue 39 part 1), on FinanceBench's
real documents: the form, quarter and date each is known by, its own Items, a scope that names
them, and a question of another period declined before any model."""

from __future__ import annotations

import json
import shutil
from datetime import date
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from edgar_rag.api import open_index
from edgar_rag.cli import main
from edgar_rag.compose import build_company_list
from edgar_rag.domain import FilingHints, FilingMeta, RawFiling, SourceFormat
from edgar_rag.errors import ParseError
from edgar_rag.figures.resolve import fiscal_year_of
from edgar_rag.ingest.local import find_local_filings
from edgar_rag.ingest.pipeline import read_filing
from edgar_rag.question.periods import asked_quarters, quarter_guard

FINANCEBENCH = Path("../shared/corpus/financebench").resolve()
PDFS = FINANCEBENCH / "pdfs"
QUARTER = "AMCOR_2023Q2_10Q.pdf"
CURRENT = "AMCOR_2022_8K_dated-2022-07-01.pdf"
RELEASE = "PEPSICO_2023Q1_EARNINGS.pdf"

pytestmark = pytest.mark.skipif(not PDFS.exists(), reason="no ../shared/corpus/financebench")


def _read(name: str, company: str | None = None) -> FilingMeta:
    """A document read from its bytes, with no hint but the company where given: no form,
    year, quarter or date from its file name."""
    path = PDFS / name
    return read_filing(RawFiling(path.read_bytes(), str(path), FilingHints(company=company))).meta


def test_a_10q_is_known_by_its_cover_and_the_months_its_columns_cover() -> None:
    meta = _read(QUARTER, "Amcor plc")  # its name is printed only as each page's running head
    # Amcor's fiscal year ends 30 June: the quarter ended 31 December 2022 is Q2 of fiscal 2023
    assert (meta.form, meta.fiscal_quarter, meta.fiscal_year) == ("10-Q", 2, 2023)
    assert meta.period_end == date(2022, 12, 31)
    assert meta.years_reported == (2022, 2023)


def test_a_10q_on_a_52_week_calendar_belongs_to_the_year_its_quarters_end() -> None:
    meta = _read("Pfizer_2023Q2_10Q.pdf")  # quarter ended 2 July 2023; the year 31 December
    assert (meta.fiscal_quarter, meta.fiscal_year, meta.period_end) == (2, 2023, date(2023, 7, 2))


def test_a_two_column_cover_still_gives_the_quarter_s_end() -> None:
    meta = _read("JPMORGAN_2021Q1_10Q.pdf")  # "ended  Commission file / March 31, 2021"
    assert (meta.fiscal_quarter, meta.period_end) == (1, date(2021, 3, 31))


def test_an_8k_is_known_by_its_date_of_report_and_an_earnings_release_by_its_headline() -> None:
    current = _read(CURRENT)
    assert (current.form, current.period_end, current.fiscal_quarter) == (
        "8-K",
        date(2022, 7, 1),
        None,
    )
    release = _read(RELEASE)
    assert (release.form, release.fiscal_year, release.fiscal_quarter) == ("EX-99.1", 2023, 1)
    assert (release.company, release.ticker) == ("PepsiCo, Inc.", "PEP")
    assert release.period == "earnings release Q1 FY2023"
    assert release.years_reported == (2022, 2023, 2024)  # a release gives its outlook too


def test_each_form_has_its_own_items() -> None:
    found = {
        name: [section.item for section in read_filing(filing.load()).sections]
        for filing in find_local_filings(
            [PDFS / QUARTER, PDFS / CURRENT, PDFS / RELEASE], build_company_list()
        )
        if (name := Path(filing.name).name)
    }
    assert found[QUARTER] == [
        "Cover",
        *(f"Part I, Item {n}" for n in "1234"),
        *(f"Part II, Item {n}" for n in ("1", "1A", "2", "3", "4", "5", "6")),
    ]
    assert found[CURRENT] == ["Cover", "Item 8.01", "Item 9.01"]
    assert found[RELEASE] == ["Document"]


def test_financebench_names_give_form_quarter_and_date_as_hints() -> None:
    hints = {
        Path(filing.name).name: filing.hints
        for filing in find_local_filings([PDFS], build_company_list())
    }
    assert (hints[QUARTER].form, hints[QUARTER].fiscal_year, hints[QUARTER].fiscal_quarter) == (
        "10-Q",
        2023,
        2,
    )
    assert (hints[CURRENT].form, hints[CURRENT].filing_date) == ("8-K", date(2022, 7, 1))
    assert (hints[RELEASE].form, hints[RELEASE].company) == ("EX-99.1", "PepsiCo")
    assert hints["3M_2018_10K.pdf"].form == "10-K"


def test_a_quarter_s_statement_rows_are_figures_over_the_periods_their_headings_print() -> None:
    """MGM's second-quarter 10-Q: balances on the dates printed, and its statements of
    operations and cash flows over the three and six months their headings name, each ending
    on the quarter's end; a figure of a year is none of them."""
    (found,) = find_local_filings([PDFS / "MGMRESORTS_2023Q2_10Q.pdf"], build_company_list())
    rows = read_filing(found.load()).rows.values()
    assert {(row.statement, row.period_start, row.period_end) for row in rows} == {
        ("balance_sheet", None, date(2023, 6, 30)),
        ("balance_sheet", None, date(2022, 12, 31)),
        *(
            (statement, date(year, first, 1), date(year, 6, 30))
            for statement in ("income_statement", "comprehensive_income")
            for year in (2022, 2023)
            for first in (1, 4)
        ),
        ("cash_flow", date(2022, 1, 1), date(2022, 6, 30)),
        ("cash_flow", date(2023, 1, 1), date(2023, 6, 30)),
    }


def test_a_quarter_s_columns_are_told_apart_by_their_spans_and_dates() -> None:
    """Best Buy's second quarter (a 52-53 week year): "Three Months Ended" and "Six Months
    Ended" over two dates each, and a balance sheet of three dates, two in one year; the rows
    read with the span and date each column prints, and the quarter's balance is no year's."""
    (found,) = find_local_filings([PDFS / "BESTBUY_2024Q2_10Q.pdf"], build_company_list())
    read = read_filing(found.load())
    revenue = {
        (row.period_start, row.period_end): row.displayed
        for row in read.rows.values()
        if row.label == "Revenue"
    }
    assert revenue == {
        (date(2023, 4, 30), date(2023, 7, 29)): "9,583",
        (date(2022, 5, 1), date(2022, 7, 30)): "10,329",
        (date(2023, 1, 30), date(2023, 7, 29)): "19,050",
        (date(2022, 1, 31), date(2022, 7, 30)): "20,976",
    }
    assert "Revenue | Three months ended July 29, 2023: 9,583 |" in read.text
    cash = {
        row.period_end: row.displayed
        for row in read.rows.values()
        if (row.label or "").endswith("Cash and cash equivalents")
        and row.statement == "balance_sheet"
    }
    assert cash == {
        date(2023, 7, 29): "1,093",
        date(2023, 1, 28): "1,874",
        date(2022, 7, 30): "840",
    }
    # the year end beside the quarter is fiscal 2023's; the quarter's own end is no year's
    assert fiscal_year_of(date(2023, 1, 28), read.meta) == 2023
    assert fiscal_year_of(date(2023, 7, 29), read.meta) is None


def test_a_document_whose_form_cannot_be_told_is_refused_naming_it() -> None:
    text = b"Dear shareholders,\n\nWe had a good year and thank our employees.\n"
    with pytest.raises(ParseError, match=r"^letter.txt: its form cannot be told"):
        read_filing(RawFiling(text, "letter.txt"))


@pytest.mark.parametrize(
    ("question", "quarters"),
    [
        ("What was revenue in Q2 FY2023?", {2}),
        ("How did 4Q22 margins compare with 3Q22?", {3, 4}),
        ("What were second-quarter net sales?", {2}),
        ("Fourth quarter fiscal 2022 operating income?", {4}),
        ("Which region had the biggest drop in Q22023 revenues?", {2}),
        ("As of FY2023Q1, why was guidance raised?", {1}),
        ("As of Q2'2023, is Pfizer spinning off a segment?", {2}),
        ("the second fiscal quarter of 2023", {2}),
        ("What was revenue in fiscal 2023?", set()),
        ("What did QVC report in 2023?", set()),
        ("How much did sales grow in the quarter?", set()),
    ],
)
def test_the_quarters_a_question_names(question: str, quarters: set[int]) -> None:
    assert asked_quarters(question) == quarters


def _filing(form: str, quarter: int | None) -> FilingMeta:
    return FilingMeta(
        company="Amcor plc", cik=1748790, ticker="AMCR", form=form, fiscal_year=2023,
        period_end=date(2022, 12, 31), accession=None, filing_date=None, url=None,
        years_reported=(2022, 2023), source="test", sha256="", source_format=SourceFormat.PDF,
        fiscal_quarter=quarter,
    )  # fmt: skip


def test_a_quarter_is_no_question_for_a_10k_nor_another_quarter_s_10q() -> None:
    assert quarter_guard(frozenset({2}), _filing("10-K", None)) == (
        "the question asks for Q2; this filing is a 10-K for fiscal 2023, which reports years, "
        "not quarters"
    )
    assert quarter_guard(frozenset({4}), _filing("10-K", None)) is None  # its last quarter
    assert quarter_guard(frozenset({3}), _filing("10-Q", 2)) == (
        "the question asks for Q3; this filing is the 10-Q for Q2 of fiscal 2023"
    )
    assert quarter_guard(frozenset({2}), _filing("10-Q", 2)) is None
    assert quarter_guard(frozenset(), _filing("10-K", None)) is None
    assert quarter_guard(frozenset({2}), _filing("8-K", None)) is None


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setenv("EDGAR_RAG_DB", str(tmp_path / "index.db"))
    monkeypatch.setenv("EDGAR_RAG_EMBEDDER", "hashing")
    monkeypatch.setenv("EDGAR_RAG_MODEL_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    return CliRunner()


def invoke(runner: CliRunner, *args: str) -> Result:
    return runner.invoke(main, list(args), catch_exceptions=False)


def test_the_cli_indexes_each_form_and_scopes_a_question_by_form_and_quarter(
    run: CliRunner, tmp_path: Path
) -> None:
    folder = tmp_path / "financebench" / "pdfs"
    folder.mkdir(parents=True)
    shutil.copy(FINANCEBENCH / "financebench_document_information.jsonl", folder.parent)
    for name in (QUARTER, CURRENT, "AMCOR_2023Q4_EARNINGS.pdf"):
        shutil.copy(PDFS / name, folder)
    ingested = invoke(run, "ingest", "--from", str(folder))
    assert ingested.exit_code == 0, ingested.output
    assert "indexed    AMCR 10-Q Q2 FY2023" in ingested.stdout
    assert "indexed    AMCR 8-K 2022-07-01" in ingested.stdout
    rows = json.loads(invoke(run, "filings", "--json").stdout)
    assert sorted((r["form"], r["fiscal_year"], r["fiscal_quarter"]) for r in rows) == [
        ("10-Q", 2023, 2),
        ("8-K", 2022, None),
        ("EX-99.1", 2023, 4),
    ]
    listed = invoke(run, "filings").stdout
    assert "10-Q Q2 FY2023" in listed
    assert "earnings release Q4 FY2023" in listed
    asked = invoke(
        run, "ask", "What were Amcor's net sales in Q3?", "--ticker", "AMCR", "--form", "10-Q",
        "--json",
    )  # fmt: skip
    assert asked.exit_code == 0, asked.output
    body = json.loads(asked.stdout)
    assert (body["reason"], body["detail"]) == (
        "out_of_period",
        "the question asks for Q3; this filing is the 10-Q for Q2 of fiscal 2023",
    )
    with open_index(tmp_path / "index.db") as index:  # a quarter's figures are not a year's
        assert index.compute("What were Amcor's total assets?", ticker="AMCR", form="10-Q") is None
    missing = invoke(run, "search", "net sales", "--ticker", "AMCR", "--quarter", "1")
    assert missing.exit_code == 1
    assert missing.stderr.strip() == (
        "Error: ticker AMCR has no indexed filing for 10-Q Q1; indexed: 8-K 2022-07-01, "
        "10-Q Q2 FY2023, earnings release Q4 FY2023"
    )
