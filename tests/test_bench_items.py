"""The Item segmentation scores: pure functions on small, hand-made Item lists."""

from __future__ import annotations

from pathlib import Path

import pytest

from edgar_rag.domain import Section
from edgar_rag_dev.bench.items import (
    EXPECTED,
    PARSERS,
    PDF_FOLDER,
    FoundItem,
    Segmentation,
    Summary,
    choose,
    implausible_items,
    in_item_order,
    item_parts,
    keep_longest,
    render_markdown,
    run_pdfs,
    score_items,
    summarise,
)


def _all_items_in_order(length_chars: int = 5000) -> list[FoundItem]:
    return [FoundItem(key, length_chars, position * 10) for position, key in enumerate(EXPECTED)]


def _summary(*, mean_found: float, all_items: int, seconds: float, implausible: int = 0) -> Summary:
    return Summary(24, mean_found, all_items, 23, implausible, 0, 0, seconds)


def test_a_full_filing_in_order_scores_23_with_nothing_missing() -> None:
    score = score_items(_all_items_in_order(), document_chars=1_000_000)

    assert (score.found, score.missing, score.in_order, score.implausible) == (23, (), True, ())


def test_a_missing_item_is_named_and_an_out_of_order_one_breaks_the_order() -> None:
    items = [item for item in _all_items_in_order() if item.key != "1B"]
    items[0] = FoundItem("1", 5000, position=999)

    score = score_items(items, document_chars=1_000_000)

    assert score.found == 22
    assert score.missing == ("1B",)
    assert score.in_order is False


def test_order_ignores_items_without_a_position_and_needs_two_placed() -> None:
    assert in_item_order([FoundItem("7", 10, 50), FoundItem("1", 10, None)]) is None
    assert in_item_order([FoundItem("1", 10, 5), FoundItem("7", 10, None), FoundItem("8", 10, 9)])


def test_a_short_risk_factors_or_an_item_over_most_of_the_text_is_implausible() -> None:
    items = [
        FoundItem("1A", 1500),
        FoundItem("7", 700),
        FoundItem("8", 61_000),
    ]

    assert implausible_items(items, document_chars=100_000) == ("1A", "8")


def test_a_short_risk_factors_that_points_elsewhere_is_plausible() -> None:
    assert implausible_items([FoundItem("1A", 300, cross_reference=True)], 100_000) == ()


def test_an_item_found_twice_keeps_its_longer_text_and_is_reported() -> None:
    found = [FoundItem("8", 90), FoundItem("1", 10), FoundItem("8", 400)]

    items, duplicates = keep_longest(found)

    assert [(item.key, item.length_chars) for item in items] == [("1", 10), ("8", 400)]
    assert duplicates == ("8",)


def test_summary_counts_filings_with_all_items_errors_and_seconds() -> None:
    full = score_items(_all_items_in_order(), 1_000_000)
    empty = score_items([], 1_000_000)
    runs = [Segmentation((), 10, 0.5), Segmentation((), 0, 1.25, error="broken")]

    summary = summarise(runs, [full, empty])

    assert (summary.mean_found, summary.all_items, summary.errors) == (11.5, 1, 1)
    assert summary.total_seconds == 1.75


def test_the_choice_names_the_parser_that_finds_more_items_and_the_faster_one() -> None:
    ours = _summary(mean_found=22.0, all_items=23, seconds=8.0)
    theirs = _summary(mean_found=22.5, all_items=23, seconds=54.0)

    choice = choose(ours, theirs, ["MCD 2023"])

    assert choice.startswith("edgartools finds more Items (22.5 against 22.0")
    assert "MCD 2023" in choice
    assert "ours is 6.8 times faster" in choice
    assert choice.endswith("the choice is edgartools.")


def test_on_equal_items_the_choice_is_the_faster_parser() -> None:
    ours = _summary(mean_found=23.0, all_items=24, seconds=8.0)
    theirs = _summary(mean_found=23.0, all_items=24, seconds=54.0)

    assert choose(ours, theirs, []).endswith("so the choice is ours.")


CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"


@pytest.mark.skipif(
    not (CORPUS / PDF_FOLDER / "NETFLIX_2017_10K.pdf").is_file(),
    reason=f"the FinanceBench PDFs are not under {CORPUS}",
)
def test_a_pdf_10k_is_segmented_into_items_past_its_contents_and_page_furniture(
    tmp_path: Path,
) -> None:
    folder = tmp_path / PDF_FOLDER
    folder.mkdir(parents=True)
    (folder / "NETFLIX_2017_10K.pdf").symlink_to(CORPUS / PDF_FOLDER / "NETFLIX_2017_10K.pdf")

    [result] = run_pdfs(tmp_path)
    score, run = result.scores["ours"], result.runs["ours"]
    lengths = {item.key: item.length_chars for item in run.items}

    assert (result.ticker, result.fiscal_year) == ("NETFLIX", 2017)
    assert score.found >= 20
    assert score.in_order is True
    # The Items hold their text, not the one-line entries of the table of contents.
    assert lengths["1A"] > 20_000
    assert lengths["7"] > 20_000
    page = render_markdown([], {p: summarise([], []) for p in PARSERS}, "corpus", [result])
    assert "## PDF filings: ours" in page
    assert f"| NETFLIX | 2017 | {score.found}/23 |" in page


def test_an_item_in_two_parts_counts_once_where_its_heading_stands() -> None:
    sections = [
        Section("Item 7", "Part II", "MD&A", 0, 99),
        Section("Item 8", "Part II", "Financial Statements", 100, 199),
        Section("Item 8", "Part II", "Financial Statements", 200, 399, cross_reference=True),
    ]
    text = "x" * 100 + "Consolidated Statements of Income" + " " * 67 + "Item 8. See Item 15."
    parts = {item.key: item for item in item_parts(sections, text)}
    assert list(parts) == ["7", "8"]
    assert (parts["8"].position, parts["8"].length_chars) == (200, 298)
    assert parts["8"].cross_reference is False
