"""A PDF's primary statements placed in Item 8 when its Item headings put them elsewhere.

Many annual reports print Item 8 as a pointer ("See Item 15", an index of F-pages) and the
statements after Item 15 or 16 (Corning, Netflix, Activision), or inside the MD&A's span
(PepsiCo); others repeat "Item 8" as a running header, so the first heading found falls after
the statements and they land in Item 7A (Microsoft). The statements were located by their
titles, so their place is known: from the first primary statement's title on, the section that
holds it is Item 8. Measured on the 36 FinanceBench PDFs: 9 had their statements in another
Item (docs/financebench.md).

Pure: sections and blocks in, sections out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from edgar_rag.domain import Section
from edgar_rag.ingest.blocks import Block, normalise_space
from edgar_rag.ingest.statements import StatementKind, StatementPage

_PRIMARY = (StatementKind.INCOME, StatementKind.BALANCE, StatementKind.CASH_FLOW)
_TITLE_LOOKBACK = 12
"""Blocks before a statement's first row where its title may stand (company name, period,
scale and column headers come between)."""
POINTER_CHARS = 3000
"""An Item 8 shorter than this only points to the statements (Corning's is 264 characters,
Activision's index of F-pages 906); a real one is over 100,000."""
ITEM_8 = "Item 8"


def statements_start(
    found: Sequence[StatementPage], blocks: Sequence[Block], starts: Sequence[int]
) -> int | None:
    """Where the primary statements begin in the clean text: the title of the first of them
    (of each kind, the page with the most rows); None when none was found with rows."""
    primary: dict[StatementKind, StatementPage] = {}
    for page in found:
        if page.kind not in _PRIMARY or page.page is None:
            continue
        if page.kind not in primary or page.rows > primary[page.kind].rows:
            primary[page.kind] = page
    prefixes = tuple(f"row:{page.page}." for page in primary.values())
    if not prefixes:
        return None
    titles = tuple(normalise_space(page.title).lower() for page in primary.values())
    for index, block in enumerate(blocks):
        if not any(anchor.fact_id.startswith(prefixes) for anchor in block.anchors):
            continue
        for back in range(index - 1, max(index - _TITLE_LOOKBACK, 0) - 1, -1):
            if normalise_space(blocks[back].text).lower().startswith(titles):
                return starts[back]
        return starts[index]
    return None


def place_statements_in_item_8(sections: Sequence[Section], start: int) -> list[Section]:
    """``sections`` with the primary statements, from ``start``, in Item 8: when Item 8 is the
    next section, it starts at ``start`` instead; else, when the filing's Item 8 only points to
    the statements (before them or after), the section holding ``start`` ends before it and the
    rest of that section becomes Item 8. Unchanged when the statements are in Item 8, or the
    filing heads no Item 8."""
    holding = next((i for i, s in enumerate(sections) if s.start <= start <= s.end), None)
    item_8 = next((i for i, s in enumerate(sections) if s.item == ITEM_8), None)
    if holding is None or item_8 is None or sections[holding].item == ITEM_8:
        return list(sections)
    placed = list(sections)
    section, pointer = sections[holding], sections[item_8]
    if start == section.start:
        return placed
    if item_8 == holding + 1:
        placed[holding] = replace(section, end=start - 1)
        placed[item_8] = replace(pointer, start=start)
        return placed
    if not (pointer.cross_reference or pointer.end - pointer.start < POINTER_CHARS):
        return placed
    statements = Section(ITEM_8, pointer.part, pointer.title, start, section.end)
    placed[holding : holding + 1] = [replace(section, end=start - 1), statements]
    return placed
