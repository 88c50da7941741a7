"""The service under load: a real uvicorn server on loopback, a model that answers only when told.

The model waits on an event instead of sleeping, so which request holds a slot, and when, is
decided by the test rather than by timing; every wait is bounded.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from edgar_rag.answer.answerer import Answerer
from edgar_rag.answer.prompt import draw_refusal_token
from edgar_rag.domain import Generation, Prompt
from edgar_rag.errors import SourceError
from edgar_rag.index.embedders import HashingEmbedder
from edgar_rag.index.sqlite import SqliteIndex
from edgar_rag.ingest.indexer import index_filings
from edgar_rag.ingest.local import find_local_filings
from edgar_rag.retrieve.search import Searcher
from edgar_rag.service.app import Services, ServiceSettings, create_app
from edgar_rag.service.server import serve_in_thread

ASK = {"ticker": "AAPL", "fiscal_year": 2025, "question": "What were total net sales?"}
WAIT_S = 20.0


class HeldModel:
    """Answers (with a decline) only once released; counts the generations started."""

    name = "held"

    def __init__(self) -> None:
        self.released = threading.Event()
        self._started = 0
        self._changed = threading.Condition()

    def generate(self, prompt: Prompt) -> Generation:
        with self._changed:
            self._started += 1
            self._changed.notify_all()
        if not self.released.wait(timeout=WAIT_S):
            raise SourceError("the held model was never released")
        return Generation(text=prompt.refusal_token, model=self.name)

    def wait_started(self, count: int) -> None:
        with self._changed:
            assert self._changed.wait_for(lambda: self._started >= count, timeout=WAIT_S)


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory, sample_dir: Path) -> Iterator[SqliteIndex]:
    index = SqliteIndex(tmp_path_factory.mktemp("load") / "index.db")
    apple = [f for f in find_local_filings([sample_dir]) if f.matches(("AAPL",), ())]
    list(index_filings(apple, index, HashingEmbedder()))
    yield index
    index.close()


def serving(index: SqliteIndex, model: HeldModel, slots: int) -> Services:
    answerer = Answerer(
        searcher=Searcher(index, HashingEmbedder()),
        generator=model,
        draw_token=lambda request: draw_refusal_token(b"test", request),
    )
    return Services(
        index, Searcher(index, HashingEmbedder()), answerer, ServiceSettings(slots=slots)
    )


def settled(futures: list[Future[httpx.Response]], count: int) -> list[httpx.Response]:
    """Wait (bounded) until ``count`` of the futures are done; return their responses."""
    deadline = time.monotonic() + WAIT_S
    while sum(f.done() for f in futures) < count and time.monotonic() < deadline:
        time.sleep(0.01)
    return [f.result() for f in futures if f.done()]


@pytest.mark.parametrize("slots", [1, 2])
def test_twenty_parallel_questions_get_a_slot_or_an_immediate_503(
    index: SqliteIndex, slots: int
) -> None:
    model = HeldModel()
    with (
        serve_in_thread(create_app(serving(index, model, slots))) as url,
        httpx.Client(base_url=url, timeout=WAIT_S) as client,
        ThreadPoolExecutor(max_workers=20) as pool,
    ):
        try:
            futures = [pool.submit(client.post, "/ask", json=ASK) for _ in range(20)]
            turned_away = settled(futures, 20 - slots)
            model.wait_started(slots)

            assert len(turned_away) == 20 - slots, "a request waited for a busy slot"
            for reply in turned_away:
                assert reply.status_code == 503
                assert reply.json()["error"] == "busy"
                assert 1 <= int(reply.headers["Retry-After"]) <= 120
            assert not model.released.is_set()

            # While the held generations run, nothing else waits on them.
            assert client.get("/health").json()["slots"] == {"total": slots, "busy": slots}
            assert client.get("/filings").status_code == 200
            search = client.post("/search", json={**ASK, "k": 3})
            assert search.status_code == 200
            assert len(search.json()["hits"]) == 3
            assert sum(f.done() for f in futures) == 20 - slots
        finally:
            model.released.set()
        answered = [f.result() for f in futures if f.result().status_code == 200]
        assert len(answered) == slots
        assert all(reply.json()["reason"] == "model_declined" for reply in answered)
        assert client.get("/health").json()["slots"]["busy"] == 0
        metrics = client.get("/metrics").text
    assert f'outcome="error",reason="busy"}} {20.0 - slots}' in metrics


def _send_ask_and_leave_open(url: str) -> socket.socket:
    address = urlsplit(url)
    assert address.hostname is not None
    assert address.port is not None
    body = json.dumps(ASK).encode()
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
