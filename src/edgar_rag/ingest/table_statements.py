"""An HTML filing's statement tables read as row figures, as ``statements.py`` reads a PDF page.

A table is a statement when one of the three lines just before it titles one (``CONSOLIDATED
STATEMENTS OF OPERATIONS``, then its scale note) and it holds a few labelled rows; a title
further up belongs to another table (Procter & Gamble's balance sheet, four lines above its
statement of shareholders' equity). Each figure of a row
is read in the column its header names: the year printed (and the date, when printed), the
table's scale, parentheses negative, a dash zero. A column whose header names no single year,
or a percentage, yields no figure: a year is never guessed and a share is never an amount.

Pure: a table read by ``tables.py`` in, its blocks (each figure anchored) and figures out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from datetime import date

from edgar_rag.ingest.blocks import Anchor
from edgar_rag.ingest.statements import (
    MONTHS,
    PERCENT_HEADING,
    Column,
    Line,
    ReadStatement,
    RowFigure,
    StatementKind,
    StatementPage,
    Word,
    figure_value,
    is_amount,
    statement_title,
    unit_and_scale,
)
from edgar_rag.ingest.tables import PrintedFigure, ReadTable, Scale

TITLE_LINES = 3
"""Lines before a table where its title may stand: Johnson & Johnson's balance sheet prints
the title, ``At December 29, 2024 and December 31, 2023``, then the scale note."""
_MIN_ROWS = 4
"""Rows with figures a titled table needs to be read as the statement (not a summary of it)."""
_YEAR = re.compile(r"(?<![\d,.])((?:19|20)\d{2})(?![\d,.]\d)")
_DATE = re.compile(r"\b([A-Z][a-z]{2,8})\.?\s+(\d{1,2}),?\s+((?:19|20)\d{2})\b")


def read_table_statement(
    table: ReadTable, context: Sequence[str], name: str
) -> ReadStatement | None:
    """The statement a table prints, titled by one of the last lines of ``context``, with
    its figures, each anchored in its row's block under an id starting ``name``; None when no
    line before it titles a statement or it holds too few rows with figures."""
    titled = statement_title(
        [Line((Word(text, 0, 0),)) for text in reversed(context[-TITLE_LINES:])]
    )
    if titled is None or len(table.rows) < _MIN_ROWS:
        return None
    kind, title = titled
    blocks = list(table.blocks)
    figures: list[RowFigure] = []
    years: dict[int, None] = {}
    for row in table.rows:
        anchors: list[Anchor] = []
        for number, printed in enumerate(row.figures):
            figure_id = f"row:{name}.{row.index}.{number}"
            figure = _figure(figure_id, kind, row.label, printed, table.scale)
            if figure is not None:
                figures.append(figure)
                anchors.append(Anchor(figure_id, printed.offset))
                years[figure.column.year] = None
        block = blocks[row.index]
        blocks[row.index] = replace(block, anchors=(*block.anchors, *anchors))
    found = StatementPage(kind, title, None, tuple(years), len(table.rows))
    return ReadStatement(found, blocks, figures)


def _figure(
    figure_id: str, kind: StatementKind, label: str, printed: PrintedFigure, scale: Scale | None
) -> RowFigure | None:
    column = column_named(printed.header)
    if column is None or not is_amount(printed.text):
        return None
    scale_unit, excepted = (scale.unit, scale.excepted or "") if scale else (None, "")
    unit, power = unit_and_scale(label, scale_unit, excepted)
    value = figure_value(printed.text) * 10**power
    return RowFigure(figure_id, kind, label, column, printed.text, value, unit, power)


def column_named(header: str) -> Column | None:
    """The column a header names: one year (``2025``, ``Fiscal 2024``), with its date when
    printed (``September 27, 2025``); None for a percentage's header, or one naming no year or
    two (``2024 vs. 2023 Change``)."""
    years = set(_YEAR.findall(header))
    if len(years) != 1 or PERCENT_HEADING.search(header):
        return None
    year = int(years.pop())
    match = _DATE.search(header)
    return Column(year, _date(match) if match else None, header, 0.0)


def _date(match: re.Match[str]) -> date | None:
    month = match.group(1)[:3].lower()
    if month not in MONTHS:
        return None
    try:
        return date(int(match.group(3)), MONTHS.index(month) + 1, int(match.group(2)))
    except ValueError:
        return None
