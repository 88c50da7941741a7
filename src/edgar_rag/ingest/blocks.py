"""The document model every format parser produces: a flat list of blocks in reading order.

A block is one paragraph of prose or one labelled table row. HTML, plain text and PDF parsers
each turn their input into blocks; Item segmentation, clean text and chunking then work on blocks
alone, whatever the format was.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from edgar_rag.domain import ChunkKind


@dataclass(frozen=True, slots=True)
class Anchor:
    """A displayed XBRL figure inside a block: which fact element, and where in the block text."""

    fact_id: str
    offset: int


@dataclass(frozen=True, slots=True)
class Block:
    """One paragraph or one table row, already cleaned to a single line of text."""

    text: str
    kind: ChunkKind = ChunkKind.PROSE
    anchors: tuple[Anchor, ...] = ()
    in_link: bool = False
    """The whole block is a hyperlink (tables of contents are made of these)."""
    in_table: bool = False
    """The block came from a table cell or row (a table of contents is often a table)."""


_SPACES = re.compile(r"[ \t\u00a0\u2002\u2003\u2009\u200b\u202f]+")
_PAGE_NUMBER = re.compile(
    r"^(?:page\s+)?(?:[-–—]\s*)?(?:\d{1,3}|[ivxlc]{1,6}|[A-Z]-\d{1,3}|F-\s?\d{1,3})(?:\s*[-–—])?$",
    re.IGNORECASE,
)
_TABLE_OF_CONTENTS_LINK = re.compile(r"^(?:table of contents|index|back to contents)$", re.I)
_DIGITS = re.compile(r"\d+")
_PRINTED_LABEL = re.compile(
    r"(?:^|(?<=[\s|]))(?:page\s+)?(?:[-–—]\s*)?(?:([A-Z])-\s?)?(\d{1,3})(?:\s*[-–—])?$",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class PageLabel:
    """A printed page number, dropped as furniture, placed among the blocks that are kept."""

    label: str
    """``12`` or ``F-7``, without ``Page`` or dashes."""
    position: int
    """How many kept blocks come before it."""

    @property
    def sort_key(self) -> tuple[str, int]:
        prefix, _, number = self.label.rpartition("-")
        return prefix, int(number)


def normalise_space(text: str) -> str:
    """Collapse runs of spaces (including non-breaking ones) and trim."""
    return _SPACES.sub(" ", text.replace("\u200b", "")).strip()


def is_page_number(text: str) -> bool:
    """True for a standalone page label: ``12``, ``- 12 -``, ``F-7``, ``Page 4``, ``xii``."""
    return bool(_PAGE_NUMBER.match(text.strip()))


def drop_page_furniture(blocks: Sequence[Block], min_repeats: int = 3) -> list[Block]:
    """Remove page numbers, "Table of Contents" links and running headers or footers.

    A running header is a short prose line that recurs on many pages once its digits are
    ignored (``Apple Inc. | 2025 Form 10-K | 23``). Item headings are never dropped, however
    often they recur.
    """
    flags = _furniture_flags(blocks, min_repeats)
    return [block for block, furniture in zip(blocks, flags, strict=True) if not furniture]


def find_page_labels(blocks: Sequence[Block], min_repeats: int = 3) -> list[PageLabel]:
    """The page numbers among the furniture ``drop_page_furniture`` removes, in filing order.

    A label is a standalone page number or the number that ends a running header or footer
    (``McDonald's Corporation 2023 Annual Report 28``). Only labels whose numbers rise through
    the filing are kept (the longest such run, separately for ``F-`` pages and the like), so a
    stray figure set apart on its own line does not split a page; roman numerals are not read.
    """
    labels: list[PageLabel] = []
    kept = 0
    for block, furniture in zip(blocks, _furniture_flags(blocks, min_repeats), strict=True):
        if not furniture:
            kept += 1
            continue
        match = _PRINTED_LABEL.search(block.text)
        if match is not None:
            prefix = f"{match.group(1).upper()}-" if match.group(1) else ""
            labels.append(PageLabel(f"{prefix}{int(match.group(2))}", kept))
    return _rising(labels)


def _furniture_flags(blocks: Sequence[Block], min_repeats: int) -> list[bool]:
    shapes = Counter(_shape(block) for block in blocks if _could_be_furniture(block))
    return [
        (
            block.kind is ChunkKind.PROSE
            and (is_page_number(block.text) or bool(_TABLE_OF_CONTENTS_LINK.match(block.text)))
        )
        or (_could_be_furniture(block) and shapes[_shape(block)] >= min_repeats)
        for block in blocks
    ]


def _rising(labels: list[PageLabel]) -> list[PageLabel]:
    series: dict[str, list[int]] = {}
    for index, label in enumerate(labels):
        series.setdefault(label.sort_key[0], []).append(index)
    kept: set[int] = set()
    for members in series.values():
        numbers = [labels[index].sort_key[1] for index in members]
        kept.update(members[position] for position in _longest_rising(numbers))
    return [label for index, label in enumerate(labels) if index in kept]


def _longest_rising(numbers: Sequence[int]) -> list[int]:
    """Positions of the longest strictly rising subsequence (patience sorting)."""
    tail_numbers: list[int] = []
    tail_positions: list[int] = []
    previous = [-1] * len(numbers)
    for position, number in enumerate(numbers):
        length = bisect_left(tail_numbers, number)
        previous[position] = tail_positions[length - 1] if length else -1
        if length == len(tail_numbers):
            tail_numbers.append(number)
            tail_positions.append(position)
        else:
            tail_numbers[length], tail_positions[length] = number, position
    run: list[int] = []
    position = tail_positions[-1] if tail_positions else -1
    while position != -1:
        run.append(position)
        position = previous[position]
    return run[::-1]


def _could_be_furniture(block: Block) -> bool:
    text = block.text
    return (
        block.kind is ChunkKind.PROSE
        and len(text) <= 90
        and not text.lower().startswith(("item ", "part "))
        and not text.endswith((".", ":", ";"))
    )


def _shape(block: Block) -> str:
    return _DIGITS.sub("#", block.text.lower())


def join_blocks(blocks: Iterable[Block]) -> tuple[str, list[int]]:
    """The clean text of a filing: one block per line. Returns it and each block's start offset."""
    starts: list[int] = []
    parts: list[str] = []
    position = 0
    for block in blocks:
        starts.append(position)
        parts.append(block.text)
        position += len(block.text) + 1
    return "\n".join(parts), starts
