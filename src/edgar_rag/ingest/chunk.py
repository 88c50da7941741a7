"""Chunks: windows of about ``size`` characters inside one Item that never split a table row.

A chunk is always an exact span of the filing's clean text, so its offsets can highlight it.
Consecutive chunks share up to ``overlap`` characters of whole sentences or rows.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from edgar_rag.domain import Chunk, ChunkKind, Section
from edgar_rag.ingest.blocks import Block

DEFAULT_SIZE = 800
DEFAULT_OVERLAP = 150
_SENTENCE_END = re.compile(r"(?<=[.!?;])[\"”’)]?\s+(?=[\"“‘(]?[A-Z0-9$•])")


@dataclass(frozen=True, slots=True)
class _Piece:
    start: int
    end: int
    kind: ChunkKind


def _pieces(block: Block, start: int, size: int) -> Iterator[_Piece]:
    """A table row whole; prose as sentences, and a sentence longer than ``size`` by words."""
    text = block.text
    if block.kind is ChunkKind.TABLE or len(text) <= size:
        yield _Piece(start, start + len(text), block.kind)
        return
    cursor = 0
    for match in _SENTENCE_END.finditer(text):
        yield from _by_words(text, start, cursor, match.start() + 1, size)
        cursor = match.end()
    yield from _by_words(text, start, cursor, len(text), size)


def _by_words(text: str, base: int, first: int, last: int, size: int) -> Iterator[_Piece]:
    while last - first > size:
        cut = text.rfind(" ", first, first + size)
        cut = cut if cut > first else first + size
        yield _Piece(base + first, base + cut, ChunkKind.PROSE)
        first = cut + 1 if text[cut : cut + 1] == " " else cut
    if last > first:
        yield _Piece(base + first, base + last, ChunkKind.PROSE)


def chunk_sections(
    text: str,
    sections: Sequence[Section],
    blocks: Sequence[Block],
    starts: Sequence[int],
    *,
    size: int = DEFAULT_SIZE,
    overlap: int = DEFAULT_OVERLAP,
) -> list[Chunk]:
    """Cut each section into chunks; ``blocks`` and ``starts`` are what the text was joined from."""
    chunks: list[Chunk] = []
    block_index = 0
    for section in sections:
        pieces: list[_Piece] = []
        while block_index < len(blocks) and starts[block_index] < section.end:
            if starts[block_index] >= section.start:
                pieces.extend(_pieces(blocks[block_index], starts[block_index], size))
            block_index += 1
        for window in _windows(pieces, size, overlap):
            start, end = window[0].start, window[-1].end
            table_chars = sum(p.end - p.start for p in window if p.kind is ChunkKind.TABLE)
            kind = ChunkKind.TABLE if table_chars * 2 >= end - start else ChunkKind.PROSE
            chunks.append(
                Chunk(len(chunks), section.item, section.title, start, end, text[start:end], kind)
            )
    return chunks


def _windows(pieces: Sequence[_Piece], size: int, overlap: int) -> Iterator[list[_Piece]]:
    window: list[_Piece] = []
    for piece in pieces:
        if window and piece.end - window[0].start > size:
            yield window
            carried: list[_Piece] = []
            for previous in reversed(window):
                if window[-1].end - previous.start > overlap:
                    break
                carried.insert(0, previous)
            window = carried if len(carried) < len(window) else []
            while window and piece.end - window[0].start > size:
                window.pop(0)
        window.append(piece)
    if window:
        yield window
