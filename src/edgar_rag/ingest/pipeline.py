"""``ingest_filing``: one filing's bytes in, its clean text, Items, chunks and facts out.

A pure function of its input: no network, database or settings, and the same output for the
same bytes, so that a loop over filings can become a Ray task or a Dask map without edits.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta

from edgar_rag.domain import (
    Chunk,
    Fact,
    FigureSource,
    FilingMeta,
    ParsedFiling,
    RawFiling,
    Section,
    SourceFormat,
    StatementFound,
)
from edgar_rag.errors import ParseError
from edgar_rag.ingest.blocks import Block, drop_page_furniture, find_page_labels, join_blocks
from edgar_rag.ingest.chunk import DEFAULT_OVERLAP, DEFAULT_SIZE, chunk_sections
from edgar_rag.ingest.html import parse_html
from edgar_rag.ingest.items import find_indexed_items, find_item_headings, is_cross_reference
from edgar_rag.ingest.pdf import read_pdf_document
from edgar_rag.ingest.plain import read_text, registrant_name
from edgar_rag.ingest.statement_items import place_statements_in_item_8, statements_start
from edgar_rag.ingest.statements import RowFigure, StatementKind, StatementPage
from edgar_rag.ingest.xbrl import XbrlDocument, read_xbrl
from edgar_rag.rules import same_day

_MOST_OF_THE_TEXT = 0.6
ANNUAL_FORMS = frozenset({"10-K", "10-KT", "10-K405", "10-KSB"})
_FORM_10K = re.compile(r"form\s+10\s*-\s*k(?!\s*/\s*a)", re.IGNORECASE)
_FISCAL_YEAR_ENDED = re.compile(
    r"(?:fiscal\s+)?year\s+ended\s*:?\s*([A-Z][a-z]+\.?\s+\d{1,2}\s*,\s*(\d{4}))", re.IGNORECASE
)


def sniff_format(content: bytes) -> SourceFormat:
    """PDF, HTML or plain text, from the first bytes."""
    head = content[:4096].lstrip().lower()
    if head.startswith(b"%pdf"):
        return SourceFormat.PDF
    if head.startswith((b"<?xml", b"<!doctype html", b"<html")) or b"<html" in head:
        return SourceFormat.HTML
    return SourceFormat.TEXT


@dataclass(frozen=True, slots=True)
class ReadFiling:
    """A filing read and segmented, before it is cut into chunks."""

    meta: FilingMeta
    text: str
    blocks: list[Block]
    starts: list[int]
    sections: list[Section]
    xbrl: XbrlDocument
    rows: dict[str, Fact] = field(default_factory=dict)
    """Statement-row figures by id (PDF filings, HTML without XBRL), each with its period."""


def ingest_filing(
    raw: RawFiling, chunk_size: int = DEFAULT_SIZE, chunk_overlap: int = DEFAULT_OVERLAP
) -> ParsedFiling:
    """Parse one 10-K; raise ParseError, naming ``raw.source``, when it is not one."""
    return chunk_filing(read_filing(raw), chunk_size, chunk_overlap)


def read_filing(raw: RawFiling) -> ReadFiling:
    """Clean text, Items, metadata and XBRL facts of one filing."""
    if not raw.content.strip():
        raise ParseError(f"{raw.source}: the file is empty")
    source_format = sniff_format(raw.content)
    xbrl = XbrlDocument({}, {}, None)
    row_figures: list[RowFigure] = []
    found: list[StatementPage] = []
    if source_format is SourceFormat.HTML:
        html = parse_html(raw.content, raw.source)
        blocks, xbrl, found = html.blocks, read_xbrl(html.root), html.statements
        if not xbrl.facts:
            row_figures = html.figures  # a filing with inline XBRL is read from its facts
    elif source_format is SourceFormat.PDF:
        pdf = read_pdf_document(raw.content, raw.source)
        blocks, row_figures, found = pdf.blocks, pdf.figures, pdf.statements
    else:
        blocks = read_text(raw.content, raw.source)
    statements = tuple(
        StatementFound(s.kind.value, s.title, s.page, s.years, s.rows) for s in found
    )
    printed, blocks = blocks, drop_page_furniture(blocks)
    if not blocks:
        raise ParseError(f"{raw.source}: no text found")
    text, starts = join_blocks(blocks)
    meta = _filing_meta(raw, text, xbrl, source_format)
    if statements:
        years = set(meta.years_reported)
        if not xbrl.facts:  # else the years its contexts report
            years |= {year for s in statements for year in s.years}
        meta = replace(meta, statements=statements, years_reported=tuple(sorted(years)))
    sections = _sections(text, blocks, starts, printed)
    if source_format is SourceFormat.PDF:
        begun = statements_start(found, blocks, starts)
        if begun is not None:
            sections = place_statements_in_item_8(sections, begun)
    rows = {f.figure_id: fact for f in row_figures if (fact := row_fact(f, meta)) is not None}
    return ReadFiling(meta, text, blocks, starts, sections, xbrl, rows)


def chunk_filing(
    filing: ReadFiling, chunk_size: int = DEFAULT_SIZE, chunk_overlap: int = DEFAULT_OVERLAP
) -> ParsedFiling:
    """Cut a read filing into chunks and point each displayed fact at the chunk that prints it."""
    text, blocks, starts = filing.text, filing.blocks, filing.starts
    chunks = chunk_sections(
        text, filing.sections, blocks, starts, size=chunk_size, overlap=chunk_overlap
    )
    facts = _place_facts({**filing.xbrl.facts, **filing.rows}, blocks, starts, chunks)
    return ParsedFiling(filing.meta, text, tuple(filing.sections), tuple(chunks), tuple(facts))


def _sections(
    text: str, blocks: list[Block], starts: list[int], printed: Sequence[Block]
) -> list[Section]:
    """The cover and one section per Item found, sorted by start and not overlapping.

    ``printed`` are the blocks before page furniture was dropped: their page numbers are read
    only for a filing without Item headings in its body, laid out under its own headings with a
    "Form 10-K cross-reference index" mapping Items to pages (McDonald's, GE). Without such an
    index the filing is kept whole.
    """
    headings = find_item_headings(blocks, starts)
    if not headings or starts[headings[0].block_index] > len(text) * _MOST_OF_THE_TEXT:
        headings = find_indexed_items(blocks, find_page_labels(printed))
    if not headings:
        return [Section("Document", None, "Whole document", 0, len(text))]
    sections: list[Section] = []
    first = starts[headings[0].block_index]
    if first > 0:
        sections.append(Section("Cover", None, "Cover page and contents", 0, first - 1))
    for position, heading in enumerate(headings):
        start = starts[heading.block_index]
        following = headings[position + 1].block_index if position + 1 < len(headings) else None
        end = starts[following] - 1 if following is not None else len(text)
        body = text[start:end]
        sections.append(
            Section(heading.item, heading.part, heading.title, start, end, is_cross_reference(body))
        )
    return sections


def row_fact(figure: RowFigure, meta: FilingMeta) -> Fact | None:
    """A statement row's figure with its period: the date its header prints, else the filing's
    period end moved to the column's year; None when neither is known (never a guessed date).
    A balance sheet's figure is at an instant; the others cover the year up to that date."""
    column = figure.column
    end = column.period_end
    if end is None and meta.period_end is not None:
        end = same_day(meta.period_end, meta.period_end.year - (meta.fiscal_year - column.year))
    if end is None:
        return None
    start = None
    if figure.statement is not StatementKind.BALANCE:
        start = same_day(end, end.year - 1) + timedelta(days=1)
    return Fact(
        concept="",
        value=figure.value,
        displayed=figure.displayed,
        unit=figure.unit,
        decimals=None,
        period_start=start,
        period_end=end,
        dimensions=(),
        offset=None,
        source=FigureSource.ROW,
        label=figure.label,
        scale=figure.scale,
        fiscal_year=column.year,
        statement=figure.statement.value,
    )


def _place_facts(
    facts: dict[str, Fact], blocks: list[Block], starts: list[int], chunks: list[Chunk]
) -> list[Fact]:
    offsets: dict[str, int] = {}
    for block, start in zip(blocks, starts, strict=True):
        for anchor in block.anchors:
            offsets.setdefault(anchor.fact_id, start + anchor.offset)
    chunk_starts = [chunk.start for chunk in chunks]
    placed = []
    for fact_id, fact in facts.items():
        offset = offsets.get(fact_id)
        ordinal = _containing_chunk(chunks, chunk_starts, offset) if offset is not None else None
        placed.append(replace(fact, offset=offset, chunk_ordinal=ordinal))
    return placed


def _containing_chunk(chunks: list[Chunk], chunk_starts: list[int], offset: int) -> int | None:
    from bisect import bisect_right  # noqa: PLC0415

    index = bisect_right(chunk_starts, offset) - 1
    while index >= 0:
        chunk = chunks[index]
        if chunk.start <= offset < chunk.end:
            while index > 0 and chunks[index - 1].start <= offset < chunks[index - 1].end:
                index -= 1
            return chunks[index].ordinal
        if chunk.end <= offset:
            return None
        index -= 1
    return None


def _filing_meta(
    raw: RawFiling, text: str, xbrl: XbrlDocument, source_format: SourceFormat
) -> FilingMeta:
    cover, hints = xbrl.cover, raw.hints
    form = cover.get("DocumentType") or hints.form or _form_from_text(text, raw.source)
    if form.upper() not in ANNUAL_FORMS:
        raise ParseError(f"{raw.source}: a {form} filing, not a 10-K")
    if cover.get("AmendmentFlag", "false").lower() == "true":
        raise ParseError(f"{raw.source}: an amended 10-K (10-K/A), not an annual report")
    period_end = xbrl.cover_period_end or hints.period_end or _period_end_from_text(text)
    fiscal_year = _int(cover.get("DocumentFiscalYearFocus")) or hints.fiscal_year
    if fiscal_year is None and period_end is not None:
        fiscal_year = period_end.year
    if fiscal_year is None:
        raise ParseError(f"{raw.source}: no fiscal year found (no cover facts, no 'year ended')")
    company = cover.get("EntityRegistrantName") or hints.company or registrant_name(text[:20000])
    if not company:
        raise ParseError(f"{raw.source}: no company name found")
    cik = _int(cover.get("EntityCentralIndexKey")) or hints.cik
    ticker = hints.ticker or _first_ticker(cover.get("TradingSymbol"))
    years = xbrl.years_reported(fiscal_year, period_end) or (fiscal_year,)
    return FilingMeta(
        company=company,
        cik=cik,
        ticker=ticker.upper() if ticker else None,
        form=form.upper(),
        fiscal_year=fiscal_year,
        period_end=period_end,
        accession=hints.accession,
        filing_date=hints.filing_date,
        url=hints.url,
        years_reported=years,
        source=raw.source,
        sha256=hashlib.sha256(raw.content).hexdigest(),
        source_format=source_format,
    )


def _form_from_text(text: str, source: str) -> str:
    if _FORM_10K.search(text[:20000]):
        return "10-K"
    raise ParseError(f"{source}: not a 10-K (no 'Form 10-K' on its cover)")


def _period_end_from_text(text: str) -> date | None:
    match = _FISCAL_YEAR_ENDED.search(text[:20000])
    if match is None:
        return None
    written = re.sub(r"\s+", " ", match.group(1).replace(".", "")).replace(" ,", ",")
    for pattern in ("%B %d, %Y", "%b %d, %Y"):
        try:
            return datetime.strptime(written, pattern).date()
        except ValueError:
            continue
    return None


def _first_ticker(symbols: str | None) -> str | None:
    return symbols.split()[0].strip(",;") if symbols else None


def _int(text: str | None) -> int | None:
    try:
        return int(text) if text else None
    except ValueError:
        return None
