"""PDF statement readers compared on the FinanceBench PDFs: PDFium's characters against
pdfplumber's words, fed to the same statement reader (``ingest/statements.py``).

For each PDF: its statement pages (found by title in PDFium's text), then each page read into
positioned lines by both libraries and into rows by the same code. Counted: statement pages
whose header years were read, rows with figures, figures, and seconds per page; the two
readers' figures are compared, and both are scored on the hand-checked sample
(``data/financebench/statement_rows.json``). Also timed: reading a whole PDF as edgar-rag did
before statements were read (PDFium text into lines and paragraphs) and as it does now.

pdfplumber is not a dependency: run this with it importable (a scratch environment) or its
columns say it was not measured. ``edgar-rag dev bench pdf-readers`` writes
``docs/pdf_readers.json`` and renders ``docs/pdf_readers.md`` from it.
"""

from __future__ import annotations

import importlib
import json
import statistics
import time
from collections.abc import Callable, Sequence
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from edgar_rag.ingest.pdf import pages, positioned_lines, read_pdf_document
from edgar_rag.ingest.plain import lines_to_blocks
from edgar_rag.ingest.statements import Line, RowFigure, Word, read_statement, statement_title

READERS = ("pdfium", "pdfplumber")
PRIMARY = ("income_statement", "balance_sheet", "cash_flow")
SAMPLE = Path("data/financebench/statement_rows.json")
_SAME_LINE_PT = 3.0
"""pdfplumber words whose tops differ by less than this are one line."""

Figures = set[tuple[int, str, int, str]]
"""(page, label, column year, figure as printed)."""


def plumber_lines(page: Any) -> list[Line]:
    """A pdfplumber page's words grouped into lines by their tops."""
    words = sorted(page.extract_words(), key=lambda w: (round(w["top"]), w["x0"]))
    lines: list[list[dict[str, Any]]] = []
    for word in words:
        if lines and abs(lines[-1][0]["top"] - word["top"]) < _SAME_LINE_PT:
            lines[-1].append(word)
        else:
            lines.append([word])
    return [
        Line(tuple(Word(w["text"], w["x0"], w["x1"]) for w in sorted(line, key=lambda w: w["x0"])))
        for line in lines
    ]


def _read_page(lines: list[Line], number: int) -> tuple[list[RowFigure], int, bool] | None:
    titled = statement_title(lines)
    read = read_statement(lines, number, *titled) if titled else None
    if read is None:
        return None
    return read.figures, read.found.rows, bool(read.found.years)


def measure_pdf(path: Path, plumber: Any | None) -> dict[str, Any]:
    """One PDF: before/after reading seconds, and each reader on its statement pages."""
    content = path.read_bytes()
    started = time.perf_counter()
    count = 0
    for _, text, _ in pages(content, path.name):
        lines_to_blocks([*text.splitlines(), ""])
        count += 1
    before_s = time.perf_counter() - started
    started = time.perf_counter()
    document = read_pdf_document(content, path.name)
    after_s = time.perf_counter() - started
    primary = sorted({s.kind.value for s in document.statements if s.years} & set(PRIMARY))
    found: dict[str, dict[str, Any]] = {}
    figures: dict[str, Figures] = {reader: set() for reader in READERS}
    statement_pages: list[int] = []
    for number, text, text_page in pages(content, path.name):
        plain = [Line((Word(line, 0, 0),)) for line in text.splitlines() if line.strip()]
        if statement_title(plain) is None:
            continue
        statement_pages.append(number)
        started = time.perf_counter()
        read = _read_page(positioned_lines(text_page), number)
        _tally(found, "pdfium", read, time.perf_counter() - started, figures, number)
    if plumber is not None:
        with plumber.open(path) as document:
            for number in statement_pages:
                started = time.perf_counter()
                read = _read_page(plumber_lines(document.pages[number]), number)
                _tally(found, "pdfplumber", read, time.perf_counter() - started, figures, number)
    both = figures["pdfium"] & figures["pdfplumber"]
    return {
        "pdf": path.name,
        "pages": count,
        "before_s": round(before_s, 4),
        "after_s": round(after_s, 4),
        "statement_pages": len(statement_pages),
        "primary_with_years": primary,
        "readers": found,
        "figures_agreeing": len(both),
    }


def _tally(
    found: dict[str, dict[str, Any]],
    reader: str,
    read: tuple[list[RowFigure], int, bool] | None,
    seconds: float,
    figures: dict[str, Figures],
    number: int,
) -> None:
    entry = found.setdefault(
        reader, {"statements": 0, "with_years": 0, "rows": 0, "figures": 0, "seconds": 0.0}
    )
    entry["seconds"] = round(entry["seconds"] + seconds, 4)
    if read is None:
        return
    row_figures, rows, with_years = read
    entry["statements"] += 1
    entry["with_years"] += int(with_years)
    entry["rows"] += rows
    entry["figures"] += len(row_figures)
    figures[reader].update((number, f.label, f.column.year, f.displayed) for f in row_figures)


def score_sample(
    sample: Sequence[dict[str, Any]], pdfs: Path, plumber: Any | None
) -> dict[str, Any]:
    """Each reader's exact hits on the hand-checked rows (label, column year and value)."""
    scored: dict[str, Any] = {}
    readers: dict[str, Callable[[Path, int], list[RowFigure]]] = {"pdfium": sample_figures}
    if plumber is not None:
        readers["pdfplumber"] = lambda path, page: _plumber_figures(plumber, path, page)
    verified = [row for row in sample if row["verified"]]
    for reader, read in readers.items():
        cache: dict[tuple[str, int], list[RowFigure]] = {}
        right = 0
        for row in verified:
            key = (row["pdf"], row["page"])
            if key not in cache:
                cache[key] = read(pdfs / row["pdf"], row["page"])
            right += int(sample_row_matches(row, cache[key]))
        scored[reader] = {"right": right, "of": len(verified)}
    scored["unverified"] = len(sample) - len(verified)
    scored["pdfs"] = len({row["pdf"] for row in sample})
    return scored


def sample_figures(path: Path, page: int) -> list[RowFigure]:
    """PDFium's figures of one page (as ingest reads it)."""
    for number, _, text_page in pages(path.read_bytes(), path.name):
        if number == page:
            read = _read_page(positioned_lines(text_page), number)
            return read[0] if read else []
    return []


def _plumber_figures(plumber: Any, path: Path, page: int) -> list[RowFigure]:
    with plumber.open(path) as document:
        read = _read_page(plumber_lines(document.pages[page]), page)
    return read[0] if read else []


def sample_row_matches(row: dict[str, Any], figures: Sequence[RowFigure]) -> bool:
    """The reader gives the row's printed label (after any ``Group:`` prefix; the sample
    names the group where a label repeats on the page), in the row's year, the row's value
    with its scale."""
    group = row.get("group")
    return any(
        (f.label == row["label"] or f.label.endswith(f": {row['label']}"))
        and (group is None or f.label == f"{group} {row['label']}")
        and f.column.year == row["year"]
        and abs(f.value - row["value"]) <= 1e-9 * max(1.0, abs(row["value"]))
        for f in figures
    )


def render(report: dict[str, Any]) -> str:
    """The Markdown page, from the JSON ``main`` writes."""
    filings = report["filings"]
    lines = [
        "# PDF statements: reader comparison",
        "",
        "Written by `edgar-rag dev bench pdf-readers` from `docs/pdf_readers.json`, over "
        f"the {len(filings)} FinanceBench 10-K PDFs (`../shared/corpus/financebench/pdfs`). "
        "Statement pages are found by their title in PDFium's text; each is then read into "
        "positioned words by each library and into labelled rows by the same code "
        "(`ingest/statements.py`).",
        "",
        f"pdfplumber {report['versions']['pdfplumber']}, pypdfium2 "
        f"{report['versions']['pypdfium2']}; seconds on 2 CPU cores shared with other work.",
        "",
        "| reader | statement pages read | with header years | rows with figures | figures "
        "| seconds per statement page | sample rows exactly right |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    sample = report.get("sample", {})
    for reader in READERS:
        totals = _totals(filings, reader)
        if totals is None:
            lines.append(f"| {reader} | not measured (not installed) | | | | | |")
            continue
        hits = sample.get(reader)
        accuracy = f"{hits['right']} of {hits['of']}" if hits else "not scored"
        lines.append(
            f"| {reader} | {totals['statements']} of {totals['pages']} | {totals['with_years']} "
            f"| {totals['rows']} | {totals['figures']} | {totals['per_page']:.4f} | {accuracy} |"
        )
    agreeing = sum(f["figures_agreeing"] for f in filings)
    all_three = sum(1 for f in filings if len(f["primary_with_years"]) == len(PRIMARY))
    found = {kind: sum(1 for f in filings if kind in f["primary_with_years"]) for kind in PRIMARY}
    before = [f["before_s"] for f in filings]
    after = [f["after_s"] for f in filings]
    lines += [
        "",
        f"Figures both readers give alike (page, label, year, figure): {agreeing}.",
        "",
        "Primary statements found with their header years (as ingest reads them, PDFium): "
        + ", ".join(f"{kind} {n} of {len(filings)}" for kind, n in found.items())
        + f"; all three in {all_three} of {len(filings)} PDFs.",
        "",
        "Reading a whole PDF, seconds per filing (PDFium; before: its text into lines and "
        "paragraphs only; after: statement pages also read from character positions):",
        "",
        "| | mean | median | max |",
        "| --- | ---: | ---: | ---: |",
        f"| before | {statistics.mean(before):.3f} | {statistics.median(before):.3f} "
        f"| {max(before):.3f} |",
        f"| after | {statistics.mean(after):.3f} | {statistics.median(after):.3f} "
        f"| {max(after):.3f} |",
        "",
    ]
    if sample:
        lines += [
            f"The sample: {sample.get('pdfium', {}).get('of', 0)} rows hand-checked against "
            f"the PDFs' text, from {sample['pdfs']} PDFs ({sample['unverified']} more could "
            "not be verified and are not scored): `data/financebench/statement_rows.json`.",
            "",
        ]
    lines += [
        "| PDF | pages | statement pages | primary statements with years | PDFium rows "
        "| pdfplumber rows | before s | after s |",
        "| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: |",
    ]
    for f in filings:
        rows = {r: f["readers"].get(r, {}).get("rows", "—") for r in READERS}
        lines.append(
            f"| {f['pdf']} | {f['pages']} | {f['statement_pages']} "
            f"| {', '.join(f['primary_with_years']) or 'none'} | {rows['pdfium']} "
            f"| {rows['pdfplumber']} | {f['before_s']:.3f} | {f['after_s']:.3f} |"
        )
    return "\n".join(lines) + "\n"


def _totals(filings: Sequence[dict[str, Any]], reader: str) -> dict[str, Any] | None:
    entries = [f["readers"][reader] for f in filings if reader in f["readers"]]
    if not entries:
        return None
    pages_read = sum(f["statement_pages"] for f in filings)
    totals: dict[str, Any] = {
        key: sum(e[key] for e in entries) for key in ("statements", "with_years", "rows", "figures")
    }
    totals["pages"] = pages_read
    totals["per_page"] = sum(e["seconds"] for e in entries) / max(pages_read, 1)
    return totals


def _version(name: str) -> str:
    try:
        return version(name)
    except PackageNotFoundError:
        return "not installed"


def write_reader_report(pdfs: Path, out: Path, sample: Path = SAMPLE) -> str:
    """Measure both readers on every PDF in ``pdfs``; write the JSON to ``out`` and its page
    beside it as ``.md``; returns the page."""
    try:
        pdfplumber: Any = importlib.import_module("pdfplumber")  # optional, not a dependency
    except ImportError:
        pdfplumber = None
    filings = [measure_pdf(path, pdfplumber) for path in sorted(pdfs.glob("*.pdf"))]
    report: dict[str, Any] = {
        "versions": {"pdfplumber": _version("pdfplumber"), "pypdfium2": _version("pypdfium2")},
        "filings": filings,
    }
    if sample.exists():
        rows = json.loads(sample.read_text(encoding="utf-8"))["rows"]
        rows = [row for row in rows if (pdfs / row["pdf"]).exists()]
        if rows:
            report["sample"] = score_sample(rows, pdfs, pdfplumber)
    out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    page = render(report)
    out.with_suffix(".md").write_text(page, encoding="utf-8")
    return page
