"""Parsing real 10-K filings: clean text, labelled table rows, Items, facts, chunks, metadata."""

from __future__ import annotations

import itertools
import re
from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from edgar_rag.domain import ChunkKind, FilingHints, ParsedFiling, RawFiling, SourceFormat
from edgar_rag.errors import ParseError
from edgar_rag.ingest.blocks import (
    Block,
    PageLabel,
    drop_page_furniture,
    find_page_labels,
    is_page_number,
)
from edgar_rag.ingest.chunk import chunk_sections
from edgar_rag.ingest.html import parse_html
from edgar_rag.ingest.items import (
    ITEMS,
    IndexEntry,
    ItemHeading,
    find_indexed_items,
    read_cross_reference_index,
)
from edgar_rag.ingest.pipeline import ingest_filing
from edgar_rag.ingest.tables import Cell, read_table


def test_the_hidden_xbrl_header_is_not_in_the_clean_text(apple_2025: ParsedFiling) -> None:
    assert "AmendmentFlag" not in apple_2025.text
    assert "http://fasb.org" not in apple_2025.text
    assert apple_2025.text.startswith("UNITED STATES")


def test_running_headers_and_page_numbers_are_dropped(apple_2025: ParsedFiling) -> None:
    assert "2025 Form 10-K |" not in apple_2025.text
    lines = apple_2025.text.splitlines()
    assert not [line for line in lines if is_page_number(line)]


def test_a_table_row_carries_its_label_column_headers_and_scale(
    apple_2025: ParsedFiling,
) -> None:
    assert (
        "Total net sales | 2025: 416,161 | 2024: 391,035 | 2023: 383,285 | (in millions)"
        in apple_2025.text
    )


def test_per_share_rows_do_not_claim_the_table_scale(apple_2025: ParsedFiling) -> None:
    lines = apple_2025.text.splitlines()
    assert (
        "Earnings per share: Diluted | September 27, 2025: 7.46 | September 28, 2024: 6.08 | "
        "September 30, 2023: 6.13" in lines
    )
    shares = [line for line in lines if line.startswith("Shares used in computing")]
    assert shares
    assert all("(in millions)" not in line for line in shares)
    # The EPS note's table says only "in millions" (for its share counts), never of its EPS rows.
    assert "Denominator: Diluted earnings per share | 2025: 7.46 | 2024: 6.08 | 2023: 6.13" in lines


def test_every_item_is_found_in_order_with_its_title(apple_2025: ParsedFiling) -> None:
    items = [s.item for s in apple_2025.sections]
    assert items == ["Cover", *(f"Item {key}" for key in ITEMS)]
    titles = {s.item: s.title for s in apple_2025.sections}
    assert titles["Item 1A"] == "Risk Factors"
    assert titles["Item 7"].startswith("Management’s Discussion and Analysis")


def test_the_table_of_contents_is_not_taken_for_the_items(apple_2025: ParsedFiling) -> None:
    business = next(s for s in apple_2025.sections if s.item == "Item 1")
    body = apple_2025.text[business.start : business.end]
    assert "Company Background" in body
    assert len(body) > 5000
    contents = next(s for s in apple_2025.sections if s.item == "Cover")
    assert "Item 1A. | Risk Factors" in apple_2025.text[contents.start : contents.end]


def test_cross_reference_only_items_are_recorded_as_such(apple_2025: ParsedFiling) -> None:
    flags = {s.item: s.cross_reference for s in apple_2025.sections}
    assert flags["Item 10"]
    assert flags["Item 14"]
    assert not flags["Item 7"]
    assert not flags["Item 1A"]


def test_metadata_comes_from_the_cover_facts(apple_2025: ParsedFiling) -> None:
    meta = apple_2025.meta
    assert (meta.company, meta.cik, meta.ticker, meta.form) == (
        "Apple Inc.",
        320193,
        "AAPL",
        "10-K",
    )
    assert (meta.fiscal_year, meta.period_end) == (2025, date(2025, 9, 27))
    assert meta.years_reported == (2023, 2024, 2025)
    assert meta.source_format is SourceFormat.HTML
    assert meta.filing_date == date(2025, 10, 31)


def test_a_52_53_week_filer_reports_its_own_fiscal_years(
    sample_filings: dict[str, ParsedFiling],
) -> None:
    home_depot = sample_filings["HD-2024"].meta
    assert home_depot.period_end == date(2025, 2, 2)
    assert home_depot.years_reported == (2022, 2023, 2024)


def test_facts_are_scaled_signed_and_point_at_the_chunk_that_prints_them(
    apple_2025: ParsedFiling,
) -> None:
    revenue = [
        f
        for f in apple_2025.facts
        if f.concept == "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax"
        and not f.dimensions
        and f.period_end == date(2025, 9, 27)
    ]
    assert revenue
    assert {f.value for f in revenue} == {416_161_000_000.0}
    assert all(f.unit == "usd" and f.decimals == -6 for f in revenue)
    for fact in revenue:
        assert fact.chunk_ordinal is not None
        assert fact.offset is not None
        chunk = apple_2025.chunks[fact.chunk_ordinal]
        assert chunk.start <= fact.offset < chunk.end
        assert apple_2025.text[fact.offset : fact.offset + len(fact.displayed)] == "416,161"
    negative = [f for f in apple_2025.facts if f.value < 0]
    assert negative, "facts with sign='-' are negated"


def test_dimensional_facts_keep_their_axis_and_member(apple_2025: ParsedFiling) -> None:
    iphone = [
        f
        for f in apple_2025.facts
        if any(member.endswith("IPhoneMember") for _, member in f.dimensions)
    ]
    assert iphone
    assert all(axis for fact in iphone for axis, _ in fact.dimensions)


def test_chunks_are_exact_spans_inside_one_item(sample_filings: dict[str, ParsedFiling]) -> None:
    for parsed in sample_filings.values():
        for chunk in parsed.chunks:
            assert chunk.text == parsed.text[chunk.start : chunk.end]
            section = next(s for s in parsed.sections if s.item == chunk.item)
            assert section.start <= chunk.start
            assert chunk.end <= section.end


def test_no_chunk_splits_a_table_row(sample_filings: dict[str, ParsedFiling]) -> None:
    for parsed in sample_filings.values():
        rows = [m.span() for m in re.finditer(r"^[^\n]* \| [^\n]*$", parsed.text, re.MULTILINE)]
        boundaries = {c.start for c in parsed.chunks} | {c.end for c in parsed.chunks}
        for start, end in rows:
            assert not any(start < b < end for b in boundaries)


def test_table_chunks_are_marked_as_tables(apple_2025: ParsedFiling) -> None:
    tables = [c for c in apple_2025.chunks if c.kind is ChunkKind.TABLE]
    assert tables
    assert all(" | " in c.text for c in tables)


def test_a_pdf_filing_ingests_with_its_items(sample_filings: dict[str, ParsedFiling]) -> None:
    three_m = sample_filings["3M Company-2018"]
    assert three_m.meta.source_format is SourceFormat.PDF
    assert three_m.meta.period_end == date(2018, 12, 31)
    assert "Item 1" in {s.item for s in three_m.sections}
    assert "Purchases of property, plant and equipment" in three_m.text


def test_a_plain_text_filing_ingests() -> None:
    text = (
        "UNITED STATES SECURITIES AND EXCHANGE COMMISSION\n\nFORM 10-K\n\n"
        "For the fiscal year ended December 31, 2024\n\nExample Corp\n"
        "(Exact name of registrant as specified in its charter)\n\n"
        "PART I\n\nItem 1. Business\n\nExample Corp makes examples. It sells them widely.\n\n"
        "Item 1A. Risk Factors\n\nExamples may go out of fashion.\n\n"
        "Item 7. Management's Discussion and Analysis\n\n"
        "Net sales   1,234   1,100\n\nSales grew 12% on demand.\n"
    )
    parsed = ingest_filing(RawFiling(text.encode(), "example.txt"))
    assert parsed.meta.company == "Example Corp"
    assert parsed.meta.fiscal_year == 2024
    assert [s.item for s in parsed.sections] == ["Cover", "Item 1", "Item 1A", "Item 7"]
    assert "Net sales 1,234 1,100" in parsed.text.splitlines()


def test_hints_name_a_filing_that_does_not_name_itself() -> None:
    text = b"FORM 10-K\n\nItem 1. Business\n\nWe make things.\n"
    hints = FilingHints(company="Hinted Co", fiscal_year=2019, ticker="HNT")
    parsed = ingest_filing(RawFiling(text, "hinted.txt", hints))
    assert (parsed.meta.company, parsed.meta.fiscal_year, parsed.meta.ticker) == (
        "Hinted Co",
        2019,
        "HNT",
    )


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "empty"),
        (b"<html><body><p>Quarterly report</p>", "truncated"),
        (b"<html><body><p>FORM 10-Q for the quarter</p></body></html>", "no fiscal year found"),
        (b"<html><body><p>A letter to our shareholders</p></body></html>", "form cannot be told"),
        (b"%PDF-1.4 this is not really a pdf", "not a readable PDF"),
        (b"\x00\x01\x02binary", "binary"),
    ],
)
def test_a_file_that_is_not_a_10k_is_refused_naming_it(content: bytes, message: str) -> None:
    with pytest.raises(ParseError, match=message) as raised:
        ingest_filing(RawFiling(content, "bad/file.htm"))
    assert str(raised.value).startswith("bad/file.htm")


def _cover(document_type: str, *facts: str) -> bytes:
    hidden = "".join(
        f'<ix:nonNumeric name="dei:{fact.split("=")[0]}" contextRef="c1">{fact.split("=")[1]}'
        "</ix:nonNumeric>"
        for fact in (f"DocumentType={document_type}", *facts)
    )
    return (
        '<html><body><div style="display:none"><ix:header><ix:hidden>'
        f"{hidden}</ix:hidden></ix:header></div><p>FORM 10-K</p>"
        "<p>Item 1. Financial Statements</p><p>Our statements.</p></body></html>"
    ).encode()


def test_a_10q_is_known_by_its_cover_facts_form_and_quarter() -> None:
    html = _cover("10-Q", "DocumentFiscalYearFocus=2024", "DocumentFiscalPeriodFocus=Q2",
                  "EntityRegistrantName=Quarterly Co")  # fmt: skip
    meta = ingest_filing(RawFiling(html, "q.htm")).meta
    assert (meta.form, meta.fiscal_year, meta.fiscal_quarter) == ("10-Q", 2024, 2)
    assert meta.period == "10-Q Q2 FY2024"


def test_a_form_the_index_does_not_hold_is_refused_naming_it() -> None:
    html = _cover("S-1", "DocumentFiscalYearFocus=2024", "EntityRegistrantName=Listing Co")
    with pytest.raises(ParseError, match=r"^s1\.htm: a S-1 filing, not a 10-K, 10-Q, 8-K or earn"):
        ingest_filing(RawFiling(html, "s1.htm"))


def test_a_truncated_copy_of_a_real_filing_is_refused(sample_dir: object) -> None:
    from pathlib import Path  # noqa: PLC0415

    from edgar_rag.ingest.local import find_local_filings  # noqa: PLC0415

    local = find_local_filings([Path(str(sample_dir))])[0]
    raw = local.load()
    with pytest.raises(ParseError, match="truncated"):
        ingest_filing(RawFiling(raw.content[: len(raw.content) // 2], raw.source))


def test_a_labelled_row_reads_alone() -> None:
    rows = [
        [Cell("", 0, 0), Cell("Years ended", 1, 4)],
        [Cell("", 0, 0), Cell("2025", 1, 2), Cell("2024", 3, 4)],
        [
            Cell("Net sales", 0, 0),
            Cell("$", 1, 1),
            Cell("1,000", 2, 2),
            Cell("$", 3, 3),
            Cell("900", 4, 4),
        ],
        [
            Cell("Net loss", 0, 0),
            Cell("(12", 1, 2),
            Cell(")", 2, 2),
            Cell("(3", 3, 4),
            Cell(")", 4, 4),
        ],
    ]
    blocks = read_table(rows, ["Results (in thousands)"]).blocks
    assert [b.text for b in blocks] == [
        "Net sales | 2025: 1,000 | 2024: 900 | (in thousands)",
        "Net loss | 2025: (12) | 2024: (3) | (in thousands)",
    ]
    assert all(b.kind is ChunkKind.TABLE for b in blocks)


def test_a_header_cell_spanning_two_rows_leaves_the_years_over_their_columns() -> None:
    """Home Depot's statements: the unit note spans both header rows, the years below it."""
    html = b"""<html><body><table>
    <tr><td colspan="3" rowspan="2">in millions, except per share data</td>
        <td colspan="3">Fiscal</td><td colspan="3">Fiscal</td></tr>
    <tr><td colspan="3">2024</td><td colspan="3">2023</td></tr>
    <tr><td colspan="3">Net sales</td><td>$</td><td>159,514</td><td></td>
        <td>$</td><td>152,669</td><td></td></tr>
    <tr><td colspan="3">Basic earnings per share</td><td>$</td><td>15.16</td><td></td>
        <td>$</td><td>16.74</td><td></td></tr>
    </table></body></html>"""
    blocks = parse_html(html, "hd.html").blocks
    assert [b.text for b in blocks] == [
        "Net sales | Fiscal 2024: 159,514 | Fiscal 2023: 152,669 | (in millions)",
        "Basic earnings per share | Fiscal 2024: 15.16 | Fiscal 2023: 16.74",
    ]


def test_a_period_over_an_amount_and_a_percentage_column_gives_each_its_own_sub_heading() -> None:
    """Home Depot's results table: ``Fiscal 2024`` over ``$`` and ``% of Net Sales``; the ``$``
    heading keeps the percentage's sub-heading off the amount column."""
    html = b"""<html><body><table>
    <tr><td></td><td colspan="6">Fiscal 2024</td><td colspan="6">Fiscal 2023</td></tr>
    <tr><td>dollars in millions</td><td colspan="3">$</td><td colspan="3">% of Net Sales</td>
        <td colspan="3">$</td><td colspan="3">% of Net Sales</td></tr>
    <tr><td>Net sales</td><td>$</td><td>159,514</td><td></td><td colspan="3"></td>
        <td>$</td><td>152,669</td><td></td><td colspan="3"></td></tr>
    <tr><td>Gross profit</td><td>$</td><td>53,308</td><td></td><td colspan="2">33.4</td>
        <td>%</td><td>$</td><td>50,960</td><td></td><td colspan="2">33.4</td><td>%</td></tr>
    </table></body></html>"""
    blocks = parse_html(html, "hd.html").blocks
    assert [b.text for b in blocks] == [
        "Net sales | Fiscal 2024: 159,514 | Fiscal 2023: 152,669 | (in millions)",
        "Gross profit | Fiscal 2024: 53,308 | Fiscal 2024 % of Net Sales: 33.4% | "
        "Fiscal 2023: 50,960 | Fiscal 2023 % of Net Sales: 33.4% | (in millions)",
    ]


def test_sub_headings_beside_a_year_are_not_joined_to_it() -> None:
    """Tesla's revenue table: ``2022`` then ``$`` and ``%`` under a change heading, printed as
    separate cells; a ``%`` after a heading is a heading of its own, not the year's trailer."""
    rows = [
        [Cell("Year Ended December 31,", 1, 3), Cell("2024 vs. 2023 Change", 4, 5)],
        [Cell("2024", 1, 1), Cell("2023", 2, 2), Cell("2022", 3, 3), Cell("$", 4, 4),
         Cell("%", 5, 5)],
        [Cell("Automotive sales", 0, 0), Cell("72,480", 1, 1), Cell("78,509", 2, 2),
         Cell("67,210", 3, 3), Cell("(6,029)", 4, 4), Cell("(8)", 5, 5), Cell("%", 5, 5)],
    ]  # fmt: skip
    assert [b.text for b in read_table(rows, ["(Dollars in millions)"]).blocks] == [
        "Automotive sales | Year Ended December 31, 2024: 72,480 | "
        "Year Ended December 31, 2023: 78,509 | Year Ended December 31, 2022: 67,210 | "
        "2024 vs. 2023 Change: (6,029) | 2024 vs. 2023 Change %: (8)% | (in millions)"
    ]


def test_a_layout_table_without_figures_stays_prose() -> None:
    blocks = read_table([[Cell("Item 7.", 0, 0), Cell("Management's Discussion", 1, 1)]], []).blocks
    assert [(b.text, b.kind) for b in blocks] == [
        ("Item 7. Management's Discussion", ChunkKind.PROSE)
    ]


def test_a_repeated_short_line_is_furniture_but_an_item_heading_is_not() -> None:
    blocks = [Block(f"Acme Corp | 2024 Form 10-K | {page}") for page in range(1, 5)]
    blocks += [Block("Item 7. Management's Discussion")] * 3 + [Block("12"), Block("Body text.")]
    kept = [b.text for b in drop_page_furniture(blocks)]
    assert kept == ["Item 7. Management's Discussion"] * 3 + ["Body text."]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.text(alphabet="abcdefgh .,", min_size=1, max_size=400), st.booleans()),
        min_size=1,
        max_size=30,
    ),
    st.integers(min_value=100, max_value=900),
    st.integers(min_value=0, max_value=200),
)
def test_chunking_covers_every_block_and_never_splits_a_row(
    parts: list[tuple[str, bool]], size: int, overlap: int
) -> None:
    from edgar_rag.domain import Section  # noqa: PLC0415
    from edgar_rag.ingest.blocks import join_blocks  # noqa: PLC0415

    blocks = [
        Block(text.strip() or "x", ChunkKind.TABLE if is_row else ChunkKind.PROSE)
        for text, is_row in parts
    ]
    text, starts = join_blocks(blocks)
    chunks = chunk_sections(
        text,
        [Section("Item 1", "Part I", "B", 0, len(text))],
        blocks,
        starts,
        size=size,
        overlap=overlap,
    )
    covered: set[int] = set()
    for chunk in chunks:
        assert chunk.text == text[chunk.start : chunk.end]
        covered.update(range(chunk.start, chunk.end))
    for block, start in zip(blocks, starts, strict=True):
        if block.text.strip():
            assert start in covered
        if block.kind is ChunkKind.TABLE:
            assert any(c.start <= start and start + len(block.text) <= c.end for c in chunks)


_ACME_PAGES = (
    "<p>FORM 10-K</p><p>For the fiscal year ended December 31, 2024</p><p>Acme Corp</p>"
    "<p>(Exact name of registrant as specified in its charter)</p>",
    "<p>BUSINESS OVERVIEW</p><p>Acme makes anvils for coyotes.</p>",
    "<p>MANAGEMENT'S DISCUSSION AND ANALYSIS</p><p>Sales of anvils grew 12% in 2024.</p>",
    "<p>Margins held steady.</p><p>RISK FACTORS</p><p>Roadrunners may evade capture.</p>",
    "<p>LEGAL PROCEEDINGS</p><p>No claims are pending.</p>"
    "<p>PROPERTIES</p><p>Acme owns one factory.</p>",
    "<p>Consolidated statement of income</p><p>Net sales were $5 million.</p>",
    "<p>Our executive officers are listed below.</p>",
    "<p>FORM 10-K CROSS-REFERENCE INDEX</p><table>"
    + "".join(
        f"<tr><td>Item {key}</td><td>{title}</td><td>{pages}</td></tr>"
        for key, title, pages in (
            ("1", "Business", "Page 2"),
            ("1A", "Risk Factors", "Page 4"),
            ("1B", "Unresolved Staff Comments", "Not applicable"),
            ("2", "Properties", "Page 5"),
            ("3", "Legal Proceedings", "Page 5"),
            ("7", "Management's Discussion and Analysis", "Pages 3-4"),
            ("8", "Financial Statements and Supplementary Data", "Page 6"),
            ("10", "Directors, Executive Officers and Corporate Governance", "Page 7, (a)"),
            ("11", "Executive Compensation", "(a)"),
        )
    )
    + "</table>",
)


def test_a_filing_without_item_headings_is_cut_by_its_cross_reference_index() -> None:
    html = "".join(
        f"{page}<p>Acme Corp 2024 Annual Report {number}</p>"
        for number, page in enumerate(_ACME_PAGES, start=1)
    )
    parsed = ingest_filing(RawFiling(f"<html><body>{html}</body></html>".encode(), "acme.htm"))
    sections = parsed.sections
    bodies = {s.item: parsed.text[s.start : s.end] for s in sections}
    assert [s.item for s in sections] == [
        "Cover",
        "Item 1",
        "Item 7",
        "Item 1A",
        "Item 3",
        "Item 2",
        "Item 8",
        "Item 10",
    ]
    assert bodies["Cover"].startswith("FORM 10-K")
    assert bodies["Cover"].endswith("(Exact name of registrant as specified in its charter)")
    assert bodies["Item 1"] == "BUSINESS OVERVIEW\nAcme makes anvils for coyotes."
    assert bodies["Item 7"].endswith("Sales of anvils grew 12% in 2024.\nMargins held steady.")
    assert bodies["Item 1A"] == "RISK FACTORS\nRoadrunners may evade capture."
    assert bodies["Item 3"] == "LEGAL PROCEEDINGS\nNo claims are pending."
    assert bodies["Item 2"] == "PROPERTIES\nAcme owns one factory."
    assert bodies["Item 8"].startswith("Consolidated statement of income")
    assert bodies["Item 10"].startswith("Our executive officers are listed below.")
    assert sections[0].start == 0
    assert all(a.end < b.start for a, b in itertools.pairwise(sections))
    assert all(s.start < s.end for s in sections)
    assert all(
        any(s.item == c.item and s.start <= c.start and c.end <= s.end for s in sections)
        for c in parsed.chunks
    )


def test_page_labels_come_from_footers_whose_numbers_rise() -> None:
    blocks = [
        Block("Cover."),
        Block("Acme | Annual Report | 1"),
        Block("Body."),
        Block("Acme | Annual Report | 2"),
        Block("More."),
        Block("7"),
        Block("Acme | Annual Report | 3"),
        Block("Statements."),
        Block("F-1"),
    ]
    assert [b.text for b in drop_page_furniture(blocks)] == [
        "Cover.",
        "Body.",
        "More.",
        "Statements.",
    ]
    assert find_page_labels(blocks) == [
        PageLabel("1", 1),
        PageLabel("2", 2),
        PageLabel("3", 3),
        PageLabel("F-1", 4),
    ]


def test_index_rows_give_the_first_page_or_none() -> None:
    rows = [
        "Item 1 | Business | Page: 3",
        "Item 1A Risk Factors Pages 8-23, 26",
        "Item 1B Unresolved Staff Comments Not applicable",
        "Item 8 Financial Statements Pages F-1 - F-40",
        "Item 10 Directors, Executive Officers and Corporate Governance Page 36, (a)",
        "Item 11 Executive Compensation (a)",
        "Item 7 Management's Discussion and Analysis 12",
    ]
    blocks = [Block(row, in_table=True) for row in rows] + [Block("Item 2 Properties Page 9")]
    assert read_cross_reference_index(blocks) == [
        IndexEntry("1", "Business", "3"),
        IndexEntry("1A", "Risk Factors", "8"),
        IndexEntry("1B", "Unresolved Staff Comments", None),
        IndexEntry("8", "Financial Statements", "F-1"),
        IndexEntry("10", "Directors, Executive Officers and Corporate Governance", "36"),
        IndexEntry("11", "Executive Compensation", None),
        IndexEntry("7", "Management's Discussion and Analysis", "12"),
    ]


def test_header_page_numbers_are_read_when_the_headings_say_so() -> None:
    blocks = [
        Block("Acme Corp annual report"),
        Block("Letter to shareholders."),
        Block("RISK FACTORS"),
        Block("Risks abound."),
        Block("Our plants are leased."),
        Block("No claims are pending."),
        Block("Item 1A Risk Factors Page 2", in_table=True),
        Block("Item 2 Properties Page 3", in_table=True),
        Block("Item 3 Legal Proceedings Page 3", in_table=True),
        Block("Item 4 Mine Safety Disclosures Not applicable", in_table=True),
    ]
    labels = [PageLabel("1", 0), PageLabel("2", 2), PageLabel("3", 4)]
    assert find_indexed_items(blocks, labels) == [
        ItemHeading(2, "1A", "Risk Factors"),
        ItemHeading(4, "2", "Properties"),
    ]
