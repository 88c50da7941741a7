"""The count ranking: for "how many employees", the chunks printing a count beside the word."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from edgar_rag.index.embedders import HashingEmbedder
from edgar_rag.index.sqlite import SqliteIndex
from edgar_rag.ingest.indexer import index_filings
from edgar_rag.ingest.local import find_local_filings
from edgar_rag.question.reading import read_question
from edgar_rag.question.words import counted_noun, counting_stems
from edgar_rag.retrieve.counts import prints_count
from edgar_rag.retrieve.search import Searcher, SearchSettings

EMPLOYEES = counting_stems("employees")
SHARES = counting_stems("shares")


@pytest.mark.parametrize(
    "text",
    [
        "We had a global workforce of 67,317 employees as of December 31, 2023.",
        "As of September 27, 2025, the Company had approximately 166,000 full-time equivalent "
        "employees.",
        "The Company's employees, who work in 60 countries and territories, totaled 31,600.",
        "Total headcount | 2025: 36,000 | 2024: 29,600",
    ],
)
def test_a_count_beside_a_word_for_what_is_counted_is_printed(text: str) -> None:
    assert prints_count(text, EMPLOYEES)


@pytest.mark.parametrize(
    "text",
    [
        "Our global workforce was 78% male and 21% female; 6% of employees are in the U.S.",
        "We reduced headcount by approximately 10,000 employees in 2023.",
        "Severance for employees was $1,049 million.",
        "In 2023 our employees volunteered across the world.",
        "Compensation expense | 2025: 12,301 | (in millions)",
    ],
)
def test_a_percentage_a_change_an_amount_or_a_year_counts_no_one(text: str) -> None:
    assert not prints_count(text, EMPLOYEES)


def test_a_cover_page_count_is_read_past_its_par_value_and_date() -> None:
    cover = "Common Shares, $1.00 par value, outstanding as of January 31, 2024: 585,677,464"
    assert prints_count(cover, SHARES)
    assert counted_noun("How many people worked at Tesla at the end of 2024?") == "people"


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory, sample_dir: Path) -> SqliteIndex:
    index = SqliteIndex(tmp_path_factory.mktemp("counts") / "index.db")
    list(index_filings(find_local_filings([sample_dir]), index, HashingEmbedder()))
    return index


def test_a_count_question_finds_the_sentence_that_states_the_count(index: SqliteIndex) -> None:
    question = read_question("How many people did Apple employ at the end of fiscal 2025?")
    scope = index.resolve_scope(ticker="AAPL", fiscal_year=2025)
    searcher = Searcher(index, HashingEmbedder())
    without = Searcher(index, HashingEmbedder(), replace(SearchSettings(), counts=False))

    def top(engine: Searcher) -> list[str]:
        return [
            " ".join(hit.passage.chunk.text.split()) for hit in engine.search(question, scope, 4)
        ]

    stated = "approximately 166,000 full-time equivalent employees"
    assert any(stated in text for text in top(searcher))
    assert not any(stated in text for text in top(without))


def test_a_count_named_in_another_word_is_found_by_the_words_that_count_the_same(
    index: SqliteIndex,
) -> None:
    """ "Total headcount at year-end" shares no word with "... 166,000 ... employees": the count
    ranking also searches the words that count the same thing. (The hashing embedder's dense
    ranking, noise to this question, is left out.)"""
    question = read_question("What was Apple's total headcount at year-end fiscal 2025?")
    scope = index.resolve_scope(ticker="AAPL", fiscal_year=2025)
    settings = replace(SearchSettings(), dense=False)
    hits = Searcher(index, HashingEmbedder(), settings).search(question, scope, 4)
    stated = "approximately 166,000 full-time equivalent employees"
    assert any(stated in " ".join(hit.passage.chunk.text.split()) for hit in hits)


@pytest.mark.parametrize(
    ("question", "sections"),
    [
        ("How many Visa class A shares were outstanding according to the cover of its 10-K?",
         {"Cover"}),
        ("What does Apple say about competition in its risk factors?", {"Item 1A"}),
        ("Based on the information provided in the cash flow statement, what is capex?",
         {"Item 8", "Item 15"}),
        ("What risk factors does Apple name?", set()),
        ("How much revenue did Apple report in fiscal 2025?", set()),
    ],
)  # fmt: skip
def test_a_question_pointing_where_to_read_names_its_items(
    question: str, sections: set[str]
) -> None:
    assert read_question(question).sections == sections


def test_a_question_pointing_to_the_cover_is_answered_from_it(index: SqliteIndex) -> None:
    question = read_question(
        "How many shares of common stock were outstanding according to the cover page?"
    )
    scope = index.resolve_scope(ticker="AAPL", fiscal_year=2025)
    searcher = Searcher(index, HashingEmbedder())
    without = Searcher(index, HashingEmbedder(), replace(SearchSettings(), sections=False))

    def items(engine: Searcher) -> list[str]:
        return [hit.passage.chunk.item for hit in engine.search(question, scope, 4)]

    assert items(searcher)[0] == "Cover"
    assert items(without)[0] != "Cover"
    assert items(searcher).count("Cover") > items(without).count("Cover")
