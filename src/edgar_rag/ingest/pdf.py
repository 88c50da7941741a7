"""PDF filings to blocks through PDFium: prose as lines joined into paragraphs, and statement
pages (income statement, balance sheet, cash flows) read from word positions as labelled rows.

PDFium's text runs carry their boxes; a run is split into words with positions shared out by
character, enough to tell which column a figure stands in (``edgar_rag_dev.bench.pdf_readers``
measures this against pdfplumber's word boxes). A PDF without text, encrypted or cut short is
refused with a one-line ``ParseError`` naming the file.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from edgar_rag.errors import ParseError
from edgar_rag.ingest.blocks import Block
from edgar_rag.ingest.plain import lines_to_blocks
from edgar_rag.ingest.statements import (
    Line,
    RowFigure,
    StatementPage,
    Word,
    read_statement,
    statement_title,
)

_SAME_LINE = 0.5
"""Two lines are one when their vertical centres differ by under this share of their height."""


@dataclass(frozen=True, slots=True)
class PdfRead:
    """A PDF read: its blocks in order, the figures of its statement rows, the statements."""

    blocks: list[Block]
    figures: list[RowFigure]
    statements: list[StatementPage]


def read_pdf_document(content: bytes, source: str) -> PdfRead:
    """A PDF filing's blocks, statement figures and statements found; ParseError when it has
    no text layer (a scan), is encrypted, or cannot be read."""
    blocks: list[Block] = []
    figures: list[RowFigure] = []
    statements: list[StatementPage] = []
    any_text = False
    for number, text, text_page in pages(content, source):
        lines = [
            text[start:end].replace("\n", " ").replace("\r", " ") for start, end in line_spans(text)
        ]
        any_text = any_text or any(line.strip() for line in lines)
        read = None
        titled = statement_title([Line((Word(line, 0, 0),)) for line in lines if line.strip()])
        if titled is not None:
            read = read_statement(positioned_lines(text_page, text), number, *titled)
        if read is None:
            blocks.extend(lines_to_blocks([*lines, ""]))
            continue
        blocks.extend(read.blocks)
        figures.extend(read.figures)
        statements.append(read.found)
    if not any_text:
        raise ParseError(f"{source}: the PDF has no text layer (a scan?)")
    return PdfRead(blocks, figures, statements)


def pages(content: bytes, source: str) -> Iterator[tuple[int, str, Any]]:
    """Each page's number, text and PDFium text page (closed after the caller moves on); a
    ParseError naming ``source`` when the file or one of its pages cannot be read."""
    import pypdfium2  # noqa: PLC0415 (heavy import, only for PDFs)

    try:
        document = pypdfium2.PdfDocument(content)
    except pypdfium2.PdfiumError as exc:
        raise ParseError(f"{source}: not a readable PDF ({_why(exc)})") from exc
    try:
        for number in range(len(document)):
            try:
                page = document[number]
                text_page = page.get_textpage()
            except pypdfium2.PdfiumError as exc:
                raise ParseError(
                    f"{source}: page {number + 1} cannot be read ({_why(exc)})"
                ) from exc
            try:
                yield number, text_page.get_text_range(), text_page
            finally:
                text_page.close()
                page.close()
    finally:
        document.close()


def _why(error: Exception) -> str:
    """PDFium's reason in words: ``it is encrypted``, ``data format error``, ..."""
    text = str(error)
    match = re.search(r"PDFium:\s*([^)]+)", text)
    reason = match.group(1).strip().lower() if match else text.strip() or type(error).__name__
    return "it is encrypted" if "password" in reason else reason


def positioned_lines(text_page: Any, text: str | None = None) -> list[Line]:
    """A page's lines top to bottom, each word with the horizontal extent of its characters.

    Words are grouped into lines by their height on the page, not by PDFium's line breaks:
    PDFium may run several rows into one of its lines (General Mills' 2022 statements) or
    write a label and its figures, or a header's columns, as separate ones (Adobe's dates).
    """
    text = text_page.get_text_range() if text is None else text
    placed = [
        word for start, end in line_spans(text) for word in _words(text, start, end, text_page)
    ]
    placed.sort(key=lambda item: -item[0])
    lines: list[tuple[float, float, list[Word]]] = []
    for centre, height, word in placed:
        if lines and abs(lines[-1][0] - centre) < _SAME_LINE * max(height, lines[-1][1]):
            lines[-1][2].append(word)
        else:
            lines.append((centre, height, [word]))
    return [Line(tuple(sorted(words, key=lambda w: w.x0))) for _, _, words in lines]


def line_spans(text: str) -> Iterator[tuple[int, int]]:
    """Where each line of a page's text starts and ends. PDFium ends a line with CR LF; a lone
    LF inside one stands between words (Block's 2016 10-K sets every word apart so), unless
    the page has no CR LF at all."""
    separator = "\r\n" if "\r\n" in text else "\n"
    start = 0
    while (found := text.find(separator, start)) >= 0:
        yield start, found
        start = found + len(separator)
    yield start, len(text)


def _words(text: str, start: int, end: int, text_page: Any) -> list[tuple[float, float, Word]]:
    """The words of ``text[start:end]``, each with its vertical centre and height (the median
    of its characters', so a comma set low does not move it) and its horizontal extent."""
    words: list[tuple[float, float, Word]] = []
    boxes: list[tuple[float, float, float, float]] = []
    word_start = None
    for index in range(start, end + 1):
        char = text[index] if index < end else " "
        if char.isspace():
            if word_start is not None and boxes:
                words.append(_placed(text[word_start:index], boxes))
            word_start, boxes = None, []
            continue
        if word_start is None:
            word_start = index
        left, bottom, right, top = text_page.get_charbox(index)
        if top > bottom:
            boxes.append((left, bottom, right, top))
    return words


def _placed(text: str, boxes: list[tuple[float, float, float, float]]) -> tuple[float, float, Word]:
    centres = sorted((bottom + top) / 2 for _, bottom, _, top in boxes)
    heights = sorted(top - bottom for _, bottom, _, top in boxes)
    x0 = min(box[0] for box in boxes)
    x1 = max(box[2] for box in boxes)
    return centres[len(centres) // 2], max(heights[len(heights) // 2], 1.0), Word(text, x0, x1)
