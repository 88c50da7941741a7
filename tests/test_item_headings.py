"""Choosing Item headings among candidates: the run that rising Item order and the text that
follows each heading support, past a table of contents and stray cross-references."""

from __future__ import annotations

from edgar_rag.ingest.blocks import Block, join_blocks
from edgar_rag.ingest.items import find_item_headings

PROSE = "The company makes packaging for food and medicine in forty countries. " * 40


def _headings(texts: list[str]) -> list[tuple[int, str]]:
    blocks = [Block(text) for text in texts]
    _, starts = join_blocks(blocks)
    return [(heading.block_index, heading.key) for heading in find_item_headings(blocks, starts)]


def test_the_body_s_headings_win_over_contents_entries_and_a_reference_in_the_text() -> None:
    texts = [
        # A table of contents whose entries are not a table and carry no page numbers (Pfizer's
        # "ITEM 1B. UNRESOLVED STAFF COMMENTS N/A"), for Items the body never heads.
        "ITEM 1. BUSINESS",
        "ITEM 1A. RISK FACTORS",
        "ITEM 1B. UNRESOLVED STAFF COMMENTS N/A",
        "ITEM 2. PROPERTIES",
        "ITEM 3. LEGAL PROCEEDINGS",
        "ITEM 4. MINE SAFETY DISCLOSURES N/A",
        "ITEM 1. BUSINESS",
        PROSE,
        "ITEM 1A. RISK FACTORS",
        PROSE,
        # A paragraph that opens with a cross-reference, followed by as much text as a heading.
        "Item 1 of this report). Divestiture loss totaled $54 million in fiscal 2021.",
        PROSE,
        "ITEM 3. LEGAL PROCEEDINGS",
        PROSE,
        "ITEM 5. MARKET FOR REGISTRANT'S COMMON EQUITY",
        PROSE,
    ]

    assert _headings(texts) == [(6, "1"), (8, "1A"), (12, "3"), (14, "5")]


def test_short_items_between_long_ones_are_kept() -> None:
    texts = [
        "Item 1. Business",
        PROSE,
        "Item 1A. Risk Factors",
        PROSE,
        "Item 1B. Unresolved Staff Comments",
        "None.",
        "Item 2. Properties",
        PROSE,
    ]

    assert [key for _, key in _headings(texts)] == ["1", "1A", "1B", "2"]
