"""The HTTP service: ``create_app(services)`` builds the app; ``serve(settings, host, port)``
runs it.

Endpoints: ``POST /ask`` (the response object; with ``Accept: text/event-stream``, the model's
draft as server-sent events, then the response: ``streaming.py``), ``POST /query`` (an answer and
its passages, corpus-wide), ``POST /search`` (ranked passages), ``GET /filings``,
``GET /filings/{id}/text`` (an Item around a quote), ``GET /health``, ``GET /metrics``, the page
at ``GET /``, and ``/openapi.json`` and ``/docs`` (Swagger UI from the service's own files:
``docs.py``). Errors map as ``failures.py`` draws them; never a 500 on purpose.

A question is read, searched and settled in code in a worker thread, never waiting for the
model: a figure answered in code, or a decline decided before the model, is answered at once
however busy the model is (issue 41). Only a question the model answers takes a place in the
generation queue (``slots.py``): ``slots`` generations at once, each in a worker thread, and up
to ``queue`` more waiting in arrival order; a request finding the queue full gets 503 with a
``Retry-After`` of about as long as the queue ahead will take. A slot is given back when its
generation returns, also when the client has gone: the model is busy until then, whoever waits
for it. A client that goes while its question waits gives its place up. Searches, filings and
health never wait on a slot, only on the short index lock.

With an API key set, every endpoint asks for ``Authorization: Bearer <key>`` except ``/health``,
the page (which asks the user for the key when an endpoint answers 401), ``/openapi.json`` and
``/docs``.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import threading
import time
from collections.abc import Awaitable, Callable
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
from edgar_rag.answer.prepared import Prepared
from edgar_rag.answer.render import REASON_WORDS
from edgar_rag.compose import build_answerer, build_searcher, open_index
from edgar_rag.config import Settings
from edgar_rag.domain import MAX_QUESTION_CHARS, FilingStore, Response, Scope, TokenSink
from edgar_rag.errors import ConfigError, NotFoundError, SourceError
from edgar_rag.index.schema import resolve_indexed_scope
from edgar_rag.question.reading import read_question
from edgar_rag.retrieve.search import Searcher
from edgar_rag.rules import canonical_form
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
from edgar_rag.service.slots import GenerationQueue, Place
from edgar_rag.service.store import LockedFigures, LockedPassages, item_span
from edgar_rag.service.streaming import (
    EVENT_STREAM,
    Answering,
    AnswerStream,
    ClientGone,
    wants_events,
)

log = logging.getLogger(LOGGER)
_T = TypeVar("_T")
_BEARER = HTTPBearer(
    auto_error=False, description="EDGAR_RAG_API_KEY, when the service was started with one"
)
"""How the key travels (stateless; documents the scheme in the OpenAPI schema)."""


@dataclass(frozen=True, slots=True)
class ServiceSettings:
    """The service's own knobs (from EDGAR_RAG_API_KEY, _SLOTS, _QUEUE and _LOG_QUESTIONS)."""

    api_key: str | None = None
    slots: int = 1
    queue: int = 4
    log_questions: bool = False

    @classmethod
    def from_settings(cls, settings: Settings) -> ServiceSettings:
        key = settings.api_key.get_secret_value() if settings.api_key is not None else None
        return cls(
            api_key=key or None,
            slots=settings.slots,
            queue=settings.queue,
            log_questions=settings.log_questions,
        )


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
        # The service only reads: a missing SQLite file is EmptyIndexError, never created.
        index = on_failure.enter_context(closing(open_index(settings, create=False)))
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
    """What the endpoints share: the services behind one index lock, and the generation queue
    that bounds how many answers the model writes at once and how many wait for it."""

    services: Services
    lock: threading.Lock
    queue: GenerationQueue
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
            queue=GenerationQueue(services.settings.slots, services.settings.queue),
            metrics=ServiceMetrics(services.settings.slots),
            searcher=_locked(services.searcher, lock),
            answerer=answerer,
        )

    def resolve(self, body: ScopeFields) -> Scope:
        """The scope ``body`` names; EmptyIndexError (409) when no filing is indexed."""
        with self.lock:
            scope = resolve_indexed_scope(
                self.services.index,
                body.ticker,
                body.cik,
                body.fiscal_year,
                form=canonical_form(body.form) if body.form else None,
                fiscal_quarter=body.fiscal_quarter,
            )
        filing = scope.filing
        if body.ticker and body.cik is not None and filing is not None and filing.cik != body.cik:
            raise NotFoundError(f"ticker {body.ticker.upper()} is CIK {filing.cik}, not {body.cik}")
        return scope

    def ready(self) -> Answerer:
        """The answerer; SourceError when the generator could not be built."""
        if self.answerer is None:
            problem = self.services.generator_problem or "no generator was configured"
            raise SourceError(f"the generator is not ready: {problem}")
        return self.answerer

    async def settle(self, question: str, scope: Scope, gate: str | None) -> Response | Prepared:
        """The question answered in code, or prepared for the model, in a worker thread that
        waits on no generation slot."""
        return await run_in_threadpool(self.ready().settle, question, scope, gate)

    def enter_queue(self) -> Place:
        """A place in the generation queue; SlotsBusy at once, with the wait the queue ahead
        makes, when every slot is busy and every place taken."""
        queue = self.queue
        place = queue.enter()
        if place is None:
            wait_s = queue.retry_after_s()
            raise SlotsBusy(
                f"all {queue.total} generation slots are busy and {queue.waiting} questions wait "
                f"for them; retry in {wait_s} s",
                wait_s,
            )
        self._observe_queue()
        return place

    async def generate(self, place: Place, work: Callable[[Answerer], _T]) -> _T:
        """``work`` in a worker thread once ``place`` holds a slot, which is given back when
        ``work`` returns; ClientGone when the place was given up while it waited."""
        if not await place.turn():
            self._observe_queue()
            raise ClientGone
        self._observe_queue()
        started, held_s = time.perf_counter(), None
        try:
            done = await run_in_threadpool(work, self.ready())
            held_s = time.perf_counter() - started
            return done
        finally:
            self.queue.leave(held_s)  # a failed or stopped generation is not timed
            self._observe_queue()

    def _observe_queue(self) -> None:
        self.metrics.slots_busy.set(self.queue.busy)
        self.metrics.queue_waiting.set(self.queue.waiting)

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
            slots=SlotsHealth(
                total=self.queue.total,
                busy=self.queue.busy,
                queue=self.queue.places,
                waiting=self.queue.waiting,
            ),
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
    """The endpoints that answer: a question the model answers waits for a generation slot."""

    @app.post(
        "/ask",
        dependencies=keyed,
        response_model=None,
        responses={
            200: {"model": AskResponse, "content": {EVENT_STREAM: {"schema": {"type": "string"}}}},
            **error_responses(401, 404, 409, 422, 502, 503, 504),
        },
        summary="Answer a question from one filing, or from the whole corpus",
        description="A figure answered in code never waits for the model; a question the model "
        "answers waits in arrival order for a generation slot, or is 503 with Retry-After when "
        "the queue is full. With `Accept: text/event-stream`: `queued` events with its place "
        "while it waits, `token` events with the model's draft (unverified) as it comes, then "
        "one `response` event with the response object, or one `error` event with the status "
        "and body of the error.",
    )
    async def ask(body: AskRequest, request: Request) -> HttpResponse:
        record = record_of(request)
        record.question = body.question
        scope = await run_in_threadpool(backend.resolve, body)
        settled = await backend.settle(body.question, scope, body.gate)
        streamed = wants_events(request.headers.get("accept"))
        if isinstance(settled, Response):
            if streamed:
                return EventSourceResponse(AnswerStream(_settled(settled), record).events())
            record.answered(settled)
            return JSONResponse(AskResponse.of(settled).model_dump(mode="json"))
        prepared, place = settled, backend.enter_queue()
        if streamed:
            stream = AnswerStream(
                lambda on_token: backend.generate(
                    place, lambda a: a.finish(prepared, body.gate, on_token)
                ),
                record,
                place,
                lambda number: backend.queue.retry_after_s(number - 1),
            )
            return EventSourceResponse(stream.events())
        response = await _generated(
            request, place, backend.generate(place, lambda a: a.finish(prepared, body.gate))
        )
        if response is None:
            return HttpResponse(status_code=204)  # the client gave up its place and is gone
        record.answered(response)
        await _note_disconnect(request)
        return JSONResponse(AskResponse.of(response).model_dump(mode="json"))

    @app.post(
        "/query",
        dependencies=keyed,
        response_model=None,
        responses={
            200: {"model": QueryResponse},
            **error_responses(401, 404, 409, 422, 502, 503, 504),
        },
        summary="Answer a question from the whole corpus, with the passages retrieved for it",
    )
    async def query(body: QueryRequest, request: Request) -> HttpResponse:
        record = record_of(request)
        record.question = body.question
        scope = await run_in_threadpool(backend.resolve, ScopeFields())
        settled = await backend.settle(body.question, scope, None)
        if isinstance(settled, Prepared):
            prepared, place = settled, backend.enter_queue()
            answered = await _generated(
                request, place, backend.generate(place, lambda a: a.finish(prepared))
            )
            if answered is None:
                return HttpResponse(status_code=204)
            settled = answered
        record.answered(settled)
        question = read_question(body.question)
        hits = await run_in_threadpool(backend.searcher.search, question, scope, body.top_k)
        await _note_disconnect(request)
        return JSONResponse(QueryResponse.of(settled, hits).model_dump(mode="json"))


def _settled(response: Response) -> Answering:
    """The answering of a response decided in code: no draft, no generation slot."""

    async def answered(on_token: TokenSink) -> Response:
        return response

    return answered


async def _generated(
    request: Request, place: Place, generation: Awaitable[Response]
) -> Response | None:
    """The generation's response; None when the client left while its question waited, which
    gave its place up."""
    watching = asyncio.ensure_future(_withdraw_when_gone(request, place))
    try:
        return await generation
    except ClientGone:
        record_of(request).outcome = "disconnected"
        return None
    finally:
        watching.cancel()


async def _withdraw_when_gone(request: Request, place: Place, every_s: float = 0.25) -> None:
    """Give ``place`` up if its client leaves while it waits for a slot."""
    while place.waiting:
        if await request.is_disconnected():
            place.withdraw()
            return
        await asyncio.sleep(every_s)


def _add_reading(app: FastAPI, backend: _Backend, keyed: list[Any]) -> None:
    """The endpoints that read the index and never wait on a slot."""

    @app.post(
        "/search",
        dependencies=keyed,
        response_model=SearchResponse,
        responses=error_responses(401, 404, 409, 422),
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
