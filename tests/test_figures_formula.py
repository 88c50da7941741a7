"""The formula grammar: it reads what it renders, and says why it cannot read the rest."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from edgar_rag.figures.formula import (
    Binary,
    Const,
    Dimension,
    Expr,
    FormulaError,
    FormulaProblem,
    Neg,
    Ref,
    average_over_years,
    compound_growth,
    dimension,
    parse_formula,
    render,
    shift,
)

ITEMS = {"revenue": Dimension.USD, "inventory": Dimension.USD, "eps": Dimension.USD_PER_SHARE}


def test_offsets_averages_and_precedence_are_read() -> None:
    expr = parse_formula("365 * avg(inventory) / revenue - revenue[-1] ^ 2")
    assert expr == Binary(
        "-",
        Binary("/", Binary("*", Const(Decimal(365)), Ref("inventory", 0, True)), Ref("revenue")),
        Binary("^", Ref("revenue", -1), Const(Decimal(2))),
    )


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("revenue +", FormulaProblem.DOES_NOT_PARSE),
        ("(revenue", FormulaProblem.DOES_NOT_PARSE),
        ("revenue revenue", FormulaProblem.DOES_NOT_PARSE),
        ("revenue[x]", FormulaProblem.DOES_NOT_PARSE),
        ("revenue % 2", FormulaProblem.DOES_NOT_PARSE),
    ],
)
def test_a_formula_that_does_not_parse_says_so(text: str, problem: FormulaProblem) -> None:
    with pytest.raises(FormulaError) as raised:
        parse_formula(text)
    assert raised.value.kind is problem


def test_units_follow_the_arithmetic() -> None:
    assert dimension(parse_formula("revenue / revenue[-1] - 1"), ITEMS) is Dimension.PURE
    assert dimension(parse_formula("revenue - avg(inventory)"), ITEMS) is Dimension.USD
    with pytest.raises(FormulaError) as mixed:
        dimension(parse_formula("revenue + eps"), ITEMS)
    assert mixed.value.kind is FormulaProblem.MIXES_UNITS
    with pytest.raises(FormulaError) as unknown:
        dimension(parse_formula("revenue / goodwill"), ITEMS)
    assert unknown.value.kind is FormulaProblem.UNKNOWN_LINE_ITEM


def test_multi_year_forms_shift_every_line_item() -> None:
    margin = parse_formula("revenue / avg(inventory)")
    assert render(shift(margin, -2)) == "revenue[-2] / avg(inventory[-2])"
    assert render(average_over_years(margin, 2)) == (
        "(revenue / avg(inventory) + revenue[-1] / avg(inventory[-1])) / 2"
    )
    assert render(compound_growth(Ref("revenue"), 2)) == "(revenue / revenue[-2]) ^ 0.5 - 1"


_leaves = st.one_of(
    st.builds(
        Ref,
        st.sampled_from(["revenue", "inventory"]),
        st.integers(-3, 0),
        st.booleans(),
    ),
    st.builds(Const, st.decimals(0, 1000, places=2).map(lambda d: d.normalize())),
)
_exprs: st.SearchStrategy[Expr] = st.recursive(
    _leaves,
    lambda inner: st.one_of(
        st.builds(Neg, inner),
        st.builds(Binary, st.sampled_from(["+", "-", "*", "/", "^"]), inner, inner),
    ),
    max_leaves=8,
)


@given(_exprs)
def test_a_rendered_formula_reads_back_to_itself(expr: Expr) -> None:
    assert parse_formula(render(expr)) == expr
