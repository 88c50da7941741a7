"""Tables as labelled rows: each row carries its label, its column headers and the table's scale.

``Total net sales | 2025: 416,161 | 2024: 391,035 | (in millions)`` reads alone, so a chunk holding
a few rows of a long table still says which year and which unit each figure belongs to.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from edgar_rag.domain import ChunkKind
from edgar_rag.ingest.blocks import Anchor, Block

_CURRENCY = {"$", "€", "£", "¥", "US$"}
_TRAILERS = re.compile(r"^(?:%|\)|\)%|%\)|pts?\.?|bps|x)$", re.IGNORECASE)
_NUMBER = re.compile(r"^[\$€£(]*\s*[-–—]?\s*\(?\$?\s*\d[\d,]*(?:\.\d+)?\s*\)?\s*%?\)?$")
_DASH = re.compile(r"^[-–—]+$")
_YEAR = re.compile(r"\b(?:19|20)\d{2}\b")
_PER_SHARE = re.compile(r"per\s+(?:common\s+)?share", re.I)
_UNSCALED_LABEL = re.compile(rf"{_PER_SHARE.pattern}|shares|ratio|%|percent", re.I)
_SCALE = re.compile(
    r"\(?\s*(?:(?:u\.?s\.?\s+)?(?:dollars|amounts|shares|\$)\s+)?in\s+(thousands|millions|billions)\b[^)\n]{0,80}\)?",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Cell:
    """One cell of a source table: its text, the grid columns it spans and its displayed facts."""

    text: str
    first_column: int
    last_column: int
    anchors: tuple[Anchor, ...] = ()


def is_figure(text: str) -> bool:
    """True for a cell that holds a figure: ``416,161``, ``(1,234)``, ``12.5%``, ``—``."""
    return bool(_NUMBER.match(text) or _DASH.match(text))


def find_scale(texts: Sequence[str]) -> Scale | None:
    """The table's unit note (``in millions``), if a header or the text before it says."""
    for text in texts:
        match = _SCALE.search(text)
        if match:
            note = match.group(0).lower()
            excepted = note.partition("except")[2].strip(" )") if "except" in note else None
            return Scale(match.group(1).lower(), excepted)
    return None


@dataclass(frozen=True, slots=True)
class Scale:
    unit: str
    """``thousands``, ``millions`` or ``billions``."""
    excepted: str | None
    """What the note excepts (``per-share amounts``), lower case; None when it excepts none."""

    def note_for(self, label: str) -> str | None:
        """The row's unit note; a per-share amount is never in millions, whatever the note says
        (Apple's EPS note heads "in millions" over its share counts and its EPS rows alike)."""
        excepts = self.excepted is not None
        if _PER_SHARE.search(label) or (excepts and _UNSCALED_LABEL.search(label)):
            return None
        return f"(in {self.unit})"


@dataclass(frozen=True, slots=True)
class PrintedFigure:
    """A figure cell of a labelled row, as rendered: its column header and where it stands."""

    header: str
    text: str
    offset: int
    """Where ``text`` starts in the row's block text."""


@dataclass(frozen=True, slots=True)
class TableRow:
    """A labelled row of a table: its block's position among the table's blocks, its label
    (with the heading above it) and its figures."""

    index: int
    label: str
    figures: tuple[PrintedFigure, ...]


@dataclass(frozen=True, slots=True)
class ReadTable:
    """A source table read: its blocks, its labelled rows and the scale its note names."""

    blocks: list[Block]
    rows: list[TableRow]
    scale: Scale | None


def _merge_fragments(cells: Sequence[Cell]) -> list[Cell]:
    """Join the ``$`` before a figure and the ``%`` or ``)`` after it into the figure's cell.

    A ``$`` or ``%`` next to no figure is a cell of its own: in a header row it is the
    sub-heading of an amount or a percentage column (Tesla's ``2022`` over ``$`` and ``%``,
    Home Depot's ``Fiscal 2024`` over ``$`` and ``% of Net Sales``), never part of another."""
    merged: list[Cell] = []
    pending_prefix: Cell | None = None
    for cell in cells:
        text = cell.text
        if not text:
            continue
        if pending_prefix is not None and not is_figure(text):
            merged.append(pending_prefix)
            pending_prefix = None
        if text in _CURRENCY or text == "(":
            pending_prefix = cell
            continue
        if (
            merged
            and pending_prefix is None
            and _TRAILERS.match(text)
            and is_figure(merged[-1].text)
        ):
            last = merged[-1]
            joiner = "" if text.startswith(("%", ")")) else " "
            merged[-1] = Cell(
                last.text + joiner + text, last.first_column, cell.last_column, last.anchors
            )
            continue
        if pending_prefix is not None:
            prefix = "(" if pending_prefix.text == "(" else ""
            cell = Cell(  # noqa: PLW2901 (the figure absorbs its prefix)
                prefix + text,
                pending_prefix.first_column,
                cell.last_column,
                tuple(Anchor(a.fact_id, a.offset + len(prefix)) for a in cell.anchors),
            )
            pending_prefix = None
        merged.append(cell)
    if pending_prefix is not None:
        merged.append(pending_prefix)
    return merged


def _column_headers(
    headers: Sequence[Sequence[Cell]], value_columns: Sequence[tuple[int, int]]
) -> dict[tuple[int, int], str]:
    """Each value column's header words: from each header row, the cells sharing the most grid
    columns with it, leaving out cells that stand over every column. A bare currency sign is
    the amount column's sub-heading: it keeps the cell beside it off that column but adds no
    word (``Fiscal 2024: 159,514`` beside ``Fiscal 2024 % of Net Sales: 33.4%``)."""
    found: dict[tuple[int, int], str] = {}
    for first, last in value_columns:
        words: list[str] = []
        for row in headers:
            shared = {
                id(cell): min(cell.last_column, last) - max(cell.first_column, first) + 1
                for cell in row
                if len(value_columns) == 1
                or not all(
                    cell.first_column <= f and cell.last_column >= la for f, la in value_columns
                )
            }
            most = max(shared.values(), default=0)
            words.extend(
                cell.text
                for cell in row
                if most > 0 and shared.get(id(cell)) == most and cell.text not in _CURRENCY
            )
        found[(first, last)] = " ".join(dict.fromkeys(words))
    return found


def _is_header_row(row: Sequence[Cell]) -> bool:
    return all(not is_figure(c.text) or _YEAR.fullmatch(c.text) for c in row)


def read_table(rows: Sequence[Sequence[Cell]], context: Sequence[str]) -> ReadTable:
    """Render one source table as blocks: labelled rows when it holds figures, prose otherwise.

    ``context`` is the text just before the table, where a scale note often stands.
    """
    logical = [_merge_fragments(row) for row in rows]
    logical = [row for row in logical if row]
    data_rows = [
        i
        for i, row in enumerate(logical)
        if not _is_header_row(row) and any(is_figure(c.text) for c in row[1:])
    ]
    if not data_rows:
        return ReadTable([_prose_row(row) for row in logical], [], None)
    first_data = data_rows[0]
    headers = [row for row in logical[:first_data] if _is_header_row(row)]
    value_columns = sorted(
        {
            (c.first_column, c.last_column)
            for row in logical[first_data:]
            for c in row[1:]
            if is_figure(c.text)
        }
    )
    column_headers = _column_headers(headers, value_columns)
    header_texts = [c.text for row in logical[:first_data] for c in row]
    scale = find_scale([*header_texts, *context[-2:]])
    blocks: list[Block] = []
    labelled: list[TableRow] = []
    group = ""
    for row in logical[first_data:]:
        label_only = len(row) == 1 and not is_figure(row[0].text)
        if label_only and row[0].text.endswith(":"):
            group = row[0].text
        block, read = _labelled_row(row, column_headers, scale, "" if label_only else group)
        if read.figures:
            labelled.append(replace(read, index=len(blocks)))
        blocks.append(block)
        if row[0].text.lower().startswith("total"):
            group = ""
    return ReadTable(blocks, labelled, scale)


def _prose_row(row: Sequence[Cell]) -> Block:
    parts: list[str] = []
    anchors: list[Anchor] = []
    position = 0
    for cell in row:
        if parts:
            position += 1
        anchors.extend(Anchor(a.fact_id, a.offset + position) for a in cell.anchors)
        parts.append(cell.text)
        position += len(cell.text)
    return Block(" ".join(parts), ChunkKind.PROSE, tuple(anchors), in_table=True)


def _labelled_row(
    row: Sequence[Cell],
    column_headers: dict[tuple[int, int], str],
    scale: Scale | None,
    group: str,
) -> tuple[Block, TableRow]:
    """``group`` is the label-only row above (``Earnings per share:``), prefixed to this label."""
    has_label = not is_figure(row[0].text)
    if has_label and group:
        first = row[0]
        shift = len(group) + 1
        row = [
            Cell(
                f"{group} {first.text}",
                first.first_column,
                first.last_column,
                tuple(Anchor(a.fact_id, a.offset + shift) for a in first.anchors),
            ),
            *row[1:],
        ]
    label = row[0].text if has_label else ""
    parts: list[str] = []
    anchors: list[Anchor] = []
    figures: list[PrintedFigure] = []
    position = 0
    for index, cell in enumerate(row):
        header = column_headers.get((cell.first_column, cell.last_column), "")
        value = (index or not has_label) and is_figure(cell.text)
        prefix = f"{header}: " if header and value else ""
        if parts:
            position += 3
        position += len(prefix)
        anchors.extend(Anchor(a.fact_id, a.offset + position) for a in cell.anchors)
        if value and has_label:
            figures.append(PrintedFigure(header, cell.text, position))
        parts.append(prefix + cell.text)
        position += len(cell.text)
    note = scale.note_for(label) if scale else None
    if note and len(row) > int(has_label):
        parts.append(note)
    block = Block(" | ".join(parts), ChunkKind.TABLE, tuple(anchors), in_table=True)
    return block, TableRow(0, label, tuple(figures))
