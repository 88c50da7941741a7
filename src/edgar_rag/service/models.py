"""The HTTP bodies of the service: what a request may hold, and the shape of each response.

Requests are validated here (a bad body is a 422 naming its fields). Each response model is the
one definition of its output: built from domain values by its ``of`` (or ``model_validate``
for a value whose attributes it mirrors), it writes the service's JSON and the CLI's ``--json``,
and it is the OpenAPI schema the schemathesis test holds the service to. Adding a field here
adds it everywhere; DESIGN.md lets fields be added to the response object, never removed.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field

from edgar_rag.answer.render import REASON_WORDS
from edgar_rag.domain import MAX_QUESTION_CHARS, Citation, FilingMeta, Hit, Response

if TYPE_CHECKING:
    from edgar_rag.ingest.indexer import IngestResult


MAX_CIK = 9_999_999_999
MAX_OFFSET = 1_000_000_000


def _json_integer(value: object) -> object:
    """JSON Schema's integer: a number without a fraction (``3`` or ``3.0``), never ``true``
    or ``"3"``, which pydantic's lax mode would otherwise turn into one."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError("Input should be an integer")
    return value


JsonInteger = BeforeValidator(_json_integer)


def _encodable(text: str) -> str:
    text.encode("utf-8")  # a lone surrogate raises UnicodeEncodeError, a ValueError: a 422
    return text


_NOT_BLANK = r"[^ \t\n\r\f\v]"
"""Some character that is not ASCII white space (regex engines disagree on Unicode's)."""

Question = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_QUESTION_CHARS,
        pattern=_NOT_BLANK,
        description=f"the question, at most {MAX_QUESTION_CHARS} characters, not blank",
    ),
    AfterValidator(_encodable),
]
Ticker = Annotated[
    str,
    Field(
        min_length=1,
        max_length=10,
        pattern=r"^[A-Za-z0-9][A-Za-z0-9.\-]*$",
        description="scope to this company's filing (case does not matter)",
    ),
]
Cik = Annotated[
    int, Field(ge=1, le=MAX_CIK, description="scope to this company by CIK"), JsonInteger
]
FiscalYear = Annotated[
    int,
    Field(ge=1900, le=2100, description="the filing's fiscal year (default: the latest indexed)"),
    JsonInteger,
]
GateName = Literal["none", "cosine", "period", "period+cosine"]


FormName = Literal["10-K", "10-Q", "8-K", "earnings"]
FiscalQuarter = Annotated[
    int,
    Field(ge=1, le=4, description="a 10-Q's or an earnings release's fiscal quarter"),
    JsonInteger,
]


class ScopeFields(BaseModel):
    """A company (ticker or CIK), a year, a form and a quarter; none of them for the whole
    corpus."""

    model_config = ConfigDict(extra="forbid")

    ticker: Ticker | None = None
    cik: Cik | None = None
    fiscal_year: FiscalYear | None = None
    form: FormName | None = Field(None, description="the filing's form (default: the 10-K)")
    fiscal_quarter: FiscalQuarter | None = None


class AskRequest(ScopeFields):
    question: Question
    gate: GateName | None = Field(None, description="relevance gate (default: the server's)")


class SearchRequest(ScopeFields):
    question: Question
    k: Annotated[int, Field(ge=1, le=50, description="how many passages"), JsonInteger] = 5


class QueryRequest(BaseModel):
    """``POST /query``: a corpus-wide question, answered with the passages retrieved for it."""

    model_config = ConfigDict(extra="forbid")

    question: Question
    top_k: Annotated[
        int, Field(ge=1, le=20, description="how many retrieved passages to list"), JsonInteger
    ] = 5


# -- responses ---------------------------------------------------------------------------------


class FieldError(BaseModel):
    loc: list[str | int]
    msg: str
    type: str


class ErrorBody(BaseModel):
    """Every error: a short code, one line for a person, and the fields at fault for a 422."""

    error: str = Field(description="not_found, not_recorded, invalid_request, busy, ...")
    detail: str
    fields: list[FieldError] | None = None


class FilingJson(BaseModel):
    model_config = ConfigDict(from_attributes=True)  # read from a FilingMeta

    company: str
    ticker: str | None
    cik: int | None
    fiscal_year: int
    accession: str | None
    form: str
    fiscal_quarter: int | None = Field(None, description="a 10-Q's or a release's quarter")
    period_end: date | None = Field(None, description="the period's end; an 8-K's report date")
    filing_date: date | None
    url: str | None


class IngestResultJson(BaseModel):
    """One filing's ingest as ``edgar-rag ingest --json`` prints it."""

    source: str
    outcome: str = Field(description="indexed, unchanged, skipped or refused")
    reason: str | None = Field(description="why a file was skipped or refused")
    filing: FilingJson | None
    chunks: int
    facts: int
    seconds: dict[str, float] | None = Field(description="seconds each stage took")
    warning: str | None = Field(
        None,
        description="indexed, but the file lacks Items its form has (how many were found)",
    )

    @classmethod
    def of(cls, result: IngestResult) -> IngestResultJson:
        return cls(
            source=result.source,
            outcome=result.outcome.value,
            reason=result.reason,
            filing=None if result.meta is None else FilingJson.model_validate(result.meta),
            chunks=result.chunks,
            facts=result.facts,
            seconds=result.seconds,
            warning=result.warning,
        )


class CitationJson(BaseModel):
    marker: int
    ticker: str | None
    cik: int | None
    fiscal_year: int
    accession: str | None
    item: str
    title: str
    quote: str
    start: int
    end: int
    score: float

    @classmethod
    def of(cls, citation: Citation) -> CitationJson:
        filing = citation.filing
        return cls(
            marker=citation.marker,
            ticker=filing.ticker,
            cik=filing.cik,
            fiscal_year=filing.fiscal_year,
            accession=filing.accession,
            item=citation.item,
            title=citation.title,
            quote=citation.quote,
            start=citation.start,
            end=citation.end,
            score=citation.score,
        )


class Tokens(BaseModel):
    prompt: int
    completion: int


class OperandJson(BaseModel):
    """One figure a calculation used, with the marker of the citation that prints it."""

    name: str
    item: str
    fiscal_year: int
    value: str
    """Exact decimal, in units (dollars, not millions), signed as XBRL signs it."""
    printed: str
    unit: str
    scale: int
    places: int
    period_start: str | None
    period_end: str
    accession: str | None
    concept: str | None
    row_label: str | None
    offset: int | None
    marker: int


class RoundingJson(BaseModel):
    decimals: int
    mode: str


class CalculationJson(BaseModel):
    """A computed answer's formula, operands, result and the rounding applied."""

    metric: str | None
    formula: str
    fiscal_year: int
    operands: list[OperandJson]
    result: str
    text: str
    unit: str
    scale: int
    rounding: RoundingJson


class AskResponse(BaseModel):
    """DESIGN.md's response object: an answer with quoted citations, or a typed decline."""

    question: str
    text: str | None
    citations: list[CitationJson]
    abstained: bool
    reason: str | None
    detail: str | None
    gate: str
    retrieval_score: float | None
    gate_score: float | None
    source: FilingJson | None
    generator: str
    timings_ms: dict[str, float]
    tokens: Tokens
    replayed: bool
    calculation: CalculationJson | None = Field(None, exclude_if=lambda value: value is None)
    """Only on an answer computed in code (DESIGN.md): any other answer has no such key, as
    before the models wrote the body (``null`` would add a field to every answer)."""
    comparison: list[CalculationJson] = Field(default_factory=list, exclude_if=lambda v: not v)
    """Only on a comparison computed in code: one calculation per company, in the order named."""

    @classmethod
    def of(cls, response: Response) -> AskResponse:
        source = response.source
        return cls(
            question=response.question,
            text=response.text,
            citations=[CitationJson.of(citation) for citation in response.citations],
            abstained=response.abstained,
            reason=response.reason.value if response.reason is not None else None,
            detail=response.detail,
            gate=response.gate,
            retrieval_score=_round(response.retrieval_score),
            gate_score=_round(response.gate_score),
            source=FilingJson.model_validate(source) if source is not None else None,
            generator=response.generator,
            timings_ms=response.timings_ms,
            tokens=Tokens(prompt=response.prompt_tokens, completion=response.completion_tokens),
            replayed=response.replayed,
            calculation=(
                CalculationJson.model_validate(response.calculation)
                if response.calculation is not None
                else None
            ),
            comparison=[CalculationJson.model_validate(part) for part in response.comparison],
        )


class HitJson(BaseModel):
    rank: int
    score: float
    cosine: float
    item: str
    title: str
    text: str
    start: int
    end: int
    ticker: str | None
    cik: int | None
    company: str
    fiscal_year: int
    accession: str | None

    @classmethod
    def of(cls, hit: Hit) -> HitJson:
        chunk, filing = hit.passage.chunk, hit.passage.filing
        return cls(
            rank=hit.rank,
            score=round(hit.score, 6),
            cosine=round(hit.cosine, 6),
            item=chunk.item,
            title=chunk.title,
            text=chunk.text,
            start=chunk.start,
            end=chunk.end,
            ticker=filing.ticker,
            cik=filing.cik,
            company=filing.company,
            fiscal_year=filing.fiscal_year,
            accession=filing.accession,
        )


class SearchResponse(BaseModel):
    question: str
    source: FilingJson | None
    hits: list[HitJson]

    @classmethod
    def of(cls, question: str, source: FilingMeta | None, hits: Sequence[Hit]) -> SearchResponse:
        return cls(
            question=question,
            source=FilingJson.model_validate(source) if source is not None else None,
            hits=[HitJson.of(hit) for hit in hits],
        )


class QuerySource(BaseModel):
    filing: str
    chunk: int
    score: float
    excerpt: str

    @classmethod
    def of(cls, hit: Hit) -> QuerySource:
        passage = hit.passage
        return cls(
            filing=_filing_label(passage.filing),
            chunk=passage.chunk.ordinal,
            score=round(hit.cosine, 4),
            excerpt=_excerpt(passage.chunk.text),
        )


class QueryResponse(BaseModel):
    answer: str
    sources: list[QuerySource]
    abstained: bool
    reason: str | None

    @classmethod
    def of(cls, response: Response, hits: Sequence[Hit]) -> QueryResponse:
        """The ``/query`` answer: the text, or the words for why it was declined, and the
        passages retrieved for the question."""
        if response.reason is not None:
            words = REASON_WORDS[response.reason.value]
            answer = f"{words} {response.detail}" if response.detail else words
        else:
            answer = response.text or ""
        return cls(
            answer=answer,
            sources=[QuerySource.of(hit) for hit in hits],
            abstained=response.abstained,
            reason=response.reason.value if response.reason is not None else None,
        )


class StatementEntry(BaseModel):
    """A primary statement found in a filing, by its title."""

    model_config = ConfigDict(from_attributes=True)  # read from a StatementFound

    kind: Literal["income_statement", "balance_sheet", "cash_flow", "comprehensive_income"]
    title: str
    page: int | None = Field(description="zero-based page of a PDF; null in an HTML filing")
    years: list[int] = Field(description="the fiscal years its columns name; empty: none read")
    rows: int


class FilingEntry(BaseModel):
    model_config = ConfigDict(from_attributes=True)  # read from a FilingSummary

    filing_id: int
    ticker: str | None
    cik: int | None
    company: str
    fiscal_year: int
    accession: str | None
    form: str
    fiscal_quarter: int | None = Field(None, description="a 10-Q's or a release's quarter")
    period_end: date | None = Field(None, description="the period's end; an 8-K's report date")
    items: int
    chunks: int
    facts: int
    years_reported: list[int]
    statements: list[StatementEntry]


class ItemText(BaseModel):
    """An Item's text, and where the asked span lies inside it (character offsets)."""

    model_config = ConfigDict(from_attributes=True)  # read from an ItemSpan

    filing_id: int
    item: str
    title: str
    start: int = Field(description="where the Item starts in the filing's clean text")
    end: int
    text: str
    quote_start: int = Field(description="the asked span's start, relative to text")
    quote_end: int


class EmbedderJson(BaseModel):
    model_config = ConfigDict(from_attributes=True)  # read from an EmbedderIdentity

    model: str
    dimensions: int
    normalisation: str


class GeneratorHealth(BaseModel):
    name: str | None
    ready: bool
    detail: str | None


class SlotsHealth(BaseModel):
    total: int
    busy: int
    queue: int
    """Places for questions waiting for a slot (EDGAR_RAG_QUEUE)."""
    waiting: int


class Health(BaseModel):
    status: Literal["ok"]
    filings: int
    chunks: int
    embedder: EmbedderJson | None
    generator: GeneratorHealth
    slots: SlotsHealth


EXCERPT_CHARS = 300
"""How much of a passage ``POST /query`` shows, cut back to a word."""


def _filing_label(filing: FilingMeta) -> str:
    """``AAPL 10-K FY2025 (0000320193-25-000079)``."""
    label = f"{filing.ticker or filing.company} {filing.form} FY{filing.fiscal_year}"
    return f"{label} ({filing.accession})" if filing.accession else label


def _excerpt(text: str) -> str:
    if len(text) <= EXCERPT_CHARS:
        return text
    return text[:EXCERPT_CHARS].rsplit(" ", 1)[0] + " …"


def _round(value: float | None) -> float | None:
    return round(value, 4) if value is not None else None
