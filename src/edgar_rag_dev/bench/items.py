"""Item segmentation on the corpus: our parser against edgartools, scored on Form 10-K's 23 Items,
and ours alone on FinanceBench's PDF 10-Ks (edgartools reads no PDF).

Reads the local corpus only and fetches nothing (edgartools parses the local HTML offline);
writes a Markdown report and the same results as JSON next to it.
"""

from __future__ import annotations

import csv
import itertools
import json
import re
import statistics
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import Any

from edgar_rag.domain import RawFiling, Section
from edgar_rag.errors import ParseError
from edgar_rag.ingest.items import ITEM_ORDER, ITEMS, is_cross_reference
from edgar_rag.ingest.local import find_local_filings
from edgar_rag.ingest.pipeline import ingest_filing
from edgar_rag.markdown import table

EXPECTED = tuple(ITEMS)
RISK_FACTORS_MIN_CHARS = 2000
MOST_OF_THE_DOCUMENT = 0.6
KEY_ITEMS = ("1", "1A", "7", "8")
PARSERS = ("ours", "edgartools")
KNOWN_CASES = {
    "MCD": "no Item headings in the body, a 'Form 10-K cross-reference index' at the end maps "
    "Items to pages: both parsers read the index and locate each Item by its page, so the "
    "Items are not in Item order; 'Not applicable' and '(a)'-only Items have no text.",
    "WFC": "most Items are incorporated by reference from an exhibit (cross-reference only).",
    "PGR": "most Items are incorporated by reference from an exhibit (cross-reference only).",
}
_SPACES = re.compile(r"\s+")
PDF_FOLDER = Path("financebench") / "pdfs"
_PDF_NAME = re.compile(r"^(?P<company>.+?)_(?P<year>\d{4})_10K$", re.IGNORECASE)
_SUMMARY_ROWS = (
    ("filings", "filings"),
    (f"mean Items found (of {len(EXPECTED)})", "mean_found"),
    (f"filings with all {len(EXPECTED)}", "all_items"),
    ("filings with Items in order", "in_order"),
    ("filings with an implausible length", "with_implausible"),
    ("filings with an Item found twice", "with_duplicates"),
    ("parse errors", "errors"),
    ("total seconds", "total_seconds"),
)


@dataclass(frozen=True, slots=True)
class FoundItem:
    key: str
    length_chars: int
    position: int | None = None
    """Where the Item starts, in one coordinate per filing and parser; None when unknown."""
    cross_reference: bool = False


@dataclass(frozen=True, slots=True)
class Segmentation:
    items: tuple[FoundItem, ...]
    document_chars: int
    seconds: float
    duplicates: tuple[str, ...] = ()
    error: str | None = None


@dataclass(frozen=True, slots=True)
class FilingScore:
    found: int
    missing: tuple[str, ...]
    in_order: bool | None
    implausible: tuple[str, ...]
    cross_reference: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Summary:
    filings: int
    mean_found: float
    all_items: int
    in_order: int
    with_implausible: int
    with_duplicates: int
    errors: int
    total_seconds: float


@dataclass(frozen=True, slots=True)
class FilingResult:
    ticker: str
    fiscal_year: int
    path: str
    runs: dict[str, Segmentation] = field(default_factory=dict)
    scores: dict[str, FilingScore] = field(default_factory=dict)


def in_item_order(items: Sequence[FoundItem]) -> bool | None:
    """Whether the Items, sorted by where they start, rise in Form 10-K order (None: unknown)."""
    placed = sorted(
        (item.position, ITEM_ORDER[item.key]) for item in items if item.position is not None
    )
    if len(placed) < 2:
        return None
    return all(a[1] < b[1] for a, b in itertools.pairwise(placed))


def implausible_items(items: Sequence[FoundItem], document_chars: int) -> tuple[str, ...]:
    """Lengths that suggest a missed boundary: a short Risk Factors, or most of the document."""
    return tuple(
        item.key
        for item in items
        if (
            item.key == "1A"
            and item.length_chars < RISK_FACTORS_MIN_CHARS
            and not item.cross_reference
        )
        or item.length_chars > document_chars * MOST_OF_THE_DOCUMENT
    )


def score_items(items: Sequence[FoundItem], document_chars: int) -> FilingScore:
    found = {item.key for item in items}
    return FilingScore(
        found=len(found & set(EXPECTED)),
        missing=tuple(key for key in EXPECTED if key not in found),
        in_order=in_item_order(items),
        implausible=implausible_items(items, document_chars),
        cross_reference=tuple(item.key for item in items if item.cross_reference),
    )


def keep_longest(found: Sequence[FoundItem]) -> tuple[tuple[FoundItem, ...], tuple[str, ...]]:
    """One entry per Item (the longest, in Item order), and the Items that came more than once."""
    best: dict[str, FoundItem] = {}
    for item in found:
        if item.key not in best or item.length_chars > best[item.key].length_chars:
            best[item.key] = item
    counts = Counter(item.key for item in found)
    duplicates = tuple(key for key in EXPECTED if counts[key] > 1)
    return tuple(best[key] for key in EXPECTED if key in best), duplicates


def summarise(runs: Sequence[Segmentation], scores: Sequence[FilingScore]) -> Summary:
    count = max(len(scores), 1)
    return Summary(
        filings=len(scores),
        mean_found=round(sum(score.found for score in scores) / count, 2),
        all_items=sum(score.found == len(EXPECTED) for score in scores),
        in_order=sum(score.in_order is True for score in scores),
        with_implausible=sum(bool(score.implausible) for score in scores),
        with_duplicates=sum(bool(run.duplicates) for run in runs),
        errors=sum(run.error is not None for run in runs),
        total_seconds=round(sum(run.seconds for run in runs), 2),
    )


def choose(ours: Summary, theirs: Summary, differing: Sequence[str]) -> str:
    """The choice as a sentence from the numbers: more Items found wins, then speed.

    ``differing`` names the filings where the two parsers find a different number of Items.
    """
    summary = {"ours": ours, "edgartools": theirs}
    fast, slow = sorted(summary, key=lambda parser: summary[parser].total_seconds)
    fast_s, slow_s = summary[fast].total_seconds, summary[slow].total_seconds
    speed = (
        f"{fast} is {slow_s / max(fast_s, 0.01):.1f} times faster ({fast_s} s against {slow_s} s)"
    )
    quality = {
        name: (s.mean_found, s.all_items, -s.with_implausible) for name, s in summary.items()
    }
    better, worse = sorted(summary, key=lambda parser: quality[parser], reverse=True)
    if quality["ours"] == quality["edgartools"]:
        return f"Both parsers score the same on Items; {speed}, so the choice is {fast}."
    top, other = summary[better], summary[worse]
    found = (
        f"{top.mean_found} against {other.mean_found} Items of {len(EXPECTED)} per filing on "
        f"average, all of them in {top.all_items} against {other.all_items} of {top.filings} "
        f"filings; the counts differ on {len(differing)}: {', '.join(differing) or 'none'}"
    )
    if quality[better][:2] == quality[worse][:2]:
        return (
            f"{better} finds as many Items ({found}) with fewer implausible lengths "
            f"({top.with_implausible} against {other.with_implausible} filings); {speed}. "
            f"The choice is {better}."
        )
    return f"{better} finds more Items ({found}); {speed}. By Items found, the choice is {better}."


def segment_with_ours(raw: RawFiling) -> Segmentation:
    started = time.perf_counter()
    try:
        parsed = ingest_filing(raw)
    except ParseError as error:
        return Segmentation((), 0, time.perf_counter() - started, error=str(error))
    seconds = time.perf_counter() - started
    return Segmentation(item_parts(parsed.sections, parsed.text), len(parsed.text), seconds)


def item_parts(sections: Sequence[Section], text: str) -> tuple[FoundItem, ...]:
    """Our Items, each once: an Item in two parts (a PDF's Item 8 that points to statements it
    prints elsewhere, and those statements, ``ingest/statement_items.py``) stands where its
    heading does, its length the sum of both, cross-reference only when both are."""
    parts: dict[str, list[Section]] = {}
    for section in sections:
        if (key := section.item.removeprefix("Item ")) in ITEMS:
            parts.setdefault(key, []).append(section)
    return tuple(
        FoundItem(
            key,
            sum(s.end - s.start for s in found),
            _headed(found, text).start,
            all(s.cross_reference for s in found),
        )
        for key, found in parts.items()
    )


def _headed(parts: Sequence[Section], text: str) -> Section:
    """The part that opens with its Item's heading (the other was placed by what it prints)."""
    for part in parts:
        opening = " ".join(text[part.start : part.start + 40].split()).lower()
        if opening.startswith(part.item.lower()):
            return part
    return parts[0]


def load_edgartools() -> Callable[[str], Any]:
    """edgartools' HTML parser set for a 10-K (without a form it detects no Items)."""
    from edgar.documents import parse_html  # noqa: PLC0415  (importing edgartools takes seconds)
    from edgar.documents.config import ParserConfig  # noqa: PLC0415

    return lambda html: parse_html(html, ParserConfig(form="10-K"))


def segment_with_edgartools(parse: Callable[[str], Any], html: str) -> Segmentation:
    started = time.perf_counter()
    try:
        document = parse(html)
        sections = [
            (str(name), (section.item, *section.covered_items), str(section.text()))
            for name, section in document.sections.items()
            if section.item
        ]
    except Exception as error:  # a third-party parser failing on a filing is a result to report
        seconds = time.perf_counter() - started
        return Segmentation((), 0, seconds, error=f"{type(error).__name__}: {error}")
    seconds = time.perf_counter() - started
    full_text = _SPACES.sub(" ", str(document.text()))
    # Sections found through the table of contents start at an anchor; order is checked on anchor
    # offsets in the HTML, or on text offsets when none has one (never on a mix of the two).
    anchors = {name: _anchor_offset(document, html, name) for name, *_ in sections}
    if not any(offset is not None for offset in anchors.values()):
        anchors = {name: _text_offset(full_text, text) for name, _, text in sections}
    found = [
        FoundItem(key, len(text), anchors[name], is_cross_reference(text))
        for name, keys, text in sections
        for key in dict.fromkeys(str(key).upper() for key in keys)
        if key in ITEMS
    ]
    items, duplicates = keep_longest(found)
    return Segmentation(items, len(full_text), seconds, duplicates)


def _anchor_offset(document: Any, html: str, name: str) -> int | None:
    info = document.get_sec_section_info(name) or {}
    anchor = info.get("anchor_id")
    offsets = [html.find(f"{quote}{anchor}{quote}") for quote in ('"', "'")] if anchor else []
    return min((offset for offset in offsets if offset >= 0), default=None)


def _text_offset(full_text: str, text: str) -> int | None:
    offset = full_text.find(_SPACES.sub(" ", text)[:200].strip())
    return offset if offset >= 0 else None


def run_corpus(corpus: Path) -> list[FilingResult]:
    parse = load_edgartools()
    with (corpus / "filings" / "manifest.csv").open(newline="", encoding="utf-8") as manifest:
        rows = list(csv.DictReader(manifest))
    results = []
    for row in rows:
        content = (corpus / row["path"]).read_bytes()
        result = FilingResult(row["ticker"], int(row["fiscal_year"]), row["path"])
        result.runs["ours"] = segment_with_ours(RawFiling(content, row["path"]))
        result.runs["edgartools"] = segment_with_edgartools(parse, content.decode(errors="replace"))
        for parser, run in result.runs.items():
            result.scores[parser] = score_items(run.items, run.document_chars)
        results.append(result)
    return results


def run_pdfs(corpus: Path) -> list[FilingResult]:
    """Our parser on each PDF of ``corpus/financebench/pdfs``, loaded as ingest loads it (the
    filer named by its cover), and listed as FinanceBench names the document
    (``3M_2018_10K.pdf``: company 3M, fiscal year 2018)."""
    results = []
    for filing in find_local_filings([corpus / PDF_FOLDER]):
        path = Path(filing.name)
        if path.suffix.lower() != ".pdf":
            continue
        named = _PDF_NAME.match(path.stem)
        company, year = (named["company"], int(named["year"])) if named else (path.stem, 0)
        result = FilingResult(company, year, str(path.relative_to(corpus)))
        run = segment_with_ours(filing.load())
        result.runs["ours"] = run
        result.scores["ours"] = score_items(run.items, run.document_chars)
        results.append(result)
    return results


def differing_filings(results: Sequence[FilingResult]) -> list[str]:
    return [
        f"{result.ticker} {result.fiscal_year}"
        for result in results
        if len({score.found for score in result.scores.values()}) > 1
    ]


def render_markdown(
    results: Sequence[FilingResult],
    summaries: dict[str, Summary],
    corpus: str,
    pdfs: Sequence[FilingResult] = (),
) -> str:
    ours, theirs = summaries["ours"], summaries["edgartools"]
    lines = [
        "# Item segmentation: our parser against edgartools",
        "",
        f"Each of the {ours.filings} 10-K HTML filings of `{corpus}/filings/manifest.csv` is "
        f"parsed by our `ingest_filing` and by edgartools {version('edgartools')} "
        "(`edgar.documents.parse_html` with `ParserConfig(form='10-K')`, offline). The Items each "
        f"finds are scored against the {len(EXPECTED)} Items of Form 10-K: how many, whether they "
        "start in Item order, which only point elsewhere (cross-reference only), and implausible "
        f"lengths (Item 1A under {RISK_FACTORS_MIN_CHARS:,} characters unless cross-reference "
        f"only, or an Item over {MOST_OF_THE_DOCUMENT:.0%} of the document). Lengths are "
        "characters of each parser's own clean text; an Item edgartools returns twice keeps its "
        "longer text. Seconds: ours is the whole `ingest_filing` (text, Items, chunks, XBRL "
        "facts); edgartools is parsing, section detection and section text. Ours keeps only "
        "headings that rise in Item order (so it is in order by construction), except for a "
        "filing laid out by a cross-reference index, whose Items follow its pages.",
        "",
        "Rebuild: `edgar-rag dev bench items --corpus ../shared/corpus --out docs/items.md` "
        "(also writes `docs/items.json`).",
        "",
        "## Summary",
        "",
        *table(
            ["", "ours", "edgartools"],
            [[label, getattr(ours, at), getattr(theirs, at)] for label, at in _SUMMARY_ROWS],
            align="lrr",
        ),
        "",
        "## Choice",
        "",
        choose(ours, theirs, differing_filings(results)),
    ]
    for parser in PARSERS:
        lines += ["", f"## Per filing: {parser}", "", *_filing_table(results, parser)]
    for parser in PARSERS:
        lines += ["", f"## Item lengths in characters: {parser}", "", *_lengths(results, parser)]
    lines += ["", "## Known special cases", ""]
    for result in (result for result in results if result.ticker in KNOWN_CASES):
        found = ", ".join(f"{parser} {result.scores[parser].found}" for parser in PARSERS)
        case = KNOWN_CASES[result.ticker]
        lines.append(f"- {result.ticker} {result.fiscal_year}: {case} Items found: {found}.")
    if pdfs:
        lines += _pdf_section(pdfs, corpus)
    return "\n".join(lines) + "\n"


def _pdf_section(pdfs: Sequence[FilingResult], corpus: str) -> list[str]:
    """Ours alone on the PDF 10-Ks: the summary, each filing, each Item's length."""
    summary = summarise([r.runs["ours"] for r in pdfs], [r.scores["ours"] for r in pdfs])
    seconds = [result.runs["ours"].seconds for result in pdfs]
    short = [r for r in pdfs if r.scores["ours"].found < len(EXPECTED)]
    return [
        "",
        "## PDF filings: ours",
        "",
        f"Each of the {summary.filings} FinanceBench 10-K PDFs of `{corpus}/{PDF_FOLDER}` "
        "(named company and fiscal year by FinanceBench's file name) is parsed by the same "
        "`ingest_filing`: PDFium's text in lines and paragraphs, statement pages as labelled "
        "rows, running headers and page numbers dropped as page furniture, and Items found by "
        "the same rules as in HTML (a table of contents entry loses to the heading followed by "
        "the Item's text; a filing laid out under its own headings is placed by its Form 10-K "
        "cross-reference index). edgartools reads no PDF, so ours stands alone; the scores are "
        "those above. An Item the filing does not head is reported missing, never forced: "
        f"{len(short)} of the {summary.filings} have fewer than all {len(EXPECTED)}. A filing "
        "whose Item 8 only points to statements it prints elsewhere (after Item 15 or 16, or "
        "inside the MD&A) has them placed in Item 8 from the first statement's title: that Item "
        "is counted once, where its heading stands, its length both parts.",
        "",
        *table(
            ["", "ours"],
            [[label, getattr(summary, at)] for label, at in _SUMMARY_ROWS],
            align="lr",
        ),
        "",
        f"Seconds per PDF (the whole `ingest_filing`, no embedding): mean "
        f"{statistics.mean(seconds):.2f}, median {statistics.median(seconds):.2f}, "
        f"max {max(seconds):.2f}.",
        "",
        "### Per PDF filing",
        "",
        *_filing_table(pdfs, "ours"),
        "",
        "### Item lengths in characters: PDF filings",
        "",
        *_lengths(pdfs, "ours"),
    ]


def _filing_table(results: Sequence[FilingResult], parser: str) -> list[str]:
    header = ["ticker", "FY", "found", "in order", "missing", "cross-reference only"]
    header += ["implausible", *(f"Item {key}" for key in KEY_ITEMS), "found twice", "seconds"]
    rows = []
    for result in results:
        run, score = result.runs[parser], result.scores[parser]
        length = {item.key: item.length_chars for item in run.items}
        in_order = {True: "yes", False: "no", None: "n/a"}[score.in_order]
        missing = ", ".join(score.missing) if run.error is None else f"error: {run.error}"
        rows.append(
            [
                result.ticker,
                result.fiscal_year,
                f"{score.found}/{len(EXPECTED)}",
                in_order,
                missing,
                ", ".join(score.cross_reference),
                ", ".join(score.implausible),
                *(length.get(key, "") for key in KEY_ITEMS),
                ", ".join(run.duplicates),
                f"{run.seconds:.2f}",
            ]
        )
    return table(header, rows, align="llrllll" + "r" * len(KEY_ITEMS) + "lr")


def _lengths(results: Sequence[FilingResult], parser: str) -> list[str]:
    rows = []
    for result in results:
        lengths = {item.key: item.length_chars for item in result.runs[parser].items}
        rows.append(
            [result.ticker, result.fiscal_year, *(lengths.get(key, "") for key in EXPECTED)]
        )
    return table(["ticker", "FY", *EXPECTED], rows, align="ll" + "r" * len(EXPECTED))


def load_report(
    path: Path,
) -> tuple[list[FilingResult], dict[str, Summary], str, list[FilingResult]]:
    """The results ``compare_items`` wrote as JSON, as the values ``render_markdown`` takes."""
    report = json.loads(path.read_text(encoding="utf-8"))

    def segmentation(run: dict[str, Any]) -> Segmentation:
        items = tuple(FoundItem(**item) for item in run.pop("items"))
        return Segmentation(items=items, **{k: _tuples(v) for k, v in run.items()})

    def filing(row: dict[str, Any]) -> FilingResult:
        return FilingResult(
            ticker=row["ticker"],
            fiscal_year=row["fiscal_year"],
            path=row["path"],
            runs={parser: segmentation(run) for parser, run in row["runs"].items()},
            scores={
                parser: FilingScore(**{k: _tuples(v) for k, v in score.items()})
                for parser, score in row["scores"].items()
            },
        )

    results = [filing(row) for row in report["filings"]]
    summaries = {parser: Summary(**summary) for parser, summary in report["summary"].items()}
    pdfs = [filing(row) for row in report.get("pdfs", [])]
    return results, summaries, report["corpus"], pdfs


def _tuples(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def compare_items(corpus: Path, out: Path) -> str:
    """Segment the corpus with both parsers into ``out`` (Markdown) and its JSON beside it;
    returns the choice between them."""
    results = run_corpus(corpus)
    pdfs = run_pdfs(corpus)
    summaries = {
        parser: summarise([r.runs[parser] for r in results], [r.scores[parser] for r in results])
        for parser in PARSERS
    }
    choice = choose(summaries["ours"], summaries["edgartools"], differing_filings(results))
    report = {
        "corpus": str(corpus),
        "edgartools_version": version("edgartools"),
        "expected_items": list(EXPECTED),
        "summary": {parser: asdict(summary) for parser, summary in summaries.items()},
        "choice": choice,
        "filings": [asdict(result) for result in results],
        "pdfs": [asdict(result) for result in pdfs],
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render_markdown(results, summaries, str(corpus), pdfs), "utf-8")
    out.with_suffix(".json").write_text(json.dumps(report, indent=1) + "\n", "utf-8")
    return choice
