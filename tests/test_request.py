"""The question read whole into a request, and planned only when the plan accounts for all of it
(issue 38): transforms, spans, stated arithmetic, qualifiers no plan answers, premises."""

from __future__ import annotations

import pytest

from edgar_rag.figures.formula import render
from edgar_rag.figures.library import ResultUnit, load_library
from edgar_rag.figures.plan import ComputationPlan, Unplanned, plan_computation
from edgar_rag.question.request import Premise, Transform, open_words, read_request

LIBRARY = load_library()


def _plan(text: str, years: frozenset[int] = frozenset()) -> object:
    return plan_computation(text, LIBRARY, read_request(text, (), years))


@pytest.mark.parametrize(
    ("text", "transform"),
    [
        ("By what percentage did net sales fall in fiscal 2023?", Transform.PERCENT_CHANGE),
        ("How much did revenue change in percent from 2023 to 2024?", Transform.PERCENT_CHANGE),
        ("By how many dollars did capex rise in 2024?", Transform.AMOUNT_CHANGE),
        ("By how much, in percent, did R&D expense rise in 2024?", Transform.PERCENT_CHANGE),
        ("By how much did R&D expense rise in 2024?", Transform.AMOUNT_CHANGE),
        ("How many percentage points did operating margin widen?", Transform.POINT_CHANGE),
        ("What was the CAGR of revenue from FY2022 to FY2024?", Transform.CAGR),
        ("At what compound annual rate did EPS grow from 2022 to 2024?", Transform.CAGR),
        ("What was the three-year average net margin?", Transform.AVERAGE),
        ("What was total revenue in fiscal 2024?", Transform.LEVEL),
        ("What was the return on average equity in 2024?", Transform.LEVEL),
    ],
)
def test_the_transform_is_read_from_the_question(text: str, transform: Transform) -> None:
    assert read_request(text, (), frozenset({2022, 2023, 2024})).transform is transform


def test_a_percent_change_is_computed_over_the_years_named() -> None:
    text = "By what percentage did revenue change from fiscal 2022 to 2024?"
    plan = _plan(text, frozenset({2022, 2024}))
    assert isinstance(plan, ComputationPlan)
    assert plan.unit is ResultUnit.PERCENT
    assert plan.fiscal_year == 2024
    assert render(plan.formula) == "revenue / revenue[-2] - 1"


def test_a_cagr_spans_the_first_and_last_year_named() -> None:
    plan = _plan("What was the CAGR of net sales from FY2022 to FY2024?", frozenset({2022, 2024}))
    assert isinstance(plan, ComputationPlan)
    assert render(plan.formula) == "(net_sales / net_sales[-2]) ^ 0.5 - 1"


def test_a_cagr_with_no_years_is_declined_not_answered_as_one_year() -> None:
    plan = _plan("What was the net income CAGR?")
    assert isinstance(plan, Unplanned)
    assert plan.decline


def test_a_change_of_a_margin_is_in_percentage_points() -> None:
    plan = _plan("By how many percentage points did operating margin change in 2024?")
    assert isinstance(plan, ComputationPlan)
    assert plan.unit is ResultUnit.POINTS


def test_a_percent_change_of_a_margin_is_ambiguous_and_declined() -> None:
    plan = _plan("By what percentage did gross margin change in 2024?")
    assert isinstance(plan, Unplanned)
    assert plan.decline


def test_points_of_a_dollar_figure_are_declined() -> None:
    plan = _plan("How many percentage points did net income change?")
    assert isinstance(plan, Unplanned)
    assert plan.decline


@pytest.mark.parametrize(
    "text",
    [
        "What were net sales per square foot in 2024?",
        "What dividends per share did it declare in 2024?",
        "How much premium revenue did the insurer earn in 2023?",
        "Does management think its gross margin is sustainable?",
        "How much revenue did the acquired business add in 2024?",
        "What was operating income of the Americas segment in 2025?",
    ],
)
def test_a_part_no_plan_accounts_for_is_not_answered_in_code(text: str) -> None:
    assert isinstance(_plan(text), Unplanned)


def test_the_words_of_the_plans_own_line_items_are_accounted_for() -> None:
    plan = _plan("What was the asset turnover, total revenues over average total assets?")
    assert isinstance(plan, ComputationPlan)
    assert render(plan.formula) == "revenue / avg(total_assets)"


def test_a_formula_the_question_writes_binds_year_end_over_average() -> None:
    plan = _plan("Year-end receivables divided by revenue times 365: what does that give?")
    assert isinstance(plan, ComputationPlan)
    assert plan.source == "stated"
    assert render(plan.formula) == "accounts_receivable / revenue * 365"
    assert plan.unit is ResultUnit.DAYS


def test_a_comma_groups_the_arithmetic_before_it() -> None:
    text = "Cash from operations minus capital expenditures, divided by net income, as a ratio?"
    plan = _plan(text)
    assert isinstance(plan, ComputationPlan)
    assert render(plan.formula) == "(operating_cash_flow - capex) / net_income"


def test_a_year_end_balance_replaces_the_librarys_average() -> None:
    plan = _plan("What was inventory turnover on year-end inventories in 2024?")
    assert isinstance(plan, ComputationPlan)
    assert "avg(" not in render(plan.formula)


def test_dollars_of_a_margin_mean_the_row_not_the_ratio() -> None:
    plan = _plan("By how many dollars did gross margin increase in 2025?")
    assert isinstance(plan, ComputationPlan)
    assert plan.unit is ResultUnit.USD


def test_return_on_average_total_assets_is_the_return_not_the_assets() -> None:
    plan = _plan("What was the return on average total assets in 2024?")
    assert isinstance(plan, ComputationPlan)
    assert plan.unit is ResultUnit.PERCENT


@pytest.mark.parametrize(
    ("text", "premise", "subject"),
    [
        ("What drove the growth in net sales in 2023?", Premise.RISE, "net sales in 2023"),
        ("Why did operating income decline in 2024?", Premise.FALL, "operating income"),
        ("What caused the net loss in 2024?", Premise.LOSS, "net loss"),
        ("Why did the company cut its dividend in 2025?", Premise.CUT, "dividend"),
        ("Why did it suspend its quarterly dividend?", Premise.SUSPENSION, "quarterly dividend"),
        ("Why did fuel expense go up in 2024?", Premise.RISE, "fuel expense"),
        ("What drove Acme's positive comparable sales?", Premise.RISE, "comparable sales"),
        ("What caused the weaker gross margin in 2024?", Premise.FALL, "gross margin in 2024"),
        ("What drove Meta's revenue growth in 2022?", Premise.RISE, "revenue"),
        ("What explains the margin expansion in fiscal 2024?", Premise.RISE, "margin"),
        (
            "What caused Amazon's International segment to post an operating loss in 2024?",
            Premise.LOSS, "Amazon's International segment to post an operating loss",
        ),
    ],
)  # fmt: skip
def test_what_a_question_takes_for_granted(text: str, premise: Premise, subject: str) -> None:
    taken = read_request(text).premise
    assert taken is not None
    assert taken.premise is premise
    assert taken.subject == subject


def test_scaffolding_words_are_filler() -> None:
    text = "Answer in USD millions, rounded to one decimal place, using the cash flow statement."
    assert open_words(read_request(text).measure_text) == ()


def test_an_act_no_figure_decides_is_taken_for_granted_too() -> None:
    taken = read_request("When did Amazon exit the cloud computing business?").premise
    assert taken is not None
    assert (taken.premise, taken.event) == (Premise.EVENT, "exit")
    assert "withdr" in taken.said_by


def test_a_share_of_any_line_item_divides_by_that_item() -> None:
    plan = _plan("What share of its net income did the company pay out as dividends?")
    assert isinstance(plan, ComputationPlan)
    assert (render(plan.formula), plan.unit) == ("dividends_paid / net_income", ResultUnit.PERCENT)


def test_the_closing_of_an_average_of_opening_and_closing_is_no_year_end_balance() -> None:
    text = (
        "Using cost of revenue and the average of opening and closing inventories, what was "
        "its inventory turnover?"
    )
    plan = _plan(text)
    assert isinstance(plan, ComputationPlan)
    assert render(plan.formula) == "cost_of_revenue / avg(inventory)"


def test_dividends_declared_per_share_are_their_own_line_not_dividends_paid() -> None:
    plan = _plan("By what percentage did dividends declared per share grow in 2023?")
    assert isinstance(plan, ComputationPlan)
    assert render(plan.formula) == "dividends_per_share / dividends_per_share[-1] - 1"


def test_an_act_after_why_did_a_company_is_taken_for_granted() -> None:
    """ "Why did Visa walk away from ...": the act right after the company's name, which only
    a passage saying it backs; a verb that states no act ("decide to") takes nothing."""
    text = "Why did Visa walk away from its planned acquisition of Pismo?"
    taken = read_request(text, ((8, 12),)).premise
    assert taken is not None
    assert (taken.premise, taken.event, taken.said_by) == (Premise.EVENT, "walk", ("walk",))
    decided = "Why did Visa decide to keep its Europe business?"
    assert read_request(decided, ((8, 12),)).premise is None


@pytest.mark.parametrize(
    "text",
    [
        "How many more dollars did Acme put into buybacks in 2024 than in 2023?",
        "How many dollars more did Acme earn in net income in fiscal 2024 than in fiscal 2023?",
    ],
)
def test_more_dollars_than_another_year_is_a_change_in_dollars(text: str) -> None:
    request = read_request(text, (), frozenset({2023, 2024}))
    assert request.transform is Transform.AMOUNT_CHANGE
    assert "more" not in request.open_words


def test_pointing_at_a_statement_and_handing_back_to_shareholders_are_filler() -> None:
    text = (
        "How much cash did Acme hand back to shareholders as dividends, per its cash flow "
        "statement?"
    )
    assert open_words(read_request(text, ((18, 22),)).measure_text) == ("cash", "dividends")


def test_an_average_of_trade_receivables_is_an_average_balance() -> None:
    request = read_request(
        "What were its days sales outstanding, based on average trade receivables?"
    )
    assert request.average_balance
    assert "average" not in request.open_words


def test_an_instruction_saying_how_to_answer_is_set_aside_and_one_saying_what_is_kept() -> None:
    how = read_request("What was revenue in 2024? Give your answer in millions.", (), frozenset())
    assert "answer" not in how.open_words
    what = read_request(
        "Which earned more in 2024, Amazon or Alphabet? Give both companies' net income.",
        (),
        frozenset(),
    )
    assert {"net", "income"} <= set(what.open_words)
    assert "more" not in what.open_words  # the comparison's own word: "... is the higher"
