"""A part of the company (a segment, a product, a region) named by a question's words and read
from its XBRL facts alone."""

from __future__ import annotations

from datetime import date

import pytest

from edgar_rag.domain import Fact, FigureSource
from edgar_rag.figures.parts import find_part, part_name
from edgar_rag.figures.resolve import FilingFigures, part_view

SEGMENTS = "us-gaap:StatementBusinessSegmentsAxis"
OF_SEGMENTS = ("srt:ConsolidationItemsAxis", "us-gaap:OperatingSegmentsMember")


def _fact(
    value: float, *dimensions: tuple[str, str], source: FigureSource = FigureSource.XBRL
) -> Fact:
    return Fact(
        concept="us-gaap:Revenues", value=value, displayed=f"{value:,.0f}", unit="usd",
        decimals=-6, period_start=date(2024, 1, 1), period_end=date(2024, 12, 31),
        dimensions=dimensions, offset=0, chunk_ordinal=1, source=FigureSource.XBRL,
    )  # fmt: skip


FACTS = [
    _fact(100.0),
    _fact(60.0, OF_SEGMENTS, (SEGMENTS, "acme:GreaterChinaSegmentMember")),
    _fact(40.0, (SEGMENTS, "acme:DataCenterMember")),
    _fact(7.0, ("srt:ProductOrServiceAxis", "acme:IPhoneMember")),
    _fact(3.0, ("us-gaap:FairValueByFairValueHierarchyLevelAxis", "us-gaap:ChinaMember")),
    _fact(2.0, ("us-gaap:StatementClassOfStockAxis", "goog:CapitalClassCMember")),
    _fact(9.0, ("srt:ProductOrServiceAxis", "acme:AmazonWebServicesMember")),
    _fact(
        5.0, ("srt:ProductOrServiceAxis", "acme:NetworkMember"), (SEGMENTS, "acme:ServicesMember")
    ),
]


@pytest.mark.parametrize(
    ("member", "name"),
    [
        ("aapl:GreaterChinaSegmentMember", "Greater China"),
        ("nvda:DataCenterMember", "Data Center"),
        ("mcd:InternationalOperatedMarketsMember", "International Operated Markets"),
        ("country:CN", "China"),
        ("goog:CapitalClassCMember", "Class C"),
        ("v:CommonClassB1Member", "Class B-1"),
    ],
)
def test_a_member_is_named_as_a_sentence_would(member: str, name: str) -> None:
    assert part_name(member) == name


@pytest.mark.parametrize(
    ("words", "text", "member", "said"),
    [
        (("greater", "china"), "Greater China net sales?", "acme:GreaterChinaSegmentMember",
         "Greater China"),
        (("center",), "What did the Data Center earn?", "acme:DataCenterMember", "Data Center"),
        (("iphone", "segment"), "iPhone segment revenue", "acme:IPhoneMember", "iPhone"),
        (("class", "c", "stock"), "diluted EPS per share of Class C stock",
         "goog:CapitalClassCMember", "Class C"),
        (("aws",), "What was AWS's revenue?", "acme:AmazonWebServicesMember", "AWS"),
        (("network",), "Network revenue within its segment", "acme:NetworkMember", "Network"),
    ],
)  # fmt: skip
def test_the_questions_words_name_the_part_the_filing_tags(
    words: tuple[str, ...], text: str, member: str, said: str
) -> None:
    part = find_part(words, text, FACTS)
    assert part is not None
    assert (part.member, part.name) == (member, said)


def test_words_beyond_the_parts_name_or_an_axis_of_no_part_name_none() -> None:
    assert find_part(("greater", "china", "stores"), "Greater China stores", FACTS) is None
    assert find_part(("china",), "China revenue", FACTS) is None  # a fair-value level's member
    assert find_part(("europe",), "Europe revenue", FACTS) is None


def test_a_parts_view_holds_its_tagged_facts_alone_as_the_companys() -> None:
    part = find_part(("greater", "china"), "Greater China", FACTS)
    assert part is not None
    view = part_view(FilingFigures(1, None, FACTS), part)  # type: ignore[arg-type]
    assert [(fact.value, fact.dimensions) for fact in view.facts] == [(60.0, ())]


def test_a_part_named_by_its_initials_is_the_segment_over_a_product_line_of_its_name() -> None:
    """ "AWS": Amazon Web Services, tagged as a segment and as a product line; the segment."""
    facts = [
        _fact(107.0, OF_SEGMENTS, (SEGMENTS, "amzn:AmazonWebServicesSegmentMember")),
        _fact(107.0, ("srt:ProductOrServiceAxis", "amzn:AmazonWebServicesMember")),
    ]
    part = find_part((), "What share of net sales came from AWS?", facts, ("amazon",))
    assert part is not None
    assert (part.member, part.name) == ("amzn:AmazonWebServicesSegmentMember", "AWS")
