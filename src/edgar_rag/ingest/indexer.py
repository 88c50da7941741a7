"""Indexing filings: load, parse, embed and store each one, and say what happened to it.

Each filing is its own unit of work: one that cannot be read or is not a 10-K is refused with a
reason while the others of the same run are still indexed.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from edgar_rag.domain import (
    Chunk,
    Embedder,
    FilingMeta,
    IndexWriter,
    ParsedFiling,
    RawFiling,
    Vectors,
)
from edgar_rag.errors import EdgarRagError, ParseError
from edgar_rag.ingest.items import form_items, missing_items
from edgar_rag.ingest.pipeline import ingest_filing

log = logging.getLogger(__name__)


class FilingSource(Protocol):
    """Somewhere a filing's bytes can be loaded from (a local file, an EDGAR download)."""

    @property
    def name(self) -> str: ...

    def load(self) -> RawFiling: ...


class Outcome(StrEnum):
    INDEXED = "indexed"
    UNCHANGED = "unchanged"
    SKIPPED = "skipped"
    REFUSED = "refused"


@dataclass(frozen=True, slots=True)
class IngestResult:
    """What happened to one filing, with the seconds each stage took."""

    source: str
    outcome: Outcome
    reason: str | None = None
    meta: FilingMeta | None = None
    chunks: int = 0
    facts: int = 0
    seconds: dict[str, float] | None = None
    warning: str | None = None
    """Indexed, but something is likely wrong with the file (Items a 10-K must have missing)."""


Stages = Callable[[str, str], None]
"""Told a source's name and the stage it begins (``loading``, ``parsing``, ``embedding 612
chunks``, ``storing``), for a person watching a filing that takes tens of seconds."""


def embedding_text(chunk: Chunk) -> str:
    """What the embedder reads for a chunk: the Item title, then the chunk's own text."""
    return f"{chunk.item}. {chunk.title}\n{chunk.text}"


def index_filings(
    sources: Iterable[FilingSource],
    index: IndexWriter,
    embedder: Embedder,
    wanted: Callable[[FilingMeta], str | None] = lambda meta: None,
    parse: Callable[[RawFiling], ParsedFiling] = ingest_filing,
    stages: Stages | None = None,
) -> Iterator[IngestResult]:
    """Index each source in turn, yielding its result as soon as it is stored.

    ``wanted`` returns a reason to skip a parsed filing (a ticker or year not asked for), or None;
    ``stages`` is told each stage of each filing as it begins.
    """
    index.ensure_embedder(embedder.identity)
    tell = stages or _untold
    for source in sources:
        try:
            started = time.perf_counter()
            tell(source.name, "loading")
            raw = source.load()
            load_s = time.perf_counter() - started
            yield index_raw(
                source.name, raw, index, embedder, wanted, parse, load_s=load_s, stages=tell
            )
        except EdgarRagError as error:
            yield refused(source.name, error)


def _untold(name: str, stage: str) -> None:
    """No one watches."""


def index_raw(
    name: str,
    raw: RawFiling,
    index: IndexWriter,
    embedder: Embedder,
    wanted: Callable[[FilingMeta], str | None] = lambda meta: None,
    parse: Callable[[RawFiling], ParsedFiling] = ingest_filing,
    *,
    load_s: float = 0.0,
    stages: Stages = _untold,
) -> IngestResult:
    """Parse, embed and store one loaded filing, unless these bytes are indexed already.

    The filing is written in one transaction, so a run killed anywhere leaves it whole or
    absent, and a rerun of the same bytes (a task retried after its worker died) finds it by
    its sha256 instead of writing it twice.
    """
    started = time.perf_counter()
    stored = index.stored_filing(hashlib.sha256(raw.content).hexdigest())
    if stored is not None:
        return IngestResult(name, Outcome.UNCHANGED, "already indexed (same sha256)", stored)
    loaded = time.perf_counter()
    stages(name, "parsing")
    try:
        parsed = parse(raw)
    except RecursionError as exc:
        raise ParseError(f"{name}: the HTML is nested too deeply to read") from exc
    parsed_at = time.perf_counter()
    skip = wanted(parsed.meta)
    if skip is not None:
        return IngestResult(name, Outcome.SKIPPED, reason=skip, meta=parsed.meta)
    stages(name, f"embedding {len(parsed.chunks)} chunks")
    vectors = embed_chunks(parsed.chunks, embedder)
    embedded = time.perf_counter()
    stages(name, "storing")
    index.write_filing(parsed, vectors)
    written = time.perf_counter()
    log.info(
        "filing_ingested",
        extra={"source": name, "chunks": len(parsed.chunks), "facts": len(parsed.facts)},
    )
    warning = items_warning(parsed)
    if warning is not None:
        log.warning("filing_items_missing", extra={"source": name, "reason": warning})
    return IngestResult(
        name,
        Outcome.INDEXED,
        meta=parsed.meta,
        chunks=len(parsed.chunks),
        facts=len(parsed.facts),
        seconds={
            "load": load_s + loaded - started,
            "parse": parsed_at - loaded,
            "embed": embedded - parsed_at,
            "store": written - embedded,
        },
        warning=warning,
    )


def items_warning(parsed: ParsedFiling) -> str | None:
    """One line when the filing lacks Items every filing of its form and year has, saying how
    many of the form's Items were found (a file with its middle cut out still ends in
    ``</html>``). An 8-K carries only its events' Items, an earnings release none."""
    form = form_items(parsed.meta.form)
    if form is None:
        return None
    found = [key for s in parsed.sections if (key := form.key_of(s.item)) is not None]
    missing = missing_items(found, parsed.meta.fiscal_year, form)
    if not missing:
        return None
    have = len(set(found))
    named = ", ".join(form.label(key) for key in missing[:6])
    named += f" and {len(missing) - 6} more" if len(missing) > 6 else ""
    return (
        f"only {have} of the {len(form.items)} {parsed.meta.form} Items found (missing {named}): "
        "the file may be cut short, or its Item headings were not read"
    )


def refused(name: str, error: EdgarRagError) -> IngestResult:
    """The result of a filing that could not be read or is not a 10-K, with the error's reason."""
    log.warning("filing_refused", extra={"source": name, "reason": str(error)})
    return IngestResult(name, Outcome.REFUSED, reason=_reason(error, name))


def embed_chunks(chunks: Sequence[Chunk], embedder: Embedder) -> Vectors:
    return embedder.embed([embedding_text(chunk) for chunk in chunks])


def _reason(error: EdgarRagError, name: str) -> str:
    text = str(error)
    return text.removeprefix(f"{name}: ")
