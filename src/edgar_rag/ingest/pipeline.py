"""``ingest_filing``: one filing's bytes in, its clean text, Items, chunks and facts out.

A pure function of its input: no network, database or settings, and the same output for the
same bytes, so that a loop over filings can become a Ray task or a Dask map without edits.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta

from edgar_rag.domain import (
    Chunk,
    Fact,
    FigureSource,
    FilingHints,
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
from edgar_rag.ingest.items import (
    ANNUAL,
    find_indexed_items,
    find_item_headings,
    form_items,
    is_cross_reference,
)
from edgar_rag.ingest.pdf import read_pdf_document
from edgar_rag.ingest.plain import read_text, registrant_name
from edgar_rag.ingest.statement_items import place_statements_in_item_8, statements_start
from edgar_rag.ingest.statements import RowFigure, StatementKind, StatementPage
from edgar_rag.ingest.xbrl import XbrlDocument, read_xbrl
from edgar_rag.rules import (
    ANNUAL_FORMS,
    CURRENT_FORM,
    EARNINGS_RELEASE,
    FORMS,
    QUARTERLY_FORM,
    canonical_form,
    months_before,
    same_day,
)

_MOST_OF_THE_TEXT = 0.6
_COVER_FORM = re.compile(r"\bform\s+(10\s*-\s*[KQ]|8\s*-\s*K)\b(?!\s*/\s*A)", re.IGNORECASE)
_COVER_CHARS = 6000
"""A form is read off the cover: later pages cite other forms ("our Annual Report on Form 10-K")."""
_RELEASE_OPENING = re.compile(
    r"\bfor\s+immediate\s+release\b|\bexhibit\s+99\.1\b|\b(?:reports?|announces?|posts?|delivers?)\b"
    r"[^.]{0,80}?\b(?:quarter|fiscal|full[- ]year|annual|year[- ]end)\b[^.]{0,60}?\bresults\b",
    re.IGNORECASE,
)
_LISTED_AS = re.compile(
    r"(?:^|[.–—-]\s|\)\s|\n)\s*((?:[A-Z][\w&.,'’]*\s){0,5}?[A-Z][\w&.'’]*),?\s*\((?:NYSE|NASDAQ|Nasdaq)"
    r"[^:)]{0,20}:\s*([A-Z][A-Z.]{0,5})\)"
)
_RELEASE_ISSUER = re.compile(
    r"^\s*((?:[A-Z][\w&.,'’]*\s+){0,5}?)(?:reports?|announces?|posts?|delivers?)\b", re.MULTILINE
)
_COVER_TOP = 800
"""A cover prints its form in its first lines; a release may cite a form further down."""
_QUARTER_WORD = re.compile(r"\b(first|second|third|fourth)[- ]quarter\b", re.IGNORECASE)
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4}
_MONTHS_ENDED = re.compile(r"\b(three|six|nine)\s+months\s+ended\b", re.IGNORECASE)
_QUARTER_ENDED = re.compile(
    # a two-column cover may print a label between ("ended Commission file / March 31, 2021")
    r"quarterly\s+period\s+ended\s*:?\s*(?:[A-Za-z ]{0,30}\n\s*)?"
    r"([A-Z][a-z]+\.?\s+\d{1,2}\s*,\s*\d{4})",
    re.IGNORECASE,
)
_DATE_OF_REPORT = re.compile(
    r"date\s+of\s+report[^:]{0,60}:\s*([A-Z][a-z]+\.?\s+\d{1,2}\s*,\s*\d{4})", re.IGNORECASE
)
_RELEASE_YEAR = re.compile(
    r"\b(?:fiscal\s+(?:year\s+)?|quarter\s+(?:of\s+)?|FY\s?)(20\d{2})\b", re.I
)
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
        if not xbrl.facts and meta.form in ANNUAL_FORMS:  # else its contexts' years, or
            # a quarter's: its columns' calendar years are not its fiscal years
            years |= {year for s in statements for year in s.years}
        meta = replace(meta, statements=statements, years_reported=tuple(sorted(years)))
    sections = _sections(text, blocks, starts, printed, meta.form)
    if source_format is SourceFormat.PDF:
        begun = statements_start(found, blocks, starts)
        if begun is not None:
            sections = place_statements_in_item_8(sections, begun)
    if meta.form not in ANNUAL_FORMS:
        row_figures = [f for f in row_figures if _period_printed(f)]
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
    text: str, blocks: list[Block], starts: list[int], printed: Sequence[Block], form: str
) -> list[Section]:
    """The cover and one section per Item found, sorted by start and not overlapping.

    ``printed`` are the blocks before page furniture was dropped: their page numbers are read
    only for a filing without Item headings in its body, laid out under its own headings with a
    "Form 10-K cross-reference index" mapping Items to pages (McDonald's, GE). Without such an
    index the filing is kept whole.
    """
    items = form_items(form)
    headings = find_item_headings(blocks, starts, items) if items is not None else []
    late = bool(headings) and starts[headings[0].block_index] > len(text) * _MOST_OF_THE_TEXT
    if items is ANNUAL and (not headings or late):
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


def _period_printed(figure: RowFigure) -> bool:
    """A quarter's or a release's statement row is read only where its column prints its whole
    period: a balance on the date it prints, or a flow over the months a heading over it says
    (``Three Months Ended July 29, 2023``). A column naming only a year spans three, six or nine
    months or a year, which cannot be told, and a quarter's figure is never a year's."""
    column = figure.column
    if column.period_end is None:
        return False
    return figure.statement is StatementKind.BALANCE or column.months is not None


def row_fact(figure: RowFigure, meta: FilingMeta) -> Fact | None:
    """A statement row's figure with its period: the date its header prints, else the filing's
    period end moved to the column's year; None when neither is known (never a guessed date).
    A balance sheet's figure is at an instant; the others cover the months their column's
    heading says (a quarter's three, six or nine), else the year, up to that date."""
    column = figure.column
    end = column.period_end
    if end is None and meta.period_end is not None:
        end = same_day(meta.period_end, meta.period_end.year - (meta.fiscal_year - column.year))
    if end is None:
        return None
    start = None
    if figure.statement is not StatementKind.BALANCE:
        months = column.months
        before = same_day(end, end.year - 1) if months is None else months_before(end, months)
        start = before + timedelta(days=1)
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
    form = _form(cover.get("DocumentType") or hints.form, text, raw.source)
    if cover.get("AmendmentFlag", "false").lower() == "true":
        raise ParseError(f"{raw.source}: an amended {form} ({form}/A), not the report itself")
    period_end = xbrl.cover_period_end or hints.period_end or _period_end_from_text(text, form)
    if form == CURRENT_FORM and period_end is None:
        period_end = hints.filing_date  # an 8-K is known by its date
    fiscal_year = _int(cover.get("DocumentFiscalYearFocus")) or hints.fiscal_year
    quarter = _fiscal_quarter(cover.get("DocumentFiscalPeriodFocus"), hints, text, form)
    if fiscal_year is None and form == EARNINGS_RELEASE:
        found = _RELEASE_YEAR.search(text[:_COVER_CHARS])
        fiscal_year = int(found.group(1)) if found else None
    if fiscal_year is None and period_end is not None:
        fiscal_year = (
            _year_ending(period_end, quarter) if form == QUARTERLY_FORM else period_end.year
        )
    if fiscal_year is None:
        raise ParseError(f"{raw.source}: no fiscal year found (no cover facts, no 'year ended')")
    if form == QUARTERLY_FORM and quarter is None:
        raise ParseError(f"{raw.source}: a 10-Q whose quarter cannot be told (no 'months ended')")
    company = cover.get("EntityRegistrantName") or hints.company
    ticker = hints.ticker or _first_ticker(cover.get("TradingSymbol"))
    if form == EARNINGS_RELEASE and not (company and ticker):
        issuer, listed = _release_issuer(text[:4000])
        company, ticker = company or issuer, ticker or listed
    company = company or registrant_name(text[:20000])
    if not company:
        raise ParseError(f"{raw.source}: no company name found")
    cik = _int(cover.get("EntityCentralIndexKey")) or hints.cik
    if form in ANNUAL_FORMS:
        years = xbrl.years_reported(fiscal_year, period_end)
    elif form == EARNINGS_RELEASE:  # beside the year before's, and its outlook for the next
        years = (fiscal_year - 1, fiscal_year, fiscal_year + 1)
    else:  # a quarter's figures stand beside the year before's
        years = (fiscal_year,) if form == CURRENT_FORM else (fiscal_year - 1, fiscal_year)
    return FilingMeta(
        company=company,
        cik=cik,
        ticker=ticker.upper() if ticker else None,
        form=form,
        fiscal_year=fiscal_year,
        period_end=period_end,
        accession=hints.accession,
        filing_date=hints.filing_date,
        url=hints.url,
        years_reported=years or (fiscal_year,),
        source=raw.source,
        sha256=hashlib.sha256(raw.content).hexdigest(),
        source_format=source_format,
        fiscal_quarter=quarter,
    )


def _form(stated: str | None, text: str, source: str) -> str:
    """The form its cover facts or hints state, else the one its cover prints (``FORM 10-Q``),
    else an earnings release when its first lines announce results; a ParseError naming the
    file when none of those can be told (an exhibit, a letter)."""
    if stated:
        form = canonical_form(stated) or stated.upper()
        if form not in FORMS:
            raise ParseError(
                f"{source}: a {stated} filing, not a 10-K, 10-Q, 8-K or earnings release"
            )
        return form
    found = _COVER_FORM.search(text[:_COVER_CHARS])
    if found is not None and found.start() < _COVER_TOP:
        return "".join(found.group(1).split()).upper()
    if _RELEASE_OPENING.search(text[:1500]):
        return EARNINGS_RELEASE
    if found is not None:
        return "".join(found.group(1).split()).upper()
    raise ParseError(
        f"{source}: its form cannot be told (no 'Form 10-K', '10-Q' or '8-K' on its cover, "
        "and it does not open as an earnings release)"
    )


def _release_issuer(text: str) -> tuple[str | None, str | None]:
    """Who issued an earnings release, and its ticker: the name before its listing
    ("PepsiCo, Inc. (NASDAQ: PEP)"), else the words before "reports" in its headline."""
    listed = _LISTED_AS.search(text)
    if listed is not None:
        return listed.group(1).strip(" ,"), listed.group(2).rstrip(".")
    headline = _RELEASE_ISSUER.search(text[:1500])
    name = headline.group(1).strip(" ,") if headline else ""
    return name or None, None


def _fiscal_quarter(focus: str | None, hints: FilingHints, text: str, form: str) -> int | None:
    """A 10-Q's or an earnings release's fiscal quarter: its cover facts' ``Q2``, its hints, else
    for a 10-Q the longest "three/six/nine months ended" it prints, for a release the quarter its
    first lines name ("First-Quarter 2023 Results")."""
    if form not in (QUARTERLY_FORM, EARNINGS_RELEASE):
        return None
    if focus and re.fullmatch(r"Q[1-4]", focus.strip().upper()):
        return int(focus.strip()[1])
    if hints.fiscal_quarter is not None:
        return hints.fiscal_quarter
    if form == QUARTERLY_FORM:
        # Each statement prints the quarter's column beside the year to date's, so the year to
        # date's length is printed about as often as the quarter's; a note's "nine months ended"
        # of another year is not.
        months = {"three": 1, "six": 2, "nine": 3}
        counts = Counter(months[m.group(1).lower()] for m in _MONTHS_ENDED.finditer(text))
        if not counts:
            return None
        return max(q for q, n in counts.items() if n >= max(2, counts[1] / 4) or q == 1)
    named = _QUARTER_WORD.search(text[:1500])
    return _ORDINALS[named.group(1).lower()] if named else None


def _year_ending(quarter_end: date, quarter: int | None) -> int:
    """The fiscal year a quarter ending on ``quarter_end`` belongs to: the year its last quarter
    ends in (Amcor's second quarter, ended 31 December 2022, is of fiscal 2023)."""
    near = quarter_end - timedelta(days=7)  # a 52/53-week quarter may end days into a month
    months = near.month + 3 * (4 - (quarter or 4))
    return near.year + (months - 1) // 12


def _period_end_from_text(text: str, form: str) -> date | None:
    """The period a filing's cover prints: the fiscal year ended, the quarterly period ended,
    an 8-K's date of report; None for an earnings release (its tables say)."""
    cover = {QUARTERLY_FORM: _QUARTER_ENDED, CURRENT_FORM: _DATE_OF_REPORT}.get(
        form, _FISCAL_YEAR_ENDED
    )
    if form == EARNINGS_RELEASE:
        return None
    match = cover.search(text[:20000])
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
