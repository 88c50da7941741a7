"""Plain-text and PDF filings to blocks.

Neither format marks tables, so a line that carries two or more figures is kept whole as a table
row (chunking never splits it) and other lines are joined back into paragraphs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from edgar_rag.domain import ChunkKind
from edgar_rag.errors import ParseError
from edgar_rag.ingest.blocks import Block, normalise_space
from edgar_rag.ingest.items import ITEM_HEADING
from edgar_rag.ingest.tables import is_figure

_FIGURE_TOKEN = re.compile(r"(?<![\w.])\(?\$?\s?\d[\d,]*(?:\.\d+)?\)?%?(?![\w])")
_SENTENCE_DONE = (".", ":", ";", "?", "!", "”", '"')


def _is_table_line(line: str) -> bool:
    figures = [token for token in _FIGURE_TOKEN.findall(line) if is_figure(token.strip())]
    return len(figures) >= 2 and not line.rstrip().endswith(".")


def lines_to_blocks(lines: Iterable[str]) -> list[Block]:
    """Join wrapped lines into paragraphs; blank lines, headings and table lines break them."""
    blocks: list[Block] = []
    paragraph: list[str] = []

    def close() -> None:
        if paragraph:
            blocks.append(Block(" ".join(paragraph)))
            paragraph.clear()

    for raw in lines:
        line = normalise_space(raw)
        if not line:
            close()
            continue
        if _is_table_line(line):
            close()
            blocks.append(Block(line, ChunkKind.TABLE))
            continue
        starts_heading = bool(ITEM_HEADING.match(line))
        continues = (
            paragraph
            and not starts_heading
            and not paragraph[-1].endswith(_SENTENCE_DONE)
            and (line[0].islower() or len(paragraph[-1]) > 60)
        )
        if not continues:
            close()
        paragraph.append(line)
        if starts_heading:
            close()
    close()
    return blocks


def read_text(content: bytes, source: str) -> list[Block]:
    """A plain-text filing (UTF-8 or Latin-1) to blocks."""
    if b"\x00" in content[:4096]:
        raise ParseError(f"{source}: binary data, not a text filing")
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError:
        text = content.decode("latin-1")
    text = re.sub(r"<[^>\n]{1,200}>", " ", text)
    return lines_to_blocks(text.splitlines())


def read_pdf(content: bytes, source: str) -> list[Block]:
    """A PDF filing to blocks, page by page, through PDFium."""
    import pypdfium2  # noqa: PLC0415 (heavy import, only for PDFs)

    try:
        document = pypdfium2.PdfDocument(content)
    except pypdfium2.PdfiumError as exc:
        raise ParseError(f"{source}: not a readable PDF ({exc})") from exc
    lines: list[str] = []
    try:
        for page in document:
            text_page = page.get_textpage()
            lines.extend(text_page.get_text_range().splitlines())
            lines.append("")
            text_page.close()
            page.close()
    finally:
        document.close()
    if not any(line.strip() for line in lines):
        raise ParseError(f"{source}: the PDF has no text layer (a scan?)")
    return lines_to_blocks(lines)
