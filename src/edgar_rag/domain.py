"""The values that flow through edgar-rag, and the ports its adapters fit.

Values are frozen dataclasses; ports are small ``typing.Protocol`` classes. Nothing here does I/O.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from enum import StrEnum
from typing import TYPE_CHECKING, NewType, Protocol, TypeAlias, runtime_checkable

from edgar_rag.errors import ParseError
from edgar_rag.rules import filing_period

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

Accession = NewType("Accession", str)
"""An EDGAR accession number, always in the dashed form ``0000320193-25-000079``."""

_ACCESSION = re.compile(r"^\s*(\d{10})-?(\d{2})-?(\d{6})\s*$")

Vectors: TypeAlias = "npt.NDArray[np.float32]"
"""A matrix of embeddings, one row per text, float32 (a name for annotations only, so that the
values and ports load no numpy: listing filings needs none)."""


def parse_accession(text: str) -> Accession:
    """Read an accession number written with or without dashes; raise ParseError otherwise."""
    match = _ACCESSION.match(text)
    if match is None:
        raise ParseError(f"not an accession number: {text!r}")
    return Accession("-".join(match.groups()))


class SourceFormat(StrEnum):
    """How a filing's bytes are encoded."""

    HTML = "html"
    TEXT = "text"
    PDF = "pdf"


@dataclass(frozen=True, slots=True)
class FilingHints:
    """What is known about a filing before parsing it (from a manifest, EDGAR or a file name).

    The parser prefers what the filing says about itself (its ``dei:`` cover facts) and falls
    back to these hints, so a plain-text or PDF filing can still be named.
    """

    ticker: str | None = None
    cik: int | None = None
    company: str | None = None
    fiscal_year: int | None = None
    period_end: date | None = None
    form: str | None = None
    fiscal_quarter: int | None = None
    accession: Accession | None = None
    filing_date: date | None = None
    url: str | None = None


@dataclass(frozen=True, slots=True)
class RawFiling:
    """A filing's bytes and where they came from: the input of ``ingest_filing``."""

    content: bytes
    source: str
    """A path or URL naming the file, used in messages."""
    hints: FilingHints = field(default_factory=FilingHints)


@dataclass(frozen=True, slots=True)
class StatementFound:
    """A primary statement located in a filing by its title (a PDF's page, an HTML table)."""

    kind: str
    """``income_statement``, ``balance_sheet``, ``cash_flow`` or ``comprehensive_income``."""
    title: str
    page: int | None
    """Zero-based page of the PDF; None in an HTML filing."""
    years: tuple[int, ...]
    """The fiscal years its column headers name; empty when none could be read, and then its
    rows are indexed as text with no figures."""
    rows: int


@dataclass(frozen=True, slots=True)
class FilingMeta:
    """Who filed, what and for which period; the identity of a filing in the index."""

    company: str
    cik: int | None
    ticker: str | None
    form: str
    fiscal_year: int
    period_end: date | None
    accession: Accession | None
    filing_date: date | None
    url: str | None
    years_reported: tuple[int, ...]
    """The fiscal years the filing reports figures for, from its XBRL contexts (oldest first)."""
    source: str
    sha256: str
    source_format: SourceFormat
    statements: tuple[StatementFound, ...] = ()
    """The statements found, in page order (filings read from XBRL list none yet)."""
    fiscal_quarter: int | None = None
    """The fiscal quarter a 10-Q (1-3) or an earnings release (1-4) reports; None for a 10-K,
    an 8-K (known by its ``period_end``, the date of its report) or a release of a year."""

    @property
    def period(self) -> str:
        """``FY2025``, ``10-Q Q2 FY2023``, ``8-K 2022-07-01`` (``rules.filing_period``)."""
        return filing_period(self.form, self.fiscal_year, self.fiscal_quarter, self.period_end)


@dataclass(frozen=True, slots=True)
class FilingSummary:
    """One indexed filing, as ``edgar-rag filings`` lists it."""

    filing_id: int
    ticker: str | None
    cik: int | None
    company: str
    fiscal_year: int
    accession: str | None
    form: str
    items: int
    chunks: int
    facts: int
    years_reported: tuple[int, ...]
    source: str
    statements: tuple[StatementFound, ...] = ()
    """The primary statements found in the filing (PDFs), as ``FilingMeta.statements``."""
    fiscal_quarter: int | None = None
    period_end: date | None = None

    @property
    def period(self) -> str:
        """As ``FilingMeta.period``."""
        return filing_period(self.form, self.fiscal_year, self.fiscal_quarter, self.period_end)


@dataclass(frozen=True, slots=True)
class Section:
    """One Item of a 10-K (or the cover before Item 1), as a span of the filing's clean text."""

    item: str
    """``Item 7``, ``Item 1A``; ``Cover`` for the text before the first Item."""
    part: str | None
    """``Part II``, or None for the cover."""
    title: str
    start: int
    end: int
    cross_reference: bool = False
    """True when the Item only points elsewhere (a proxy statement, an annual report exhibit)."""


class ChunkKind(StrEnum):
    PROSE = "prose"
    TABLE = "table"


@dataclass(frozen=True, slots=True)
class Chunk:
    """A passage to embed and search: ``text == clean_text[start:end]`` of its filing."""

    ordinal: int
    item: str
    title: str
    start: int
    end: int
    text: str
    kind: ChunkKind


class FigureSource(StrEnum):
    """Where a reported figure was read: an inline-XBRL fact or a statement row's column."""

    XBRL = "xbrl"
    ROW = "row"


@dataclass(frozen=True, slots=True)
class Fact:
    """One reported figure, with the chunk that displays it: a numeric inline-XBRL fact, or
    (``source`` ROW) one column of a labelled statement row read from a filing without XBRL."""

    concept: str
    """``us-gaap:Revenues``."""
    value: float
    """Scaled and signed: a displayed ``416,161`` with ``scale=6`` is ``416161000000.0``."""
    displayed: str
    """The figure as printed in the filing, e.g. ``416,161``."""
    unit: str | None
    decimals: int | None
    """XBRL decimals (``-6`` for millions); None when ``INF``."""
    period_start: date | None
    """None for an instant (a balance-sheet date)."""
    period_end: date
    dimensions: tuple[tuple[str, str], ...]
    """Axis and member pairs; empty for the filing's own consolidated figure."""
    offset: int | None
    """Where the displayed figure sits in the clean text; None when it is not displayed."""
    chunk_ordinal: int | None = None
    source: FigureSource = FigureSource.XBRL
    label: str | None = None
    """A row's label as printed (``Operating expenses: Cost of sales``); None for XBRL."""
    scale: int | None = None
    """A row's power of ten (6 for ``in millions``); None for XBRL (``decimals`` says)."""
    fiscal_year: int | None = None
    """A row's column year as its header prints it; None for XBRL."""
    statement: str | None = None
    """A row's statement (``income_statement``, ...; ``StatementFound.kind``)."""


@dataclass(frozen=True, slots=True)
class ParsedFiling:
    """Everything ``ingest_filing`` reads out of one filing."""

    meta: FilingMeta
    text: str
    sections: tuple[Section, ...]
    chunks: tuple[Chunk, ...]
    facts: tuple[Fact, ...]


@dataclass(frozen=True, slots=True)
class EmbedderIdentity:
    """What an index's vectors mean; an index refuses queries embedded any other way."""

    model: str
    dimensions: int
    normalisation: str
    """How text is prepared before the model sees it, and whether vectors are L2-normalised."""

    def describe(self) -> str:
        return f"{self.model} ({self.dimensions} dimensions, {self.normalisation})"


class Embedder(Protocol):
    """Turns texts into unit vectors."""

    @property
    def identity(self) -> EmbedderIdentity: ...

    def embed(self, texts: Sequence[str]) -> Vectors: ...


@dataclass(frozen=True, slots=True)
class Passage:
    """A stored chunk with the filing it belongs to."""

    chunk_id: int
    filing_id: int
    chunk: Chunk
    filing: FilingMeta


@dataclass(frozen=True, slots=True)
class Scope:
    """Where a search looks: one filing, or the whole corpus (``filing_id`` None)."""

    filing_id: int | None = None
    filing: FilingMeta | None = None

    @property
    def corpus_wide(self) -> bool:
        return self.filing_id is None


@dataclass(frozen=True, slots=True)
class Hit:
    """One ranked search result."""

    rank: int
    passage: Passage
    score: float
    """The fused reciprocal-rank score (higher is better)."""
    cosine: float
    """Cosine between the question and the passage embeddings."""
    dense_rank: int | None
    lexical_rank: int | None


ScoredIds = list[tuple[int, float]]
"""Chunk ids with a score, best first."""


class PassageIndex(Protocol):
    """What search needs from a store; SQLite and PostgreSQL both fit it."""

    def resolve_scope(
        self,
        ticker: str | None = None,
        cik: int | None = None,
        fiscal_year: int | None = None,
        *,
        form: str | None = None,
        fiscal_quarter: int | None = None,
    ) -> Scope: ...

    def dense_search(self, vector: Vectors, filing_id: int | None, k: int) -> ScoredIds: ...

    def lexical_search(self, terms: Sequence[str], filing_id: int | None, k: int) -> ScoredIds: ...

    def passages(self, chunk_ids: Sequence[int]) -> dict[int, Passage]: ...

    def vectors(self, chunk_ids: Sequence[int]) -> Vectors: ...

    def displayed_facts(self, filing_id: int) -> list[FactRef]: ...


class IndexWriter(Protocol):
    """The part of a store that ingest writes to."""

    def ensure_embedder(self, identity: EmbedderIdentity) -> None: ...

    def stored_filing(self, sha256: str) -> FilingMeta | None: ...

    def write_filing(self, parsed: ParsedFiling, vectors: Vectors) -> int: ...


class FigureReader(Protocol):
    """A filing's reported figures: XBRL facts and statement-row figures alike."""

    def figures(self, filing_id: int, source: FigureSource | None = None) -> list[Fact]: ...

    def passages_at(self, filing_id: int, ordinals: Sequence[int]) -> dict[int, Passage]:
        """The filing's chunks of these ordinals (the ones a figure's ``chunk_ordinal`` names),
        by ordinal."""
        ...

    def table_passages(self, filing_id: int) -> dict[int, Passage]:
        """The filing's table chunks, by ordinal: the lines it prints figures on."""
        ...


class FigureStore(Protocol):
    """What computing an answer reads of the store: a filing's figures, the chunks that print
    them, and another year's filing of the same company."""

    def figures(self, filing_id: int) -> list[Fact]: ...

    def passages_at(self, filing_id: int, ordinals: Sequence[int]) -> dict[int, Passage]: ...

    def table_passages(self, filing_id: int) -> dict[int, Passage]: ...

    def resolve_scope(
        self,
        ticker: str | None = None,
        cik: int | None = None,
        fiscal_year: int | None = None,
        *,
        form: str | None = None,
        fiscal_quarter: int | None = None,
    ) -> Scope: ...


class FilingReader(Protocol):
    """The stored filings as listing, quoting and copying read them."""

    def filings(self) -> list[FilingSummary]: ...

    def filing_meta(self, filing_id: int) -> FilingMeta: ...

    def filing_text(self, filing_id: int) -> str: ...

    def narrowest_section(self, filing_id: int, start: int, end: int) -> Section | None: ...

    def export_filing(self, filing_id: int) -> tuple[ParsedFiling, Vectors]: ...


class FilingStore(PassageIndex, IndexWriter, FilingReader, FigureReader, Protocol):
    """A whole store, as the CLI, the service, evaluation and benchmarks use it; SQLite and
    PostgreSQL both fit it (tests/test_store_contract.py), and no SQL is written outside them."""

    def embedder_identity(self) -> EmbedderIdentity | None: ...

    def counts(self) -> dict[str, int]: ...

    def close(self) -> None: ...


MAX_QUESTION_CHARS = 1000
"""The longest question read: the service answers a longer one with a 422, ``ask`` and
``search`` exit 2 naming the limit."""


class Reason(StrEnum):
    """Why an answer was declined (a decline is a result, not an error)."""

    OUT_OF_SCOPE = "out_of_scope"
    """The question is about another company than the filing in scope (decided before the model)."""
    OUT_OF_PERIOD = "out_of_period"
    """The question names a fiscal year the filing does not report (before the model)."""
    GATE_REJECTED = "gate_rejected"
    """The best passage scores under the relevance gate's threshold (before the model)."""
    MODEL_DECLINED = "model_declined"
    """The model answered with this request's refusal token."""
    NO_VALID_CITATION = "no_valid_citation"
    """A sentence with a figure, or a long sentence, cites no passage that was given."""
    UNSUPPORTED_CLAIM = "unsupported_claim"
    """A figure of a cited sentence is not printed in the passages it cites (or not for the
    period asked)."""
    MISSING_FIGURE = "missing_figure"
    """A figure a lookup or computation needs is not reported for the period asked, or the
    formula cannot be computed (it does not parse, divides by zero, mixes units)."""
    UNSUPPORTED_QUESTION = "unsupported_question"
    """A part of a figure question (a qualifier, a transform, the arithmetic it writes) that
    no plan accounts for (before any figure is said); the detail names the part."""
    FALSE_PREMISE = "false_premise"
    """What the question takes for granted (growth, a fall, a loss, a dividend cut) is
    contradicted by the filing's figures (before the model); the detail states the fact."""


@dataclass(frozen=True, slots=True)
class Message:
    role: str
    """``system``, ``user`` or ``assistant``."""
    content: str


@dataclass(frozen=True, slots=True)
class Prompt:
    """What a generator is asked: chat messages, plus the refusal token drawn for this request."""

    messages: tuple[Message, ...]
    refusal_token: str
    max_tokens: int = 200
    temperature: float = 0.0


@dataclass(frozen=True, slots=True)
class Generation:
    """What a generator answered."""

    text: str
    model: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    replayed: bool = False
    recorded_s: float = 0.0
    """For a replayed generation, how long the model took when it was recorded (0: unknown)."""
    verbatim: bool = False
    """The text is the prompt's passages themselves, written by no model: each is cited, and
    there is nothing to verify (the echo generator, which runs the pipeline bare)."""
    second_look: bool = False
    """The reply to a narrative question asked again, without the option to decline, after the
    model found no answer (its tokens and seconds are both replies')."""


class Generator(Protocol):
    """Writes the answer text for a prompt. Raises SourceError when it cannot be reached."""

    @property
    def name(self) -> str: ...

    def generate(self, prompt: Prompt) -> Generation: ...


TokenSink = Callable[[str], None]
"""Told each piece of a generation's text as the model writes it; it may raise to stop the
generation (the service does when its client has gone), and the generator lets that through."""


@runtime_checkable
class StreamingGenerator(Generator, Protocol):
    """A generator that can also tell its text as it comes. The pieces are a draft: the
    ``Generation`` returned at the end is what is verified, as ``generate``'s would be."""

    def stream(self, prompt: Prompt, on_token: TokenSink) -> Generation: ...


@dataclass(frozen=True, slots=True)
class Citation:
    """A passage an answer cites, quoted with its Item, its filing and its offsets."""

    marker: int
    filing: FilingMeta
    item: str
    title: str
    quote: str
    start: int
    """Offset of the quote in the filing's clean text."""
    end: int
    score: float
    """The passage's cosine to the question."""


@dataclass(frozen=True, slots=True)
class Response:
    """An answer with quoted citations, or a typed decline (``text`` None, ``reason`` set)."""

    question: str
    text: str | None
    citations: tuple[Citation, ...]
    reason: Reason | None
    detail: str | None
    gate: str
    retrieval_score: float | None
    gate_score: float | None
    source: FilingMeta | None
    """The filing in scope; None for a corpus-wide question."""
    generator: str
    timings_ms: dict[str, float]
    prompt_tokens: int
    completion_tokens: int
    replayed: bool
    calculation: Mapping[str, object] | None = None
    """A computed answer's formula, operands (each with the marker of the passage printing
    it), result and rounding, as JSON carries it; None when nothing was computed."""
    comparison: tuple[Mapping[str, object], ...] = ()
    """A comparison's calculations, one per company (each like ``calculation``)."""

    @property
    def abstained(self) -> bool:
        return self.reason is not None


@dataclass(frozen=True, slots=True)
class FactRef:
    """A displayed figure as search sees it (an XBRL fact, or a PDF statement row's figure):
    which chunk prints it, for which period."""

    concept: str
    """The XBRL concept; empty for a statement row's figure, which has its ``label``."""
    chunk_id: int
    period_end: date
    dimensional: bool
    label: str | None = None
    """The statement row's label as printed (``Net cash provided by operating activities``)."""
    statement: str | None = None
    """The statement row's statement (``balance_sheet``, ...; ``StatementFound.kind``); None
    for an XBRL fact."""
