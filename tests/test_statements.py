"""Statement pages read as labelled rows: on words laid out by hand, and on FinanceBench PDFs."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path

import pytest

from edgar_rag.domain import FigureSource, FilingHints, RawFiling
from edgar_rag.errors import ParseError
from edgar_rag.index.embedders import HashingEmbedder
from edgar_rag.index.sqlite import SqliteIndex
from edgar_rag.ingest.indexer import Outcome, index_filings
from edgar_rag.ingest.local import find_local_filings
from edgar_rag.ingest.pdf import read_pdf_document
from edgar_rag.ingest.pipeline import ingest_filing
from edgar_rag.ingest.statements import (
    Line,
    StatementKind,
    Word,
    clean_label,
    figure_value,
    read_statement,
    statement_title,
)

PDFS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "financebench" / "pdfs"
needs_pdfs = pytest.mark.skipif(not PDFS.exists(), reason=f"FinanceBench PDFs not at {PDFS}")


def _line(*cells: tuple[str, float]) -> Line:
    """A line of words, each placed at ``x`` and as wide as 5 points a character."""
    return Line(tuple(Word(text, x, x + 5 * len(text)) for text, x in cells))


def _income_page(header: list[Line]) -> list[Line]:
    return [
        _line(("ACME", 200), ("CORP.", 230)),
        _line(("CONSOLIDATED", 150), ("STATEMENTS", 220), ("OF", 280), ("OPERATIONS", 300)),
        _line(("(in", 150), ("millions,", 170), ("except", 220), ("per", 260), ("share", 280),
              ("data)", 310)),
        *header,
        _line(("Net", 20), ("sales", 40), ("$", 370), ("32,765", 400), ("$", 450), ("31,657", 480)),
        _line(("Operating", 20), ("expenses:", 70)),
        _line(("Cost", 35), ("of", 60), ("sales", 75), ("(1)", 110), ("20,000", 400),
              ("19,000", 480)),
        _line(("Restructuring", 35), ("—", 425), ("(1,417)", 475)),
        _line(("Other", 35), ("income", 70), ("from", 110), ("discontinued", 135)),
        _line(("operations,", 45), ("net", 110), ("(200)", 410), ("150", 490)),
        _line(("Total", 35), ("operating", 65), ("expenses", 120), ("20,000", 400),
              ("17,733", 480)),
        _line(("Diluted", 20), ("earnings", 60), ("per", 110), ("share", 130), ("$", 370),
              ("6.15", 410), ("$", 450), ("20.14", 485)),
        _line(("Weighted-average", 20), ("shares", 110), ("480", 415), ("487", 495)),
    ]  # fmt: skip


_TWO_LINE_HEADER = [
    _line(("Year", 420), ("Ended", 445), ("December", 475), ("31,", 525)),
    _line(("2019", 410), ("2018", 490)),
]


def test_a_title_names_the_statement_and_a_sentence_or_an_index_line_does_not() -> None:
    def title(text: str) -> StatementKind | None:
        found = statement_title([Line((Word(text, 0, 0),))])
        return found[0] if found else None

    assert title("CONSOLIDATED STATEMENTS OF OPERATIONS") is StatementKind.INCOME
    assert title("Consolidated Statement of Earnings") is StatementKind.INCOME
    assert title("INCOME STATEMENTS") is StatementKind.INCOME
    assert title("Consolidated Statements of Financial Position") is StatementKind.BALANCE
    assert title("CASH FLOWS STATEMENTS") is StatementKind.CASH_FLOW
    assert title("Consolidated Statements of Comprehensive Income") is (StatementKind.COMPREHENSIVE)
    sentence_case = "Johnson & Johnson and subsidiaries consolidated statements of earnings"
    assert title(sentence_case) is StatementKind.INCOME
    assert title("the Consolidated Statements of Income for fiscal 2019.") is None
    assert title("Consolidated Balance Sheets 54") is None
    assert title("Notes to Consolidated Financial Statements") is None


def test_rows_carry_label_year_and_scale_as_html_tables_do() -> None:
    read = read_statement(_income_page(_TWO_LINE_HEADER), 3, StatementKind.INCOME, "t")
    assert read is not None
    rows = [block.text for block in read.blocks if block.in_table]
    assert rows[0] == "Net sales | 2019: 32,765 | 2018: 31,657 | (in millions)"
    assert "Operating expenses: Cost of sales | 2019: 20,000 | 2018: 19,000 | (in millions)" in rows
    assert "Operating expenses: Restructuring | 2019: — | 2018: (1,417) | (in millions)" in rows
    assert (
        "Operating expenses: Other income from discontinued operations, net | 2019: (200) | "
        "2018: 150 | (in millions)" in rows
    )
    assert "Diluted earnings per share | 2019: 6.15 | 2018: 20.14" in rows
    assert read.found.years == (2019, 2018)
    by_label = {(f.label, f.column.year): f for f in read.figures}
    assert by_label[("Net sales", 2019)].value == 32_765e6
    assert by_label[("Operating expenses: Restructuring", 2019)].value == 0
    assert by_label[("Operating expenses: Restructuring", 2018)].value == -1_417e6
    eps = by_label[("Diluted earnings per share", 2018)]
    assert (eps.value, eps.unit, eps.scale) == (20.14, "USD/shares", 0)
    shares = by_label[("Weighted-average shares", 2019)]
    assert (shares.value, shares.unit) == (480e6, "shares")
    assert by_label[("Net sales", 2019)].column.period_end == date(2019, 12, 31)


def test_each_figure_anchor_points_at_its_figure_in_the_row_text() -> None:
    read = read_statement(_income_page(_TWO_LINE_HEADER), 3, StatementKind.INCOME, "t")
    assert read is not None
    figures = {f.figure_id: f for f in read.figures}
    for block in read.blocks:
        for anchor in block.anchors:
            shown = figures[anchor.fact_id].displayed
            assert block.text[anchor.offset : anchor.offset + len(shown)] == shown


def test_an_amount_and_a_percentage_column_under_one_year_keep_their_own_sub_headings() -> None:
    """``2019`` over ``$`` and ``% of sales``: the percentage column is printed, never a figure."""
    page = [
        _line(("CONSOLIDATED", 150), ("STATEMENTS", 220), ("OF", 280), ("OPERATIONS", 300)),
        _line(("(in", 150), ("millions)", 170)),
        _line(("2019", 420), ("2018", 560)),
        _line(("$", 390), ("%", 440), ("of", 450), ("sales", 465), ("$", 530), ("%", 580),
              ("of", 590), ("sales", 605)),
        _line(("Net", 20), ("sales", 40), ("32,765", 370), ("100.0", 445), ("31,657", 510),
              ("100.0", 585)),
        _line(("Cost", 20), ("of", 45), ("sales", 60), ("20,000", 370), ("61.0", 450),
              ("19,000", 510), ("60.0", 590)),
        _line(("Gross", 20), ("margin", 50), ("12,765", 370), ("39.0", 450), ("12,657", 510),
              ("40.0", 590)),
        _line(("Net", 20), ("income", 40), ("(1,000)", 365), ("(3.1)", 445), ("2,000", 515),
              ("6.3", 595)),
    ]  # fmt: skip
    read = read_statement(page, 3, StatementKind.INCOME, "CONSOLIDATED STATEMENTS OF OPERATIONS")
    assert read is not None
    rows = [block.text for block in read.blocks if block.in_table]
    assert rows[0] == (
        "Net sales | 2019: 32,765 | 2019 % of sales: 100.0 | 2018: 31,657 | "
        "2018 % of sales: 100.0 | (in millions)"
    )
    assert read.found.years == (2019, 2018)
    figures = [(f.label, f.column.year, f.value, f.unit) for f in read.figures]
    assert figures[:2] == [
        ("Net sales", 2019, 32_765e6, "USD"),
        ("Net sales", 2018, 31_657e6, "USD"),
    ]
    assert ("Net income", 2019, -1_000e6, "USD") in figures
    assert len(figures) == 8  # the four rows' amounts, none of their percentages
    displayed = {f.figure_id: f.displayed for f in read.figures}
    for block in read.blocks:
        for anchor in block.anchors:
            shown = displayed[anchor.fact_id]
            assert block.text[anchor.offset : anchor.offset + len(shown)] == shown


def test_a_statement_whose_header_names_no_year_keeps_its_rows_as_text_without_figures() -> None:
    header = [_line(("Fiscal", 410), ("Current", 440)), _line(("Prior", 490))]
    read = read_statement(_income_page(header), 3, StatementKind.INCOME, "t")
    assert read is not None
    assert read.figures == []
    assert read.found.years == ()
    assert "Net sales 32,765 31,657" in [block.text for block in read.blocks]


def test_labels_lose_footnote_markers_and_leaders_and_figures_read_signed() -> None:
    assert clean_label("Net income (1)(2)") == "Net income"
    assert clean_label("Total assets . . . . .") == "Total assets"
    assert clean_label("Revenue*") == "Revenue"
    assert figure_value("(1,417)") == -1417
    assert figure_value("—") == 0
    assert figure_value("17,626.6") == 17626.6


def test_a_pdf_with_no_text_and_one_cut_short_are_refused_naming_the_file() -> None:
    with pytest.raises(ParseError, match=r"^scan\.pdf: not a readable PDF"):
        read_pdf_document(b"%PDF-1.4\n", "scan.pdf")
    sample = Path(__file__).resolve().parents[1] / "src/edgar_rag/sample/financebench"
    content = (sample / "3M_2018_10K.pdf").read_bytes()
    with pytest.raises(ParseError, match=r"^cut\.pdf: "):
        ingest_filing(RawFiling(content[: len(content) // 3], "cut.pdf"))


@needs_pdfs
def test_amazon_2019s_statements_are_found_with_their_years() -> None:
    read = read_pdf_document((PDFS / "AMAZON_2019_10K.pdf").read_bytes(), "AMAZON_2019_10K.pdf")
    kinds = {(s.kind, s.years) for s in read.statements}
    assert (StatementKind.INCOME, (2017, 2018, 2019)) in kinds
    assert (StatementKind.BALANCE, (2018, 2019)) in kinds
    assert (StatementKind.CASH_FLOW, (2017, 2018, 2019)) in kinds
    net_income = [f for f in read.figures if f.label == "Net income" and f.column.year == 2019]
    assert [f.value for f in net_income][:1] == [11_588e6]


@needs_pdfs
def test_row_figures_are_stored_beside_xbrl_facts_with_period_and_chunk() -> None:
    content = (PDFS / "3M_2018_10K.pdf").read_bytes()
    raw = RawFiling(content, "3M_2018_10K.pdf", FilingHints(company="3M Company"))
    parsed = ingest_filing(raw)
    assert "cash_flow" in {s.kind for s in parsed.meta.statements}
    index = SqliteIndex(":memory:")
    embedder = HashingEmbedder()
    index.ensure_embedder(embedder.identity)
    filing_id = index.write_filing(parsed, embedder.embed([c.text for c in parsed.chunks]))
    rows = index.figures(filing_id, FigureSource.ROW)
    capex = next(
        f for f in rows if f.label and f.label.startswith("Purchases of property, plant")
        and f.fiscal_year == 2018
    )  # fmt: skip
    assert (capex.value, capex.unit, capex.scale) == (-1_577e6, "USD", 6)
    assert (capex.period_start, capex.period_end) == (date(2018, 1, 1), date(2018, 12, 31))
    chunk = parsed.chunks[capex.chunk_ordinal or 0]
    assert "2018: (1,577)" in chunk.text
    assert index.figures(filing_id, FigureSource.XBRL) == []
    # Search reads the rows by their labels, as it reads XBRL facts by their concepts.
    displayed = index.displayed_facts(filing_id)
    assert capex.label in {fact.label for fact in displayed}
    assert all(not fact.concept for fact in displayed)
    assert index.filing_meta(filing_id).statements == parsed.meta.statements


def test_a_heading_without_a_colon_prefixes_the_indented_rows_under_it() -> None:
    page = [
        _line(("CONSOLIDATED", 150), ("STATEMENTS", 220), ("OF", 280), ("INCOME", 300)),
        _line(("(in", 150), ("millions,", 170), ("except", 220), ("per", 260), ("share", 280),
              ("amounts)", 310)),
        *_TWO_LINE_HEADER,
        _line(("Net", 20), ("income", 40), ("3,000", 410), ("2,000", 490)),
        _line(("Revenue", 20), ("9,000", 410), ("8,000", 490)),
        _line(("Costs", 20), ("7,000", 410), ("6,000", 490)),
        _line(("Basic", 20), ("Earnings", 50), ("Per", 95), ("Common", 115), ("Share", 150)),
        _line(("Net", 30), ("income", 50), ("$", 370), ("1.25", 415), ("$", 450), ("0.83", 495)),
        _line(("Weighted-average", 20), ("shares", 110), ("2,400", 410), ("2,410", 490)),
    ]  # fmt: skip
    read = read_statement(page, 0, StatementKind.INCOME, "t")
    assert read is not None
    by_label = {(f.label, f.column.year): f for f in read.figures}
    eps = by_label[("Basic Earnings Per Common Share: Net income", 2019)]
    assert (eps.value, eps.unit) == (1.25, "USD/shares")
    assert by_label[("Net income", 2019)].value == 3_000e6
    assert by_label[("Weighted-average shares", 2018)].value == 2_410e6


def test_a_bare_row_summing_its_headings_rows_is_their_total_and_others_stay_text() -> None:
    page = [
        _line(("CONSOLIDATED", 150), ("STATEMENTS", 220), ("OF", 280), ("OPERATIONS", 300)),
        _line(("(in", 150), ("thousands)", 170)),
        *_TWO_LINE_HEADER,
        _line(("Revenues:", 20)),
        _line(("Casino", 35), ("2,871", 410), ("6,517", 490)),
        _line(("Rooms", 35), ("830", 410), ("2,322", 490)),
        _line(("Other", 35), ("(100)", 410), ("60", 490)),
        _line(("3,601", 410), ("8,899", 490)),  # printed with no label: the revenues' total
        _line(("Expenses:", 20)),
        _line(("Casino", 35), ("1,000", 410), ("2,000", 490)),
        _line(("Rooms", 35), ("300", 410), ("600", 490)),
        _line(("1,200", 410), ("2,600", 490)),  # no sum of the rows above: never a figure
    ]  # fmt: skip
    read = read_statement(page, 0, StatementKind.INCOME, "t")
    assert read is not None
    by_label = {(f.label, f.column.year): f.value for f in read.figures}
    assert by_label[("Total revenues", 2019)] == 3_601e3
    assert by_label[("Total revenues", 2018)] == 8_899e3
    assert by_label[("Expenses: Casino", 2019)] == 1_000e3  # the total closed the revenues
    assert not any(label.startswith("Total expenses") for label, _ in by_label)


def test_a_row_with_cents_on_a_page_of_whole_millions_is_a_per_share_amount() -> None:
    page = [
        _line(("Consolidated", 150), ("Statements", 220), ("of", 280), ("Income", 300)),
        _line(("(MILLIONS,", 150), ("EXCEPT", 200), ("PER", 240), ("COMMON", 260), ("SHARE", 300),
              ("DATA)", 330), ("2019", 410), ("2018", 490)),
        _line(("Revenues", 20), ("40,905", 400), ("53,647", 480)),
        _line(("Cost", 20), ("of", 45), ("sales", 60), ("8,054", 405), ("11,248", 480)),
        _line(("Net", 20), ("income", 40), ("16,026", 400), ("11,153", 480)),
        _line(("Earnings", 20), ("per", 60), ("common", 80), ("share––basic:", 120)),
        _line(("Income", 25), ("from", 60), ("continuing", 85), ("operations", 140), ("1.92", 410),
              ("1.97", 490)),
        _line(("Net", 20), ("income", 40), ("$", 370), ("2.88", 410), ("$", 450), ("1.87", 490)),
    ]  # fmt: skip
    read = read_statement(page, 0, StatementKind.INCOME, "t")
    assert read is not None
    net = [f for f in read.figures if f.label.endswith("Net income") and f.column.year == 2019]
    assert [(f.label, f.value, f.unit) for f in net] == [
        ("Net income", 16_026e6, "USD"),
        ("Earnings per common share––basic: Net income", 2.88, "USD/shares"),
    ]


def _pdf(objects: list[bytes], trailer: bytes = b"") -> bytes:
    """A PDF file of these objects (1: the catalogue), with a correct cross-reference table."""
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R %s>>\n" % (len(objects) + 1, trailer)
    return bytes(out + b"startxref\n%d\n%%%%EOF\n" % xref)


_BLANK_PAGE = [
    b"<< /Type /Catalog /Pages 2 0 R >>",
    b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>",
]
_LOCKED = _pdf(
    [
        *_BLANK_PAGE,
        b"<< /Filter /Standard /V 1 /R 2 /O <%s> /U <%s> /P -4 >>" % (b"11" * 32, b"22" * 32),
    ],
    b"/Encrypt 4 0 R /ID [<%s> <%s>] " % (b"ab" * 16, b"ab" * 16),
)


@dataclass
class _BytesSource:
    name: str
    content: bytes

    def load(self) -> RawFiling:
        return RawFiling(self.content, self.name)


def test_a_scan_an_encrypted_and_a_cut_pdf_are_refused_in_one_line_and_the_run_goes_on(
    tmp_path: Path, sample_dir: Path
) -> None:
    bad = [
        _BytesSource("scan.pdf", _pdf(_BLANK_PAGE)),
        _BytesSource("locked.pdf", _LOCKED),
        _BytesSource("cut.pdf", _LOCKED[:60]),
    ]
    good = [s for s in find_local_filings([sample_dir]) if s.name.endswith(".pdf")]
    index = SqliteIndex(tmp_path / "index.db")
    results = list(index_filings([*bad, *good], index, HashingEmbedder()))
    assert [(r.source, r.outcome, r.reason) for r in results[:3]] == [
        ("scan.pdf", Outcome.REFUSED, "the PDF has no text layer (a scan?)"),
        ("locked.pdf", Outcome.REFUSED, "not a readable PDF (it is encrypted)"),
        ("cut.pdf", Outcome.REFUSED, "not a readable PDF (data format error)"),
    ]
    assert [r.outcome for r in results[3:]] == [Outcome.INDEXED] * len(good) != []
    assert len(index.filings()) == len(good)
