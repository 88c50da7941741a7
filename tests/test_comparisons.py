"""What an answer states about its own figures, checked by code: a comparison between two of
them, and the period they are said to be of against the one asked."""

from __future__ import annotations

import pytest

from edgar_rag.answer.comparisons import comparison_contradicted, quarter_for_year


def test_a_figure_said_higher_than_a_larger_one_is_caught_without_naming_either() -> None:
    text = (
        "Acme is a capital-intensive business [1]. The total shareholders' equity for the year "
        "was $71,315 million, which is higher than the total liabilities and shareholders' "
        "equity of $228,275 million [1]."
    )
    why = comparison_contradicted(text)
    assert why is not None
    assert "71,315" not in why
    assert "228,275" not in why
    assert why.endswith("says a figure is higher than one it is not")


@pytest.mark.parametrize(
    "text",
    [
        "Organic revenue grew 14.3% in the year, which was higher than the 10.2% reported [1].",
        "Its margin was 38.9%, 2.1 percentage points higher than 36.8% a year before [1].",
        "Debt fell to $12 million, less than the $15 million of 2023 [1].",
        "Revenue was $9 million, more than 20% of the total [1].",  # an amount and a share
        "Sales rose more than expected [1].",
    ],
)
def test_a_comparison_that_holds_or_compares_no_two_levels_passes(text: str) -> None:
    assert comparison_contradicted(text) is None


def test_a_quarters_figures_do_not_answer_a_question_of_a_fiscal_year() -> None:
    answer = (
        "SG&A expenses decreased to 23.6% compared to 23.8% in the fourth quarter of fiscal "
        "2021 [1]."
    )
    asked = "Did Acme's wages expense as a percent of net sales increase or decrease in FY2023?"
    why = quarter_for_year(asked, answer)
    assert why is not None
    assert "23.6" not in why
    # A question of a quarter, or of a date, is no question of a fiscal year.
    assert quarter_for_year("As of FY2023Q1, why did Acme raise its guidance?", answer) is None
    assert quarter_for_year("What gain did Acme book as of August 30, 2023?", answer) is None
    assert quarter_for_year(asked, "Wages rose to 9.1% of net sales in fiscal 2023 [1].") is None
