"""The XBRL-fact ranker: a figure question finds the chunk displaying the fact it names."""

from __future__ import annotations

from datetime import date

from edgar_rag.domain import FactRef
from edgar_rag.question.words import query_terms
from edgar_rag.retrieve.facts import concept_words, named_fact_chunk, rank_fact_chunks
from edgar_rag.retrieve.fuse import fuse_rankings

END = date(2025, 9, 27)
FACTS = [
    FactRef("us-gaap:NetCashProvidedByUsedInOperatingActivities", 10, END, False),
    FactRef("us-gaap:NetCashProvidedByUsedInInvestingActivities", 11, END, False),
    FactRef("us-gaap:Revenues", 12, date(2024, 9, 28), False),
    FactRef("us-gaap:Revenues", 13, END, True),
    FactRef("us-gaap:Revenues", 14, END, False),
    FactRef("us-gaap:PaymentsToAcquirePropertyPlantAndEquipment", 15, END, False),
]


def ranked(question: str) -> list[int]:
    return [chunk for chunk, _ in rank_fact_chunks(query_terms(question), FACTS, END, 10)]


def test_concept_names_split_into_words() -> None:
    assert concept_words("us-gaap:NetCashProvidedByUsedInOperatingActivities") == frozenset(
        {"cash", "provi", "used", "opera", "activ"}
    )


def test_a_figure_question_ranks_the_chunk_of_the_fact_it_names_first() -> None:
    assert ranked("What was net cash provided by operating activities in fiscal 2025?")[0] == 10


def test_the_filing_s_own_undimensioned_fact_comes_before_others() -> None:
    assert ranked("What were total revenues?")[:3] == [14, 12, 13]


def test_an_analyst_s_words_reach_the_taxonomy_s() -> None:
    assert ranked("How much were capital expenditures?")[0] == 15
    assert ranked("purchases of property and equipment")[0] == 15
    assert ranked("Apple net sales FY25")[0] == 14


def test_a_prose_question_gets_no_fact_ranking() -> None:
    assert ranked("How does Apple describe competition in its markets?") == []


def test_a_weighted_ranking_counts_more_in_the_fusion() -> None:
    fused = fuse_rankings([[1, 2], [], [2, 1]], k=60, weights=(1.0, 1.0, 2.0))
    assert [item for item, _ in fused] == [2, 1]


def test_a_hyphenated_word_matches_a_concept_as_its_parts() -> None:
    debt = [FactRef("us-gaap:LongTermDebtNoncurrent", 20, END, False)]
    terms = query_terms("Apple long-term debt as of FY25 year end")
    assert rank_fact_chunks(terms, debt, END, 5, 0.5) == rank_fact_chunks(
        ["long", "term", "debt"], debt, END, 5, 0.5
    )
    assert rank_fact_chunks(terms, debt, END, 5, 0.5)


def test_the_fact_a_question_names_outright_is_found_whole() -> None:
    """Every word of the concept, said or meant (``buybacks`` is a payment to repurchase common
    stock), of the filing's own period and undimensioned; else nothing."""
    equity = [
        FactRef("us-gaap:CommonStockSharesIssued", 30, END, False),
        FactRef("us-gaap:PaymentsForRepurchaseOfCommonStock", 31, date(2024, 9, 28), False),
        FactRef("us-gaap:PaymentsForRepurchaseOfCommonStock", 32, END, True),
        FactRef("us-gaap:PaymentsForRepurchaseOfCommonStock", 33, END, False),
    ]
    assert named_fact_chunk(query_terms("Apple stock buybacks in fiscal 2025"), equity, END) == 33
    assert named_fact_chunk(query_terms("common stock issued"), equity, END) is None
    assert named_fact_chunk(query_terms("Apple's risk factors"), FACTS, END) is None


def test_a_pdf_statement_row_is_matched_by_its_label() -> None:
    rows = [
        FactRef("", 40, END, False, "Net cash provided by operating activities"),
        FactRef("", 41, END, False, "Operating expenses: Cost of sales"),
        FactRef("", 42, END, False, "Net sales"),
    ]
    terms = query_terms("What was the cost of sales in FY2025?")

    assert next(chunk for chunk, _ in rank_fact_chunks(terms, rows, END, 5, 0.5)) == 41
    assert named_fact_chunk(query_terms("net sales in FY2025"), rows, END) == 42
    assert rank_fact_chunks(query_terms("operating activities cash"), rows, END, 5)[0][0] == 40
