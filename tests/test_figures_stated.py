"""Formulas the question states, read by code (question texts from FinanceBench)."""

from __future__ import annotations

import json

import pytest

from edgar_rag.figures.formula import FormulaProblem, render
from edgar_rag.figures.library import ResultUnit, load_library
from edgar_rag.figures.stated import (
    FormulaDecline,
    StatedFormula,
    asked_decimals,
    read_stated_formula,
)
from figures_facts import FINANCEBENCH

LIBRARY = load_library()

FIXED_ASSET_TURNOVER = (
    "What is the FY2019 fixed asset turnover ratio for Activision Blizzard? Fixed asset turnover "
    "ratio is defined as: FY2019 revenue / (average PP&E between FY2018 and FY2019). Round your "
    "answer to two decimal places. Base your judgments on the information provided primarily in "
    "the statement of income and the statement of financial position."
)
CCC = (
    "What is the FY2019 cash conversion cycle (CCC) for General Mills? CCC is defined as: DIO + "
    "DSO - DPO. DIO is defined as: 365 * (average inventory between FY2018 and FY2019) / (FY2019 "
    "COGS). DSO is defined as: 365 * (average accounts receivable between FY2018 and FY2019) / "
    "(FY2019 Revenue). DPO is defined as: 365 * (average accounts payable between FY2018 and "
    "FY2019) / (FY2019 COGS + change in inventory between FY2018 and FY2019). Round your answer "
    "to two decimal places."
)


def _read(question: str) -> StatedFormula:
    stated = read_stated_formula(question, LIBRARY)
    assert isinstance(stated, StatedFormula), stated
    return stated


def test_a_defined_ratio_with_an_average_balance_is_read() -> None:
    stated = _read(FIXED_ASSET_TURNOVER)
    assert stated.name == "fixed asset turnover ratio"
    assert render(stated.formula) == "revenue / avg(ppe_net)"
    assert stated.fiscal_year == 2019
    assert stated.unit is ResultUnit.RATIO
    assert stated.decimals == 2


def test_definitions_that_name_other_definitions_are_inlined() -> None:
    stated = _read(CCC)
    assert render(stated.formula) == (
        "365 * avg(inventory) / cost_of_revenue + 365 * avg(accounts_receivable) / revenue"
        " - 365 * avg(accounts_payable) / (cost_of_revenue + (inventory - inventory[-1]))"
    )
    assert stated.unit is ResultUnit.DAYS


def test_operator_words_and_dollar_scales_are_read() -> None:
    stated = _read(
        "What is Lockheed Martin's FY2021 net working capital? Define net working capital as "
        "total current assets less total current liabilities. Answer in USD millions."
    )
    assert render(stated.formula) == "current_assets - current_liabilities"
    assert stated.unit is ResultUnit.USD
    assert stated.scale == 6


def test_the_ask_wraps_the_definition_it_names() -> None:
    stated = _read(
        "What is the FY2018 - FY2020 3 year average unadjusted EBITDA % margin for Walmart? "
        "Define unadjusted EBITDA as unadjusted operating income + depreciation and amortization "
        "from the cash flow statement. Answer in units of percents and round to one decimal place."
    )
    assert render(stated.formula).startswith(
        "((operating_income + depreciation_and_amortization) / revenue + "
    )
    assert stated.unit is ResultUnit.PERCENT
    assert stated.decimals == 1
    less = _read(
        "What is the FY2022 unadjusted EBITDA less capex for PepsiCo? Define unadjusted EBITDA as "
        "unadjusted operating income + depreciation and amortization [from cash flow statement]. "
        "Answer in USD millions."
    )
    assert render(less.formula) == "operating_income + depreciation_and_amortization - capex"


@pytest.mark.parametrize(
    ("question", "problem"),
    [
        (
            "What is X's ratio? Goodwill ratio is defined as: goodwill / total assets.",
            FormulaProblem.UNKNOWN_LINE_ITEM,
        ),
        (
            "What is X's ratio? Odd ratio is defined as: revenue / / total assets.",
            FormulaProblem.DOES_NOT_PARSE,
        ),
        (
            "What is X's ratio? Odd sum is defined as: revenue + diluted EPS.",
            FormulaProblem.MIXES_UNITS,
        ),
        (
            "What is X's FY2020 ROA? ROA is defined as: net income / (average total assets "
            "between FY2017 and FY2020).",
            FormulaProblem.DOES_NOT_PARSE,
        ),
    ],
)
def test_a_formula_that_cannot_be_used_is_a_typed_decline(
    question: str, problem: FormulaProblem
) -> None:
    declined = read_stated_formula(question, LIBRARY)
    assert isinstance(declined, FormulaDecline)
    assert declined.problem is problem


def test_a_question_that_defines_nothing_has_no_stated_formula() -> None:
    assert read_stated_formula("What was Apple's gross margin in fiscal 2025?", LIBRARY) is None
    assert asked_decimals("round to one decimal place") == 1


@pytest.mark.skipif(not FINANCEBENCH.exists(), reason="no ../shared/corpus/financebench")
def test_every_formula_financebench_states_is_read() -> None:
    questions = [json.loads(line) for line in FINANCEBENCH.read_text("utf-8").splitlines()]
    stated = [read_stated_formula(q["question"], LIBRARY) for q in questions]
    defined = [s for s in stated if s is not None]
    # Measured: 19 of the 150 questions define their formula; all 19 are read.
    assert len(defined) == 19
    assert all(isinstance(s, StatedFormula) for s in defined)


def test_a_definition_that_multiplies_by_the_days_of_a_year_counts_in_days() -> None:
    question = (
        "In fiscal 2024, what was the cash cycle of Home Depot? Cash cycle is defined as: "
        "365 * (average inventories between FY2023 and FY2024) / FY2024 cost of revenue."
    )
    stated = read_stated_formula(question, LIBRARY)
    assert isinstance(stated, StatedFormula)
    assert stated.unit is ResultUnit.DAYS


def test_a_definition_leading_the_question_is_read() -> None:
    stated = _read(
        "Taking free cash flow as operating cash flow minus capital expenditures, what was "
        "Acme's free cash flow in 2024?"
    )
    assert (stated.name, render(stated.formula)) == (
        "free cash flow", "operating_cash_flow - capex"
    )  # fmt: skip
    ratio = _read(
        "Computing return on equity as 2023 net income divided by year-end 2023 total "
        "stockholders' equity (not an average), what was Acme's return on equity?"
    )
    assert render(ratio.formula) == "net_income / equity"
    assert ratio.unit is ResultUnit.PERCENT  # a return is stated in percent


def test_a_definition_of_a_line_goes_into_the_metric_the_question_asks() -> None:
    """ "Taking debt as ..., what was its debt-to-equity ratio?" defines the debt inside the
    ratio: the library's ratio with the question's debt, never the debt itself; a metric that
    averages the defined line is declined."""
    ratio = read_stated_formula(
        "Taking debt as short-term borrowings plus long-term debt, what was Acme's "
        "debt-to-equity ratio at year-end 2024?",
        LIBRARY,
    )
    assert isinstance(ratio, StatedFormula), ratio
    assert render(ratio.formula) == "(short_term_borrowings + long_term_debt) / equity"
    assert ratio.unit is ResultUnit.RATIO
    averaged = read_stated_formula(
        "Taking equity as common stock plus retained earnings, what was Acme's return on "
        "equity in 2024?",
        LIBRARY,
    )
    assert isinstance(averaged, FormulaDecline)  # its equity is averaged: not the year's line


@pytest.mark.parametrize(
    ("question", "name", "formula"),
    [
        (
            "What was Union Pacific's asset turnover in 2024, i.e. operating revenues over "
            "average total assets?",
            "asset turnover",
            "revenue / avg(total_assets)",
        ),
        (
            "What was its cost ratio (cost of sales over net sales) in 2024?",
            "cost ratio",
            "cost_of_revenue / net_sales",
        ),
        (
            "What was Apple's overhead ratio in fiscal 2024, that is, SG&A divided by total "
            "revenue?",
            "overhead ratio",
            "sga / revenue",
        ),
        (
            "What was Verizon's net debt in 2022, defined as total debt minus cash and cash "
            "equivalents?",
            "net debt",
            "total_debt - cash",
        ),
    ],
)
def test_a_definition_after_i_e_or_in_parentheses_is_read(
    question: str, name: str, formula: str
) -> None:
    stated = _read(question)
    assert (stated.name, render(stated.formula)) == (name, formula)


def test_a_parenthesis_without_arithmetic_defines_nothing() -> None:
    question = "What was Boeing's backlog (in billions) at the end of 2024?"
    assert read_stated_formula(question, LIBRARY) is None
