"""Naming a filing that only its file name and cover page name: the registrant's name on the
cover, FinanceBench's document list, and a CIK and ticker from edgartools' list of companies."""

from __future__ import annotations

import io
import json
import shutil
from dataclasses import replace
from pathlib import Path

import pypdfium2
import pytest

from edgar_rag.domain import FilingHints, FilingMeta, SourceFormat
from edgar_rag.index.embedders import HashingEmbedder
from edgar_rag.index.sqlite import SqliteIndex
from edgar_rag.ingest.indexer import Outcome, index_filings
from edgar_rag.ingest.local import find_local_filings, name_from_cover
from edgar_rag.ingest.pipeline import ingest_filing
from edgar_rag.ingest.plain import read_cover_name, registrant_name
from edgar_rag.ingest.registrants import CompanyList, Registrant
from edgar_rag.question.companies import CompanyDirectory, company_guard
from edgar_rag.rules import company_key

PDFS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "financebench" / "pdfs"
needs_corpus = pytest.mark.skipif(
    not (PDFS / "BESTBUY_2019_10K.pdf").is_file(),
    reason=f"the FinanceBench PDFs are not at {PDFS}",
)
NBSP = "\xa0"

# Lines as PDFium extracts them from the first pages of FinanceBench PDFs.
BEST_BUY_2019 = [
    "o TRANSITION REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934",
    f"For{NBSP}the{NBSP}transition{NBSP}period{NBSP}from{NBSP * 27}to{NBSP * 31}",
    f"Commission{NBSP}file{NBSP}number{NBSP}{NBSP}1-9595",
    "______________________________________________________________ BEST BUY CO., INC.",
    f"(Exact{NBSP}name{NBSP}of{NBSP}registrant{NBSP}as{NBSP}specified{NBSP}in{NBSP}its{NBSP}charter)",
    "Minnesota 41-0907483",
    "",
    f"Unless{NBSP}the{NBSP}context{NBSP}otherwise{NBSP}requires,{NBSP}the{NBSP}terms{NBSP}"
    f'"we,"{NBSP}"us"{NBSP}and{NBSP}"our"{NBSP}in{NBSP}this{NBSP}Annual{NBSP}Report{NBSP}on'
    f"{NBSP}Form{NBSP}10-K{NBSP}refer{NBSP}to{NBSP}Best{NBSP}Buy{NBSP}Co.,{NBSP}Inc.{NBSP}and,",
]
SQUARE_2016 = (  # PDFium reads this cover one word a line
    "OF 1934 For the transition period from to Commission File Number 001-37622 SQUARE, INC. "
    "(Exact name of registrant as specified in its charter) Delaware 80-0429876"
).split()
WALMART_2020 = [
    "☐ Transition report pursuant to section 13 or 15(d) of the Securities Exchange Act of 1934",
    "Commission file number 001-6991. ___________________________________________ WALMART INC.",
    "(Exact name of registrant as specified in its charter) ___________________________ DE "
    "71-0415188",
    "(State or other jurisdiction of",
]
THREE_M_2018 = [  # no "(Exact name of registrant ...)" under the name
    "For the fiscal year ended December 31, 2018",
    "Commission file number 1-3285",
    "3M COMPANY",
    "State of Incorporation: Delaware I.R.S. Employer Identification No. 41-0417775",
    "",
    "3M Company was incorporated in 1929 under the laws of the State of Delaware.",
]
NIKE_2018 = [
    "Commission File No. 1-10635",
    "NIKE, Inc .",
    "(Exact name of Registrant as specified in its charter)",
]
MGM_2018 = [  # the name in small capitals: each larger initial read apart
    " Commission",
    "File",
    "No.",
    "001-10362",
    "MGM",
    "R",
    "ESORTS I",
    "NTERNATIONAL",
    "(Exact name of Registrant as specified in its charter)",
    "MGM Resorts International and its subsidiaries",
]


@pytest.mark.parametrize(
    ("lines", "name"),
    [
        (BEST_BUY_2019, "Best Buy Co., Inc."),
        (SQUARE_2016, "SQUARE, INC."),
        (WALMART_2020, "WALMART INC."),
        (THREE_M_2018, "3M Company"),
        (NIKE_2018, "NIKE, Inc."),
        (MGM_2018, "MGM Resorts International"),
        (
            ["Example Corp", "(Exact name of registrant as specified in its charter)"],
            "Example Corp",
        ),
    ],
)
def test_the_cover_names_the_registrant(lines: list[str], name: str) -> None:
    assert registrant_name("\n".join(lines)) == name


@pytest.mark.parametrize(
    "lines",
    [
        [],
        ["FORM 10-K", "Item 1. Business", "We make things."],
        ["Commission file number 1-3285", "(State or other jurisdiction of incorporation)"],
        ["(Exact name of registrant as specified in its charter)", "Delaware"],
    ],
)
def test_a_cover_that_names_no_one_gives_no_name(lines: list[str]) -> None:
    assert registrant_name("\n".join(lines)) is None


def _blank_pdf() -> bytes:
    document = pypdfium2.PdfDocument.new()
    document.new_page(612, 792)
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def test_a_plain_text_cover_names_the_registrant() -> None:
    text = (
        "FORM 10-K\n\nCommission file number 1-5231\n\n          McDONALD’S CORPORATION\n"
        "     (Exact name of registrant as specified in its charter)\n"
    )
    assert read_cover_name(text.encode(), SourceFormat.TEXT) == "McDONALD’S CORPORATION"


def test_an_unreadable_file_has_no_cover_name() -> None:
    assert read_cover_name(_blank_pdf(), SourceFormat.PDF) is None
    assert read_cover_name(b"%PDF-1.4 this is not really a pdf", SourceFormat.PDF) is None
    assert read_cover_name(b"\x00\x01binary", SourceFormat.TEXT) is None
    assert read_cover_name(b"<html><body>APPLE INC.</body></html>", SourceFormat.HTML) is None


def test_names_compare_without_case_punctuation_or_legal_form() -> None:
    assert company_key("Best Buy Co., Inc.") == company_key("BEST BUY CO INC") == ("best", "buy")
    assert company_key("The Boeing Company") == company_key("BOEING CO") == ("boeing",)
    assert company_key("Costco Wholesale Corporation") == company_key("COSTCO WHOLESALE CORP /NEW")
    assert company_key("Johnson & Johnson") == ("johnson", "&", "johnson")


def test_only_a_name_of_one_company_gives_its_cik_and_ticker() -> None:
    listing = CompanyList(
        [
            ("BEST BUY CO INC", "BBY", 764478),
            ("BOEING CO", "BA", 12927),
            ("BOEING CO", "BA-PA", 12927),
            ("Acme Corp", "ACME", 1),
            ("ACME INC", "ACM", 2),
        ]
    )
    assert listing.identify("Best Buy Co., Inc.") == Registrant(764478, "BBY")
    assert listing.identify("The Boeing Company") == Registrant(12927, "BA")
    assert listing.identify("Acme, Inc.") is None
    assert listing.identify("BESTBUY") is None


def test_a_text_filing_without_a_cover_name_keeps_its_file_name(tmp_path: Path) -> None:
    filing = tmp_path / "ACME_2020_10K.txt"
    filing.write_text("FORM 10-K\n\nItem 1. Business\n\nWe make anvils. We sell them.\n")
    (local,) = find_local_filings([filing])
    parsed = ingest_filing(local.load())
    assert (parsed.meta.company, parsed.meta.fiscal_year) == ("ACME", 2020)


def test_a_pdf_without_text_falls_back_to_its_financebench_names(tmp_path: Path) -> None:
    pdfs = tmp_path / "financebench" / "pdfs"
    pdfs.mkdir(parents=True)
    (pdfs / "BESTBUY_2019_10K.pdf").write_bytes(_blank_pdf())
    (pdfs / "GENERALMILLS_2019_10K.pdf").write_bytes(b"%PDF-1.4 this is not really a pdf")
    documents = [
        {"doc_name": "BESTBUY_2019_10K", "company": "Best Buy", "doc_period": 2019},
        "not a document",
    ]
    (tmp_path / "financebench" / "financebench_document_information.jsonl").write_text(
        "\n".join(json.dumps(d) for d in documents) + "\n{broken\n"
    )
    listing = CompanyList([("BEST BUY CO INC", "BBY", 764478)])
    best_buy, general_mills = (f.load().hints for f in find_local_filings([pdfs], listing))
    assert (best_buy.company, best_buy.cik, best_buy.ticker) == ("Best Buy", 764478, "BBY")
    assert (general_mills.company, general_mills.cik, general_mills.fiscal_year) == (
        "GENERALMILLS",
        None,
        2019,
    )


def test_a_manifest_names_its_filings_as_it_says(sample_dir: Path) -> None:
    listing = CompanyList([("APPLE INC", "ZZZZ", 1)])
    filings = find_local_filings([sample_dir / "filings"], listing)
    apple = next(f for f in filings if f.hints.ticker == "AAPL").load().hints
    assert (apple.company, apple.ticker, apple.cik) == ("Apple Inc.", "AAPL", 320193)


@needs_corpus
def test_a_renamed_filer_takes_its_cik_from_the_financebench_name() -> None:
    content = (PDFS / "BLOCK_2016_10K.pdf").read_bytes()
    listing = CompanyList.from_edgartools()
    hints = name_from_cover(content, FilingHints(company="Block", fiscal_year=2016), listing)
    assert (hints.company, hints.cik) == ("SQUARE, INC.", 1512673)


@needs_corpus
def test_a_financebench_pdf_is_named_by_its_cover_and_the_guard_knows_it(tmp_path: Path) -> None:
    folder = tmp_path / "pdfs"
    folder.mkdir()
    shutil.copy(PDFS / "BESTBUY_2019_10K.pdf", folder)
    index = SqliteIndex(tmp_path / "index.db")
    sources = find_local_filings([folder], CompanyList.from_edgartools())
    (result,) = index_filings(sources, index, HashingEmbedder())
    assert result.outcome is Outcome.INDEXED, result.reason
    (summary,) = index.filings()
    meta = index.filing_meta(summary.filing_id)
    assert (meta.company, meta.ticker, meta.cik, meta.fiscal_year) == (
        "Best Buy Co., Inc.",
        "BBY",
        764478,
        2019,
    )
    directory = CompanyDirectory.from_edgartools([(meta.company, meta.ticker, meta.cik)])
    index.close()
    for question in (
        "What was Best Buy's revenue in FY2019?",
        "How many stores did Best Buy Co., Inc. operate at the end of fiscal 2019?",
        "What was BBY's operating income in FY2019?",
    ):
        assert guard(question, meta, directory) is None, question
    assert guard("What was Walmart's revenue in FY2019?", meta, directory)
    by_file_name = replace(meta, company="BESTBUY", ticker=None, cik=None)
    before = CompanyDirectory.from_edgartools([("BESTBUY", None, None)])
    assert guard("What was Best Buy's revenue in FY2019?", by_file_name, before)


def guard(question: str, filing: FilingMeta, directory: CompanyDirectory) -> str | None:
    """The company guard on the companies ``directory`` finds in ``question``."""
    return company_guard(question, directory.find(question), filing)
