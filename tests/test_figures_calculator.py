"""The calculator: decimal arithmetic over cited operands, typed declines, a recompute."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import date
from decimal import Decimal

from edgar_rag.figures.calculator import (
    Calculation,
    CalculationDecline,
    CalculationProblem,
    FigureRef,
    Operand,
    calculate,
    needed_operands,
    recompute,
    result_supported,
)
from edgar_rag.figures.formula import Dimension, parse_formula
from edgar_rag.figures.library import ResultUnit

# Home Depot's fiscal 2024 income statement (10-K filed March 2025), in millions.
HD_NET_SALES = "159,514"
HD_GROSS_PROFIT = "53,308"


def _operand(
    item: str, displayed: str, year: int = 2024, *, scale: int = 6, outflow: bool = False
) -> Operand:
    value = Decimal(displayed.replace(",", "")).scaleb(scale)
    return Operand(
        item=item, label=item.replace("_", " "), fiscal_year=year, value=value,
        unit=Dimension.USD, scale=scale, period_start=date(year, 2, 1),
        period_end=date(year + 1, 2, 2),
        citation=FigureRef(None, "0000354950-25-000008", 2024, None, None, None, None, displayed),
        outflow=outflow,
    )  # fmt: skip


def _hd_gross_margin() -> Calculation:
    result = calculate(
        parse_formula("gross_profit / revenue"),
        2024,
        [_operand("revenue", HD_NET_SALES), _operand("gross_profit", HD_GROSS_PROFIT)],
        ResultUnit.PERCENT,
    )
    assert isinstance(result, Calculation)
    return result


def test_home_depots_gross_margin_is_computed_as_the_issue_states_it() -> None:
    result = _hd_gross_margin()
    assert result.text() == "33.4%"
    assert [o.item for o in result.operands] == ["gross_profit", "revenue"]
    carried = result.as_json()
    assert carried["rounding"] == {"decimals": 1, "mode": "half_up"}
    assert carried["operands"][0]["printed"] == HD_GROSS_PROFIT


def test_rounding_is_half_up_to_the_decimals_asked() -> None:
    operands = [_operand("a", "1", scale=0), _operand("b", "8", scale=0)]
    result = calculate(parse_formula("a / b"), 2024, operands, ResultUnit.RATIO, decimals=2)
    assert isinstance(result, Calculation)
    assert result.rounded == Decimal("0.13")  # 0.125 half up, not to even
    three = calculate(parse_formula("a / b"), 2024, operands, ResultUnit.RATIO, decimals=3)
    assert isinstance(three, Calculation)
    assert three.text() == "0.125x"


def test_a_dollar_result_is_shown_in_the_scale_its_operands_are_printed_in() -> None:
    operands = [
        _operand("operating_cash_flow", "19,810"),
        _operand("capex", "3,485", outflow=True),
    ]
    result = calculate(parse_formula("operating_cash_flow - capex"), 2024, operands, ResultUnit.USD)
    assert isinstance(result, Calculation)
    assert result.text() == "$16,325 million"
    assert result.operands[1].printed == "(3,485)"
    billions = calculate(
        parse_formula("operating_cash_flow - capex"), 2024, operands, ResultUnit.USD,
        scale=9, decimals=1,
    )  # fmt: skip
    assert isinstance(billions, Calculation)
    assert billions.text() == "$16.3 billion"
    # Asked in billions with no decimals named: the printed digits kept, to two decimals.
    rescaled = calculate(
        parse_formula("operating_cash_flow - capex"), 2024, operands, ResultUnit.USD, scale=9
    )
    assert isinstance(rescaled, Calculation)
    assert rescaled.text() == "$16.33 billion"


def test_dividing_by_zero_is_a_typed_decline() -> None:
    operands = [_operand("a", "5", scale=0), _operand("b", "0", scale=0)]
    result = calculate(parse_formula("a / b"), 2024, operands, ResultUnit.RATIO)
    assert result == CalculationDecline(CalculationProblem.DIVIDES_BY_ZERO, "b is zero")


def test_mixed_units_and_a_missing_operand_are_typed_declines() -> None:
    eps = Operand(
        item="eps", label="diluted EPS", fiscal_year=2024, value=Decimal("15.01"),
        unit=Dimension.USD_PER_SHARE, scale=0, period_start=None, period_end=date(2025, 2, 2),
        citation=FigureRef(None, None, None, None, None, None, None, "15.01"),
    )  # fmt: skip
    mixed = calculate(
        parse_formula("revenue + eps"), 2024, [_operand("revenue", "1"), eps], ResultUnit.USD
    )
    assert isinstance(mixed, CalculationDecline)
    assert mixed.problem is CalculationProblem.MIXES_UNITS
    wrong_unit = calculate(parse_formula("revenue"), 2024, [_operand("revenue", "1")],
                           ResultUnit.PERCENT)  # fmt: skip
    assert isinstance(wrong_unit, CalculationDecline)
    assert wrong_unit.problem is CalculationProblem.MIXES_UNITS
    missing = calculate(
        parse_formula("revenue / revenue[-1]"), 2024, [_operand("revenue", "1")],
        ResultUnit.RATIO,
    )  # fmt: skip
    assert missing == CalculationDecline(
        CalculationProblem.MISSING_OPERAND, "no revenue for fiscal 2023 to compute with"
    )


def test_a_negative_base_under_a_root_has_no_real_value() -> None:
    operands = [_operand("a", "-4", scale=0), _operand("a", "1", 2022, scale=0)]
    result = calculate(
        parse_formula("(a / a[-2]) ^ (1 / 2) - 1"), 2024, operands, ResultUnit.PERCENT
    )
    assert isinstance(result, CalculationDecline)
    assert result.problem is CalculationProblem.NO_REAL_VALUE


def test_averages_take_the_opening_and_closing_balance() -> None:
    formula = parse_formula("revenue / avg(inventory)")
    assert needed_operands(formula, 2024) == [
        ("revenue", 2024), ("inventory", 2024), ("inventory", 2023)
    ]  # fmt: skip
    operands = [
        _operand("revenue", "100"), _operand("inventory", "30"),
        _operand("inventory", "10", 2023),
    ]  # fmt: skip
    result = calculate(formula, 2024, operands, ResultUnit.RATIO)
    assert isinstance(result, Calculation)
    assert result.rounded == Decimal("5.00")


def test_a_stated_result_is_checked_by_recomputing_from_its_operands() -> None:
    result = _hd_gross_margin()
    assert recompute(result) == result
    assert result_supported(result, Decimal("33.4"))
    assert result_supported(result, Decimal("33.42"))
    assert not result_supported(result, Decimal("33.5"))


def test_operands_print_losses_and_payments_in_parentheses() -> None:
    loss = replace(_operand("operating_income", "10,707"), value=Decimal("-10707000000"))
    assert loss.printed == "(10,707)"
    assert _operand("capex", "3,485", outflow=True).printed == "(3,485)"
    assert _operand("revenue", "159,514").printed == "159,514"


def test_a_calculation_travels_as_plain_json() -> None:
    result = _hd_gross_margin()
    carried = json.loads(json.dumps(result.as_json()))
    assert carried["formula"] == "gross_profit / revenue"
    assert carried["result"] == "33.4"
    assert carried["text"] == "33.4%"
    assert [o["item"] for o in carried["operands"]] == ["gross_profit", "revenue"]
    assert carried["operands"][1]["period_end"] == "2025-02-02"
