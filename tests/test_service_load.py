"""The service under load: a real uvicorn server on loopback, a model that answers only when told.

The model waits on an event instead of sleeping, so which request holds a slot, and when, is
decided by the test rather than by timing; every wait is bounded.
"""

from __future__ import annotations

import json
import math
import socket
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from edgar_rag.answer.answerer import Answerer
from edgar_rag.answer.computed import ComputedAnswers
from edgar_rag.answer.prompt import draw_refusal_token
from edgar_rag.domain import Generation, Prompt
from edgar_rag.errors import SourceError
from edgar_rag.figures.library import load_library
from edgar_rag.index.embedders import HashingEmbedder
from edgar_rag.index.sqlite import SqliteIndex
from edgar_rag.ingest.indexer import index_filings
from edgar_rag.ingest.local import find_local_filings
from edgar_rag.retrieve.search import Searcher
from edgar_rag.service.app import Services, ServiceSettings, create_app
from edgar_rag.service.server import serve_in_thread
from edgar_rag.service.slots import DEFAULT_GENERATION_S

ASK = {"ticker": "AAPL", "fiscal_year": 2025, "question": "What were total net sales?"}
QUESTIONS = [
    "What were total net sales?",
    "How does Apple describe the competition it faces?",
    "What does Apple say about its research and development strategy?",
    "How does Apple describe the markets it sells its products in?",
    "What does Apple say about its dependence on outsourcing partners?",
    "What risks does Apple describe about its supply chain?",
    "How does Apple describe its retail stores?",
    "What does Apple say about its employees?",
]
"""Each a generation of its own (``serving`` leaves computed answers out unless asked)."""
NARRATIVE = {**ASK, "question": QUESTIONS[1]}
FIGURES = [
    {**ASK, "question": "What was Apple's gross margin in fiscal 2025?"},
    {**ASK, "question": "What was Apple's fixed asset turnover ratio in fiscal 2025?"},
    {**ASK, "question": "How much net income did Apple report for fiscal year 2025?"},
    {**ASK, "question": "How did Apple's total net sales change from 2024 to 2025?"},
]
"""Figure questions answered in code on Apple's sample 10-K."""
WAIT_S = 20.0


class HeldModel:
    """Answers (with a decline) only once released; keeps the questions in the order their
    generations started."""

    name = "held"

    def __init__(self) -> None:
        self.released = threading.Event()
        self.questions: list[str] = []
        self._changed = threading.Condition()

    def generate(self, prompt: Prompt) -> Generation:
        with self._changed:
            self.questions.append(_question_of(prompt))
            self._changed.notify_all()
        if not self.released.wait(timeout=WAIT_S):
            raise SourceError("the held model was never released")
        return Generation(text=prompt.refusal_token, model=self.name)

    def wait_started(self, count: int) -> None:
        with self._changed:
            assert self._changed.wait_for(lambda: len(self.questions) >= count, timeout=WAIT_S)


def _question_of(prompt: Prompt) -> str:
    asked = [q for q in QUESTIONS if q in prompt.messages[-1].content]
    return asked[0] if asked else "?"


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory, sample_dir: Path) -> Iterator[SqliteIndex]:
    index = SqliteIndex(tmp_path_factory.mktemp("load") / "index.db")
    apple = [f for f in find_local_filings([sample_dir]) if f.matches(("AAPL",), ())]
    list(index_filings(apple, index, HashingEmbedder()))
    yield index
    index.close()


def serving(
    index: SqliteIndex, model: HeldModel, slots: int, queue: int = 0, *, computed: bool = False
) -> Services:
    answerer = Answerer(
        searcher=Searcher(index, HashingEmbedder()),
        generator=model,
        draw_token=lambda request: draw_refusal_token(b"test", request),
        computed=ComputedAnswers(index, load_library()) if computed else None,
    )
    return Services(
        index,
        Searcher(index, HashingEmbedder()),
        answerer,
        ServiceSettings(slots=slots, queue=queue),
    )


def settled(futures: list[Future[httpx.Response]], count: int) -> list[httpx.Response]:
    """Wait (bounded) until ``count`` of the futures are done; return their responses."""
    deadline = time.monotonic() + WAIT_S
    while sum(f.done() for f in futures) < count and time.monotonic() < deadline:
        time.sleep(0.01)
    return [f.result() for f in futures if f.done()]


def wait_for(check: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WAIT_S
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def asked(number: int) -> dict[str, object]:
    return {**ASK, "question": QUESTIONS[number]}


def test_sixteen_figure_questions_at_once_are_all_answered_in_code(index: SqliteIndex) -> None:
    model = HeldModel()
    with (
        serve_in_thread(create_app(serving(index, model, 1, computed=True))) as url,
        httpx.Client(base_url=url, timeout=WAIT_S) as client,
        ThreadPoolExecutor(max_workers=16) as pool,
    ):
        bodies = [FIGURES[n % len(FIGURES)] for n in range(16)]
        replies = list(pool.map(lambda body: client.post("/ask", json=body), bodies))
    assert [reply.status_code for reply in replies] == [200] * 16
    assert {reply.json()["generator"] for reply in replies} == {"computed"}
    assert model.questions == []


def test_figure_questions_are_answered_while_the_model_holds_the_only_slot(
    index: SqliteIndex,
) -> None:
    model = HeldModel()
    with (
        serve_in_thread(create_app(serving(index, model, 1, computed=True))) as url,
        httpx.Client(base_url=url, timeout=WAIT_S) as client,
        ThreadPoolExecutor(max_workers=17) as pool,
    ):
        try:
            holder = pool.submit(client.post, "/ask", json=NARRATIVE)
            model.wait_started(1)
            bodies = [FIGURES[n % len(FIGURES)] for n in range(16)]
            figures = list(pool.map(lambda body: client.post("/ask", json=body), bodies))
            turned_away = client.post("/ask", json=NARRATIVE | {"question": QUESTIONS[1]})
            assert not holder.done()
            assert not model.released.is_set()
        finally:
            model.released.set()
        assert holder.result().status_code == 200
    assert [reply.status_code for reply in figures] == [200] * 16
    assert {reply.json()["generator"] for reply in figures} == {"computed"}
    # No place to wait (queue 0): the narrative question is told to come back after the one
    # generation ahead of it, timed at the default until one has finished.
    assert turned_away.status_code == 503
    assert turned_away.headers["Retry-After"] == str(math.ceil(DEFAULT_GENERATION_S))


@pytest.mark.parametrize(("slots", "queue"), [(1, 0), (1, 3), (2, 2)])
def test_model_questions_wait_in_arrival_order_and_past_the_queue_get_503(
    index: SqliteIndex, slots: int, queue: int
) -> None:
    model = HeldModel()
    with (
        serve_in_thread(create_app(serving(index, model, slots, queue))) as url,
        httpx.Client(base_url=url, timeout=WAIT_S) as client,
        ThreadPoolExecutor(max_workers=20) as pool,
    ):
        try:
            held = [pool.submit(client.post, "/ask", json=asked(n)) for n in range(slots)]
            model.wait_started(slots)
            waiting = []
            for number in range(slots, slots + queue):  # one at a time: their order is known
                waiting.append(pool.submit(client.post, "/ask", json=asked(number)))
                wait_for(lambda: client.get("/health").json()["slots"]["waiting"] == len(waiting))
            late = [slots + queue + n for n in range(20 - slots - queue)]
            futures = [pool.submit(client.post, "/ask", json=asked(n % 8)) for n in late]
            turned_away = settled(futures, len(futures))

            assert len(turned_away) == len(futures), "a request past the queue waited"
            wait_s = math.ceil((queue + 1) * DEFAULT_GENERATION_S / slots)
            for reply in turned_away:
                assert reply.status_code == 503
                assert reply.json()["error"] == "busy"
                assert reply.headers["Retry-After"] == str(wait_s)
            assert client.get("/health").json()["slots"] == {
                "total": slots, "busy": slots, "queue": queue, "waiting": queue,
            }  # fmt: skip
            # While the held generations run, nothing else waits on them.
            assert client.get("/filings").status_code == 200
            search = client.post("/search", json={**ASK, "k": 3})
            assert search.status_code == 200
            assert len(search.json()["hits"]) == 3
            assert not any(f.done() for f in held + waiting)
        finally:
            model.released.set()
        answered = [f.result() for f in held + waiting]
        assert [reply.status_code for reply in answered] == [200] * (slots + queue)
        assert all(reply.json()["reason"] == "model_declined" for reply in answered)
        # A narrative question the model declines is asked a second time (its second look).
        started = list(dict.fromkeys(model.questions))[slots:]
        if slots == 1:  # one at a time: they start in the order they came
            assert started == QUESTIONS[slots : slots + queue]
        else:  # slots handed on together start in either order
            assert sorted(started) == sorted(QUESTIONS[slots : slots + queue])
        assert client.get("/health").json()["slots"]["busy"] == 0
        metrics = client.get("/metrics").text
    assert f'outcome="error",reason="busy"}} {float(len(futures))}' in metrics


def _send_ask_and_leave_open(url: str, ask: dict[str, object] = ASK) -> socket.socket:
    address = urlsplit(url)
    assert address.hostname is not None
    assert address.port is not None
    body = json.dumps(ask).encode()
    connection = socket.create_connection((address.hostname, address.port), timeout=WAIT_S)
    connection.sendall(
        b"POST /ask HTTP/1.1\r\nHost: service\r\nContent-Type: application/json\r\n"
        + f"Content-Length: {len(body)}\r\n\r\n".encode()
        + body
    )
    return connection


def test_a_client_that_leaves_frees_its_slot_when_its_generation_returns(
    index: SqliteIndex,
) -> None:
    model = HeldModel()
    with (
        serve_in_thread(create_app(serving(index, model, 1))) as url,
        httpx.Client(base_url=url, timeout=WAIT_S) as client,
    ):
        try:
            leaving = _send_ask_and_leave_open(url)
            model.wait_started(1)
            leaving.close()
            # The model is still busy with the abandoned question: the slot is still taken.
            assert client.post("/ask", json=ASK).status_code == 503
        finally:
            model.released.set()
        for _ in range(100):
            reply = client.post("/ask", json=ASK)
            if reply.status_code != 503:
                break
            time.sleep(0.05)
        assert reply.status_code == 200
        assert client.get("/health").json()["slots"]["busy"] == 0
        metrics = client.get("/metrics").text
    assert 'endpoint="/ask",outcome="disconnected",reason="model_declined"} 1.0' in metrics


def test_a_client_that_leaves_while_it_waits_gives_its_place_up(index: SqliteIndex) -> None:
    model = HeldModel()
    with (
        serve_in_thread(create_app(serving(index, model, 1, queue=1))) as url,
        httpx.Client(base_url=url, timeout=WAIT_S) as client,
        ThreadPoolExecutor(max_workers=2) as pool,
    ):
        try:
            holder = pool.submit(client.post, "/ask", json=asked(0))
            model.wait_started(1)
            leaving = _send_ask_and_leave_open(url, asked(1))
            wait_for(lambda: client.get("/health").json()["slots"]["waiting"] == 1)
            leaving.close()
            wait_for(lambda: client.get("/health").json()["slots"]["waiting"] == 0)
            # The place it left is free for the next question.
            staying = pool.submit(client.post, "/ask", json=asked(2))
            wait_for(lambda: client.get("/health").json()["slots"]["waiting"] == 1)
        finally:
            model.released.set()
        assert holder.result().status_code == 200
        assert staying.result().status_code == 200
        metrics = client.get("/metrics").text
    assert list(dict.fromkeys(model.questions)) == [QUESTIONS[0], QUESTIONS[2]]
    assert 'endpoint="/ask",outcome="disconnected",reason="none"} 1.0' in metrics
