"""Plain-text and PDF filings to blocks, and the registrant's name on their cover page.

Neither format marks tables, so a line that carries two or more figures is kept whole as a table
row (chunking never splits it) and other lines are joined back into paragraphs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from edgar_rag.domain import ChunkKind, SourceFormat
from edgar_rag.errors import ParseError
from edgar_rag.ingest.blocks import Block, normalise_space
from edgar_rag.ingest.items import ITEM_HEADING
from edgar_rag.ingest.tables import is_figure

_FIGURE_TOKEN = re.compile(r"(?<![\w.])\(?\$?\s?\d[\d,]*(?:\.\d+)?\)?%?(?![\w])")
_SENTENCE_DONE = (".", ":", ";", "?", "!", "”", '"')
COVER_PAGES = 5
"""PDF pages read for the cover's name: all 36 FinanceBench PDFs print it on their first page, and
31 spell it in mixed case within five (none of the other five does within ten)."""
COVER_CHARS = 50_000
_REGISTRANT_NOTE = re.compile(r"\(\s*exact\s+name\s+of\s+(?:the\s+)?registrant", re.IGNORECASE)
_COMMISSION_FILE = re.compile(
    r"commission\s+file\s+(?:number|no\.?)\s*:?\s*\d[\d-]*\.?", re.IGNORECASE
)
_NOTE_REACH = 300
"""Characters between "Commission file number ..." and the note under the name, at most."""
_NAME_BREAK = re.compile(r"\n|_{2,}")
_NAME_GOES_ON = re.compile(
    r"^(?:&|(?:inc|co|corp|corporation|company|ltd|limited|plc|llc|group|holdings?)\b)",
    re.IGNORECASE,
)
_NOT_A_NAME = re.compile(
    r"[()]|\b(?:registrant|pursuant|commission|incorporation|jurisdiction|identification|"
    r"telephone|address|annual\s+report)\b",
    re.IGNORECASE,
)
_LETTER = re.compile(r"[A-Za-z]")
_SMALL_CAPS = re.compile(r"(?<![^\s])([A-Z]) ([A-Z]{2,})\b")
"""A word set in small capitals, its larger initial read apart from the rest: MGM's 2018 cover
prints "MGM R ESORTS I NTERNATIONAL" (an initial written alone carries a period: "J. M.")."""
_MAX_NAME_WORDS = 10


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
    return lines_to_blocks(_decode(content, source).splitlines())


def read_cover_name(content: bytes, source_format: SourceFormat) -> str | None:
    """The registrant's name on the cover of a PDF or plain-text filing (its first pages); None
    for HTML, for a file that cannot be read, and for a cover that does not say."""
    try:
        if source_format is SourceFormat.PDF:
            text = "\n".join(_pdf_lines(content, "cover", COVER_PAGES))
        elif source_format is SourceFormat.TEXT:
            text = _decode(content, "cover", COVER_CHARS)
        else:
            return None
    except ParseError:
        return None
    return registrant_name(text)


def registrant_name(text: str) -> str | None:
    """The registrant's name on a 10-K cover page, or None.

    The cover prints it above "(Exact name of registrant as specified in its charter)", after
    "Commission file number ..." (covers without that note, 3M's and Microsoft's, print it there
    too); rules of underscores and PDFium's one-word lines are read through. A name printed in
    capitals is given as the filing writes it elsewhere in mixed case, when it does
    (``BEST BUY CO., INC.`` is ``Best Buy Co., Inc.``).
    """
    cover = "\n".join(line for line in map(normalise_space, text.splitlines()) if line)
    segment = _name_segment(cover)
    name = _name_in(segment) if segment is not None else None
    return _as_written(name, cover) if name else None


def _decode(content: bytes, source: str, chars: int | None = None) -> str:
    """The text (UTF-8, else Latin-1), its first ``chars`` characters only when given, less
    its tags."""
    if b"\x00" in content[:4096]:
        raise ParseError(f"{source}: binary data, not a text filing")
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError:
        text = content.decode("latin-1")
    return re.sub(r"<[^>\n]{1,200}>", " ", text[:chars])


def _pdf_lines(content: bytes, source: str, pages: int | None = None) -> list[str]:
    """The text lines of a PDF's first ``pages`` (all by default), a blank line after each page."""
    import pypdfium2  # noqa: PLC0415 (heavy import, only for PDFs)

    try:
        document = pypdfium2.PdfDocument(content)
    except pypdfium2.PdfiumError as exc:
        raise ParseError(f"{source}: not a readable PDF ({exc})") from exc
    lines: list[str] = []
    try:
        for number in range(len(document) if pages is None else min(pages, len(document))):
            page = document[number]
            text_page = page.get_textpage()
            lines.extend(text_page.get_text_range().splitlines())
            lines.append("")
            text_page.close()
            page.close()
    finally:
        document.close()
    return lines


def _name_segment(cover: str) -> str | None:
    """The text that holds the name: from the commission file number (or the line above the
    note) to the note; without a note, the rest of the commission file number's line or the
    next line that has letters."""
    note = _REGISTRANT_NOTE.search(cover)
    if note is not None:
        before = cover[: note.start()]
        files = [
            m for m in _COMMISSION_FILE.finditer(before) if len(before) - m.end() < _NOTE_REACH
        ]
        if files:
            return before[files[-1].end() :]
        before = before.rstrip()
        return before[before.rfind("\n") + 1 :]
    file = _COMMISSION_FILE.search(cover)
    if file is None:
        return None
    lines = cover[file.end() :].split("\n")[:3]
    return next((line for line in lines if _LETTER.search(_NAME_BREAK.sub(" ", line))), None)


def _name_in(segment: str) -> str | None:
    parts = [part.strip() for part in _NAME_BREAK.split(segment)]
    parts = [part for part in parts if _LETTER.search(part)]
    if not parts:
        return None
    if len(parts) > 1 and _SMALL_CAPS.search(" ".join(parts)):
        name = " ".join(parts)  # a name in small capitals, its initials a line apart
    elif len(parts) > 1 and not any(" " in part for part in parts):
        name = " ".join(parts)  # PDFium gave the cover one word a line
    elif len(parts) > 1 and _NAME_GOES_ON.match(parts[-1]):
        name = f"{parts[-2]} {parts[-1]}"
    else:
        name = parts[-1]
    name = _SMALL_CAPS.sub(r"\1\2", name)
    name = re.sub(r"\s+([.,])", r"\1", name).strip(" ,;:-")
    if len(name) < 2 or len(name.split()) > _MAX_NAME_WORDS or _NOT_A_NAME.search(name):
        return None
    return name


def _as_written(name: str, cover: str) -> str:
    """The first mixed-case spelling of a name printed in capitals, else the name."""
    if any(char.islower() for char in name):
        return name
    words = r"\s+".join(map(re.escape, name.split()))
    for match in re.finditer(rf"(?<![\w&]){words}(?![\w&])", cover, re.IGNORECASE):
        written = normalise_space(match.group().replace("\n", " "))
        if any(char.islower() for char in written) and not written[0].islower():
            return written
    return name
