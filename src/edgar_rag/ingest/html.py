"""HTML and inline-XBRL filings to blocks: visible text in reading order, tables as labelled rows.

The hidden inline-XBRL header (``ix:header``) and anything styled ``display:none`` are skipped;
each displayed ``ix:nonFraction`` figure is remembered as an anchor in its block so that the fact
can later point at the chunk that prints it. A table titled as a primary statement is also read
as row figures (``table_statements.py``), anchored the same way, for a filing without XBRL.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

import lxml.etree
import lxml.html

from edgar_rag.errors import ParseError
from edgar_rag.ingest.blocks import Anchor, Block, normalise_space
from edgar_rag.ingest.statements import RowFigure, StatementPage
from edgar_rag.ingest.table_statements import TITLE_LINES, read_table_statement
from edgar_rag.ingest.tables import Cell, read_table

_BLOCK_TAGS = frozenset(
    (
        "p div li ul ol h1 h2 h3 h4 h5 h6 br hr center blockquote section article body dd dt dl "
        "pre address header footer form caption"
    ).split()
)
_SKIPPED_TAGS = frozenset(["script", "style", "head", "title", "ix:header", "noscript", "xml"])
_HIDDEN = re.compile(r"display\s*:\s*none", re.IGNORECASE)
_WHITESPACE = re.compile(r"\s+")
FACT_TAG = "ix:nonfraction"


@dataclass(slots=True)
class _Line:
    """Text being gathered for one block, with whitespace collapsed as it arrives."""

    parts: list[str] = field(default_factory=list)
    length: int = 0
    anchors: list[Anchor] = field(default_factory=list)
    pending_space: bool = False
    all_link: bool = True
    any_text: bool = False

    def add(self, text: str, in_link: bool) -> None:
        if not text:
            return
        collapsed = _WHITESPACE.sub(" ", text.replace("\u00a0", " ").replace("\u200b", ""))
        if collapsed.startswith(" "):
            self.pending_space = self.length > 0
            collapsed = collapsed.lstrip(" ")
        if not collapsed:
            return
        if self.pending_space:
            self.parts.append(" ")
            self.length += 1
        ends_with_space = collapsed.endswith(" ")
        collapsed = collapsed.rstrip(" ")
        self.parts.append(collapsed)
        self.length += len(collapsed)
        self.pending_space = ends_with_space
        self.any_text = True
        self.all_link = self.all_link and in_link

    def mark(self, fact_id: str) -> None:
        offset = self.length + (1 if self.pending_space and self.length else 0)
        self.anchors.append(Anchor(fact_id, offset))

    def text(self) -> str:
        return "".join(self.parts)


@dataclass(frozen=True, slots=True)
class HtmlRead:
    """An HTML filing read: its blocks, its parsed tree (for the XBRL reader), the figures of
    its statement tables and the statements found."""

    blocks: list[Block]
    root: lxml.html.HtmlElement
    figures: list[RowFigure]
    statements: list[StatementPage]


def parse_html(content: bytes, source: str) -> HtmlRead:
    """Read an HTML filing into blocks, statement figures and the statements found."""
    if not re.search(rb"</html\s*>", content[-4096:], re.IGNORECASE):
        raise ParseError(f"{source}: the HTML looks truncated (no closing </html> tag)")
    try:
        parser = lxml.html.HTMLParser(huge_tree=True, remove_comments=True)
        root = lxml.html.document_fromstring(content, parser=parser)
    except (lxml.etree.ParserError, ValueError) as exc:
        raise ParseError(f"{source}: not readable as HTML ({exc})") from exc
    facts = {element: f"f{i}" for i, element in enumerate(root.iter(FACT_TAG))}
    walker = _Walker(facts)
    walker.walk(root)
    walker.flush()
    return HtmlRead(walker.blocks, root, walker.figures, walker.statements)


class _Walker:
    def __init__(self, fact_ids: dict[lxml.html.HtmlElement, str]) -> None:
        self.fact_ids = fact_ids
        self.blocks: list[Block] = []
        self.line = _Line()
        self.context: list[str] = []
        self.figures: list[RowFigure] = []
        self.statements: list[StatementPage] = []

    def flush(self) -> None:
        line = self.line
        if line.any_text:
            text = line.text()
            anchors = tuple(a for a in line.anchors if a.offset < len(text))
            self.blocks.append(Block(text, anchors=anchors, in_link=line.all_link))
            self.context = [*self.context[1 - TITLE_LINES :], text]
        self.line = _Line()

    def walk(self, element: lxml.html.HtmlElement, in_link: bool = False) -> None:
        tag = element.tag if isinstance(element.tag, str) else ""
        if tag in _SKIPPED_TAGS or _HIDDEN.search(element.get("style", "")):
            self.line.add(element.tail or "", in_link)
            return
        if tag == "table":
            self.flush()
            self._add_table(element)
            self.line.add(element.tail or "", in_link)
            return
        is_block = tag in _BLOCK_TAGS
        if is_block:
            self.flush()
        link = in_link or (tag == "a" and bool(element.get("href")))
        if tag == FACT_TAG:
            self.line.mark(self.fact_ids[element])
        self.line.add(element.text or "", link)
        for child in element:
            self.walk(child, link)
        if is_block:
            self.flush()
        self.line.add(element.tail or "", in_link)

    def _add_table(self, element: lxml.html.HtmlElement) -> None:
        table = read_table(self._table_rows(element), self.context)
        statement = read_table_statement(table, self.context, f"h{len(self.blocks)}")
        if statement is None:
            self.blocks.extend(table.blocks)
            return
        self.blocks.extend(statement.blocks)
        self.figures.extend(statement.figures)
        self.statements.append(statement.found)

    def _table_rows(self, table: lxml.html.HtmlElement) -> list[list[Cell]]:
        rows: list[list[Cell]] = []
        held: dict[int, int] = {}  # column -> rows still covered by a cell above (rowspan)
        for row in _rows_of(table):
            cells: list[Cell] = []
            column = 0
            covered = {c for c, rows_left in held.items() if rows_left > 0}
            for cell in row:
                if not isinstance(cell.tag, str) or cell.tag not in ("td", "th"):
                    continue
                while column in covered:
                    column += 1
                span = _int_attribute(cell, "colspan")
                down = _int_attribute(cell, "rowspan")
                for spanned in range(column, column + span):
                    held[spanned] = max(held.get(spanned, 0), down)
                if _HIDDEN.search(cell.get("style", "")):
                    column += span
                    continue
                inner = _Walker(self.fact_ids)
                inner.line.add(cell.text or "", False)
                for child in cell:
                    inner.walk(child)
                inner.flush()
                text = " ".join(b.text for b in inner.blocks)
                anchors = _join_anchors(inner.blocks)
                cells.append(Cell(normalise_space(text), column, column + span - 1, anchors))
                column += span
            held = {c: rows_left - 1 for c, rows_left in held.items() if rows_left > 1}
            rows.append(cells)
        return rows


def _rows_of(table: lxml.html.HtmlElement) -> Iterator[lxml.html.HtmlElement]:
    for child in table:
        tag = child.tag if isinstance(child.tag, str) else ""
        if tag == "tr":
            yield child
        elif tag in ("thead", "tbody", "tfoot"):
            yield from (row for row in child if row.tag == "tr")


def _join_anchors(blocks: list[Block]) -> tuple[Anchor, ...]:
    anchors: list[Anchor] = []
    position = 0
    for block in blocks:
        anchors.extend(Anchor(a.fact_id, a.offset + position) for a in block.anchors)
        position += len(block.text) + 1
    return tuple(anchors)


def _int_attribute(element: lxml.html.HtmlElement, name: str) -> int:
    try:
        return max(1, min(100, int(element.get(name, "1"))))
    except ValueError:
        return 1
