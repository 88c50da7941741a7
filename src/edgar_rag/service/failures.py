"""Errors as HTTP answers: one table maps edgar-rag's error tree to a status and a code.

::

    EdgarRagError (errors.py)          503 unavailable (a setting or the index is wrong)
    ├── NotFoundError                  404 not_found (ticker, CIK, year, filing, span)
    ├── EmptyIndexError                409 no_filings (nothing ingested yet: the detail says how)
    ├── NotRecorded (tapes.py)         404 not_recorded
    ├── SourceError                    502 source_unreachable (the model server, the database)
    │   └── GeneratorTimeout           504 generator_timeout
    └── ServiceError (here)
        ├── Unauthorized               401 unauthorized (with WWW-Authenticate)
        └── SlotsBusy                  503 busy (with Retry-After)

A bad request body (malformed JSON, bytes that are not UTF-8, a field out of bounds) is a 422
``invalid_request`` listing its fields; any other exception is
logged by ``observe.RequestObserver`` and answered 500 ``internal``.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from edgar_rag.errors import EdgarRagError, EmptyIndexError, NotFoundError, SourceError
from edgar_rag.model.generators import GeneratorTimeout
from edgar_rag.model.tapes import NotRecorded
from edgar_rag.service.models import ErrorBody
from edgar_rag.service.observe import record_of


class ServiceError(EdgarRagError):
    """An error only the service raises."""


class Unauthorized(ServiceError):  # noqa: N818  (named for its status)
    """The request lacks the bearer token the service was started with."""


class SlotsBusy(ServiceError):  # noqa: N818  (named for its status)
    """Every generation slot is taken; the client should come back after ``retry_after_s``."""

    def __init__(self, message: str, retry_after_s: int) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


STATUSES: tuple[tuple[type[EdgarRagError], int, str], ...] = (
    (NotRecorded, 404, "not_recorded"),
    (NotFoundError, 404, "not_found"),
    (EmptyIndexError, 409, "no_filings"),
    (GeneratorTimeout, 504, "generator_timeout"),
    (SourceError, 502, "source_unreachable"),
    (Unauthorized, 401, "unauthorized"),
    (SlotsBusy, 503, "busy"),
    (EdgarRagError, 503, "unavailable"),
)
"""The first row whose class the error is an instance of decides; the order matters."""

_HTTP_CODES = {404: "not_found", 405: "method_not_allowed"}


def status_of(error: EdgarRagError) -> tuple[int, str]:
    return next((status, code) for kind, status, code in STATUSES if isinstance(error, kind))


def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The OpenAPI ``responses`` entry documenting these error statuses."""
    documented: dict[int | str, dict[str, Any]] = {}
    for status in statuses:
        entry: dict[str, Any] = {"model": ErrorBody}
        if status == 503:
            entry["headers"] = {
                "Retry-After": {
                    "description": "seconds to wait when every generation slot is busy",
                    "schema": {"type": "string"},
                }
            }
        documented[status] = entry
    return documented


def install_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(EdgarRagError, _edgar_rag_error)
    app.add_exception_handler(RequestValidationError, _invalid_request)
    app.add_exception_handler(HTTPException, _http_error)


def _answer(
    request: Request,
    status: int,
    code: str,
    detail: str,
    headers: dict[str, str] | None = None,
    fields: list[dict[str, Any]] | None = None,
) -> JSONResponse:
    record_of(request).failed(code)
    body: dict[str, Any] = {"error": code, "detail": detail}
    if fields is not None:
        body["fields"] = fields
    return JSONResponse(body, status_code=status, headers=headers)


async def _edgar_rag_error(request: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, EdgarRagError)
    status, code = status_of(error)
    headers = None
    if isinstance(error, SlotsBusy):
        headers = {"Retry-After": str(error.retry_after_s)}
    elif isinstance(error, Unauthorized):
        headers = {"WWW-Authenticate": "Bearer"}
    return _answer(request, status, code, str(error), headers)


async def _invalid_request(request: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, RequestValidationError)
    fields = [_field_error(e) for e in error.errors()]
    summary = "; ".join(f"{'.'.join(map(str, f['loc']))}: {f['msg']}" for f in fields[:5])
    return _answer(request, 422, "invalid_request", summary or "invalid request", fields=fields)


async def _http_error(request: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, HTTPException)
    if error.status_code == 400:  # FastAPI's answer to a body it cannot decode (not UTF-8)
        fields = [{"loc": ["body"], "msg": str(error.detail), "type": "json_invalid"}]
        return _answer(request, 422, "invalid_request", f"body: {error.detail}", fields=fields)
    code = _HTTP_CODES.get(error.status_code, "http_error")
    return _answer(request, error.status_code, code, str(error.detail), dict(error.headers or {}))


def _field_error(error: Any) -> dict[str, Any]:
    """Only what is safe to echo: where, what and which kind (never the rejected input)."""
    message = str(error.get("msg", "invalid"))
    context = error.get("ctx") or {}
    if error.get("type") == "json_invalid" and "error" in context:
        message = f"{message}: {context['error']}"
    location = [part if isinstance(part, int) else str(part) for part in error.get("loc", ())]
    return {"loc": location, "msg": message, "type": str(error.get("type", "invalid"))}
