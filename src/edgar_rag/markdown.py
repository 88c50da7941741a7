"""Markdown for the pages under ``docs/``: a table, and a share with its 95% interval.

Every page is a pure function of the JSON its command wrote, and ``scripts/check_docs.py``
compares each committed page with it byte for byte; writing tables and intervals in one place
keeps the pages alike. Below ``eval`` and ``bench``, which both write pages; imports nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def table(header: Sequence[str], rows: Iterable[Sequence[object]], align: str = "") -> list[str]:
    """The lines of a table. ``align`` has an ``r`` for each right-aligned column (figures) and
    an ``l`` for each left-aligned one; columns past its end are left-aligned."""
    rules = ["---:" if side == "r" else "---" for side in align.ljust(len(header), "l")]
    return [_row(header), _row(rules), *(_row([str(cell) for cell in row]) for row in rows)]


def _row(cells: Sequence[str]) -> str:
    return "|" + "".join(f" {cell} |" if cell else " |" for cell in cells)


def percent(value: float | None) -> str:
    """``45.8%``; ``n/a`` for a figure that could not be computed."""
    return "n/a" if value is None else f"{value:.1%}"


def interval(bounds: Sequence[float | None]) -> str:
    """``[17.9%, 45.8%]``."""
    return f"[{percent(bounds[0])}, {percent(bounds[1])}]"


def share(
    count: int, n: int, rate: float | None, bounds: Sequence[float | None], *, prose: bool = False
) -> str:
    """``12/40 = 30.0% [17.9%, 45.8%]``; with ``prose``, as FinanceBench's page words it,
    ``12 of 40: 30.0% (17.9% to 45.8%)``. With n = 0 only the count: nothing is known."""
    if prose:
        if n == 0:
            return "0 of 0"
        return f"{count} of {n}: {percent(rate)} ({percent(bounds[0])} to {percent(bounds[1])})"
    if n == 0:
        return "0/0"
    return f"{count}/{n} = {percent(rate)} {interval(bounds)}"
