"""Formulas over line items: a small expression tree, its grammar, and the units it yields.

The tree is what the metric library writes (``metrics.toml``), what a formula stated in a
question is read into (``stated.py``) and what the calculator evaluates. A leaf names a line
item at a fiscal year relative to the one asked (``revenue[-1]`` is the prior year's) or the
mean of a balance's opening and closing values (``avg(inventory)``). The grammar::

    expr   := term (("+" | "-") term)*
    term   := power (("*" | "/") power)*
    power  := unary ("^" power)?
    unary  := "-" unary | atom
    atom   := NUMBER | ITEM ("[" "-"? INT "]")? | "avg" "(" ITEM ("[" "-"? INT "]")? ")"
              | "(" expr ")"

This module knows nothing of facts or filings.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum
from typing import NoReturn


class FormulaError(ValueError):
    """A formula that cannot be used: it does not parse, names an unknown line item, or mixes
    units. ``kind`` says which, for a typed decline; ``str()`` says why in words."""

    def __init__(self, kind: FormulaProblem, message: str, phrase: str = "") -> None:
        super().__init__(message)
        self.kind = kind
        self.phrase = phrase
        """The words that name no line item, for ``UNKNOWN_LINE_ITEM``."""


class FormulaProblem(StrEnum):
    DOES_NOT_PARSE = "does_not_parse"
    UNKNOWN_LINE_ITEM = "unknown_line_item"
    MIXES_UNITS = "mixes_units"


class Dimension(StrEnum):
    """What a line item or an intermediate value measures, for unit checks."""

    USD = "usd"
    USD_PER_SHARE = "usd_per_share"
    SHARES = "shares"
    PURE = "pure"


@dataclass(frozen=True, slots=True)
class Ref:
    """A line item of the fiscal year ``offset`` years from the one asked; ``average`` takes the
    mean of that year's closing balance and the one before (a balance's opening and closing)."""

    item: str
    offset: int = 0
    average: bool = False

    def offsets(self) -> tuple[int, ...]:
        """The fiscal years (relative to the asked one) whose figures this leaf needs."""
        return (self.offset, self.offset - 1) if self.average else (self.offset,)


@dataclass(frozen=True, slots=True)
class Const:
    value: Decimal


@dataclass(frozen=True, slots=True)
class Neg:
    operand: Expr


@dataclass(frozen=True, slots=True)
class Binary:
    op: str
    """One of ``+ - * / ^``."""
    left: Expr
    right: Expr


Expr = Ref | Const | Neg | Binary


def render(expr: Expr, leaf: Callable[[Ref], str] | None = None) -> str:
    """The expression in the grammar above (``parse_formula(render(e)) == e``), or with each
    line item written by ``leaf`` (in words, for a question that states its formula)."""
    return _render(expr, 0, leaf or _formal_leaf)


_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2, "^": 3}


def _formal_leaf(ref: Ref) -> str:
    core = ref.item if ref.offset == 0 else f"{ref.item}[{ref.offset}]"
    return f"avg({core})" if ref.average else core


def _render(expr: Expr, outer: int, leaf: Callable[[Ref], str]) -> str:
    match expr:
        case Ref():
            return leaf(expr)
        case Const(value):
            return format(value.normalize(), "f")
        case Neg(operand):
            return f"-{_render(operand, 4, leaf)}"
        case Binary(op, left, right):
            level = _PRECEDENCE[op]
            # Left-associative + - * /: the right operand of an equal level needs brackets;
            # right-associative ^: the left one does.
            left_level = level + 1 if op == "^" else level
            right_level = level if op == "^" else level + 1
            text = f"{_render(left, left_level, leaf)} {op} {_render(right, right_level, leaf)}"
            return f"({text})" if level < outer else text
    raise AssertionError(expr)  # pragma: no cover


def refs(expr: Expr) -> Iterator[Ref]:
    """The leaves naming line items, left to right, repeats included."""
    match expr:
        case Ref():
            yield expr
        case Neg(operand):
            yield from refs(operand)
        case Binary(_, left, right):
            yield from refs(left)
            yield from refs(right)
        case Const():
            return


def map_refs(expr: Expr, change: Callable[[Ref], Expr]) -> Expr:
    """The expression with each leaf ``Ref`` replaced by ``change(ref)``."""
    match expr:
        case Ref():
            return change(expr)
        case Neg(operand):
            return Neg(map_refs(operand, change))
        case Binary(op, left, right):
            return Binary(op, map_refs(left, change), map_refs(right, change))
        case Const():
            return expr
    raise AssertionError(expr)  # pragma: no cover


def shift(expr: Expr, years: int) -> Expr:
    """The same formula ``years`` fiscal years later (earlier when negative)."""
    return map_refs(expr, lambda r: Ref(r.item, r.offset + years, r.average))


def average_over_years(expr: Expr, years: int) -> Expr:
    """The mean of the formula over the asked fiscal year and the ``years - 1`` before it (a
    "three-year average net margin")."""
    total: Expr = expr
    for back in range(1, years):
        total = Binary("+", total, shift(expr, -back))
    return Binary("/", total, Const(Decimal(years)))


def compound_growth(expr: Expr, years: int) -> Expr:
    """The compound annual growth rate of the formula's value over ``years`` years."""
    ratio = Binary("/", expr, shift(expr, -years))
    return Binary("-", Binary("^", ratio, Const(Decimal(1) / Decimal(years))), Const(Decimal(1)))


def dimension(expr: Expr, items: Mapping[str, Dimension]) -> Dimension:
    """What the formula's value measures; raise FormulaError when it names a line item not in
    ``items`` or adds figures of different units (revenue plus EPS, a ratio minus dollars)."""
    match expr:
        case Ref(item):
            if item not in items:
                raise FormulaError(FormulaProblem.UNKNOWN_LINE_ITEM, f"unknown line item {item!r}")
            return items[item]
        case Const():
            return Dimension.PURE
        case Neg(operand):
            return dimension(operand, items)
        case Binary(op, left, right):
            a, b = dimension(left, items), dimension(right, items)
            return _combine(op, a, b, expr)
    raise AssertionError(expr)  # pragma: no cover


def _combine(op: str, a: Dimension, b: Dimension, expr: Binary) -> Dimension:
    pure = Dimension.PURE
    if op in "+-":
        if a != b:
            raise FormulaError(
                FormulaProblem.MIXES_UNITS,
                f"{render(expr)} {'adds' if op == '+' else 'subtracts'} {b} and {a}",
            )
        return a
    if op == "^":
        if b != pure:
            raise FormulaError(FormulaProblem.MIXES_UNITS, f"{render(expr)}: exponent in {b}")
        if a != pure:
            raise FormulaError(FormulaProblem.MIXES_UNITS, f"{render(expr)}: power of {a}")
        return pure
    if op == "*":
        if pure in (a, b):
            return b if a == pure else a
        raise FormulaError(FormulaProblem.MIXES_UNITS, f"{render(expr)} multiplies {a} by {b}")
    if a == b:
        return pure
    if b == pure:
        return a
    if (a, b) == (Dimension.USD, Dimension.SHARES):
        return Dimension.USD_PER_SHARE
    raise FormulaError(FormulaProblem.MIXES_UNITS, f"{render(expr)} divides {a} by {b}")


# -- the grammar --------------------------------------------------------------------------------

_TOKEN = re.compile(r"\s*(?:(\d+(?:\.\d+)?)|([A-Za-z_][A-Za-z0-9_]*)|(.))")


def parse_formula(text: str) -> Expr:
    """Read a formula written in the grammar above; raise FormulaError(DOES_NOT_PARSE) saying
    where it stops making sense."""
    parser = _Parser(_tokens(text), text)
    expr = parser.expr()
    if parser.peek() is not None:
        parser.fail(f"unexpected {parser.peek()!r}")
    return expr


def _tokens(text: str) -> list[str]:
    tokens = []
    for match in _TOKEN.finditer(text):
        token = match.group(1) or match.group(2) or match.group(3)
        if token and not token.isspace():
            tokens.append(token)
    return tokens


class _Parser:
    def __init__(self, tokens: list[str], text: str) -> None:
        self.tokens = tokens
        self.text = text
        self.at = 0

    def peek(self) -> str | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if token is None:
            self.fail("it ends too soon")
        if expected is not None and token != expected:
            self.fail(f"expected {expected!r}, found {token!r}")
        self.at += 1
        return token

    def fail(self, why: str) -> NoReturn:
        raise FormulaError(FormulaProblem.DOES_NOT_PARSE, f"formula {self.text!r}: {why}")

    def expr(self) -> Expr:
        left = self.term()
        while self.peek() in ("+", "-"):
            left = Binary(self.take(), left, self.term())
        return left

    def term(self) -> Expr:
        left = self.power()
        while self.peek() in ("*", "/"):
            left = Binary(self.take(), left, self.power())
        return left

    def power(self) -> Expr:
        base = self.unary()
        if self.peek() == "^":
            self.take()
            return Binary("^", base, self.power())
        return base

    def unary(self) -> Expr:
        if self.peek() == "-":
            self.take()
            return Neg(self.unary())
        return self.atom()

    def atom(self) -> Expr:
        token = self.take()
        if token == "(":
            inner = self.expr()
            self.take(")")
            return inner
        if token[0].isdigit():
            return Const(Decimal(token))
        if not (token[0].isalpha() or token[0] == "_"):
            self.fail(f"unexpected {token!r}")
        if token == "avg" and self.peek() == "(":
            self.take("(")
            ref = self.ref(self.take())
            self.take(")")
            return Ref(ref.item, ref.offset, average=True)
        return self.ref(token)

    def ref(self, name: str) -> Ref:
        if not (name[0].isalpha() or name[0] == "_"):
            self.fail(f"expected a line item, found {name!r}")
        if self.peek() != "[":
            return Ref(name)
        self.take("[")
        sign = -1 if self.peek() == "-" and self.take() else 1
        number = self.take()
        if not number.isdigit():
            self.fail(f"expected a year offset, found {number!r}")
        self.take("]")
        return Ref(name, sign * int(number))
