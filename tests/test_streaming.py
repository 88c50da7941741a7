"""``POST /ask`` streamed as server-sent events, end to end: a real server on a real index of
Apple's sample 10-K, an SSE client, and a scripted model (or the model worker's real server
over a scripted llama) that writes its answer a word at a time."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest

from edgar_rag.answer.answerer import Answerer
from edgar_rag.answer.computed import ComputedAnswers
from edgar_rag.domain import Generation, Prompt, TokenSink
from edgar_rag.errors import SourceError
from edgar_rag.figures.library import load_library
from edgar_rag.index.embedders import HashingEmbedder
from edgar_rag.index.sqlite import SqliteIndex
from edgar_rag.ingest.indexer import index_filings
from edgar_rag.ingest.local import find_local_filings
from edgar_rag.model.generator import LocalModelGenerator
from edgar_rag.model.local_model import MODEL_FILE, MODEL_NAME
from edgar_rag.model.process import ModelProcess
from edgar_rag.model.state import ModelOptions
from edgar_rag.retrieve.search import Searcher
from edgar_rag.service.app import Services, ServiceSettings, create_app
from edgar_rag.service.server import serve_in_thread
from edgar_rag.service.slots import DEFAULT_GENERATION_S
from events import STREAM_HEADERS, read_events
from fakes import (
    FakeLlama,
    StreamingScriptedGenerator,
    fake_worker,
    marker_of,
    words_of,
)
from fakes import scripted_answerer as answerer

SALES = {"ticker": "AAPL", "fiscal_year": 2025, "question": "What were Apple's total net sales?"}
SALES_ANSWER = "Apple's total net sales were $416,161 million in fiscal 2025 [{marker}]."
NARRATIVE = {"ticker": "AAPL", "question": "How does Apple describe the competition it faces?"}
LONG_DRAFT = " ".join(["Apple describes its markets as highly competitive [1]."] * 40)
Events = list[tuple[str, Any]]
DEFAULT_S = int(DEFAULT_GENERATION_S)


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory, sample_dir: Path) -> Iterator[SqliteIndex]:
    index = SqliteIndex(tmp_path_factory.mktemp("streaming") / "index.db")
    apple = [f for f in find_local_filings([sample_dir]) if f.matches(("AAPL",), ())]
    list(index_filings(apple, index, HashingEmbedder()))
    yield index
    index.close()


@contextmanager
def serving(index: SqliteIndex, answering: Answerer, queue: int = 0) -> Iterator[httpx.Client]:
    """A client of a live server (uvicorn, in a thread) answering with ``answering``, one
    generation slot and ``queue`` places to wait for it."""
    settings = ServiceSettings(slots=1, queue=queue)
    app = create_app(Services(index, Searcher(index, HashingEmbedder()), answering, settings))
    with serve_in_thread(app) as url, httpx.Client(base_url=url, timeout=30) as client:
        yield client


def stream_ask(client: httpx.Client, body: dict[str, Any]) -> Events:
    with client.stream("POST", "/ask", json=body, headers=STREAM_HEADERS) as reply:
        assert reply.status_code == 200
        assert reply.headers["content-type"].startswith("text/event-stream")
        return list(read_events(reply.iter_lines()))


def sales_reply(prompt: Prompt) -> str:
    return SALES_ANSWER.format(marker=marker_of(prompt, "416,161"))


def without_timings(response: dict[str, Any]) -> dict[str, Any]:
    return {name: value for name, value in response.items() if name != "timings_ms"}


def wait_for(check: Any, timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_the_draft_streams_as_the_model_writes_it_then_the_verified_response(
    index: SqliteIndex,
) -> None:
    model = StreamingScriptedGenerator([sales_reply, sales_reply])
    model.go_on.clear()  # the model writes its first word, then waits for the client to read it
    with serving(index, answerer(index, model)) as client:
        with client.stream("POST", "/ask", json=SALES, headers=STREAM_HEADERS) as reply:
            assert reply.status_code == 200
            events = read_events(reply.iter_lines())
            first = next(events)
            assert first == ("token", {"text": "Apple's"})
            assert not model.stopped.is_set()  # told before the model finished
            model.go_on.set()
            streamed = [first, *events]
        plain = client.post("/ask", json=SALES)
    *tokens, (last, response) = streamed
    assert {name for name, _ in tokens} == {"token"}
    assert "".join(data["text"] for _, data in tokens) == sales_reply(model.prompts[0])
    assert last == "response"
    assert response["abstained"] is False
    assert "$416,161 million" in response["text"]
    assert plain.status_code == 200
    assert without_timings(response) == without_timings(plain.json())


def test_an_answer_decided_before_the_model_streams_only_its_response(
    index: SqliteIndex,
) -> None:
    model = StreamingScriptedGenerator([])
    computing = replace(answerer(index, model), computed=ComputedAnswers(index, load_library()))
    other = SALES | {"question": "What was Microsoft's revenue in fiscal 2025?"}
    ratio = SALES | {"question": "What was Apple's fixed asset turnover ratio in fiscal 2025?"}
    with serving(index, computing) as client:
        [(declined, decline)] = stream_ask(client, other)
        [(computed, answer)] = stream_ask(client, ratio)
    assert (declined, decline["reason"], decline["generator"]) == (
        "response",
        "out_of_scope",
        "none",
    )
    assert (computed, answer["generator"]) == ("response", "computed")
    assert answer["calculation"] is not None
    assert model.prompts == []


class DiesAfterAWord:
    """A model process that dies after writing one word."""

    name = "scripted"

    def generate(self, prompt: Prompt) -> Generation:
        raise AssertionError("streamed requests stream")

    def stream(self, prompt: Prompt, on_token: TokenSink) -> Generation:
        on_token("Apple's")
        raise SourceError("the local model process died while answering (Segmentation fault)")


def test_a_failure_after_the_stream_began_is_an_error_event_and_before_it_a_status(
    index: SqliteIndex,
) -> None:
    with serving(index, answerer(index, DiesAfterAWord())) as client:
        events = stream_ask(client, NARRATIVE)
        unknown = client.post("/ask", json=SALES | {"ticker": "ZZZZ"}, headers=STREAM_HEADERS)
    assert events == [
        ("token", {"text": "Apple's"}),
        (
            "error",
            {
                "status": 502,
                "error": "source_unreachable",
                "detail": "the local model process died while answering (Segmentation fault)",
            },
        ),
    ]
    assert unknown.status_code == 404
    assert unknown.json()["error"] == "not_found"


def test_a_client_that_leaves_mid_stream_stops_the_model_and_frees_its_slot(
    index: SqliteIndex,
) -> None:
    model = StreamingScriptedGenerator([LONG_DRAFT, sales_reply], pause_s=0.02)
    with serving(index, answerer(index, model)) as client:
        with client.stream("POST", "/ask", json=NARRATIVE, headers=STREAM_HEADERS) as reply:
            events = read_events(reply.iter_lines())
            assert [next(events)[0], next(events)[0]] == ["token", "token"]
            busy = client.post("/ask", json=SALES, headers=STREAM_HEADERS)
            assert busy.status_code == 503  # no place to wait: the queue has none
            assert int(busy.headers["retry-after"]) >= 1
        assert model.stopped.wait(10), "the model went on writing for a client that left"
        assert len(model.told) < len(words_of(LONG_DRAFT))
        wait_for(lambda: client.get("/health").json()["slots"]["busy"] == 0)
        *tokens, (last, response) = stream_ask(client, SALES)
    assert tokens
    assert (last, response["abstained"]) == ("response", False)


def test_a_streamed_ask_reaches_the_model_process_and_leaving_frees_it(
    index: SqliteIndex, tmp_path: Path
) -> None:
    """The whole path: service, local model generator, the model worker's own HTTP server
    (over a scripted llama); a client that leaves stops the worker's generation."""
    options = ModelOptions(threads=1, idle_s=300)
    model = tmp_path / "cache" / MODEL_FILE
    llama = FakeLlama(LONG_DRAFT, pause_s=0.02)
    process = ModelProcess(model, model.parent, options)
    local = answerer(index, LocalModelGenerator(process, timeout_s=10))
    with fake_worker(llama, model, options), serving(index, local) as client:
        with client.stream("POST", "/ask", json=NARRATIVE, headers=STREAM_HEADERS) as reply:
            events = read_events(reply.iter_lines())
            assert next(events) == ("token", {"text": "Apple"})
            assert next(events) == ("token", {"text": " describes"})
        assert llama.closed.wait(10), "the model process went on for a client that left"
        assert llama.told < len(words_of(LONG_DRAFT))
        wait_for(lambda: client.get("/health").json()["slots"]["busy"] == 0)
        status = process.status()
        assert status is not None
        assert status.busy is False
        llama.pause_s = 0.0
        *tokens, (last, response) = stream_ask(client, NARRATIVE)
    process.close()
    assert "".join(data["text"] for _, data in tokens) == LONG_DRAFT
    assert (last, response["generator"]) == ("response", MODEL_NAME)
    assert llama.streams == 2


def test_a_streamed_question_that_waits_is_told_its_place_as_it_moves_up(
    index: SqliteIndex,
) -> None:
    model = StreamingScriptedGenerator([sales_reply] * 3)
    model.go_on.clear()  # the first answer holds the only slot after its first word
    with (
        serving(index, answerer(index, model), queue=2) as client,
        client.stream("POST", "/ask", json=SALES, headers=STREAM_HEADERS) as first,
    ):
        held = read_events(first.iter_lines())
        assert next(held)[0] == "token"
        with (
            client.stream("POST", "/ask", json=SALES, headers=STREAM_HEADERS) as second,
            client.stream("POST", "/ask", json=SALES, headers=STREAM_HEADERS) as third,
        ):
            waits = read_events(second.iter_lines())
            # Before any generation finished, each is taken to last the default.
            assert next(waits) == ("queued", {"place": 1, "wait_s": DEFAULT_S})
            waits_more = read_events(third.iter_lines())
            assert next(waits_more) == ("queued", {"place": 2, "wait_s": 2 * DEFAULT_S})
            model.go_on.set()
            *_, (last, _) = held
            assert last == "response"
            # Now timed from the generation that finished, not the default.
            moved, told = next(waits_more)
            assert (moved, told["place"]) == ("queued", 1)
            assert told["wait_s"] >= 1
            later = list(waits)
            latest = list(waits_more)
    for events in (later, latest):
        *tokens, (last, response) = events
        assert {name for name, _ in tokens} == {"token"}
        assert (last, response["abstained"]) == ("response", False)
