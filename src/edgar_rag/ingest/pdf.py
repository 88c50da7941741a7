"""PDF filings to blocks through PDFium: prose as lines joined into paragraphs, and statement
pages (income statement, balance sheet, cash flows) read from word positions as labelled rows.

PDFium's text runs carry their boxes; a run is split into words with positions shared out by
character, enough to tell which column a figure stands in (``bench/pdf_readers.py`` measures
this against pdfplumber's word boxes). A PDF without text, encrypted or cut short is refused with
a one-line ``ParseError`` naming the file.
"""

from __future__ import annotations

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
            read = read_statement(positioned_lines(text_page), number, *titled)
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
    """Each page's number, text and PDFium text page (closed after the caller moves on)."""
    import pypdfium2  # noqa: PLC0415 (heavy import, only for PDFs)

    try:
        document = pypdfium2.PdfDocument(content)
    except pypdfium2.PdfiumError as exc:
        raise ParseError(f"{source}: not a readable PDF ({_why(exc)})") from exc
    try:
        for number in range(len(document)):
            page = document[number]
            text_page = page.get_textpage()
            try:
                yield number, text_page.get_text_range(), text_page
            finally:
                text_page.close()
                page.close()
    finally:
        document.close()


def _why(error: Exception) -> str:
    text = str(error)
    if "password" in text.lower():
        return "it is encrypted"
    return text.rsplit(":", maxsplit=1)[-1].strip() or type(error).__name__


def positioned_lines(text_page: Any) -> list[Line]:
    """A page's lines top to bottom, each word with the horizontal extent of its characters.

    Lines are PDFium's (its text breaks them), and its lines at one height are one line: a
    label and its figures, or a header's columns, are often written as separate runs.
    """
    text = text_page.get_text_range()
    lines: list[tuple[float, float, list[Word]]] = []
    for start, end in line_spans(text):
        words, centre, height = _words(text, start, end, text_page)
        if not words:
            continue
        same = next(
            (line for line in lines if abs(line[0] - centre) < _SAME_LINE * max(height, line[1])),
            None,
        )
        if same is None:
            lines.append((centre, height, words))
        else:
            same[2].extend(words)
    lines.sort(key=lambda line: -line[0])
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


def _words(text: str, start: int, end: int, text_page: Any) -> tuple[list[Word], float, float]:
    """The words of ``text[start:end]`` with their extents, and the line's centre and height."""
    words: list[Word] = []
    tops: list[float] = []
    bottoms: list[float] = []
    word_start = None
    x0 = x1 = 0.0
    for index in range(start, end + 1):
        char = text[index] if index < end else " "
        if char in "\r\n":
            char = " "
        if char.isspace():
            if word_start is not None:
                words.append(Word(text[word_start:index], x0, x1))
                word_start = None
            continue
        left, bottom, right, top = text_page.get_charbox(index)
        if top > bottom:
            tops.append(top)
            bottoms.append(bottom)
        if word_start is None:
            word_start, x0, x1 = index, left, right
        else:
            x0, x1 = min(x0, left), max(x1, right)
    if not tops:
        return words, 0.0, 1.0
    top, bottom = sorted(tops)[len(tops) // 2], sorted(bottoms)[len(bottoms) // 2]
    return words, (top + bottom) / 2, max(top - bottom, 1.0)
