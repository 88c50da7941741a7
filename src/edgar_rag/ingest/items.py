"""The 10-K's Parts and Items, kept as data, and the search for their headings among blocks.

Form 10-K (General Instructions, as amended through 2023) fixes the Items below; Item 1C
(cybersecurity) exists for fiscal years ending on or after 2023-12-15 and Item 9C since 2022.
A heading can appear three times: in the table of contents, as the real heading, and in
cross-references ("see Part I, Item 1A"). The real one is told apart by what follows it.

Some filers print no Item headings at all and lay the report out under their own headings, with
a "Form 10-K Cross-Reference Index" table mapping each Item to printed pages (McDonald's).
``find_indexed_items`` places those Items by the page numbers kept from the page furniture.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from edgar_rag.domain import ChunkKind
from edgar_rag.ingest.blocks import Block, PageLabel
from edgar_rag.rules import CURRENT_FORM, EARNINGS_RELEASE, QUARTERLY_FORM

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
OPTIONAL_ITEMS = frozenset({"16"})
"""Item 16 (a summary) is at the filer's option; every other Item of its years is answered,
if only with "None" or "[Reserved]"."""
ITEM_SINCE = {"1C": 2024, "9C": 2022}
"""The first fiscal year whose every 10-K has the Item: 1C for years ending on or after
2023-12-15 (2024 for any year end), 9C since 2022."""


QUARTERLY_ITEMS: dict[str, tuple[str, str]] = {
    "I-1": ("Part I", "Financial Statements"),
    "I-2": (
        "Part I",
        "Management's Discussion and Analysis of Financial Condition and Results of Operations",
    ),
    "I-3": ("Part I", "Quantitative and Qualitative Disclosures About Market Risk"),
    "I-4": ("Part I", "Controls and Procedures"),
    "II-1": ("Part II", "Legal Proceedings"),
    "II-1A": ("Part II", "Risk Factors"),
    "II-2": ("Part II", "Unregistered Sales of Equity Securities and Use of Proceeds"),
    "II-3": ("Part II", "Defaults Upon Senior Securities"),
    "II-4": ("Part II", "Mine Safety Disclosures"),
    "II-5": ("Part II", "Other Information"),
    "II-6": ("Part II", "Exhibits"),
}
"""Form 10-Q's Items, keyed by Part and number: its two Parts both start at Item 1."""
CURRENT_ITEMS: dict[str, tuple[str, str]] = {
    "1.01": ("Section 1", "Entry into a Material Definitive Agreement"),
    "1.02": ("Section 1", "Termination of a Material Definitive Agreement"),
    "1.03": ("Section 1", "Bankruptcy or Receivership"),
    "1.04": ("Section 1", "Mine Safety - Reporting of Shutdowns and Patterns of Violations"),
    "1.05": ("Section 1", "Material Cybersecurity Incidents"),
    "2.01": ("Section 2", "Completion of Acquisition or Disposition of Assets"),
    "2.02": ("Section 2", "Results of Operations and Financial Condition"),
    "2.03": ("Section 2", "Creation of a Direct Financial Obligation"),
    "2.04": ("Section 2", "Triggering Events That Accelerate or Increase a Direct Financial "
             "Obligation"),
    "2.05": ("Section 2", "Costs Associated with Exit or Disposal Activities"),
    "2.06": ("Section 2", "Material Impairments"),
    "3.01": ("Section 3", "Notice of Delisting or Failure to Satisfy a Continued Listing Rule"),
    "3.02": ("Section 3", "Unregistered Sales of Equity Securities"),
    "3.03": ("Section 3", "Material Modification to Rights of Security Holders"),
    "4.01": ("Section 4", "Changes in Registrant's Certifying Accountant"),
    "4.02": ("Section 4", "Non-Reliance on Previously Issued Financial Statements"),
    "5.01": ("Section 5", "Changes in Control of Registrant"),
    "5.02": ("Section 5", "Departure of Directors or Certain Officers; Election of Directors"),
    "5.03": ("Section 5", "Amendments to Articles of Incorporation or Bylaws"),
    "5.04": ("Section 5", "Temporary Suspension of Trading Under Employee Benefit Plans"),
    "5.05": ("Section 5", "Amendments to the Code of Ethics"),
    "5.06": ("Section 5", "Change in Shell Company Status"),
    "5.07": ("Section 5", "Submission of Matters to a Vote of Security Holders"),
    "5.08": ("Section 5", "Shareholder Director Nominations"),
    "7.01": ("Section 7", "Regulation FD Disclosure"),
    "8.01": ("Section 8", "Other Events"),
    "9.01": ("Section 9", "Financial Statements and Exhibits"),
}  # fmt: skip
"""Form 8-K's Items: a report carries only those of the events it reports."""


@dataclass(frozen=True, slots=True)
class FormItems:
    """One form's Items: their keys in the form's order, Parts and titles, which must be there,
    and how a heading writes one."""

    items: dict[str, tuple[str, str]]
    required: frozenset[str]
    heading: re.Pattern[str]
    since: dict[str, int]

    @property
    def order(self) -> dict[str, int]:
        return {key: index for index, key in enumerate(self.items)}

    def label(self, key: str) -> str:
        """The Item as a section names it: ``Item 7``, ``Part II, Item 1A``, ``Item 2.02``."""
        if "-" in key:
            part, number = key.split("-", 1)
            return f"Part {part}, Item {number}"
        return f"Item {key}"

    def key_of(self, label: str) -> str | None:
        """The inverse of ``label``; None for a section that is no Item of this form."""
        found = re.fullmatch(r"(?:Part (I{1,3}|IV), )?Item (\S+)", label)
        if found is None:
            return None
        key = f"{found.group(1)}-{found.group(2)}" if found.group(1) else found.group(2)
        return key if key in self.items else None


def form_items(form: str) -> FormItems | None:
    """The Items of a form the index holds; None for an earnings release (it has none)."""
    return {QUARTERLY_FORM: QUARTERLY, CURRENT_FORM: CURRENT, EARNINGS_RELEASE: None}.get(
        form, ANNUAL
    )


def missing_items(
    found: Iterable[str], fiscal_year: int, form: FormItems | None = None
) -> list[str]:
    """The Items a filing of ``fiscal_year`` must carry whose keys are not in ``found``, in the
    form's order: a file cut short, or a layout whose headings were not read."""
    chosen = form or ANNUAL
    have = set(found)
    return [
        key
        for key in chosen.items
        if key not in have
        and key in chosen.required
        and fiscal_year >= chosen.since.get(key, fiscal_year)
    ]


ITEM_HEADING = re.compile(
    r"^(?:part\s+(?:i{1,3}|iv)\s*[,.:\-–—]?\s*)?item\s*(\d{1,2}\s?[a-c]?)\s*(?:[.:\-–—]\s*|\s+|$)(.*)$",
    re.IGNORECASE,
)
_CURRENT_HEADING = re.compile(
    r"^item\s*(\d\s?\.\s?\d{2})\s*(?:[.:\-–—]\s*|\s+|$)(.*)$", re.IGNORECASE
)
_PART_HEADING = re.compile(r"^part\s+(i{1,2})\b(?!\s*,?\s*item)", re.IGNORECASE)
ANNUAL = FormItems(ITEMS, frozenset(ITEMS) - OPTIONAL_ITEMS, ITEM_HEADING, ITEM_SINCE)
QUARTERLY = FormItems(
    QUARTERLY_ITEMS,
    frozenset({"I-1", "I-2", "I-3", "I-4", "II-1", "II-1A", "II-6"}),
    ITEM_HEADING,
    {},
)
CURRENT = FormItems(CURRENT_ITEMS, frozenset(), _CURRENT_HEADING, {})
_TRAILING_PAGE = re.compile(r"\s+(?:\d{1,3}|[A-Z]-\d{1,3})$")
_CROSS_REFERENCE = re.compile(
    r"incorporated\s+(?:herein\s+)?by\s+reference|information\s+(?:required\s+by|in\s+response\s+to)"
    r"\s+this\s+item|can\s+be\s+found\s+in|is\s+(?:included|set\s+forth)\s+in",
    re.IGNORECASE,
)
_CONTENTS_ROW = re.compile(r"(?:page:?\s*)?(?:\d{1,3}|[A-Z]-\d{1,3})$", re.IGNORECASE)
_MAX_HEADING_CHARS = 250
_PAGE = r"(?:[A-Z]-\s?)?\d{1,3}"
_REFERENCE = (
    rf"(?:pages?(?:\s+reference)?\s*:?\s*)?{_PAGE}(?:\s*(?:[-–—]|to|through)\s*{_PAGE})?"
    r"|not\s+applicable|n/a|none|\([a-z0-9]\)|\*+"
)
_REFERENCE_SEPARATOR = r"(?:\s*(?:[,;&]|and)\s*|\s+|(?<=\)))"
_INDEX_ROW = re.compile(
    rf"^(.*?)[\s:.]*((?:{_REFERENCE})(?:{_REFERENCE_SEPARATOR}(?:{_REFERENCE}))*)$",
    re.IGNORECASE,
)
_FIRST_PAGE = re.compile(rf"(?<![\w-])({_PAGE})(?!\w)", re.IGNORECASE)
_FOOTNOTE = re.compile(r"\([^)]*\)")
_WORD = re.compile(r"[a-z0-9]+")
# Fewer rows with pages than this is a stray table that mentions Items, not an index.
_MIN_INDEX_PAGES = 3
# A heading may extend the Item's title ("Business Summary" for Item 1, Business) but a line
# that goes on for longer is prose that happens to start with the same words.
_MAX_EXTRA_HEADING_WORDS = 3
CROSS_REFERENCE_MAX_CHARS = 2500


@dataclass(frozen=True, slots=True)
class ItemHeading:
    """A block chosen as the heading of an Item."""

    block_index: int
    key: str
    title: str
    form: FormItems = ANNUAL

    @property
    def item(self) -> str:
        return self.form.label(self.key)

    @property
    def part(self) -> str:
        return self.form.items[self.key][0]


def _candidate(
    block: Block, next_block: Block | None, form: FormItems = ANNUAL, part: str = "I"
) -> tuple[str, str] | None:
    match = form.heading.match(block.text)
    if match is None or block.in_link:
        return None
    if block.in_table and _CONTENTS_ROW.search(block.text):
        return None
    key = match.group(1).replace(" ", "").upper()
    rest = _TRAILING_PAGE.sub("", match.group(2).strip()).strip(" .:-–—|")
    if form is QUARTERLY:
        prefix = re.match(r"part\s+(i{1,2})\b", block.text, re.IGNORECASE)
        key = _quarterly_key(key, rest, prefix or part)
    if key not in form.items:
        return None
    canonical = form.items[key][1]
    if not rest and next_block is not None and len(next_block.text) < 160:
        rest = next_block.text.strip(" .:-–—")
    if len(block.text) > _MAX_HEADING_CHARS and not _starts_like(rest, canonical):
        return None
    return key, _title(rest, canonical)


def _quarterly_key(number: str, rest: str, part: re.Match[str] | str) -> str:
    """A 10-Q heading's Item: the one whose title it reads as (``Item 1. Legal Proceedings`` is
    Part II's), else the one of the Part it is printed in."""
    for key, (_, title) in QUARTERLY_ITEMS.items():
        if key.endswith(f"-{number}") and rest and _starts_like(rest, title):
            return key
    written = part if isinstance(part, str) else part.group(1)
    return f"{written.upper()}-{number}"


def _starts_like(text: str, canonical: str) -> bool:
    first = re.findall(r"[a-z]+", canonical.lower())[:1]
    return bool(first) and text.lower().lstrip("[").startswith(first[0])


def _title(rest: str, canonical: str) -> str:
    if not rest or len(rest) > 200:
        return canonical
    if len(rest) > len(canonical) + 20 and _starts_like(rest, canonical):
        return canonical
    return rest


def find_item_headings(
    blocks: Sequence[Block], starts: Sequence[int], form: FormItems = ANNUAL
) -> list[ItemHeading]:
    """Choose one heading block per Item found, in filing order.

    Candidates are blocks that open with ``Item N``, except links and table rows ending in a
    page number (entries of a table of contents). Each candidate weighs the text that follows it
    before the next candidate: a table of contents entry is followed by almost nothing, the real
    heading by its Item's text. The headings chosen are the run of candidates rising in both
    position and Item number whose weights sum highest (on a tie, the later candidates), so a
    table of contents or a stray cross-reference ("see Item 1 of this report") gives way to
    the headings that are followed by their Items' text, and drops out of order.
    """
    candidates: list[tuple[int, str, str]] = []
    part = "I"
    for index, block in enumerate(blocks):
        if (printed := _PART_HEADING.match(block.text)) is not None:
            part = printed.group(1).upper()
        following = blocks[index + 1] if index + 1 < len(blocks) else None
        found = _candidate(block, following, form, part)
        if found is not None:
            candidates.append((index, *found))
    end = starts[-1] + len(blocks[-1].text) if blocks else 0
    gaps = [
        (starts[candidates[position + 1][0]] if position + 1 < len(candidates) else end)
        - starts[index]
        for position, (index, _, _) in enumerate(candidates)
    ]
    ordered = _heaviest_rising_run(candidates, gaps, form.order)
    return [ItemHeading(index, key, title, form) for index, key, title in ordered]


def _heaviest_rising_run(
    candidates: list[tuple[int, str, str]], weights: list[int], order: dict[str, int]
) -> list[tuple[int, str, str]]:
    """The candidates (in position order) rising in Item order whose weights sum highest."""
    if not candidates:
        return []
    total = list(weights)
    previous = [-1] * len(candidates)
    for i in range(len(candidates)):
        for j in range(i):
            rises = order[candidates[j][1]] < order[candidates[i][1]]
            if rises and total[j] + weights[i] >= total[i]:
                total[i], previous[i] = total[j] + weights[i], j
    best = max(range(len(candidates)), key=lambda i: (total[i], i))
    run = []
    while best != -1:
        run.append(candidates[best])
        best = previous[best]
    return run[::-1]


def is_cross_reference(text: str) -> bool:
    """True for an Item whose body only points elsewhere (a proxy statement, an exhibit)."""
    return len(text) <= CROSS_REFERENCE_MAX_CHARS and bool(_CROSS_REFERENCE.search(text))


@dataclass(frozen=True, slots=True)
class IndexEntry:
    """One row of a Form 10-K cross-reference index."""

    key: str
    title: str
    page: str | None
    """The first printed page listed (``28``, ``F-1``); None for ``Not applicable`` or ``(a)``."""


def read_cross_reference_index(blocks: Sequence[Block]) -> list[IndexEntry]:
    """The table rows that read ``Item N <title> <pages>``, one per Item (the first row wins).

    Pages read ``Page 28``, ``Pages 8-23``, ``8-23``, ``Not applicable``, ``(a)`` (incorporated
    from the proxy statement) or a list of these (``Page 36, (a)``).
    """
    entries: dict[str, IndexEntry] = {}
    for block in blocks:
        if not block.in_table:
            continue
        heading = ITEM_HEADING.match(block.text.replace("|", " "))
        if heading is None:
            continue
        key = heading.group(1).replace(" ", "").upper()
        row = _INDEX_ROW.match(heading.group(2).strip())
        if key not in ITEMS or key in entries or row is None:
            continue
        page = _FIRST_PAGE.search(_FOOTNOTE.sub(" ", row.group(2)))
        title = _title(row.group(1).strip(" .:-–—"), ITEMS[key][1])
        entries[key] = IndexEntry(
            key, title, re.sub(r"\s", "", page.group(1)).upper() if page else None
        )
    return list(entries.values())


@dataclass(frozen=True, slots=True)
class _Placement:
    block_index: int
    titled: bool
    """The block is a heading that reads as the Item's title, not just its page's first block."""
    entry: IndexEntry


def find_indexed_items(blocks: Sequence[Block], labels: Sequence[PageLabel]) -> list[ItemHeading]:
    """Place each Item of the cross-reference index that has a page, in filing order.

    An Item starts at the first heading on its page that reads as its title (as the index
    prints it, or as Form 10-K names it), else at the page's first block. Items sharing a page
    thus start at their own headings, in the order printed; when two would start on the same
    block, the one titled there keeps it (else the lower Item number) and the other is left
    out, its text staying with the first. Labels are read as footers (a page ends with its
    number) unless reading them as headers puts more Items' headings on their pages.
    """
    entries = [entry for entry in read_cross_reference_index(blocks) if entry.page is not None]
    if len(entries) < _MIN_INDEX_PAGES or not labels:
        return []
    as_footers = _place(blocks, entries, _page_spans(labels, len(blocks), footers=True))
    as_headers = _place(blocks, entries, _page_spans(labels, len(blocks), footers=False))
    placed = as_headers if _titled(as_headers) > _titled(as_footers) else as_footers
    placed.sort(key=lambda p: (p.block_index, not p.titled, ITEM_ORDER[p.entry.key]))
    chosen: dict[int, ItemHeading] = {}
    for placement in placed:
        entry = placement.entry
        chosen.setdefault(
            placement.block_index, ItemHeading(placement.block_index, entry.key, entry.title)
        )
    return list(chosen.values())


def _page_spans(
    labels: Sequence[PageLabel], block_count: int, *, footers: bool
) -> dict[str, range]:
    spans: dict[str, range] = {}
    for position, label in enumerate(labels):
        if footers:
            first = labels[position - 1].position if position else 0
            span = range(first, label.position)
        else:
            last = labels[position + 1].position if position + 1 < len(labels) else block_count
            span = range(label.position, last)
        if span:
            spans.setdefault(label.label, span)
    return spans


def _place(
    blocks: Sequence[Block], entries: Sequence[IndexEntry], pages: dict[str, range]
) -> list[_Placement]:
    placed = []
    for entry in entries:
        page = pages.get(entry.page or "")
        if page is None:
            continue
        titles = [_words(entry.title), _words(ITEMS[entry.key][1])]
        heading = next((i for i in page if _reads_as_title(blocks[i], titles)), None)
        placed.append(
            _Placement(page.start if heading is None else heading, heading is not None, entry)
        )
    return placed


def _titled(placed: Sequence[_Placement]) -> int:
    return sum(placement.titled for placement in placed)


def _reads_as_title(block: Block, titles: Sequence[list[str]]) -> bool:
    text = block.text
    if block.kind is not ChunkKind.PROSE or block.in_link or text.endswith("."):
        return False
    if len(text) > _MAX_HEADING_CHARS or _CONTENTS_ROW.search(text):
        return False
    words = _words(text)
    return any(
        title
        and words[: len(title)] == title
        and len(words) - len(title) <= _MAX_EXTRA_HEADING_WORDS
        for title in titles
    )


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())
