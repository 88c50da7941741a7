"""Figures read out of answer sentences and out of passages (table rows and prose)."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from edgar_rag.answer.numbers import (
    Figure,
    PrintedFigure,
    find_figures,
    passage_figures,
    supports,
)
from edgar_rag.rules import parse_number_words

SALES_ROW = "Total net sales | 2025: 416,161 | 2024: 391,035 | 2023: 383,285 | (in millions)"
EPS_ROW = (
    "Earnings per share: Diluted | September 27, 2025: 7.46 | September 28, 2024: 6.08 | "
    "September 30, 2023: 6.13"
)
CHINA_ROW = (
    "Greater China | 2025: 64,377 | Change: (4)% | 2024: 66,952 | Change: (8)% | 2023: 72,559 | "
    "(in millions)"
)
PROSE = "Total net sales increased 6% or $25.1 billion during 2025 compared to 2024."

_ONES = "zero one two three four five six seven eight nine ten eleven twelve thirteen".split()
_ONES += "fourteen fifteen sixteen seventeen eighteen nineteen".split()
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()


def number_to_words(n: int) -> str:
    """``2500`` as ``two thousand five hundred``, for whole numbers under 10**12."""
    if n == 0:
        return "zero"
    words: list[str] = []
    for name, multiplier in (("billion", 10**9), ("million", 10**6), ("thousand", 10**3)):
        if n >= multiplier:
            words += [_under_thousand(n // multiplier), name]
            n %= multiplier
    if n:
        words.append(_under_thousand(n))
    return " ".join(words)


def _under_thousand(n: int) -> str:
    hundreds, rest = divmod(n, 100)
    words = [f"{_ONES[hundreds]} hundred"] if hundreds else []
    if 0 < rest < 20:
        words.append(_ONES[rest])
    elif rest:
        tens, ones = divmod(rest, 10)
        words.append(f"{_TENS[tens]}-{_ONES[ones]}" if ones else _TENS[tens])
    return " ".join(words)


def only_figure(sentence: str) -> Figure:
    figures = find_figures(sentence)
    assert len(figures) == 1, figures
    return figures[0]


@pytest.mark.parametrize(
    ("sentence", "value", "raw", "scale", "is_percent", "decimals"),
    [
        ("sales of $416,161 million", 416161e6, 416161, 1e6, False, 0),
        ("sales of 416.2 billion", 416.2e9, 416.2, 1e9, False, 1),
        ("a price of $2,500", 2500, 2500, 1, False, 0),
        ("a margin of 12%", 12, 12, 1, True, 0),
        ("a change of (4)%", -4, 4, 1, True, 0),
        ("debt of 1.5 billion", 1.5e9, 1.5, 1e9, False, 1),
        ("a fall of -3.2%", -3.2, 3.2, 1, True, 1),
        ("diluted earnings of 7.46 per share", 7.46, 7.46, 1, False, 2),
        ("a loss of (1,049)", -1049, 1049, 1, False, 0),
        ("spent $1.5B on buybacks", 1.5e9, 1.5, 1e9, False, 1),
        ("up 12 percent", 12, 12, 1, True, 0),
        ("Total liabilities: 308,030 (in millions)", 308030e6, 308030, 1e6, False, 0),
        ("a margin of 12% (in millions)", 12, 12, 1, True, 0),
    ],
)
def test_a_figure_in_digits_carries_its_scale_sign_and_precision(
    sentence: str, value: float, raw: float, scale: float, is_percent: bool, decimals: int
) -> None:
    figure = only_figure(sentence)
    assert figure.value == pytest.approx(value)
    assert figure.raw == pytest.approx(raw)
    assert figure.scale == scale
    assert (figure.is_percent, figure.decimals_written) == (is_percent, decimals)
    assert figure.text == sentence[figure.start : figure.end]


@pytest.mark.parametrize(
    ("sentence", "value", "raw", "scale", "is_percent", "decimals"),
    [
        ("sales of one point five billion dollars", 1.5e9, 1.5, 1e9, False, 1),
        ("sales of two and a half billion dollars", 2.5e9, 2.5, 1e9, False, 1),
        ("a price of two thousand five hundred dollars", 2500, 2500, 1, False, 0),
        ("about three hundred million shares", 300e6, 300, 1e6, False, 0),
        ("a margin of twelve percent", 12, 12, 1, True, 0),
        ("twenty-five point one billion dollars", 25.1e9, 25.1, 1e9, False, 1),
    ],
)
def test_a_figure_in_words_carries_its_scale_and_precision(
    sentence: str, value: float, raw: float, scale: float, is_percent: bool, decimals: int
) -> None:
    figure = only_figure(sentence)
    assert figure.value == pytest.approx(value)
    assert figure.raw == pytest.approx(raw)
    assert figure.scale == scale
    assert (figure.is_percent, figure.decimals_written) == (is_percent, decimals)


@pytest.mark.parametrize(
    "sentence",
    [
        "Apple's fiscal 2025 ended in September.",
        "FY2024 was a strong year, as were 2023 and 2024.",
        "See Item 7A and Items 1A and 7.",
        "Refer to Note 12, page 45 and pp. 46-47.",
        "Filed as Exhibit 10.1 under Section 302 and Rule 10b5-1.",
        "Amendment No. 3 to the Form 10-K, Part II.",
        "Its return beat the S&P 500 and the Level 3 inputs held.",
        "The fiscal year ended September 27, 2025.",
        "The quarter ended Jan 26, 2025 and the other on 9/27/2025.",
        "It says so [1], [2, 3] and [4-5].",
        "Revenue grew over the past three years and the last 12 months.",
        "It issued zero-coupon notes under a five-year plan.",
        "Apple is one of the largest companies; in a quarter sales rose.",
        "Employees join the 401(k) plan; COVID-19 hit sales.",
    ],
)
def test_years_references_dates_markers_and_counts_of_periods_are_not_figures(
    sentence: str,
) -> None:
    assert find_figures(sentence) == []


def test_a_reference_label_does_not_hide_a_figure_that_follows_it() -> None:
    figures = find_figures("Item 7 and 2,500 employees, per Note 3, grew 4% in fiscal 2025.")
    assert [f.text for f in figures] == ["2,500", "4%"]


@pytest.mark.parametrize(
    ("words", "value"),
    [
        ("zero", 0),
        ("one hundred twenty-three", 123),
        ("one hundred and twenty-three", 123),
        ("two thousand five hundred", 2500),
        ("twelve hundred", 1200),
        ("a million", 1e6),
        ("one point five", 1.5),
        ("one point two five billion", 1.25e9),
        ("two and a half", 2.5),
        ("two and a quarter", 2.25),
        ("a quarter", 0.25),
        ("a half", 0.5),
    ],
)
def test_number_words_read_as_their_value(words: str, value: float) -> None:
    assert parse_number_words(words) == pytest.approx(value)


@pytest.mark.parametrize(
    "words",
    ["", "thousand", "twenty twenty", "five five", "one million one million", "two and", "ten 5"],
)
def test_number_words_that_do_not_compose_read_as_nothing(words: str) -> None:
    assert parse_number_words(words) is None


@given(st.integers(min_value=0, max_value=999_999_999))
@example(0)
@example(1_000_000)
@example(999_999_999)
@example(100_000_010)
def test_every_whole_number_in_words_reads_back_to_itself(n: int) -> None:
    assert parse_number_words(number_to_words(n)) == n


def test_number_to_words_writes_plain_english() -> None:
    assert number_to_words(2_500) == "two thousand five hundred"
    assert number_to_words(416_161) == "four hundred sixteen thousand one hundred sixty-one"


def test_a_labelled_row_prints_each_cell_under_its_header_with_the_row_scale() -> None:
    printed = passage_figures(SALES_ROW)
    assert [(p.value, p.values[1:], p.header, p.label) for p in printed] == [
        (416161, (416161e6,), "2025", "Total net sales"),
        (391035, (391035e6,), "2024", "Total net sales"),
        (383285, (383285e6,), "2023", "Total net sales"),
    ]


def test_a_per_share_row_is_never_scaled_by_the_table_note() -> None:
    row = "Denominator: Diluted earnings per share | 2024: 6.08 | 2023: 6.13 | (in millions)"
    [first, _] = passage_figures(row)
    assert first.values == (6.08,)
    sales = passage_figures("Total net sales | 2024: 391,035 | (in millions)")[0]
    assert sales.values == (391035, 391035e6)


def test_a_row_without_a_scale_note_prints_its_figures_as_they_are() -> None:
    printed = passage_figures(EPS_ROW)
    assert [(p.value, p.alternatives, p.header) for p in printed] == [
        (7.46, (), "September 27, 2025"),
        (6.08, (), "September 28, 2024"),
        (6.13, (), "September 30, 2023"),
    ]
    assert {p.label for p in printed} == {"Earnings per share: Diluted"}


def test_a_change_cell_is_a_negative_percent_under_its_header_and_is_not_rescaled() -> None:
    changes = [p for p in passage_figures(CHINA_ROW) if p.figure.is_percent]
    assert [(p.value, p.alternatives, p.header) for p in changes] == [
        (-4, (), "Change (2025)"),
        (-8, (), "Change (2024)"),
    ]


def test_a_prose_figure_keeps_its_scale_word_and_sits_under_the_year_after_it() -> None:
    printed = passage_figures(f"{SALES_ROW}\n{PROSE}")[3:]
    assert [(p.value, p.figure.is_percent, p.header, p.label) for p in printed] == [
        (6, True, None, None),
        (pytest.approx(25.1e9), False, "2025", None),
    ]


def test_a_figure_in_a_row_label_is_printed_without_a_header() -> None:
    printed = passage_figures("4.375% Notes due 2029 | 2025: 1,000 | 2024: 1,000 | (in millions)")
    rate = printed[0]
    assert (rate.value, rate.figure.is_percent, rate.header) == (4.375, True, None)
    assert all(p.label == "4.375% Notes due 2029" for p in printed)


def _sales_2025() -> PrintedFigure:
    return passage_figures(SALES_ROW)[0]


@pytest.mark.parametrize(
    ("claim", "supported"),
    [
        ("$416.2 billion", True),
        ("$416 billion", True),
        ("$416.16 billion", True),
        ("$417 billion", False),
        ("$416.1 billion", False),
        ("416,161", True),
        ("$416,161 million", True),
        ("$416,162 million", False),
        ("416,161%", False),
    ],
)
def test_a_printed_figure_supports_a_claim_rounded_to_the_precision_it_was_written(
    claim: str, supported: bool
) -> None:
    assert supports(_sales_2025(), only_figure(claim)) is supported


def test_a_figure_rounding_down_is_supported_and_its_neighbour_is_not() -> None:
    prior_year = passage_figures(SALES_ROW)[1]
    assert supports(prior_year, only_figure("$391.0 billion"))
    assert not supports(prior_year, only_figure("$390.9 billion"))


def test_signs_are_compared_as_absolute_values() -> None:
    china_change = passage_figures(CHINA_ROW)[1]
    assert supports(china_change, only_figure("a decline of 4%"))
    loss = passage_figures("Net loss | 2025: (1,049) | (in millions)")[0]
    assert supports(loss, only_figure("a loss of $1,049 million"))


@pytest.mark.parametrize(
    ("sentence", "year"),
    [
        ("We paid $384 million of back wages in 2023.", "2023"),
        ("Sales rose in 2024 compared to 2023 due to $384 million of payments in 2023.", "2023"),
        ("In 2024 we repurchased $9.7 billion, after $5.0 billion in 2023.", None),
        ("As of December 31, 2024 and 2023, the liability was $1,675 and $1,640.", None),
        ("Net sales rose 6% in 2025.", None),
        ("Since May 2013, more than 50 cases have been filed by merchants.", None),
        ("Beginning in 2019, we opened 120 stores, 14 of them in 2024.", "2024"),
        ("We are targeting expansion to 50,000 restaurants by the end of 2027.", None),
    ],
)
def test_a_prose_figure_takes_the_only_year_or_the_one_right_after_it(
    sentence: str, year: str | None
) -> None:
    assert passage_figures(sentence)[0].header == year


def test_a_multiple_is_a_figure() -> None:
    """``8.71x``: a ratio as analysts write it is checked like any other figure."""
    (figure,) = find_figures("Fixed asset turnover was 8.71x in fiscal 2025.")
    assert (figure.raw, figure.scale, figure.is_percent) == (8.71, 1.0, False)


def test_a_prose_figure_takes_the_whole_date_its_sentence_gives() -> None:
    dated, yearly = passage_figures(
        "As of February 2, 2025, we employed approximately 470,100 associates. We paid "
        "$9.7 billion in 2024."
    )
    assert (dated.figure.text, dated.header) == ("470,100", "February 2, 2025")
    assert yearly.header == "2024"


@pytest.mark.parametrize(
    ("sentence", "header"),
    [
        (
            "On February 1, 2024, we announced that our board declared a cash dividend of $0.50 "
            "per share.",
            "on February 1, 2024",
        ),
        (
            "In August 2023, our Board approved an additional $25.0 billion in share repurchases.",
            "in August 2023",
        ),
        (
            "As of January 26, 2024, there were 3,098 stockholders of record of our Class A "
            "common stock.",
            "January 26, 2024",
        ),
        (
            "On January 31, 2024, there were approximately 7,000 holders of record.",
            "January 31, 2024",
        ),
        (
            "We paid $0.50 per share to all holders of record at the close of business on "
            "February 22, 2024.",
            "February 22, 2024",
        ),
        ("In January 2024, headcount was approximately 67,000.", "2024"),
    ],
)
def test_a_prose_figure_dated_by_what_happened_that_day_or_month_is_marked_an_event(
    sentence: str, header: str
) -> None:
    """An event's day falls inside a fiscal year; a balance's day may be after the year end."""
    assert passage_figures(sentence)[0].header == header


def test_a_sentence_pointing_back_takes_the_date_of_the_sentence_before_it() -> None:
    lead = (
        "Dividend On February 1, 2024, we announced the initiation of our first ever cash "
        "dividend program. "
    )
    window = (
        "This cash dividend of $0.50 per share of common stock is equivalent to $2.00 per share "
        "on an annual basis. Our Board declared $1.0 billion."
    )
    pointing, annual, undated = passage_figures(window, lead)
    assert (pointing.header, annual.header) == ("on February 1, 2024", "on February 1, 2024")
    assert undated.header is None
    assert passage_figures(window)[0].header is None


def test_the_number_of_a_standard_is_no_figure() -> None:
    for text in ("the ISO 27002 Security Framework", "NIST CSF 2.0", "SOC 2 reports"):
        assert find_figures(text) == [], text
