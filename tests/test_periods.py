"""The fiscal years a question names, and the period guard that declines the ones not reported."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from edgar_rag.domain import FilingMeta, SourceFormat
from edgar_rag.question.periods import (
    asked_fiscal_years,
    describe_years,
    outlook_years,
    period_guard,
)


def _filing(fiscal_year: int, period_end: date | None, years: tuple[int, ...]) -> FilingMeta:
    return FilingMeta(
        company="Apple Inc.",
        cik=320193,
        ticker="AAPL",
        form="10-K",
        fiscal_year=fiscal_year,
        period_end=period_end,
        accession=None,
        filing_date=None,
        url=None,
        years_reported=years,
        source="test",
        sha256="",
        source_format=SourceFormat.HTML,
    )


APPLE = _filing(2025, date(2025, 9, 27), (2023, 2024, 2025))
HOME_DEPOT = _filing(2024, date(2025, 2, 2), (2022, 2023, 2024))


@pytest.mark.parametrize(
    ("question", "years"),
    [
        ("What was Apple's revenue in 2025?", {2025}),
        ("Apple net income FY25", {2025}),
        ("What were R&D expenses in FY 2025?", {2025}),
        ("How much did Apple spend on R&D in FY2024?", {2024}),
        ("What was gross margin in fiscal 2024?", {2024}),
        ("What was gross margin in fiscal year 2024?", {2024}),
        ("Net sales for fiscal '24", {2024}),
        ("What were net sales for the year ended September 27, 2025?", {2025}),
        ("What were net sales for the year ended September 28, 2024?", {2024}),
        ("Cash at Sept. 30, 2023", {2023}),
        ("Cash at 2024-09-28", {2024}),
        ("Revenue in 2023 and 2024", {2023, 2024}),
        ("Revenue for fiscal years 2023 and 2024", {2023, 2024}),
        ("How did revenue change over 2022-2024?", {2022, 2023, 2024}),
        ("How did revenue change from 2022 through 2024?", {2022, 2023, 2024}),
        ("How did revenue change between 2022 and 2024?", {2022, 2023, 2024}),
        ("Revenue FY22-24", {2022, 2023, 2024}),
        ("Revenue FY2022-FY2024", {2022, 2023, 2024}),
        ("What was revenue last year?", {2024}),
        ("How did margins compare with the prior year?", {2024}),
        ("What changed in the previous fiscal year?", {2024}),
        ("What did Apple spend this year?", {2025}),
        ("How large is the current year's buyback?", {2025}),
        ("What was revenue three years ago?", {2022}),
        ("What was revenue a year ago?", {2024}),
    ],
)
def test_each_wording_names_its_fiscal_years(question: str, years: set[int]) -> None:
    assert asked_fiscal_years(question, APPLE) == years


def test_a_date_maps_to_the_fiscal_year_of_the_nearest_period_end() -> None:
    asked = "What was revenue for the year ended February 2, 2025?"
    assert asked_fiscal_years(asked, HOME_DEPOT) == {2024}
    assert asked_fiscal_years("Inventory at January 28, 2024", HOME_DEPOT) == {2023}


def test_the_date_of_an_event_maps_to_the_fiscal_year_containing_it() -> None:
    """As the verifier reads "On February 1, 2024, we announced" in a passage (issue 20)."""
    meta = _filing(2023, date(2023, 12, 31), (2021, 2022, 2023))
    assert asked_fiscal_years("What dividend did Meta announce on February 1, 2024?", meta) == {
        2024
    }
    holders = "How many holders of record were there on January 31, 2024?"
    assert asked_fiscal_years(holders, meta) == {2023}
    assert asked_fiscal_years("What did Apple's board approve in October 2024?", APPLE) == {2025}
    assert asked_fiscal_years("How many holders did Apple have in October 2024?", APPLE) == {2024}


def test_a_date_without_a_period_end_counts_as_its_calendar_year() -> None:
    filing = _filing(2025, None, (2024, 2025))
    assert asked_fiscal_years("Cash at December 31, 2024", filing) == {2024}


def test_relative_years_count_from_today_when_told() -> None:
    asked = "What was revenue last year and three years ago?"
    assert asked_fiscal_years(asked, APPLE) == {2024, 2022}
    assert asked_fiscal_years(asked, APPLE, today_fiscal_year=2027) == {2026, 2024}


@pytest.mark.parametrize(
    "question",
    [
        "How many shares remain under the 2021 Stock Plan?",
        "What is the interest rate on the 2030 Notes?",
        "What is the coupon of the 2.000% Notes due 2027?",
        "How many awards were granted under the 2019 Omnibus Incentive Plan?",
        "What are the Senior Notes due 2031?",
        "What is incorporated from the Proxy Statement for the 2026 Annual Meeting?",
        "How did the Tax Cuts and Jobs Act of 2017 affect taxes?",
        "What does the company say about COVID-19?",
        "What is the goal to be carbon neutral by 2030?",
        "When do the notes mature in 2029?",
        "How was ASU 2016-13 adopted?",
        "How many of its 2,000 employees work in R&D?",
        "Did revenue exceed 2025 million?",
        "What is year-over-year growth?",
        "What are the main risk factors?",
    ],
)
def test_a_year_inside_a_name_or_a_quantity_is_not_a_period(question: str) -> None:
    assert asked_fiscal_years(question, APPLE) == frozenset()
    assert guard(question, APPLE) is None


def test_the_guard_declines_only_a_year_the_filing_does_not_report() -> None:
    assert guard("What was revenue in 2024 and 2025?", APPLE) is None
    assert guard("What was revenue in 2019?", APPLE) == (
        "the question names fiscal 2019; this filing reports fiscal 2023 to 2025"
    )
    assert guard("Revenue from 2019 through 2025", APPLE) == (
        "the question names fiscal 2019 to 2022; this filing reports fiscal 2023 to 2025"
    )


@pytest.mark.parametrize(
    ("question", "outlook"),
    [
        ("As of FY2025, how much did Apple expect to pay its retirees in 2027?", {2027}),
        ("What production rate changes is Apple forecasting for FY2026?", {2026}),
        ("What does Apple's guidance say about fiscal 2026 and fiscal 2025?", {2026}),
        # no word of an expectation: a later year is a period the filing does not report
        ("What was Apple's revenue in 2026?", set()),
        # an expectation of a year the filing reports is about that year
        ("Did Apple expect revenue to grow in 2025?", set()),
    ],
)
def test_a_later_year_a_question_asks_the_outlook_of_is_no_missing_period(
    question: str, outlook: set[int]
) -> None:
    asked = asked_fiscal_years(question, APPLE)
    assert outlook_years(question, asked, APPLE) == frozenset(outlook)
    kept = asked - outlook_years(question, asked, APPLE)
    declined = period_guard(kept, APPLE) is not None
    assert declined is (question == "What was Apple's revenue in 2026?")


def test_years_read_as_runs() -> None:
    assert describe_years([2019]) == "2019"
    assert describe_years([2021, 2019]) == "2019 and 2021"
    assert describe_years([2024, 2025]) == "2024 and 2025"
    assert describe_years([2017, 2019, 2020, 2021]) == "2017 and 2019 to 2021"


TEMPLATES = (
    "What was revenue in {}?",
    "{} net income",
    "How much did Apple spend on research and development during {}?",
    "In {}, what did the company report as operating income?",
    "What were shares under the 2021 Stock Plan in {}?",
    "How did the Senior Notes due 2031 change in {}?",
    "Gross margin, {}, compared with COVID-19 levels",
)


def _written(year: int, form: int, filing: FilingMeta) -> str:
    assert filing.period_end is not None
    end = filing.period_end
    ended = date(end.year - (filing.fiscal_year - year), end.month, min(end.day, 28))
    forms = (
        str(year),
        f"FY{year}",
        f"FY {year}",
        f"FY{year % 100:02d}",
        f"fiscal {year}",
        f"fiscal year {year}",
        f"the year ended {ended:%B} {ended.day}, {ended.year}",
    )
    return forms[form]


@settings(deadline=None)
@given(
    filing=st.sampled_from([APPLE, HOME_DEPOT]),
    pick=st.integers(0, 2),
    form=st.integers(0, 6),
    template=st.sampled_from(TEMPLATES),
)
def test_a_reported_year_in_any_form_is_never_declined(
    filing: FilingMeta, pick: int, form: int, template: str
) -> None:
    year = filing.years_reported[pick]
    question = template.format(_written(year, form, filing))
    assert year in asked_fiscal_years(question, filing)
    assert guard(question, filing) is None


@settings(deadline=None)
@given(
    filing=st.sampled_from([APPLE, HOME_DEPOT]),
    year=st.integers(1990, 2060),
    form=st.integers(0, 6),
    template=st.sampled_from(TEMPLATES),
)
def test_a_year_not_reported_is_declined_naming_it_and_the_reported_range(
    filing: FilingMeta, year: int, form: int, template: str
) -> None:
    assume(year not in filing.years_reported)
    question = template.format(_written(year, form, filing))
    detail = guard(question, filing)
    first, last = filing.years_reported[0], filing.years_reported[-1]
    assert detail is not None
    assert f"fiscal {year};" in detail
    assert detail.endswith(f"this filing reports fiscal {first} to {last}")


def guard(question: str, filing: FilingMeta) -> str | None:
    """The period guard on the fiscal years ``question`` names."""
    return period_guard(asked_fiscal_years(question, filing), filing)
