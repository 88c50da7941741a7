"""The 10-K's Parts and Items, kept as data, and the search for their headings among blocks.

Form 10-K (General Instructions, as amended through 2023) fixes the Items below; Item 1C
(cybersecurity) exists for fiscal years ending on or after 2023-12-15 and Item 9C since 2022.
A heading can appear three times: in the table of contents, as the real heading, and in
cross-references ("see Part I, Item 1A"). The real one is told apart by what follows it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from edgar_rag.ingest.blocks import Block

ITEMS: dict[str, tuple[str, str]] = {
    "1": ("Part I", "Business"),
    "1A": ("Part I", "Risk Factors"),
    "1B": ("Part I", "Unresolved Staff Comments"),
    "1C": ("Part I", "Cybersecurity"),
    "2": ("Part I", "Properties"),
    "3": ("Part I", "Legal Proceedings"),
    "4": ("Part I", "Mine Safety Disclosures"),
    "5": (
        "Part II",
        "Market for Registrant's Common Equity, Related Stockholder Matters and Issuer "
        "Purchases of Equity Securities",
    ),
    "6": ("Part II", "[Reserved]"),
    "7": (
        "Part II",
        "Management's Discussion and Analysis of Financial Condition and Results of Operations",
    ),
    "7A": ("Part II", "Quantitative and Qualitative Disclosures About Market Risk"),
    "8": ("Part II", "Financial Statements and Supplementary Data"),
    "9": (
        "Part II",
        "Changes in and Disagreements with Accountants on Accounting and Financial Disclosure",
    ),
    "9A": ("Part II", "Controls and Procedures"),
    "9B": ("Part II", "Other Information"),
    "9C": ("Part II", "Disclosure Regarding Foreign Jurisdictions that Prevent Inspections"),
    "10": ("Part III", "Directors, Executive Officers and Corporate Governance"),
    "11": ("Part III", "Executive Compensation"),
    "12": (
        "Part III",
        "Security Ownership of Certain Beneficial Owners and Management and "
        "Related Stockholder Matters",
    ),
    "13": ("Part III", "Certain Relationships and Related Transactions, and Director Independence"),
    "14": ("Part III", "Principal Accountant Fees and Services"),
    "15": ("Part IV", "Exhibits and Financial Statement Schedules"),
    "16": ("Part IV", "Form 10-K Summary"),
}
ITEM_ORDER = {key: index for index, key in enumerate(ITEMS)}

ITEM_HEADING = re.compile(
    r"^(?:part\s+(?:i{1,3}|iv)\s*[,.:\-–—]?\s*)?item\s*(\d{1,2}\s?[a-c]?)\s*(?:[.:\-–—]\s*|\s+|$)(.*)$",
    re.IGNORECASE,
)
_TRAILING_PAGE = re.compile(r"\s+(?:\d{1,3}|[A-Z]-\d{1,3})$")
_CROSS_REFERENCE = re.compile(
    r"incorporated\s+(?:herein\s+)?by\s+reference|information\s+(?:required\s+by|in\s+response\s+to)"
    r"\s+this\s+item|can\s+be\s+found\s+in|is\s+(?:included|set\s+forth)\s+in",
    re.IGNORECASE,
)
_CONTENTS_ROW = re.compile(r"(?:page:?\s*)?(?:\d{1,3}|[A-Z]-\d{1,3})$", re.IGNORECASE)
_MAX_HEADING_CHARS = 250
CROSS_REFERENCE_MAX_CHARS = 2500


@dataclass(frozen=True, slots=True)
class ItemHeading:
    """A block chosen as the heading of an Item."""

    block_index: int
    key: str
    title: str

    @property
    def item(self) -> str:
        return f"Item {self.key}"

    @property
    def part(self) -> str:
        return ITEMS[self.key][0]


def _candidate(block: Block, next_block: Block | None) -> tuple[str, str] | None:
    match = ITEM_HEADING.match(block.text)
    if match is None or block.in_link:
        return None
    if block.in_table and _CONTENTS_ROW.search(block.text):
        return None
    key = match.group(1).replace(" ", "").upper()
    if key not in ITEMS:
        return None
    rest = _TRAILING_PAGE.sub("", match.group(2).strip()).strip(" .:-–—|")
    canonical = ITEMS[key][1]
    if not rest and next_block is not None and len(next_block.text) < 160:
        rest = next_block.text.strip(" .:-–—")
    if len(block.text) > _MAX_HEADING_CHARS and not _starts_like(rest, canonical):
        return None
    return key, _title(rest, canonical)


def _starts_like(text: str, canonical: str) -> bool:
    first = re.findall(r"[a-z]+", canonical.lower())[:1]
    return bool(first) and text.lower().lstrip("[").startswith(first[0])


def _title(rest: str, canonical: str) -> str:
    if not rest or len(rest) > 200:
        return canonical
    if len(rest) > len(canonical) + 20 and _starts_like(rest, canonical):
        return canonical
    return rest


def find_item_headings(blocks: Sequence[Block], starts: Sequence[int]) -> list[ItemHeading]:
    """Choose one heading block per Item found, in filing order.

    Candidates are blocks that open with ``Item N``, except links and table rows ending in a
    page number (entries of a table of contents). For each Item the candidate followed by the
    most text before the next candidate wins (a table of contents entry is followed by almost
    nothing); on a tie the later one wins. The winners are then kept in Item order (the longest
    run that rises in both position and Item number), which drops stray cross-references.
    """
    candidates: list[tuple[int, str, str]] = []
    for index, block in enumerate(blocks):
        found = _candidate(block, blocks[index + 1] if index + 1 < len(blocks) else None)
        if found is not None:
            candidates.append((index, *found))
    end = starts[-1] + len(blocks[-1].text) if blocks else 0
    best: dict[str, tuple[int, int, str]] = {}
    for position, (index, key, title) in enumerate(candidates):
        following = candidates[position + 1][0] if position + 1 < len(candidates) else None
        gap = (starts[following] if following is not None else end) - starts[index]
        if key not in best or gap >= best[key][0]:
            best[key] = (gap, index, title)
    chosen = sorted((index, key, title) for key, (_, index, title) in best.items())
    ordered = _longest_rising_run(chosen)
    return [ItemHeading(index, key, title) for index, key, title in ordered]


def _longest_rising_run(chosen: list[tuple[int, str, str]]) -> list[tuple[int, str, str]]:
    if not chosen:
        return []
    length = [1] * len(chosen)
    previous = [-1] * len(chosen)
    for i in range(len(chosen)):
        for j in range(i):
            if ITEM_ORDER[chosen[j][1]] < ITEM_ORDER[chosen[i][1]] and length[j] + 1 > length[i]:
                length[i], previous[i] = length[j] + 1, j
    best = max(range(len(chosen)), key=lambda i: (length[i], i))
    run = []
    while best != -1:
        run.append(chosen[best])
        best = previous[best]
    return run[::-1]


def is_cross_reference(text: str) -> bool:
    """True for an Item whose body only points elsewhere (a proxy statement, an exhibit)."""
    return len(text) <= CROSS_REFERENCE_MAX_CHARS and bool(_CROSS_REFERENCE.search(text))
