"""Checks the verifier makes of a computed answer: each operand printed in its cited passage, in
the column of the operand's fiscal year, and the stated result what the operands give.

A passage prints a table row as ``Label | Header: figure | Header: figure | (in millions)``; a
figure counts only under a header that names the operand's fiscal year (the answer path maps a
header to a fiscal year in the filing's calendar and passes that mapping in), or, under a header
naming no year, in a row whose label names a date of that year. A prose line
counts when it prints the figure and names the year. Pure: no store, no model.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal

from edgar_rag.figures.calculator import Calculation, Operand, result_supported

YearOfHeader = Callable[[str], int | None]
"""A column header's fiscal year in the filing's calendar (``September 27, 2025`` is 2025)."""

_DATED = re.compile(
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2},?\s+\d{4}\b",
    re.IGNORECASE,
)
"""A full date (``January 1, 2023``), as a balance row of a statement of equity names it."""
_CELL = re.compile(r"\s*(?P<header>[^|:]+?):\s*(?P<figure>\(?\$?\s*[\d.,]+\)?%?)\s*$")


def operand_is_printed(
    operand: Operand, passage: str, year_of_header: YearOfHeader, part: str | None = None
) -> bool:
    """The operand's figure is printed in ``passage`` for its fiscal year: in a table row under
    a header of that year, or on a prose line that names the year. A part's figure (``part``:
    its name) may be printed under a header naming the part instead, as a segment table prints
    one year's columns by segment: the XBRL tag at that place dates it."""
    shown = _bare(operand.citation.displayed)
    if not shown:
        return False
    column = _spelling(part) if part is not None else None
    for line in passage.splitlines():
        if " | " in line:
            label = line.split(" | ", 1)[0]
            dated = year_of_header(label) if _DATED.search(label) else None
            # Every cell: a row may print no label of its own (Boeing's gross profit row).
            for cell in line.split(" | "):
                match = _CELL.match(cell)
                if match and _bare(match["figure"]) == shown:
                    if column is not None and _spelling(match["header"]) == column:
                        return True
                    # A column headed by no year takes the date its row names, as a statement
                    # of equity prints "Balance, January 1, 2023 | Total: 76,804".
                    year = year_of_header(match["header"])
                    if (year if year is not None else dated) == operand.fiscal_year:
                        return True
        elif _prints(line, shown) and str(operand.fiscal_year) in line:
            return True
    return False


def calculation_is_supported(
    calculation: Calculation,
    stated: Decimal,
    passages: dict[int, str],
    markers: dict[int, int],
    year_of_header: YearOfHeader,
    part: str | None = None,
) -> str | None:
    """None when ``stated`` is what the cited operands give and each operand ``i`` is printed in
    the passage of marker ``markers[i]`` (a part's, ``part``, also under a header naming it);
    else why not, in words naming no withheld figure."""
    for index, operand in enumerate(calculation.operands):
        marker = markers.get(index)
        if marker is None or marker not in passages:
            return f"{operand.label} for fiscal {operand.fiscal_year} cites no passage given"
        if not operand_is_printed(operand, passages[marker], year_of_header, part):
            return (
                f"passage [{marker}] does not print {operand.label} "
                f"in its fiscal {operand.fiscal_year} column"
            )
    if not result_supported(calculation, stated):
        return f"the stated {calculation.metric or 'result'} is not what its operands give"
    return None


def _spelling(name: str) -> str:
    """A name's letters and digits, lower case: ``Greater China`` and ``greater china``."""
    return re.sub(r"[^a-z0-9]", "", name.lower())


def _bare(figure: str) -> str:
    return figure.strip().strip("()$% ").replace("$", "").strip()


def _prints(line: str, shown: str) -> bool:
    return re.search(rf"(?<![\d.,]){re.escape(shown)}(?![\d]|[.,]\d)", line) is not None
