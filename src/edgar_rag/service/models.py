"""The HTTP bodies of the service: what a request may hold, and the documented response shapes.

Requests are validated here (a bad body is a 422 naming its fields). Responses are written by
``answer.render`` and ``service.shapes``; the models below only document them in the OpenAPI
schema, which the schemathesis test holds the service to.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field

MAX_QUESTION_CHARS = 1000
"""The longest question the service reads; a longer one is a 422."""

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


class ScopeFields(BaseModel):
    """A company (ticker or CIK) and a year; none of them for the whole corpus."""

    model_config = ConfigDict(extra="forbid")

    ticker: Ticker | None = None
    cik: Cik | None = None
    fiscal_year: FiscalYear | None = None


class AskRequest(ScopeFields):
    question: Question
    gate: GateName | None = Field(None, description="relevance gate (default: the server's)")


class SearchRequest(ScopeFields):
    question: Question
    k: Annotated[int, Field(ge=1, le=50, description="how many passages"), JsonInteger] = 5


class QueryRequest(BaseModel):
    """docs-rag's ``POST /query``: a corpus-wide question."""

    model_config = ConfigDict(extra="forbid")

    question: Question
    top_k: Annotated[
        int, Field(ge=1, le=20, description="how many retrieved passages to list"), JsonInteger
    ] = 5


# -- responses (documentation) ------------------------------------------------------------------


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
    company: str
    ticker: str | None
    cik: int | None
    fiscal_year: int
    accession: str | None
    form: str
    filing_date: str | None
    url: str | None


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


class Tokens(BaseModel):
    prompt: int
    completion: int


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


class SearchResponse(BaseModel):
    question: str
    source: FilingJson | None
    hits: list[HitJson]


class QuerySource(BaseModel):
    filing: str
    chunk: int
    score: float
    excerpt: str


class QueryResponse(BaseModel):
    answer: str
    sources: list[QuerySource]
    abstained: bool
    reason: str | None


class FilingEntry(BaseModel):
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
    years_reported: list[int]


class ItemText(BaseModel):
    """An Item's text, and where the asked span lies inside it (character offsets)."""

    filing_id: int
    item: str
    title: str
    start: int = Field(description="where the Item starts in the filing's clean text")
    end: int
    text: str
    quote_start: int = Field(description="the asked span's start, relative to text")
    quote_end: int


class EmbedderJson(BaseModel):
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


class Health(BaseModel):
    status: Literal["ok"]
    filings: int
    chunks: int
    embedder: EmbedderJson | None
    generator: GeneratorHealth
    slots: SlotsHealth
