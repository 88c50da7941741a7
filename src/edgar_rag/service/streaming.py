"""``POST /ask`` with ``Accept: text/event-stream``: the model's draft as it comes, then the
verified response.

The events, each one JSON object::

    event: queued     {"place": 2, "wait_s": 20}  waiting for a generation slot, second in line
    event: token      {"text": "Apple's"}     a piece of the model's draft, as it writes it
    event: response   {...}                   the response object the plain POST /ask answers
    event: error      {"status": 502, "error": "source_unreachable", "detail": "..."}

A question the model answers that finds every generation slot busy waits in the queue: one
``queued`` event when it joins, and one each time it moves up (``place`` 1 is next; ``wait_s``
the estimate ``slots.GenerationQueue.retry_after_s`` makes for it). Then zero or more ``token``
events, then exactly one ``response`` or ``error``, then the stream ends. The draft is
unverified: the verifier may cut it, move a citation, or decline it, and only the ``response``
says what stands. An answer decided before the model (a guard, the gate, a figure computed in
code) has no draft and never waits. What fails before the stream begins (an unknown ticker, a
bad body, the queue full) is answered with its status, as without streaming; what fails after
(the model process died, a timeout) is the ``error`` event, with the status it would have had.

The answer runs in a worker thread that holds its generation slot. When the client goes, the
thread's next token raises ``ClientGone``, which stops the generator (a model process sees its
connection close and stops too); the slot comes back once the thread has ended. A client that
goes while its question waits gives its place up.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import AsyncIterator, Awaitable, Callable

import anyio
from sse_starlette import ServerSentEvent

from edgar_rag.domain import Response, TokenSink
from edgar_rag.errors import EdgarRagError
from edgar_rag.service.failures import status_of
from edgar_rag.service.models import AskResponse
from edgar_rag.service.observe import LOGGER, RequestRecord
from edgar_rag.service.slots import Place

EVENT_STREAM = "text/event-stream"
QUEUED, TOKEN, RESPONSE, ERROR = "queued", "token", "response", "error"
log = logging.getLogger(LOGGER)


class ClientGone(Exception):  # noqa: N818  (not an error: the client left)
    """Raised into the generation by the next token once the client has gone."""


def wants_events(accept: str | None) -> bool:
    """Whether an ``Accept`` header asks for server-sent events."""
    return accept is not None and EVENT_STREAM in accept.lower()


Answering = Callable[[TokenSink], Awaitable[Response]]
"""Answers the request, telling the model's tokens to the sink (in a worker thread)."""


class AnswerStream:
    """One request's events. The answer starts at once (in the endpoint, so that it ends and
    gives its slot back even if the response is never sent); ``events`` yields them."""

    def __init__(
        self,
        answering: Answering,
        record: RequestRecord,
        place: Place | None = None,
        wait_s: Callable[[int], int] | None = None,
    ) -> None:
        """``place``: the question's place in the generation queue, told as ``queued`` events
        while it waits (``wait_s`` estimates the seconds from its number), given up when the
        client goes before it has a slot."""
        self._loop = asyncio.get_running_loop()
        self._queue: asyncio.Queue[ServerSentEvent] = asyncio.Queue()
        self._gone = threading.Event()
        self._record = record
        self._place = place
        self._wait_s = wait_s
        if place is not None and place.waiting:
            place.on_move = self._queued
            self._queued(place.number)
        self._task = asyncio.ensure_future(self._answer(answering))

    async def events(self) -> AsyncIterator[ServerSentEvent]:
        finished = False
        try:
            while not finished:
                event = await self._queue.get()
                finished = event.event not in (TOKEN, QUEUED)
                yield event
        finally:
            if not finished:
                self._gone.set()
                self._record.outcome = "disconnected"
                if self._place is not None:
                    self._place.withdraw()
            # The slot comes back when the generation has stopped: wait for it, even when
            # cancelled because the client went (it stops at its next token).
            with anyio.CancelScope(shield=True):
                await self._task

    def _queued(self, number: int) -> None:
        """The question's place in the queue (on the event loop, as the queue runs)."""
        told: dict[str, int] = {"place": number}
        if self._wait_s is not None:
            told["wait_s"] = self._wait_s(number)
        self._queue.put_nowait(ServerSentEvent(json.dumps(told), event=QUEUED))

    def _tell(self, text: str) -> None:
        """The token sink, called in the worker thread."""
        if self._gone.is_set():
            raise ClientGone
        event = ServerSentEvent(json.dumps({"text": text}, ensure_ascii=False), event=TOKEN)
        self._loop.call_soon_threadsafe(self._queue.put_nowait, event)

    async def _answer(self, answering: Answering) -> None:
        try:
            response = await answering(self._tell)
        except ClientGone:
            return
        except EdgarRagError as error:
            status, code = status_of(error)
            self._record.failed(code)
            last = _error_event(status, code, str(error))
        except Exception as error:  # a bug: logged with its traceback, told in one line
            log.exception("unexpected failure while streaming an answer")
            self._record.failed("internal")
            kind = type(error).__name__
            last = _error_event(500, "internal", f"internal error ({kind}); see the log")
        else:
            self._record.answered(response)
            body = AskResponse.of(response).model_dump_json()
            last = ServerSentEvent(body, event=RESPONSE)
        self._queue.put_nowait(last)


def _error_event(status: int, code: str, detail: str) -> ServerSentEvent:
    body = {"status": status, "error": code, "detail": detail}
    return ServerSentEvent(json.dumps(body, ensure_ascii=False), event=ERROR)
