"""The HTTP service: ``create_app(services)`` builds the app; ``serve(settings, host, port)``
runs it.

Endpoints: ``POST /ask`` (the response object; with ``Accept: text/event-stream``, the model's
draft as server-sent events, then the response: ``streaming.py``), ``POST /query`` (docs-rag's
shape, corpus-wide), ``POST /search`` (ranked passages), ``GET /filings``,
``GET /filings/{id}/text`` (an Item around a quote), ``GET /health``, ``GET /metrics``, the page
at ``GET /``, and ``/openapi.json`` and ``/docs`` (Swagger UI from the service's own files:
``docs.py``). Errors map as ``failures.py`` draws them; never a 500 on purpose.

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
from contextlib import ExitStack, closing
from dataclasses import dataclass, field, replace
from importlib import resources
from typing import Annotated, Any, TypeVar

import uvicorn
from fastapi import Depends, FastAPI, Path, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse
from fastapi.responses import Response as HttpResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sse_starlette import EventSourceResponse
from starlette.concurrency import run_in_threadpool

from edgar_rag import __version__
from edgar_rag.answer.answerer import Answerer
from edgar_rag.answer.render import REASON_WORDS
from edgar_rag.compose import build_answerer, build_searcher, open_index
from edgar_rag.config import Settings
from edgar_rag.domain import MAX_QUESTION_CHARS, FilingStore, Scope
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
from edgar_rag.service.store import LockedFigures, LockedPassages, item_span
from edgar_rag.service.streaming import EVENT_STREAM, AnswerStream, wants_events

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
    with ExitStack() as on_failure:
        index = on_failure.enter_context(closing(open_index(settings)))
        try:
            answerer: Answerer | None = build_answerer(settings, index)
            problem = None
        except (ConfigError, SourceError) as exc:
            answerer, problem = None, str(exc)
            log.warning("the generator is not ready: %s", problem)
        searcher = answerer.searcher if answerer is not None else build_searcher(settings, index)
        on_failure.pop_all()  # built: the index stays open for the app, and serve closes it
    return Services(index, searcher, answerer, ServiceSettings.from_settings(settings), problem)


def serve(settings: Settings, host: str = "127.0.0.1", port: int = 8000) -> None:
    """Build the services and run the app with uvicorn until interrupted (``edgar-rag serve``)."""
    services = build_services(settings)
    with closing(services.index):
        uvicorn.run(
            create_app(services),
            host=host,
            port=port,
            access_log=False,
            log_config=log_config(uvicorn.config.LOGGING_CONFIG),
        )


def create_app(services: Services) -> FastAPI:
    """A FastAPI app serving ``services``; each call builds its own metrics, slots and lock."""
    backend = _Backend.over(services)
    app = FastAPI(
        title="edgar-rag",
        version=__version__,
        description="Answers about SEC 10-K filings, every figure quoted from the passage it "
        "cites; a typed decline when the filing does not support an answer.",
        docs_url=None,
        redoc_url=None,
    )
    install_docs(app)
    app.add_middleware(
        RequestObserver, metrics=backend.metrics, log_questions=services.settings.log_questions
    )
    install_error_handlers(app)
    api_key = services.settings.api_key
    keyed = [Depends(_key_check(api_key))] if api_key else []
    # In this order: it is the order of the paths in the OpenAPI schema.
    _add_page_and_health(app, backend)
    _add_answering(app, backend, keyed)
    _add_reading(app, backend, keyed)
    _add_metrics(app, backend, keyed)
    return app


@dataclass(frozen=True, slots=True)
class _Backend:
    """What the endpoints share: the services behind one index lock, and the generation slots
    that bound how many answers run at once."""

    services: Services
    lock: threading.Lock
    slots: GenerationSlots
    metrics: ServiceMetrics
    searcher: Searcher
    answerer: Answerer | None

    @classmethod
    def over(cls, services: Services) -> _Backend:
        lock = threading.Lock()
        answerer = services.answerer
        if answerer is not None:
            computed = answerer.computed
            answerer = replace(
                answerer,
                searcher=_locked(answerer.searcher, lock),
                computed=replace(computed, store=LockedFigures(computed.store, lock))
                if computed is not None
                else None,
            )
        return cls(
            services=services,
            lock=lock,
            slots=GenerationSlots(services.settings.slots),
            metrics=ServiceMetrics(services.settings.slots),
            searcher=_locked(services.searcher, lock),
            answerer=answerer,
        )

    def resolve(self, body: ScopeFields) -> Scope:
        with self.lock:
            scope = self.services.index.resolve_scope(body.ticker, body.cik, body.fiscal_year)
        filing = scope.filing
        if body.ticker and body.cik is not None and filing is not None and filing.cik != body.cik:
            raise NotFoundError(f"ticker {body.ticker.upper()} is CIK {filing.cik}, not {body.cik}")
        return scope

    async def generate(self, work: Callable[[Answerer], _T]) -> _T:
        """``work`` in a worker thread while it holds a slot; SlotsBusy at once when none is
        free."""
        return await self.run(self.take_slot(), work)

    def take_slot(self) -> Answerer:
        """The answerer, once a slot is taken for it (``run`` gives it back); SlotsBusy at once
        when none is free."""
        if self.answerer is None:
            problem = self.services.generator_problem or "no generator was configured"
            raise SourceError(f"the generator is not ready: {problem}")
        ready, slots = self.answerer, self.slots
        if not slots.try_take():
            wait_s = slots.retry_after_s()
            raise SlotsBusy(
                f"all {slots.total} generation slots are busy; retry in {wait_s} s", wait_s
            )
        self.metrics.slots_busy.set(slots.busy)
        return ready

    async def run(self, ready: Answerer, work: Callable[[Answerer], _T]) -> _T:
        """``work`` in a worker thread, then the slot ``take_slot`` took is given back."""
        started = time.perf_counter()
        try:
            return await run_in_threadpool(work, ready)
        finally:
            self.slots.give_back(time.perf_counter() - started)
            self.metrics.slots_busy.set(self.slots.busy)

    def health(self) -> Health:
        with self.lock:
            counts = self.services.index.counts()
            identity = self.services.index.embedder_identity()
        answerer = self.answerer
        return Health(
            status="ok",
            filings=counts["filings"],
            chunks=counts["chunks"],
            embedder=EmbedderJson.model_validate(identity) if identity is not None else None,
            generator=GeneratorHealth(
                name=answerer.generator.name if answerer is not None else None,
                ready=answerer is not None,
                detail=self.services.generator_problem,
            ),
            slots=SlotsHealth(total=self.slots.total, busy=self.slots.busy),
        )


def _add_page_and_health(app: FastAPI, backend: _Backend) -> None:
    """The two endpoints that never ask for the key."""
    page = _page()

    @app.get("/", include_in_schema=False)
    async def web_page() -> HTMLResponse:
        return HTMLResponse(page)

    @app.get("/health", response_model=Health, summary="Corpus size, index and generator")
    def health() -> Health:
        return backend.health()


def _add_answering(app: FastAPI, backend: _Backend, keyed: list[Any]) -> None:
    """The endpoints that take a generation slot."""

    @app.post(
        "/ask",
        dependencies=keyed,
        response_model=None,
        responses={
            200: {"model": AskResponse, "content": {EVENT_STREAM: {"schema": {"type": "string"}}}},
            **error_responses(401, 404, 422, 502, 503, 504),
        },
        summary="Answer a question from one filing, or from the whole corpus",
        description="With `Accept: text/event-stream`: `token` events with the model's draft "
        "(unverified) as it comes, then one `response` event with the response object, or one "
        "`error` event with the status and body of the error.",
    )
    async def ask(body: AskRequest, request: Request) -> HttpResponse:
        record = record_of(request)
        record.question = body.question
        scope = await run_in_threadpool(backend.resolve, body)
        if wants_events(request.headers.get("accept")):
            ready = backend.take_slot()
            stream = AnswerStream(
                lambda on_token: backend.run(
                    ready, lambda a: a.answer(body.question, scope, body.gate, on_token)
                ),
                record,
            )
            return EventSourceResponse(stream.events())
        response = await backend.generate(lambda a: a.answer(body.question, scope, body.gate))
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
            hits = backend.searcher.search(read_question(body.question), Scope(), body.top_k)
            return QueryResponse.of(response, hits)

        answered = await backend.generate(work)
        await _note_disconnect(request)
        return JSONResponse(answered.model_dump(mode="json"))


def _add_reading(app: FastAPI, backend: _Backend, keyed: list[Any]) -> None:
    """The endpoints that read the index and never wait on a slot."""

    @app.post(
        "/search",
        dependencies=keyed,
        response_model=SearchResponse,
        responses=error_responses(401, 404, 422),
        summary="Rank the passages that best answer a question",
    )
    def search(body: SearchRequest, request: Request) -> SearchResponse:
        record_of(request).question = body.question
        scope = backend.resolve(body)
        hits = backend.searcher.search(read_question(body.question), scope, body.k)
        return SearchResponse.of(body.question, scope.filing, hits)

    @app.get(
        "/filings",
        dependencies=keyed,
        response_model=list[FilingEntry],
        responses=error_responses(401),
        summary="The indexed filings",
    )
    def filings() -> list[FilingEntry]:
        with backend.lock:
            summaries = backend.services.index.filings()
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
        with backend.lock:
            span = item_span(backend.services.index, filing_id, start, end)
        return ItemText.model_validate(span)


def _add_metrics(app: FastAPI, backend: _Backend, keyed: list[Any]) -> None:
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
        return HttpResponse(backend.metrics.exposition(), media_type=METRICS_CONTENT_TYPE)


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
