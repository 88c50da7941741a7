"""The fiscal year a day falls in, beside the fiscal year whose end lies nearest it."""

from __future__ import annotations

from datetime import date

import pytest

from edgar_rag.rules import (
    dates_an_event,
    fiscal_year_as_of,
    fiscal_year_at,
    fiscal_year_containing,
    fiscal_year_in_quarter,
    months_before,
)

META_2023_END = date(2023, 12, 31)
HOME_DEPOT_2024_END = date(2025, 2, 2)
APPLE_2025_END = date(2025, 9, 27)


def test_a_day_after_the_year_end_falls_in_the_next_fiscal_year_though_nearer_its_end() -> None:
    """Meta announced its first dividend on February 1, 2024, in its fiscal 2023 10-K."""
    announced = date(2024, 2, 1)
    assert fiscal_year_at(announced, META_2023_END, 2023) == 2023
    assert fiscal_year_containing(announced, META_2023_END, 2023) == 2024


@pytest.mark.parametrize(
    ("day", "period_end", "fiscal_year", "containing"),
    [
        (date(2023, 12, 31), META_2023_END, 2023, 2023),
        (date(2023, 1, 1), META_2023_END, 2023, 2023),
        (date(2023, 3, 15), META_2023_END, 2023, 2023),
        (date(2022, 12, 31), META_2023_END, 2023, 2022),
        (date(2024, 12, 31), META_2023_END, 2023, 2024),
        (date(2025, 2, 2), HOME_DEPOT_2024_END, 2024, 2024),
        (date(2025, 2, 3), HOME_DEPOT_2024_END, 2024, 2025),
        (date(2024, 3, 15), HOME_DEPOT_2024_END, 2024, 2024),
        (date(2024, 11, 15), APPLE_2025_END, 2025, 2025),
        (date(2024, 9, 15), APPLE_2025_END, 2025, 2024),
        (date(2023, 3, 1), date(2024, 2, 29), 2024, 2024),
    ],
)
def test_a_day_falls_in_the_fiscal_year_whose_end_is_the_first_on_or_after_it(
    day: date, period_end: date, fiscal_year: int, containing: int
) -> None:
    assert fiscal_year_containing(day, period_end, fiscal_year) == containing


def test_a_year_end_and_a_cover_date_keep_the_nearest_year_end() -> None:
    """What a balance or cover date needs instead: January 31, 2024 on a fiscal 2023 cover."""
    assert fiscal_year_at(date(2024, 1, 31), META_2023_END, 2023) == 2023
    assert fiscal_year_at(date(2024, 1, 28), HOME_DEPOT_2024_END, 2024) == 2023


PROGRESSIVE_2023_END = date(2023, 12, 31)


@pytest.mark.parametrize(
    ("day", "period_end", "fiscal_year", "as_of"),
    [
        (date(2024, 1, 31), PROGRESSIVE_2023_END, 2023, 2023),  # the cover's shares outstanding
        (date(2023, 12, 31), PROGRESSIVE_2023_END, 2023, 2023),
        (date(2022, 12, 31), PROGRESSIVE_2023_END, 2023, 2022),  # the comparative column
        (date(2023, 6, 30), PROGRESSIVE_2023_END, 2023, 2023),  # the cover's public float
        (date(2024, 4, 15), PROGRESSIVE_2023_END, 2023, 2023),  # within the lag after its end
        (date(2024, 6, 30), PROGRESSIVE_2023_END, 2023, 2024),
        (date(2024, 1, 28), HOME_DEPOT_2024_END, 2024, 2023),  # 52-53 weeks: 5 days off
        (date(2025, 3, 14), HOME_DEPOT_2024_END, 2024, 2024),
        (date(2025, 3, 28), APPLE_2025_END, 2025, 2025),  # Apple's second quarter ends
        (date(2025, 10, 17), APPLE_2025_END, 2025, 2025),  # Apple's cover date
    ],
)
def test_a_balance_date_is_of_the_year_just_ended_within_the_filing_lag_else_of_its_own(
    day: date, period_end: date, fiscal_year: int, as_of: int
) -> None:
    assert fiscal_year_as_of(day, period_end, fiscal_year) == as_of


def test_a_mid_year_balance_date_is_inside_its_year_where_the_nearest_year_end_is_not() -> None:
    """June 30, 2023 lies 181 days after fiscal 2022 ended and 184 before fiscal 2023 ends."""
    assert fiscal_year_at(date(2023, 6, 30), PROGRESSIVE_2023_END, 2023) == 2022
    assert fiscal_year_as_of(date(2023, 6, 30), PROGRESSIVE_2023_END, 2023) == 2023


@pytest.mark.parametrize(
    ("sentence", "event"),
    [
        ("On February 1, 2024 we announced the initiation of our first ever cash dividend.", True),
        ("In August 2023, our Board approved an additional $25.0 billion of repurchases.", True),
        ("The dividend was paid on March 26, 2024.", True),
        ("As of January 26, 2024, there were 3,098 stockholders of record.", False),
        ("On January 31, 2024, there were approximately 7,000 holders of record.", False),
        ("We paid it to holders of record at the close of business on February 22, 2024.", False),
        ("Cash was $65.40 billion at December 31, 2023.", False),
    ],
)
def test_a_date_names_an_event_when_something_happened_on_it(sentence: str, event: bool) -> None:
    date_at = next(sentence.index(m) for m in ("Jan", "Feb", "Mar", "Aug", "Dec") if m in sentence)
    assert dates_an_event(sentence, date_at) is event


def test_months_before_keeps_a_month_s_last_day_its_month_s_last() -> None:
    assert months_before(date(2023, 6, 30), 3) == date(2023, 3, 31)  # a calendar quarter
    assert months_before(date(2023, 7, 29), 3) == date(2023, 4, 29)  # a 52-53 week quarter
    assert months_before(date(2022, 12, 31), 6) == date(2022, 6, 30)
    assert months_before(date(2023, 2, 28), 9) == date(2022, 5, 31)
    assert months_before(date(2023, 5, 31), 3) == date(2023, 2, 28)


def test_a_date_of_a_quarter_s_report_is_of_the_fiscal_year_it_falls_in() -> None:
    """Best Buy's second quarter of fiscal 2024 ended 2023-07-29 (its years end near February);
    Amcor's second quarter of fiscal 2023 ended 2022-12-31 (its years end 30 June)."""
    bby = date(2023, 7, 29)
    assert fiscal_year_in_quarter(bby, bby, 2, 2024) == 2024
    assert fiscal_year_in_quarter(date(2023, 1, 28), bby, 2, 2024) == 2023
    assert fiscal_year_in_quarter(date(2022, 7, 30), bby, 2, 2024) == 2023
    amcor = date(2022, 12, 31)
    assert fiscal_year_in_quarter(amcor, amcor, 2, 2023) == 2023
    assert fiscal_year_in_quarter(date(2022, 6, 30), amcor, 2, 2023) == 2022
    assert fiscal_year_in_quarter(date(2021, 12, 31), amcor, 2, 2023) == 2022
