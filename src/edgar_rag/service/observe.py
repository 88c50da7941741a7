"""What the service tells about each request: one structured log line and Prometheus metrics.

Handlers fill the request's ``RequestRecord`` (outcome, reason, stage timings, tokens); the
``RequestObserver`` middleware adds the route, status and duration when the response is sent,
writes the log line and counts the request. It is also the one place that catches an unexpected
exception: logged with its traceback, answered 500 ``internal`` without one.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass, field
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from edgar_rag.domain import Response

LOGGER = "edgar_rag.service"
LOG_FIELDS = (
    "method",
    "endpoint",
    "status",
    "outcome",
    "reason",
    "duration_ms",
    "timings_ms",
    "tokens",
    "question",
)
"""The extra fields of a request's log line (``question`` only with log_questions)."""

_RECORD = "edgar_rag_record"
_STAGE_BUCKETS = (
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1,
    2.5,
    5,
    10,
    20,
    30,
    60,
)
METRICS_CONTENT_TYPE = CONTENT_TYPE_LATEST

log = logging.getLogger(LOGGER)


@dataclass(slots=True)
class RequestRecord:
    """What a handler learnt about its request, for the log line and the metrics."""

    outcome: str = "ok"
    """``ok``, ``answered``, ``declined``, ``disconnected`` or ``error``."""
    reason: str = "none"
    """A decline's reason or an error's code; ``none`` otherwise."""
    timings_ms: dict[str, float] = field(default_factory=dict)
    tokens: dict[str, int] = field(default_factory=dict)
    question: str | None = None

    def answered(self, response: Response) -> None:
        self.outcome = "declined" if response.reason is not None else "answered"
        self.reason = response.reason.value if response.reason is not None else "none"
        self.timings_ms = dict(response.timings_ms)
        self.tokens = {"prompt": response.prompt_tokens, "completion": response.completion_tokens}

    def failed(self, code: str) -> None:
        self.outcome, self.reason = "error", code


def record_of(request: Request) -> RequestRecord:
    """The record the observer opened for this request (a fresh one outside the observer)."""
    state: dict[str, Any] = request.scope.setdefault("state", {})
    record = state.setdefault(_RECORD, RequestRecord())
    assert isinstance(record, RequestRecord)
    return record


class ServiceMetrics:
    """The service's Prometheus metrics, in a registry of their own (one per app)."""

    def __init__(self, slots: int) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "edgar_rag_requests",
            "HTTP requests by endpoint, outcome and reason",
            ["endpoint", "outcome", "reason"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "edgar_rag_request_seconds",
            "time to answer a request",
            ["endpoint"],
            buckets=_STAGE_BUCKETS,
            registry=self.registry,
        )
        self.stages = Histogram(
            "edgar_rag_stage_seconds",
            "time spent in each answering stage (embed, search, gate, generate, verify)",
            ["stage"],
            buckets=_STAGE_BUCKETS,
            registry=self.registry,
        )
        self.tokens = Counter(
            "edgar_rag_tokens", "model tokens read and written", ["kind"], registry=self.registry
        )
        self.slots_busy = Gauge(
            "edgar_rag_generation_slots_busy", "generations running now", registry=self.registry
        )
        self.queue_waiting = Gauge(
            "edgar_rag_generation_queue_waiting",
            "questions waiting for a generation slot",
            registry=self.registry,
        )
        slots_total = Gauge(
            "edgar_rag_generation_slots", "generations allowed at once", registry=self.registry
        )
        slots_total.set(slots)

    def count(self, endpoint: str, record: RequestRecord, seconds: float) -> None:
        self.requests.labels(endpoint, record.outcome, record.reason).inc()
        self.latency.labels(endpoint).observe(seconds)
        for stage, ms in record.timings_ms.items():
            self.stages.labels(stage).observe(ms / 1000)
        for kind, count in record.tokens.items():
            self.tokens.labels(kind).inc(count)

    def exposition(self) -> bytes:
        return generate_latest(self.registry)


class RequestObserver:
    """ASGI middleware: one log line and the metrics for every HTTP request."""

    def __init__(self, app: ASGIApp, metrics: ServiceMetrics, log_questions: bool) -> None:
        self.app = app
        self.metrics = metrics
        self.log_questions = log_questions

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        record = RequestRecord()
        scope.setdefault("state", {})[_RECORD] = record
        started = time.perf_counter()
        status = 500
        response_started = False

        async def observed_send(message: Message) -> None:
            nonlocal status, response_started
            if message["type"] == "http.response.start":
                status, response_started = int(message["status"]), True
            await send(message)

        try:
            await self.app(scope, receive, observed_send)
        except Exception as error:
            record.failed("internal")
            status = 500
            log.exception("unexpected failure in %s %s", scope["method"], scope["path"])
            if not response_started:
                await _send_internal_error(send, type(error).__name__)
        self._report(scope, record, status, time.perf_counter() - started)

    def _report(self, scope: Scope, record: RequestRecord, status: int, seconds: float) -> None:
        route = scope.get("route")
        endpoint = str(getattr(route, "path", "unmatched"))
        self.metrics.count(endpoint, record, seconds)
        fields: dict[str, Any] = {
            "method": scope["method"],
            "endpoint": endpoint,
            "status": status,
            "outcome": record.outcome,
            "reason": record.reason,
            "duration_ms": round(seconds * 1000, 1),
            "timings_ms": record.timings_ms,
            "tokens": record.tokens,
        }
        if self.log_questions and record.question is not None:
            fields["question"] = record.question
        log.info("%s %s %d %s", scope["method"], endpoint, status, record.outcome, extra=fields)


async def _send_internal_error(send: Send, kind: str) -> None:
    body = json.dumps({"error": "internal", "detail": f"internal error ({kind}); see the log"})
    await send(
        {
            "type": "http.response.start",
            "status": 500,
            "headers": [(b"content-type", b"application/json")],
        }
    )
    await send({"type": "http.response.body", "body": body.encode()})


class JsonLineFormatter(logging.Formatter):
    """A log record as one JSON object per line, with the request fields at top level."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": self.formatTime(record),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        line.update({key: getattr(record, key) for key in LOG_FIELDS if hasattr(record, key)})
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, default=str)


def log_config(uvicorn_config: dict[str, Any]) -> dict[str, Any]:
    """uvicorn's logging configuration, plus JSON lines for the service's own logger."""
    config: dict[str, Any] = json.loads(json.dumps(uvicorn_config))
    config["formatters"]["json_lines"] = {"()": f"{__name__}.JsonLineFormatter"}
    config["handlers"]["json_lines"] = {
        "class": "logging.StreamHandler",
        "formatter": "json_lines",
        "stream": "ext://sys.stderr",
    }
    config["loggers"][LOGGER] = {"handlers": ["json_lines"], "level": "INFO", "propagate": False}
    return config
