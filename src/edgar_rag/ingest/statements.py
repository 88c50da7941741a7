"""Financial statements laid out as positioned words (a PDF page) read as labelled rows.

A statement page is found by its title at the top (``CONSOLIDATED STATEMENTS OF OPERATIONS``,
``Balance Sheets``, ``Statement of Financial Position``, ...). Its column headers are the fiscal
years or period-end dates printed above the first row with figures (a date may be split over
two lines: ``Year Ended December 31,`` over ``2019 2018``); each figure goes to the header
nearest its horizontal position. A row is rendered as HTML tables are
(``Net sales | 2019: 32,765 | 2018: 31,657 | (in millions)``) and yields one figure per column,
read with its scale, parentheses as negatives and dashes as zero. When the headers name no year,
rows are kept as plain text and yield no figures: a year is never guessed.

Pure: words in, blocks and figures out; the PDF reader (``ingest/pdf.py``) supplies the words.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from enum import StrEnum

from edgar_rag.domain import ChunkKind
from edgar_rag.ingest.blocks import Anchor, Block, normalise_space
from edgar_rag.ingest.tables import find_scale
from edgar_rag.rules import SMALL_NUMBERS

_TOP_LINES = 8
"""Lines at the top of a page where a statement's title may stand (after running headers)."""
_MIN_ROWS = 4
"""Rows with figures a page needs to be read as a statement (an index page lists titles)."""
_YEAR = re.compile(r"^\(?((?:19|20)\d{2})\)?[,.:;*]?$")
_MONTH = re.compile(
    r"^(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?$",
    re.IGNORECASE,
)
_DAY = re.compile(r"^(\d{1,2}),?$")
_FIGURE = re.compile(r"^\$?\(?\$?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?\)?%?$")
_DASH = re.compile(r"^\$?\(?[-–—]+\)?$")
_CURRENCY = frozenset({"$", "US$", "€", "£"})
_FOOTNOTE = re.compile(r"(?:\s*(?:\(\s*(?:\d{1,2}|[a-z]|[ivx]{1,4})\s*\)|\*{1,3}|†|‡))+$")
_LEADERS = re.compile(r"\s*(?:\.\s*){2,}$")
_PER_SHARE = re.compile(r"per\s+(?:common\s+|ordinary\s+)?share|per\s+ads\b", re.IGNORECASE)
_SHARES = re.compile(r"\bshares\b|\bunits\s+outstanding\b|weighted[-\s]average", re.IGNORECASE)
_DOLLAR_LABEL = re.compile(r"\$|par\s+value|\bstock\s*,", re.IGNORECASE)
_PERCENT_LABEL = re.compile(r"%|\bpercent", re.IGNORECASE)
_CONNECTOR = re.compile(r"(?:\b(?:and|of|for|in|on|to|from|the|net|by|with|or)|[,&(/-])$", re.I)
_SCALES = {"thousands": 3, "millions": 6, "billions": 9}
_BARE_SCALE = re.compile(r"\(\s*(thousands|millions|billions)\b", re.IGNORECASE)
_COMPREHENSIVE = re.compile(r"comprehensive", re.IGNORECASE)
_SHARES_SCALE = re.compile(r"\bshares\b[^;]{0,40}?\bin\s+(thousands|millions|billions)\b")
PERCENT_HEADING = re.compile(r"%|\bpercent", re.IGNORECASE)
_PHRASE_GAP = 2.0
"""A gap wider than this many characters' width parts two sub-headings of one header line."""


class StatementKind(StrEnum):
    """Which primary statement a page prints."""

    INCOME = "income_statement"
    BALANCE = "balance_sheet"
    CASH_FLOW = "cash_flow"
    COMPREHENSIVE = "comprehensive_income"


_TITLES: tuple[tuple[StatementKind, re.Pattern[str]], ...] = (
    (
        StatementKind.CASH_FLOW,
        re.compile(
            r"\b(?:statements?\s+of\s+(?:consolidated\s+)?cash\s+flows?|cash\s+flows?\s+"
            r"statements?)\b",
            re.I,
        ),
    ),
    (
        StatementKind.BALANCE,
        re.compile(
            r"\b(?:balance\s+sheets?|statements?\s+of\s+(?:consolidated\s+)?financial\s+"
            r"(?:position|condition))\b",
            re.I,
        ),
    ),
    (
        StatementKind.INCOME,
        re.compile(
            r"\b(?:statements?\s+of\s+(?:consolidated\s+)?(?:operations|income|earnings|"
            r"(?:net\s+)?(?:income|loss|earnings)(?:\s*\(loss\))?)|income\s+statements?|"
            r"statements?\s+of\s+comprehensive\s+(?:income|loss|earnings))\b",
            re.I,
        ),
    ),
)
_TITLE_LINE_CHARS = 110
_SQUASHED_TITLE_CHARS = 60
_SQUASHED_TITLES: tuple[tuple[StatementKind, tuple[str, ...]], ...] = (
    (StatementKind.CASH_FLOW, ("statementofcashflows", "statementsofcashflows")),
    (StatementKind.BALANCE, ("balancesheet", "balancesheets", "statementoffinancialposition")),
    (
        StatementKind.INCOME,
        ("statementofincome", "statementsofincome", "statementofoperations",
         "statementsofoperations", "statementofearnings", "statementsofearnings",
         "statementofcomprehensiveincome", "statementsofcomprehensiveincome"),
    ),
)  # fmt: skip
_NOT_A_TITLE = re.compile(
    r"\b(?:notes?\s+to|index\s+to|see\s+(?:the\s+)?accompanying|condensed(?!\s+consolidated\b)|"
    r"consolidating|"
    r"parent\s+company|supplemental|selected|summary|quarterly|segment|continued\s+on|"
    r"analysis|certain|data|information|location|components?|details?|classification|"
    r"reconciliation|subject|activity|amounts|items?|guarantor|obligor)\b",
    re.IGNORECASE,
)
_TITLE_WORDS_AROUND = 7
"""Words a title line may hold besides the statement's name (the company's, ``(continued)``)."""
_SMALL_WORDS = frozenset({"and", "of", "the", "its", "for", "&"})
_TITLE_WORDS = frozenset({"consolidated", "subsidiaries", "continued", "condensed"})
"""Words a title may print in lower case besides small ones (Johnson & Johnson's
``Johnson & Johnson and subsidiaries consolidated statements of earnings``)."""


@dataclass(frozen=True, slots=True)
class Word:
    """One word of a page with its horizontal extent (points, left to right)."""

    text: str
    x0: float
    x1: float

    @property
    def centre(self) -> float:
        return (self.x0 + self.x1) / 2


@dataclass(frozen=True, slots=True)
class Line:
    """One printed line of a page: its words left to right."""

    words: tuple[Word, ...]

    @property
    def text(self) -> str:
        return " ".join(word.text for word in self.words)


@dataclass(frozen=True, slots=True)
class Column:
    """A value column: the year (and the date, when printed) its header names."""

    year: int
    period_end: date | None
    header: str
    """What a rendered row prints before the figure: ``2019``, ``December 31, 2019``, or with
    the column's own sub-heading under a period (``2019 % of sales``)."""
    centre: float
    percent: bool = False
    """Its sub-heading names a percentage (``%``, ``% of sales``): never read as an amount."""
    months: int | None = None
    """The months its figures span when a heading over it says so (``Three Months Ended``,
    ``Six Months Ended``: a quarter's statement); None when none does."""


@dataclass(frozen=True, slots=True)
class RowFigure:
    """One figure of a statement row, before the filing's periods are known."""

    figure_id: str
    statement: StatementKind
    label: str
    column: Column
    displayed: str
    value: float
    """The printed number signed (parentheses negative, a dash 0) and scaled."""
    unit: str
    """``USD``, ``USD/shares``, ``shares`` or ``percent``."""
    scale: int
    """The power of ten the printed number was multiplied by (6 for ``in millions``)."""


@dataclass(frozen=True, slots=True)
class StatementPage:
    """A statement found on a page, as the filing's record keeps it."""

    kind: StatementKind
    title: str
    page: int | None
    """Zero-based page number in the PDF; None in an HTML filing, which has no pages."""
    years: tuple[int, ...]
    """The fiscal years its columns name, as printed; empty when none could be read."""
    rows: int
    """Rows with figures read (with or without years)."""


@dataclass(frozen=True, slots=True)
class ReadStatement:
    """What ``read_statement`` makes of one page."""

    found: StatementPage
    blocks: list[Block]
    figures: list[RowFigure]


def statement_title(lines: Sequence[Line]) -> tuple[StatementKind, str] | None:
    """The statement a page prints, from a title among its first lines, or None."""
    for line in lines[:_TOP_LINES]:
        text = normalise_space(line.text)
        if (
            len(text) > _TITLE_LINE_CHARS
            or _NOT_A_TITLE.search(text)
            or text.endswith((".", ";", ":"))
            or not text[:1].isupper()
        ):
            continue
        if re.search(r"\d{1,3}$", text) and not _YEAR.match(text.split()[-1]):
            continue  # a line of an index: the title, then its page number
        kind = _title_kind(text)
        if kind is not None:
            if kind is StatementKind.INCOME and _only_comprehensive(text):
                kind = StatementKind.COMPREHENSIVE
            return kind, text
    return None


def _title_kind(text: str) -> StatementKind | None:
    """The statement a title line names; a line short enough is also read with its spaces
    taken out, for a title typeset with split letters (3M's ``Statement of Incom e``)."""
    for kind, pattern in _TITLES:
        match = pattern.search(text)
        if match and _reads_as_title(text[: match.start()], text[match.end() :]):
            return kind
    squashed = re.sub(r"[^a-z]", "", text.lower())
    if len(squashed) <= _SQUASHED_TITLE_CHARS:
        for kind, names in _SQUASHED_TITLES:
            if any(squashed.endswith(name) for name in names):
                return kind
    return None


def _reads_as_title(before: str, after: str) -> bool:
    """Besides the name, a title line holds a few capitalised words (the company's, ``Inc.``,
    ``(continued)``, ``and Comprehensive Income``), never a sentence around it."""
    words = [w.strip("(),.:") for w in f"{before} {after}".split()]
    words = [w for w in words if w]
    return len(words) <= _TITLE_WORDS_AROUND and all(
        w[:1].isupper() or w[:1].isdigit() or w.lower() in _SMALL_WORDS or w in _TITLE_WORDS
        for w in words
    )


def _only_comprehensive(title: str) -> bool:
    """``Statements of Comprehensive Income``, not ``Operations and Comprehensive Income``."""
    return bool(_COMPREHENSIVE.search(title)) and not re.search(
        r"operations|earnings\s+and|income\s+and", title, re.IGNORECASE
    )


def read_statement(
    lines: Sequence[Line], page: int, kind: StatementKind, title: str
) -> ReadStatement | None:
    """A statement page as blocks (labelled rows and the prose around them) and row figures;
    None when it holds too few rows with figures to be a statement."""
    below = next((i + 1 for i, line in enumerate(lines) if title in normalise_space(line.text)), 0)
    parsed = [_split_row(line) for line in lines]
    data = [i for i, row in enumerate(parsed) if i >= below and row[1] and _is_data(row)]
    if len(data) < _MIN_ROWS:
        return None
    first_data = data[0]
    columns, header_line = _columns(lines[:first_data])
    head = lines[: header_line + 1 if columns else first_data]
    scale_text = _scale([line.text for line in lines[:first_data]])
    excepted = _excepted(lines[:first_data])
    blocks: list[Block] = [Block(normalise_space(line.text)) for line in head if line.words]
    figures: list[RowFigure] = []
    every_value = [w for line in lines[first_data:] for w in _split_row(line)[1]]
    cents = _cents_per_share(every_value, excepted)
    table = _Table(kind, columns, scale_text, excepted, cents)
    groups = _Groups()
    seen: set[str] = set()
    pending: list[tuple[str, float]] = []
    """Label-only lines not yet placed: a wrapped label's first line, a heading, or prose."""
    rows = 0
    for index in range(len(head), len(lines)):
        line = lines[index]
        label, values = _split_row(line) if columns is None else _split(line, columns)
        indent = line.words[0].x0 if line.words else 0.0
        if not values:
            if label.endswith(":"):
                blocks.extend(Block(text) for text, _ in pending)
                pending.clear()
                groups.open_heading(label, indent)
                blocks.append(Block(label))
            elif label:
                pending.append((label, indent))
            continue
        if pending and label and _continues(pending[-1][0], label):
            label = f"{pending.pop()[0]} {label}"
        if pending and label and indent > pending[-1][1] + 1:
            heading, heading_indent = pending.pop()  # a heading without a colon over its rows
            blocks.extend(Block(text) for text, _ in pending)
            blocks.append(Block(heading))
            groups.open_heading(f"{heading}:", heading_indent)
        blocks.extend(Block(text) for text, _ in pending)
        pending.clear()
        if not label:
            total = _unlabelled_total(groups, values, table, f"{page}.{index}")
            if total is None:
                blocks.append(Block(normalise_space(line.text)))
                continue  # a page number, or figures without a label: never a figure
            rows += 1
            blocks.append(total[0])
            figures.extend(total[1])
            groups.close_innermost()
            continue
        prefix = groups.prefix_for(indent, repeated=label in seen)
        seen.add(label)
        full = f"{prefix} {label}" if prefix else label
        rows += 1
        block, row_figures = _render_row(full, values, table, f"{page}.{index}")
        blocks.append(block)
        figures.extend(row_figures)
        groups.add_row(row_figures)
        if label.lower().startswith("total"):
            groups.close_innermost()
    blocks.extend(Block(text) for text, _ in pending)
    years = tuple(dict.fromkeys(column.year for column in columns)) if columns else ()
    return ReadStatement(StatementPage(kind, title, page, years, rows), blocks, figures)


def _unlabelled_total(
    groups: _Groups, values: Sequence[Word], table: _Table, row_id: str
) -> tuple[Block, list[RowFigure]] | None:
    """A row of figures with no label, under a heading whose rows it sums in every column
    (MGM's revenues: "Revenues:", five rows, then their total printed bare), as the heading's
    total row ("Total revenues"); None for any other unlabelled figures (a page number)."""
    group = groups.innermost()
    if group is None or len(group.rows) < 2:
        return None
    name = group.label.rstrip(":").strip()
    block, figures = _render_row(f"Total {name[:1].lower()}{name[1:]}", values, table, row_id)
    sums: dict[str, float] = {}
    for row in group.rows:
        for figure in row:
            sums[figure.column.header] = sums.get(figure.column.header, 0.0) + figure.value
    if not figures or len(figures) != len(sums):
        return None
    for figure in figures:
        expected = sums.get(figure.column.header)
        if expected is None or abs(figure.value - expected) > 10**figure.scale:
            return None  # within one printed unit of rounding, or it is no total
    return block, figures


@dataclass(slots=True)
class _Group:
    indent: float
    label: str
    """The heading as printed, ending in ``:`` (``Operating expenses:``)."""
    indented: bool = False
    """A row under it started further right: its rows are laid out indented."""
    rows: list[list[RowFigure]] = field(default_factory=list)
    """The figures of each row read under it, which a bare total below them sums."""


class _Groups:
    """The ``Heading:`` lines that prefix the rows below them. A heading closes at a row that
    starts left of it, at a row level with it once its rows were indented, at a ``Total``
    row, and at another heading as far left; a statement that does not indent its rows
    (Pfizer's per-share rows) keeps the heading until one of the others."""

    def __init__(self) -> None:
        self.open: list[_Group] = []

    def open_heading(self, label: str, indent: float) -> None:
        while self.open and self.open[-1].indent >= indent - 1:
            self.open.pop()
        self.open.append(_Group(indent, label))

    def prefix_for(self, indent: float, *, repeated: bool = False) -> str:
        """The innermost open heading over a row at ``indent``; a ``repeated`` label (seen
        higher on the page) keeps a heading it stands level with, which tells it apart."""
        while self.open:
            group = self.open[-1]
            level = abs(indent - group.indent) <= 1
            if indent < group.indent - 1 or (level and group.indented and not repeated):
                self.open.pop()
                continue
            break
        if not self.open:
            return ""
        if indent > self.open[-1].indent + 1:
            self.open[-1].indented = True
        return self.open[-1].label

    def close_innermost(self) -> None:
        if self.open:
            self.open.pop()

    def innermost(self) -> _Group | None:
        return self.open[-1] if self.open else None

    def add_row(self, figures: list[RowFigure]) -> None:
        """A row read under the innermost heading (rows without figures are not counted)."""
        if self.open and figures:
            self.open[-1].rows.append(figures)


def _is_data(row: tuple[str, list[Word]]) -> bool:
    """A row with figures that are not all years (a header line of years is not data)."""
    label, values = row
    return bool(label) and any(not _YEAR.match(word.text) for word in values)


def _split_row(line: Line) -> tuple[str, list[Word]]:
    """A line's label and the figure words that end it (no column positions known)."""
    words = _merge_signs(line.words)
    end = len(words)
    while end > 0 and _is_value(words[end - 1].text):
        end -= 1
    if 0 < end < len(words) and _MONTH.match(words[end - 1].text):
        end += 1  # ``December 31``: a date, not a figure
    figures = [w for w in words[end:] if w.text not in _CURRENCY]
    return clean_label(" ".join(w.text for w in words[:end])), figures


def _split(line: Line, columns: Sequence[Column]) -> tuple[str, list[Word]]:
    """A line's label and figure words: figures sit right of the label area, over the columns."""
    words = _merge_signs(line.words)
    spacing = _spacing(columns)
    boundary = columns[0].centre - spacing * 0.75
    end = len(words)
    while end > 0 and _is_value(words[end - 1].text) and words[end - 1].x1 > boundary:
        end -= 1
    figures = [w for w in words[end:] if w.text not in _CURRENCY]
    return clean_label(" ".join(w.text for w in words[:end])), figures


def _spacing(columns: Sequence[Column]) -> float:
    if len(columns) < 2:
        return 80.0
    gaps = [b.centre - a.centre for a, b in itertools.pairwise(columns)]
    return max(min(abs(g) for g in gaps), 20.0)


def _is_value(text: str) -> bool:
    if text.endswith(")") and "(" not in text and not text[:-1].replace(",", "").isdigit():
        return False
    if re.fullmatch(r"\d{1,2}\)", text):
        return False  # the end of ``(Note 1)``: a closing parenthesis alone never ends a figure
    return text in _CURRENCY or bool(_FIGURE.match(text) or _DASH.match(text))


def _merge_signs(words: Sequence[Word]) -> list[Word]:
    """Join a lone ``(`` or ``$`` before a figure and a ``)`` or ``%`` after it."""
    merged: list[Word] = []
    for word in words:
        if merged and word.text in {")", "%", ")%"} and _FIGURE.match(merged[-1].text.strip("(")):
            last = merged[-1]
            merged[-1] = Word(last.text + word.text, last.x0, word.x1)
            continue
        if merged and merged[-1].text in {"(", "$(", "($"}:
            last = merged.pop()
            word = Word("(" + word.text, last.x0, word.x1)  # noqa: PLW2901
        merged.append(word)
    return merged


def clean_label(text: str) -> str:
    """A row label without dot leaders and trailing footnote markers (``Net income (1)``)."""
    text = _LEADERS.sub("", normalise_space(text))
    return _FOOTNOTE.sub("", text).strip(" .")


def _continues(pending: str, label: str) -> bool:
    """Whether a label-only line is the first line of the next row's wrapped label."""
    return bool(label) and (label[0].islower() or bool(_CONNECTOR.search(pending)))


def _columns(head: Sequence[Line]) -> tuple[list[Column] | None, int]:
    """The value columns named by the header lines: the line with the most years gives one
    column per year; a month and day printed in the same line, or on the line above at the
    same position, or once over all columns, makes it a date."""
    best: list[tuple[int, Word, int]] = []
    for position, line in enumerate(head):
        years = [
            (int(match.group(1)), word, position)
            for word in line.words
            if (match := _YEAR.match(word.text))
        ]
        if len(years) >= len(best) and years:
            best = years
    if not best:
        return None, -1
    line_index = best[0][2]
    columns = []
    for year, word, _ in best:
        day = _day_over(head, line_index, word)
        header = f"{day.month} {day.day}, {year}" if day and day.per_column else str(year)
        centre = (day.x0 + word.x1) / 2 if day and day.same_line else word.centre
        columns.append(Column(year, _date(day, year) if day else None, header, centre))
    columns = _spans(head[max(0, line_index - 2) : line_index + 1], columns)
    if len({(c.months, c.period_end or c.year) for c in columns}) < len(columns):
        return None, -1  # two columns of one period (a restatement): not plain
    if line_index + 1 < len(head):
        split = _sub_columns(head[line_index + 1], columns)
        if split is not None:
            return split, line_index + 1
    return columns, line_index


_SPAN = re.compile(r"\b(?P<n>three|six|nine|3|6|9)[\s-]+months?\s+(?:period\s+)?ended\b", re.I)
"""A heading of part of a year: a quarter's statement (a year's columns are read as today)."""


def _spans(lines: Sequence[Line], columns: Sequence[Column]) -> list[Column]:
    """The columns with the months each spans, from the headings over them (``Three Months
    Ended`` over a quarter's two columns, ``Six Months Ended`` over the next two: each heading
    over an equal run of columns, left to right); unchanged when no heading says, or the
    headings do not divide the columns evenly."""
    for line in reversed(lines):
        spans = [_months(m["n"]) for m in _SPAN.finditer(line.text)]
        if not spans:
            continue
        per, rest = divmod(len(columns), len(spans))
        if per == 0 or rest:
            return list(columns)
        ordered = sorted(columns, key=lambda c: c.centre)
        spanned = {id(c): spans[i // per] for i, c in enumerate(ordered)}
        return [_spanning(c, spanned[id(c)]) for c in columns]
    return list(columns)


def _months(written: str) -> int:
    """``three`` or ``3``: 3."""
    return int(written) if written.isdigit() else SMALL_NUMBERS.index(written.lower())


def _spanning(column: Column, months: int) -> Column:
    """``column`` spanning ``months``, its header saying so (``Three months ended July 29,
    2023``)."""
    end = column.period_end
    dated = (
        column.header
        if end is None or column.header != str(column.year)
        else (f"{end:%B} {end.day}, {end.year}")
    )
    header = f"{SMALL_NUMBERS[months].capitalize()} months ended {dated}"
    return replace(column, months=months, header=header)


def _sub_columns(line: Line, columns: Sequence[Column]) -> list[Column] | None:
    """A line of sub-headings under the years (``$ %`` or ``Amount % of sales`` under each
    year), as one column per sub-heading with its year's period; None when the line is not
    that: a figure in it, other sub-headings under each year, or none naming a percentage
    (a note's table under one date, ``Long-Term Balance Sheet Contractual``, is not plain)."""
    spacing = _spacing(columns)
    words = [w for w in line.words if w.centre > columns[0].centre - spacing]
    if not words or any(_FIGURE.match(w.text) or _YEAR.match(w.text) for w in words):
        return None
    phrases = _phrases(words)
    per_year, rest = divmod(len(phrases), len(columns))
    if per_year < 2 or rest:
        return None
    headings = [" ".join(w.text for w in phrase) for phrase in phrases]
    if headings != headings[:per_year] * len(columns) or not any(
        PERCENT_HEADING.search(heading) for heading in headings
    ):
        return None
    split: list[Column] = []
    for index, (phrase, heading) in enumerate(zip(phrases, headings, strict=True)):
        column = columns[index // per_year]
        centre = (phrase[0].x0 + phrase[-1].x1) / 2
        if min(columns, key=lambda c: abs(c.centre - centre)) is not column:
            return None
        header = column.header if heading in _CURRENCY else f"{column.header} {heading}"
        percent = bool(PERCENT_HEADING.search(heading))
        split.append(replace(column, header=header, centre=centre, percent=percent))
    return split


def _phrases(words: Sequence[Word]) -> list[list[Word]]:
    """Words grouped into phrases: a gap wider than a few characters starts another."""
    char = sorted((w.x1 - w.x0) / max(len(w.text), 1) for w in words)[len(words) // 2]
    phrases = [[words[0]]]
    for before, word in itertools.pairwise(words):
        if word.x0 - before.x1 > _PHRASE_GAP * char:
            phrases.append([word])
        else:
            phrases[-1].append(word)
    return phrases


@dataclass(frozen=True, slots=True)
class _MonthDay:
    month: str
    day: int
    per_column: bool
    """Printed over this column alone (not once over all of them)."""
    same_line: bool
    x0: float


def _day_over(head: Sequence[Line], line_index: int, year: Word) -> _MonthDay | None:
    """The month and day printed before ``year`` on its line, above it, or once over all."""
    line = head[line_index].words
    at = line.index(year)
    if at >= 2 and _MONTH.match(line[at - 2].text) and _DAY.match(line[at - 1].text):
        return _month_day(line[at - 2], line[at - 1], per_column=True, same_line=True)
    for above in reversed(head[max(0, line_index - 2) : line_index]):
        pairs = [
            (word, nxt)
            for word, nxt in zip(above.words, above.words[1:], strict=False)
            if _MONTH.match(word.text) and _DAY.match(nxt.text)
        ]
        if len({(month.text, day.text) for month, day in pairs}) == 1:
            # once over all, or once over each span of them (``Three Months Ended December 31,
            # Six Months Ended December 31,``)
            return _month_day(*pairs[0], per_column=False, same_line=False)
        for month, day in pairs:
            if month.x0 - 30 <= year.centre <= day.x1 + 30:
                return _month_day(month, day, per_column=True, same_line=False)
    return None


def _month_day(month: Word, day: Word, *, per_column: bool, same_line: bool) -> _MonthDay:
    match = _DAY.match(day.text)
    assert match is not None
    name = month.text.rstrip(".").capitalize()
    return _MonthDay(name, int(match.group(1)), per_column, same_line, month.x0)


MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


def _date(day: _MonthDay, year: int) -> date | None:
    try:
        return date(year, MONTHS.index(day.month[:3].lower()) + 1, day.day)
    except ValueError:
        return None


def _scale(texts: Sequence[str]) -> str | None:
    """``millions`` for ``(in millions, except ...)``, and for 3M's bare ``(Millions)``."""
    note = find_scale(texts)
    if note is not None:
        return note.unit
    for text in texts:
        match = _BARE_SCALE.search(text)
        if match:
            return match.group(1).lower()
    return None


def _excepted(head: Sequence[Line]) -> str:
    """The words after ``except`` in the scale note (``per share data``), lower case."""
    text = " ".join(line.text for line in head).lower()
    match = re.search(r"except\s+([^)]{0,80})", text)
    return match.group(1) if match else ""


def _assign(values: Sequence[Word], columns: Sequence[Column]) -> list[tuple[Column, Word]] | None:
    """Each figure's column: in order when there are as many as columns, else the nearest
    column; None when two figures fall to one column or one lies between columns."""
    if len(values) == len(columns):
        return list(zip(columns, values, strict=True))
    spacing = _spacing(columns)
    assigned: dict[int, Word] = {}
    for word in values:
        nearest = min(range(len(columns)), key=lambda i: abs(columns[i].centre - word.x1 + 8))
        if abs(columns[nearest].centre - word.centre) > spacing * 0.75 or nearest in assigned:
            return None
        assigned[nearest] = word
    return [(columns[i], assigned[i]) for i in sorted(assigned)]


def is_amount(text: str) -> bool:
    """A printed figure that is an amount: ``1,234``, ``(12)``, a dash; not ``33.4%``."""
    return bool(_FIGURE.match(text) or _DASH.match(text)) and not text.endswith("%")


def figure_value(text: str) -> float:
    """A printed figure as a number: ``(1,417)`` is -1417, a dash is 0."""
    if _DASH.match(text):
        return 0.0
    number = float(re.sub(r"[^\d.]", "", text))
    return -number if "(" in text or text.endswith(")") else number


def _cents(text: str) -> bool:
    """A figure printed with two decimals (``3.92``), or a dash."""
    return bool(re.search(r"\d\.\d\d\)?$", text) or _DASH.match(text))


def _cents_per_share(values: Sequence[Word], excepted: str) -> bool:
    figures = [w.text for w in values if not _DASH.match(w.text)]
    with_cents = sum(1 for text in figures if _cents(text))
    return bool(_PER_SHARE.search(excepted)) and with_cents * 2 < len(figures)


def unit_and_scale(label: str, scale_text: str | None, excepted: str) -> tuple[str, int]:
    """A row's unit, and its scale: per-share rows and what the note excepts are unscaled,
    unless the note gives the shares a scale of their own (Apple's ``except number of shares,
    which are reflected in thousands``)."""
    scale = _SCALES.get(scale_text or "", 0)
    if _SHARES.search(label) and not _DOLLAR_LABEL.search(label):
        own = _SHARES_SCALE.search(excepted)
        if own is not None:
            return "shares", _SCALES[own.group(1)]
        return "shares", 0 if "share" in _PER_SHARE.sub("", excepted) else scale
    if _PER_SHARE.search(label):
        return "USD/shares", 0
    if _PERCENT_LABEL.search(label):
        return "percent", 0
    return "USD", scale


@dataclass(frozen=True, slots=True)
class _Table:
    """What every row of one statement page shares."""

    kind: StatementKind
    columns: list[Column] | None
    scale_text: str | None
    excepted: str
    cents_per_share: bool
    """Figures with two decimals are per-share amounts: the note excepts them and the page's
    other figures do not print two decimals (Pfizer heads its EPS rows ``Earnings per common
    share––basic:`` and ends them with a level ``Net income ...`` row)."""


def _render_row(
    label: str, values: Sequence[Word], table: _Table, row_id: str
) -> tuple[Block, list[RowFigure]]:
    """``label | 2019: 32,765 | 2018: 31,657 | (in millions)`` and its figures; plain text
    (``label 32,765 31,657``) with no figures when the columns are unknown."""
    placed = _assign(values, table.columns) if table.columns else None
    if placed is None:
        text = " ".join([label, *(word.text.lstrip("$") for word in values)]).strip()
        return Block(text, ChunkKind.TABLE, in_table=True), []
    scale_text, kind = table.scale_text, table.kind
    unit, scale = unit_and_scale(label, scale_text, table.excepted)
    amounts = [word for column, word in placed if not column.percent]
    if unit == "USD" and table.cents_per_share and all(_cents(w.text) for w in amounts):
        unit, scale = "USD/shares", 0
    parts = [label] if label else []
    anchors: list[Anchor] = []
    figures: list[RowFigure] = []
    position = len(label)
    for number, (column, word) in enumerate(placed):
        displayed = word.text.replace("$", "")
        prefix = f"{column.header}: "
        if parts:
            position += 3
        parts.append(prefix + displayed)
        position += len(prefix) + len(displayed)
        if column.percent:
            continue  # printed in the row, never a figure: a share is not an amount
        figure_id = f"row:{row_id}.{number}"
        anchors.append(Anchor(figure_id, position - len(displayed)))
        value = figure_value(displayed) * (10**scale if unit != "percent" else 1)
        figures.append(RowFigure(figure_id, kind, label, column, displayed, value, unit, scale))
    if scale and unit in {"USD", "shares"} and scale_text:
        parts.append(f"(in {scale_text})")
    return Block(" | ".join(parts), ChunkKind.TABLE, tuple(anchors), in_table=True), figures
