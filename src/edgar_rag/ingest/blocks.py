"""The document model every format parser produces: a flat list of blocks in reading order.

A block is one paragraph of prose or one labelled table row. HTML, plain text and PDF parsers
each turn their input into blocks; Item segmentation, clean text and chunking then work on blocks
alone, whatever the format was.
"""

from __future__ import annotations

import re
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
    shapes = Counter(_shape(block) for block in blocks if _could_be_furniture(block))
    kept = []
    for block in blocks:
        text = block.text
        if block.kind is ChunkKind.PROSE and (
            is_page_number(text) or _TABLE_OF_CONTENTS_LINK.match(text)
        ):
            continue
        if _could_be_furniture(block) and shapes[_shape(block)] >= min_repeats:
            continue
        kept.append(block)
    return kept


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
