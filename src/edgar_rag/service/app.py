"""The HTTP service: ``create_app(services)`` builds the app; ``serve(settings, host, port)``
runs it.

Endpoints: ``POST /ask`` (the response object), ``POST /query`` (docs-rag's shape, corpus-wide),
``POST /search`` (ranked passages), ``GET /filings``, ``GET /filings/{id}/text`` (an Item around
a quote), ``GET /health``, ``GET /metrics``, the page at ``GET /``, and ``/openapi.json`` and
``/docs`` (Swagger UI from the service's own files: ``docs.py``). Errors map as ``failures.py``
draws them; never a 500 on purpose.

Generation runs in a worker thread while it holds one of ``slots`` slots; a request that finds
them all busy gets 503 with ``Retry-After`` at once. A slot is given back when its generation
returns, also when the client has gone: the model is busy until then, whoever waits for it.
Searches, filings and health never wait on a slot, only on the short index lock.

With an API key set, every endpoint asks for ``Authorization: Bearer <key>`` except ``/health``,
the page (which asks the user for the key when an endpoint answers 401), ``/openapi.json`` and
``/docs``.
"""

from __future__ import annotations

import hmac
import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from importlib import resources
from typing import Annotated, Any, TypeVar

import uvicorn
from fastapi import Depends, FastAPI, Path, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse
from fastapi.responses import Response as HttpResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.concurrency import run_in_threadpool

from edgar_rag import __version__
from edgar_rag.answer.answerer import Answerer
from edgar_rag.answer.render import REASON_WORDS
from edgar_rag.compose import build_answerer, build_searcher, open_index
from edgar_rag.config import Settings
from edgar_rag.domain import FilingStore, Scope
from edgar_rag.errors import ConfigError, NotFoundError, SourceError
from edgar_rag.question.reading import read_question
from edgar_rag.retrieve.search import Searcher
from edgar_rag.service.docs import install_docs
from edgar_rag.service.failures import (
    SlotsBusy,
    Unauthorized,
    error_responses,
    install_error_handlers,
)
from edgar_rag.service.models import (
    MAX_OFFSET,
    MAX_QUESTION_CHARS,
    AskRequest,
    AskResponse,
    EmbedderJson,
    FilingEntry,
    GeneratorHealth,
    Health,
    ItemText,
    QueryRequest,
    QueryResponse,
    ScopeFields,
    SearchRequest,
    SearchResponse,
    SlotsHealth,
)
from edgar_rag.service.observe import (
    LOGGER,
    METRICS_CONTENT_TYPE,
    RequestObserver,
    ServiceMetrics,
    log_config,
    record_of,
)
from edgar_rag.service.slots import GenerationSlots
from edgar_rag.service.store import LockedPassages, item_span

log = logging.getLogger(LOGGER)
_T = TypeVar("_T")
_BEARER = HTTPBearer(
    auto_error=False, description="EDGAR_RAG_API_KEY, when the service was started with one"
)
"""How the key travels (stateless; documents the scheme in the OpenAPI schema)."""


@dataclass(frozen=True, slots=True)
class ServiceSettings:
    """The service's own knobs (from EDGAR_RAG_API_KEY, _SLOTS and _LOG_QUESTIONS)."""

    api_key: str | None = None
    slots: int = 1
    log_questions: bool = False

    @classmethod
    def from_settings(cls, settings: Settings) -> ServiceSettings:
        key = settings.api_key.get_secret_value() if settings.api_key is not None else None
        return cls(api_key=key or None, slots=settings.slots, log_questions=settings.log_questions)


@dataclass(frozen=True, slots=True)
class Services:
    """What the app needs: the index, a searcher, an answerer (None when the generator could
    not be built; ``generator_problem`` says why) and the service settings."""

    index: FilingStore
    searcher: Searcher
    answerer: Answerer | None
    settings: ServiceSettings = field(default_factory=ServiceSettings)
    generator_problem: str | None = None


def build_services(settings: Settings) -> Services:
    """The index, searcher and answerer the settings name. A generator that cannot be built
    (no local model yet, a missing tape) leaves search running: /health says why."""
    index = open_index(settings)
    try:
        try:
            answerer: Answerer | None = build_answerer(settings, index)
            problem = None
        except (ConfigError, SourceError) as exc:
            answerer, problem = None, str(exc)
            log.warning("the generator is not ready: %s", problem)
        searcher = answerer.searcher if answerer is not None else build_searcher(settings, index)
    except BaseException:
        index.close()
        raise
    return Services(index, searcher, answerer, ServiceSettings.from_settings(settings), problem)


def serve(settings: Settings, host: str = "127.0.0.1", port: int = 8000) -> None:
    """Build the services and run the app with uvicorn until interrupted (``edgar-rag serve``)."""
    services = build_services(settings)
    try:
        uvicorn.run(
            create_app(services),
            host=host,
            port=port,
            access_log=False,
            log_config=log_config(uvicorn.config.LOGGING_CONFIG),
        )
    finally:
        services.index.close()


def create_app(services: Services) -> FastAPI:
    """A FastAPI app serving ``services``; each call builds its own metrics, slots and lock."""
    settings = services.settings
    lock = threading.Lock()
    slots = GenerationSlots(settings.slots)
    metrics = ServiceMetrics(settings.slots)
    searcher = _locked(services.searcher, lock)
    answerer = services.answerer
    if answerer is not None:
        answerer = replace(answerer, searcher=_locked(answerer.searcher, lock))
    page = _page()

    app = FastAPI(
        title="edgar-rag",
        version=__version__,
        description="Answers about SEC 10-K filings, every figure quoted from the passage it "
        "cites; a typed decline when the filing does not support an answer.",
        docs_url=None,
        redoc_url=None,
    )
    install_docs(app)
    app.add_middleware(RequestObserver, metrics=metrics, log_questions=settings.log_questions)
    install_error_handlers(app)
    keyed = [Depends(_key_check(settings.api_key))] if settings.api_key else []

    def resolve(body: ScopeFields) -> Scope:
        with lock:
            scope = services.index.resolve_scope(body.ticker, body.cik, body.fiscal_year)
        filing = scope.filing
        if body.ticker and body.cik is not None and filing is not None and filing.cik != body.cik:
            raise NotFoundError(f"ticker {body.ticker.upper()} is CIK {filing.cik}, not {body.cik}")
        return scope

    async def generate(work: Callable[[Answerer], _T]) -> _T:
        if answerer is None:
            problem = services.generator_problem or "no generator was configured"
            raise SourceError(f"the generator is not ready: {problem}")
        ready = answerer
        if not slots.try_take():
            wait_s = slots.retry_after_s()
            raise SlotsBusy(
                f"all {slots.total} generation slots are busy; retry in {wait_s} s", wait_s
            )
        metrics.slots_busy.set(slots.busy)
        started = time.perf_counter()
        try:
            return await run_in_threadpool(work, ready)
        finally:
            slots.give_back(time.perf_counter() - started)
            metrics.slots_busy.set(slots.busy)

    @app.get("/", include_in_schema=False)
    async def web_page() -> HTMLResponse:
        return HTMLResponse(page)

    @app.get("/health", response_model=Health, summary="Corpus size, index and generator")
    def health() -> Health:
        with lock:
            counts = services.index.counts()
            identity = services.index.embedder_identity()
        return Health(
            status="ok",
            filings=counts["filings"],
            chunks=counts["chunks"],
            embedder=EmbedderJson.model_validate(identity) if identity is not None else None,
            generator=GeneratorHealth(
                name=answerer.generator.name if answerer is not None else None,
                ready=answerer is not None,
                detail=services.generator_problem,
            ),
            slots=SlotsHealth(total=slots.total, busy=slots.busy),
        )

    @app.post(
        "/ask",
        dependencies=keyed,
        response_model=None,
        responses={200: {"model": AskResponse}, **error_responses(401, 404, 422, 502, 503, 504)},
        summary="Answer a question from one filing, or from the whole corpus",
    )
    async def ask(body: AskRequest, request: Request) -> JSONResponse:
        record = record_of(request)
        record.question = body.question
        scope = await run_in_threadpool(resolve, body)
        response = await generate(lambda a: a.answer(body.question, scope, body.gate))
        record.answered(response)
        await _note_disconnect(request)
        return JSONResponse(AskResponse.of(response).model_dump(mode="json"))

    @app.post(
        "/query",
        dependencies=keyed,
        response_model=None,
        responses={200: {"model": QueryResponse}, **error_responses(401, 404, 422, 502, 503, 504)},
        summary="docs-rag's corpus-wide question: an answer and the passages retrieved",
    )
    async def query(body: QueryRequest, request: Request) -> JSONResponse:
        record = record_of(request)
        record.question = body.question

        def work(ready: Answerer) -> QueryResponse:
            response = ready.answer(body.question, Scope())
            record.answered(response)
            hits = searcher.search(read_question(body.question), Scope(), body.top_k)
            return QueryResponse.of(response, hits)

        answered = await generate(work)
        await _note_disconnect(request)
        return JSONResponse(answered.model_dump(mode="json"))

    @app.post(
        "/search",
        dependencies=keyed,
        response_model=SearchResponse,
        responses=error_responses(401, 404, 422),
        summary="Rank the passages that best answer a question",
    )
    def search(body: SearchRequest, request: Request) -> SearchResponse:
        record_of(request).question = body.question
        scope = resolve(body)
        hits = searcher.search(read_question(body.question), scope, body.k)
        return SearchResponse.of(body.question, scope.filing, hits)

    @app.get(
        "/filings",
        dependencies=keyed,
        response_model=list[FilingEntry],
        responses=error_responses(401),
        summary="The indexed filings",
    )
    def filings() -> list[FilingEntry]:
        with lock:
            summaries = services.index.filings()
        return [FilingEntry.model_validate(summary) for summary in summaries]

    @app.get(
        "/filings/{filing_id}/text",
        dependencies=keyed,
        response_model=ItemText,
        responses=error_responses(401, 404, 422),
        summary="The Item holding characters start to end of a filing, to show a quote in place",
    )
    def filing_text(
        filing_id: Annotated[int, Path(ge=1, le=2**62)],
        start: Annotated[int, Query(ge=0, le=MAX_OFFSET, description="a citation's start")],
        end: Annotated[int, Query(ge=0, le=MAX_OFFSET, description="a citation's end")],
    ) -> ItemText:
        with lock:
            span = item_span(services.index, filing_id, start, end)
        return ItemText.model_validate(span)

    @app.get(
        "/metrics",
        dependencies=keyed,
        response_class=HttpResponse,
        responses={
            200: {"content": {"text/plain": {"schema": {"type": "string"}}}},
            **error_responses(401),
        },
        summary="Prometheus metrics",
    )
    def prometheus_metrics() -> HttpResponse:
        return HttpResponse(metrics.exposition(), media_type=METRICS_CONTENT_TYPE)

    return app


async def _note_disconnect(request: Request) -> None:
    """Mark the request's log line when its client left before the answer was ready."""
    if await request.is_disconnected():
        record_of(request).outcome = "disconnected"


def _locked(searcher: Searcher, lock: threading.Lock) -> Searcher:
    """The same searcher over the index behind ``lock``."""
    return replace(searcher, index=LockedPassages(searcher.index, lock))


def _key_check(api_key: str) -> Callable[..., Any]:
    async def check_key(
        credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_BEARER)],
    ) -> None:
        given = credentials.credentials if credentials is not None else ""
        if not hmac.compare_digest(given.encode(), api_key.encode()):
            raise Unauthorized("this service needs its API key: Authorization: Bearer <key>")

    return check_key


def _page() -> str:
    """The web page, with the decline reasons' words and the question limit filled in."""
    html = (resources.files("edgar_rag.service") / "page.html").read_text(encoding="utf-8")
    words = json.dumps(REASON_WORDS).replace("</", "<\\/")
    return html.replace("{{REASON_WORDS}}", words).replace(
        "{{MAX_QUESTION_CHARS}}", str(MAX_QUESTION_CHARS)
    )
