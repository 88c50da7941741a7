"""Planning a figure question: a stated formula, a library metric as the question wraps it, or
a lookup of one line item (question texts from FinanceBench and the corpus)."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from edgar_rag.figures.calculator import Calculation
from edgar_rag.figures.formula import FormulaProblem
from edgar_rag.figures.library import ResultUnit, load_library
from edgar_rag.figures.plan import ComputationPlan, Unplanned, compute_plan, plan_computation
from edgar_rag.figures.stated import FormulaDecline
from edgar_rag.question.companies import CompanyDirectory
from edgar_rag.question.reading import read_question
from edgar_rag.question.request import Transform
from figures_facts import FINANCEBENCH, corpus_figures

LIBRARY = load_library()
BARE_FIGURE_IDS = (
    "03029 04672 02987 07966 06655 08135 08286 02608 04417 04660 03838 07661 10285 10130 02981 "
    "04209 04103 03471 04854 10136 04700 04458 03282 04302 03531 04080 03620 04481 06741"
).split()
"""docs/financebench.md's 29 questions whose gold is a bare figure."""


DOCUMENTS = FINANCEBENCH.with_name("financebench_document_information.jsonl")
DIRECTORY = CompanyDirectory.from_edgartools(
    {
        (json.loads(line)["company"], None, None)
        for line in DOCUMENTS.read_text("utf-8").splitlines()
    }
    if DOCUMENTS.exists()
    else ()
)
"""Public companies and FinanceBench's, as an index of its documents would hold them."""


def _planned(question: str) -> object:
    """The question planned as the answer path plans it: read with the company directory, so
    the companies it names are no part of what it measures."""
    return plan_computation(question, LIBRARY, read_question(question, None, DIRECTORY).asked)


def _plan(question: str) -> ComputationPlan:
    plan = _planned(question)
    assert isinstance(plan, ComputationPlan), plan
    return plan


def _left_to_the_model(plan: object) -> bool:
    """Code does not answer it, and does not decline it either: the model reads the passages."""
    return plan is None or (isinstance(plan, Unplanned) and not plan.decline)


@pytest.mark.parametrize(
    ("question", "source", "formula", "unit"),
    [
        (
            "What is the FY2017 - FY2019 3 year average of capex as a % of revenue for "
            "Activision Blizzard? Answer in units of percents and round to one decimal place.",
            "metric",
            "(capex / revenue + capex[-1] / revenue[-1] + capex[-2] / revenue[-2]) / 3",
            ResultUnit.PERCENT,
        ),
        (
            "What is Lockheed Martin's 2 year total revenue CAGR from FY2020 to FY2022 (in units "
            "of percents and round to one decimal place)?",
            "metric",
            "(revenue / revenue[-2]) ^ (1 / 2) - 1",
            ResultUnit.PERCENT,
        ),
        (
            "Based on the information provided primarily in the statement of income, what is the "
            "FY2018 - FY2019 change in unadjusted operating income % margin for Walmart?",
            "metric",
            "operating_income / revenue - operating_income[-1] / revenue[-1]",
            ResultUnit.POINTS,
        ),
        (
            "What is the FY2018 capital expenditure amount (in USD millions) for 3M?",
            "lookup",
            "capex",
            ResultUnit.USD,
        ),
    ],
)
def test_a_question_is_planned_as_it_wraps_a_metric_or_names_a_line_item(
    question: str, source: str, formula: str, unit: ResultUnit
) -> None:
    plan = _plan(question)
    assert (plan.source, plan.formula_text, plan.unit) == (source, formula, unit)


def test_a_lookup_keeps_the_scale_asked() -> None:
    plan = _plan("What is the year end FY2018 net PPNE for 3M? Answer in USD billions.")
    assert (plan.name, plan.scale, plan.fiscal_year) == ("ppe_net", 9, 2018)


def test_a_question_naming_nothing_the_library_knows_is_not_planned() -> None:
    assert plan_computation("Who audits Apple's financial statements?", LIBRARY) is None
    declined = plan_computation(
        "What is X's FY2020 ratio? Odd ratio is defined as: goodwill / total assets.", LIBRARY
    )
    assert isinstance(declined, FormulaDecline)
    assert declined.problem is FormulaProblem.UNKNOWN_LINE_ITEM


@pytest.mark.parametrize(
    "question",
    [
        "What share of NVIDIA's revenue is its largest indirect customer estimated to be?",
        "What percentage of Home Depot's net sales was generated online?",
        "Does any single customer account for a large share of Apple's trade receivables?",
        "How much did Reality Labs reduce Meta's operating profit in 2024?",
        "What was Visa's voluntary employee turnover rate in fiscal 2024?",
    ],
)
def test_a_part_of_a_line_item_is_no_lookup_of_it(question: str) -> None:
    """A share of revenue that comes from a customer or a channel is not revenue itself, what a
    segment took off operating profit is not operating profit, and employee turnover is no
    sales; with no metric of the library named, the question goes to the model."""
    assert _left_to_the_model(_planned(question))


def test_a_plan_computes_on_real_facts() -> None:
    plan = _plan("What was Home Depot's gross margin in fiscal 2024?")
    result = compute_plan(plan, LIBRARY, [corpus_figures()["HD-2024"]], fiscal_year=2024)
    assert isinstance(result, Calculation)
    assert result.text() == "33.4%"
    lookup = _plan("How much did Home Depot spend on capital expenditures in fiscal 2024?")
    spent = compute_plan(lookup, LIBRARY, [corpus_figures()["HD-2024"]], fiscal_year=2024)
    assert isinstance(spent, Calculation)
    assert spent.text() == "$3,485 million"


@pytest.mark.skipif(not FINANCEBENCH.exists(), reason="no ../shared/corpus/financebench")
def test_every_financebench_bare_figure_question_is_planned() -> None:
    questions = {}
    for line in FINANCEBENCH.read_text("utf-8").splitlines():
        row = json.loads(line)
        questions[row["financebench_id"][-5:]] = row["question"]
    plans = [_planned(questions[i]) for i in BARE_FIGURE_IDS]
    # Measured: 29 of 29: 10 state their formula, 9 name a library metric, 10 a line item.
    sources = [p.source for p in plans if isinstance(p, ComputationPlan)]
    assert Counter(sources) == {"stated": 10, "metric": 9, "lookup": 10}


def test_a_line_item_is_planned_as_the_question_asks_it() -> None:
    share = _plan("What share of revenue did Johnson & Johnson spend on R&D in 2024?")
    assert share.formula_text == "research_and_development / revenue"
    grew = _plan("How much did Meta's capital expenditures grow in 2024?")
    assert (grew.formula_text, grew.unit) == ("capex / capex[-1] - 1", ResultUnit.PERCENT)
    change = _plan("What was the change in Apple's total current assets in fiscal 2025?")
    assert change.formula_text == "current_assets - current_assets[-1]"
    assert change.unit is ResultUnit.USD


def test_two_line_items_and_no_metric_to_join_them_are_not_guessed_at() -> None:
    assert _left_to_the_model(_planned("What were Apple's revenue and net income in 2025?"))


@pytest.mark.parametrize(
    "question",
    [
        "How many times did Union Pacific's 2024 operating income cover its interest expense?",
        "How many times does operating income cover interest expense in fiscal 2024?",
    ],
)
def test_a_formula_written_as_one_figure_covering_another_is_the_metric_it_spells(
    question: str,
) -> None:
    plan = _plan(question)  # "how many times" asks a ratio's unit, not a product
    assert (plan.name, plan.formula_text, plan.unit) == (
        "interest_coverage",
        "operating_income / interest_expense",
        ResultUnit.RATIO,
    )


def test_the_question_s_own_formula_is_changed_as_the_rest_of_it_asks() -> None:
    plan = _plan(
        "Define the cost ratio as cost of sales divided by net sales. By how many percentage "
        "points did it change in 2024?"
    )  # a ratio of two amounts, asked in points: in percent
    assert (plan.name, plan.formula_text, plan.unit) == (
        "cost ratio",
        "cost_of_revenue / net_sales - cost_of_revenue[-1] / net_sales[-1]",
        ResultUnit.POINTS,
    )
    share = _planned(
        "Define the SG&A share as SG&A divided by revenue. What was the percentage change in "
        "the SG&A share in 2024?"
    )
    assert isinstance(share, Unplanned)
    assert share.decline  # a percent change of a percentage: never its level
    level = _plan(
        "Define margin growth as gross profit divided by net sales. What was margin growth in "
        "fiscal 2024?"
    )
    assert level.transform is Transform.LEVEL  # the name's "growth" is the definition's own


def test_a_defined_line_asked_against_another_measure_is_declined() -> None:
    """The question's own debt is no answer to its return on equity, nor its share of assets
    a bare debt: each other line the ask names is planned or the question declined."""
    other = _planned(
        "Taking debt as short-term borrowings plus long-term debt, what was Acme's return on "
        "equity at year-end 2024?"
    )
    assert isinstance(other, Unplanned), other
    assert other.decline
    share = _plan(
        "Taking debt as short-term borrowings plus long-term debt, what share of Home Depot's "
        "total assets did debt make up at year-end 2024?"
    )
    assert share.formula_text == "(short_term_borrowings + long_term_debt) / total_assets"
    assert share.unit is ResultUnit.PERCENT


def test_a_variant_the_question_names_goes_into_the_metric() -> None:
    """ "Return on average total assets, based on consolidated net income": the library's return
    on assets with the net income that includes noncontrolling interests."""
    plan = _plan(
        "What was Walmart's return on average total assets for fiscal 2024, based on "
        "consolidated net income?"
    )
    assert plan.formula_text == "consolidated_net_income / avg(total_assets)"
    turns = _plan("How many times did Tesla turn over its inventory in 2023?")
    assert turns.formula_text == "cost_of_revenue / avg(inventory)"


@pytest.mark.parametrize(
    ("question", "formula"),
    [
        (
            "By what percentage did J&J's diluted EPS from continuing operations fall in 2023?",
            "continuing_diluted_eps / continuing_diluted_eps[-1] - 1",
        ),
        (
            "How many percentage points did J&J's effective tax rate on continuing operations "
            "fall in 2023?",
            "income_tax / pretax_income - income_tax[-1] / pretax_income[-1]",
        ),
    ],
)
def test_continuing_operations_are_answered_by_lines_of_continuing_operations(
    question: str, formula: str
) -> None:
    assert _plan(question).formula_text == formula


def test_continuing_operations_are_not_answered_by_a_total_with_discontinued_ones() -> None:
    assert _left_to_the_model(
        _planned("What was J&J's net cash from operating activities of continuing operations?")
    )


def test_per_share_figures_are_the_common_shareholders_own() -> None:
    plan = _plan(
        "What was Tesla's diluted net income per share attributable to common stockholders "
        "for 2023?"
    )
    assert plan.formula_text == "diluted_eps"


def test_a_lines_percent_margin_is_that_line_over_revenue() -> None:
    plan = _plan(
        "What is the FY2015 depreciation and amortization (D&A from cash flow statement) % "
        "margin for AMD?"
    )
    assert plan.formula_text == "depreciation_and_amortization / revenue"
    assert plan.unit is ResultUnit.PERCENT
    assert _left_to_the_model(_planned("What was P&G's net interest margin in fiscal 2025?"))


def test_a_change_of_a_ratio_is_its_difference_in_the_ratio_s_own_unit() -> None:
    """ "How much did Amcor's quick ratio change from FY2022 to FY2023?" (the figure a yes-or-no
    "improved or declined" is decided by): the later ratio less the earlier, as a ratio; a
    change of days in days. A change of a change in points is no figure code plans."""
    ratio = _plan("How much did Amcor's quick ratio change from FY2022 to FY2023?")
    assert (ratio.formula_text, ratio.unit) == (
        "(current_assets - inventory) / current_liabilities - (current_assets[-1] - "
        "inventory[-1]) / current_liabilities[-1]",
        ResultUnit.RATIO,
    )
    days = _plan("How much did Apple's days sales outstanding change from 2023 to 2024?")
    assert days.unit is ResultUnit.DAYS
