"""The metric library loads, names real concepts, and finds metrics by how analysts say them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from edgar_rag.errors import ConfigError
from edgar_rag.figures.formula import Dimension
from edgar_rag.figures.library import PeriodKind, ResultUnit, load_library

CORPUS_CONCEPTS = Path(__file__).parent / "data" / "figures" / "corpus_concepts.txt"
"""Every us-gaap concept of build/corpus.db's facts (``SELECT DISTINCT concept``)."""

ISSUE_METRICS = (
    "gross_margin operating_margin net_margin ebitda_margin revenue_growth net_income_growth "
    "eps_growth revenue_cagr_2y free_cash_flow ebitda effective_tax_rate current_ratio "
    "quick_ratio working_capital debt_to_equity return_on_assets return_on_equity "
    "asset_turnover fixed_asset_turnover inventory_turnover days_sales_outstanding "
    "days_inventory_outstanding days_payable_outstanding cash_conversion_cycle "
    "capex_to_revenue payout_ratio retention_ratio interest_coverage total_debt_change"
).split()


def test_every_metric_the_issue_lists_is_in_the_library_and_parses() -> None:
    library = load_library()
    assert set(ISSUE_METRICS) <= set(library.metrics)
    for metric in library.metrics.values():
        assert metric.synonyms, metric.key
        assert metric.formula is not None


def test_every_concept_is_one_the_corpus_uses_or_a_us_gaap_alternate() -> None:
    seen = set(CORPUS_CONCEPTS.read_text(encoding="utf-8").split())
    library = load_library()
    for item in library.items.values():
        assert item.concepts, item.key
        assert set(item.concepts) <= seen, item.key
        for alternate in item.alternates:
            assert re.fullmatch(r"us-gaap:[A-Z][A-Za-z]+", alternate), alternate
            assert alternate not in item.concepts
        assert item.rows, item.key
        assert item.synonyms, item.key


def test_balances_are_instants_and_flows_durations() -> None:
    items = load_library().items
    assert items["inventory"].period is PeriodKind.INSTANT
    assert items["revenue"].period is PeriodKind.DURATION
    assert items["diluted_eps"].unit is Dimension.USD_PER_SHARE
    assert items["capex"].outflow
    assert not items["revenue"].outflow


@pytest.mark.parametrize(
    ("text", "metric"),
    [
        ("What was Home Depot's gross margin in fiscal 2024?", "gross_margin"),
        ("What is the FY2022 unadjusted EBITDA % margin for PepsiCo?", "ebitda_margin"),
        ("What is PepsiCo's unadjusted EBITDA for FY2022?", "ebitda"),
        ("Compare Apple's and NVIDIA's R&D as a share of revenue", "rd_to_revenue"),
        ("What is Walmart's DPO for fiscal 2025?", "days_payable_outstanding"),
        ("How did Apple's revenue grow? Give the revenue growth rate", "revenue_growth"),
    ],
)
def test_a_metric_is_found_by_its_longest_synonym(text: str, metric: str) -> None:
    found = load_library().find_metric(text)
    assert found is not None
    assert found.key == metric


def test_a_question_naming_no_metric_finds_none() -> None:
    assert load_library().find_metric("Who is Apple's chief executive?") is None


def test_line_items_are_found_by_analysts_phrases() -> None:
    library = load_library()
    assert library.item_named("COGS") is library.items["cost_of_revenue"]
    assert library.item_named("PP&E") is library.items["ppe_net"]
    assert library.item_named("Merchandise inventories") is library.items["inventory"]
    assert library.item_named("goodwill") is None


def test_a_metric_whose_formula_mixes_units_does_not_load() -> None:
    text = """
[items.revenue]
label = "revenue"
statement = "income"
period = "duration"
unit = "usd"
concepts = ["us-gaap:Revenues"]
[items.diluted_eps]
label = "diluted EPS"
statement = "income"
period = "duration"
unit = "usd_per_share"
concepts = ["us-gaap:EarningsPerShareDiluted"]
[metrics.nonsense]
name = "nonsense"
formula = "revenue + diluted_eps"
unit = "usd"
"""
    with pytest.raises(ConfigError, match="nonsense"):
        load_library(text)


@pytest.mark.parametrize(
    ("formula", "unit", "why"),
    [
        ("revenue / cost", "ratio", "unknown line item"),
        ("revenue /", "ratio", "ends too soon"),
        ("revenue", "percent", "measures usd"),
    ],
)
def test_a_bad_metric_is_refused_naming_it(formula: str, unit: str, why: str) -> None:
    text = f"""
[items.revenue]
label = "revenue"
statement = "income"
period = "duration"
unit = "usd"
concepts = ["us-gaap:Revenues"]
[metrics.broken]
name = "broken"
formula = "{formula}"
unit = "{unit}"
"""
    with pytest.raises(ConfigError, match=why):
        load_library(text)
    assert ResultUnit(unit)


def test_an_assessment_names_the_line_items_it_is_judged_from() -> None:
    library = load_library()
    items = library.find_assessed_items("Is 3M a capital-intensive business based on FY2022?")
    assert [item.key for item in items] == ["capex", "ppe_net", "total_assets", "revenue"]
    assert library.find_metric("Is 3M a capital-intensive business?") is None
    assert library.find_assessed_items("What was 3M's total capital?") == []


def test_an_assessment_of_an_unknown_line_item_is_refused_naming_it() -> None:
    text = """
[assessments.vague]
phrases = ["vague"]
items = ["revenue"]
"""
    with pytest.raises(ConfigError, match="vague"):
        load_library(text)
