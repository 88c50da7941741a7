"""The HTTP service on a real index of the sample filings, with a scripted model."""

from __future__ import annotations

import asyncio
import json
import logging
import re
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
import uvicorn
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from schemathesis import Case, GenerationMode
from schemathesis.core.result import Ok
from schemathesis.schemas import BaseSchema

from edgar_rag.answer.answerer import Answerer
from edgar_rag.answer.prompt import draw_refusal_token
from edgar_rag.answer.render import REASON_WORDS
from edgar_rag.config import Settings
from edgar_rag.domain import MAX_QUESTION_CHARS, Generation, Generator, ParsedFiling, Prompt
from edgar_rag.errors import SourceError
from edgar_rag.index.embedders import HashingEmbedder
from edgar_rag.index.postgres import PostgresIndex
from edgar_rag.index.sqlite import SqliteIndex
from edgar_rag.ingest.indexer import index_filings
from edgar_rag.ingest.local import find_local_filings
from edgar_rag.model.generators import GeneratorTimeout
from edgar_rag.model.tapes import TapeGenerator
from edgar_rag.question.companies import CompanyDirectory
from edgar_rag.retrieve.search import Searcher
from edgar_rag.service.app import Services, ServiceSettings, build_services, create_app
from edgar_rag.service.observe import JsonLineFormatter, log_config
from edgar_rag.service.store import item_span
from fakes import ScriptedGenerator, marker_of

SALES_2025 = "What were Apple's total net sales in fiscal 2025?"
SALES_ANSWER = "Apple's total net sales were $416,161 million in fiscal 2025 [{marker}]."
RESPONSE_FIELDS = [
    "question", "text", "citations", "abstained", "reason", "detail", "gate",
    "retrieval_score", "gate_score", "source", "generator", "timings_ms", "tokens", "replayed",
]  # fmt: skip
HIT_FIELDS = {
    "rank", "score", "cosine", "item", "title", "text", "start", "end",
    "ticker", "cik", "company", "fiscal_year", "accession",
}  # fmt: skip


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory, sample_dir: Path) -> Iterator[SqliteIndex]:
    index = SqliteIndex(tmp_path_factory.mktemp("service") / "index.db")
    list(index_filings(find_local_filings([sample_dir]), index, HashingEmbedder()))
    yield index
    index.close()


@pytest.fixture(scope="module")
def directory(index: SqliteIndex) -> CompanyDirectory:
    return CompanyDirectory.from_edgartools([(s.company, s.ticker, s.cik) for s in index.filings()])


AppMaker = Callable[..., FastAPI]


@pytest.fixture
def make_app(index: SqliteIndex, directory: CompanyDirectory) -> AppMaker:
    """An app over the sample index whose answers come from ``generator``."""

    def make(generator: Generator | None = None, **knobs: Any) -> FastAPI:
        answerer = None
        if generator is not None:
            answerer = Answerer(
                searcher=Searcher(index, HashingEmbedder()),
                generator=generator,
                draw_token=lambda request: draw_refusal_token(b"test", request),
                directory=directory,
            )
        problem = knobs.pop("generator_problem", None)
        return create_app(
            Services(
                index=index,
                searcher=Searcher(index, HashingEmbedder()),
                answerer=answerer,
                settings=ServiceSettings(**knobs),
                generator_problem=problem,
            )
        )

    return make


def cites(figure: str, sentence: str) -> Callable[[Prompt], str]:
    return lambda prompt: sentence.format(marker=marker_of(prompt, figure))


def sales_model() -> ScriptedGenerator:
    return ScriptedGenerator([cites("416,161", SALES_ANSWER)])


def raising(error: Exception) -> ScriptedGenerator:
    def reply(prompt: Prompt) -> str:
        raise error

    return ScriptedGenerator([reply])


# -- endpoints ------------------------------------------------------------------------------------


def test_ask_answers_with_the_response_object(make_app: AppMaker) -> None:
    client = TestClient(make_app(sales_model()))
    reply = client.post(
        "/ask", json={"ticker": "aapl", "fiscal_year": 2025, "question": SALES_2025}
    )
    assert reply.status_code == 200
    body = reply.json()
    assert list(body) == RESPONSE_FIELDS
    assert body["abstained"] is False
    assert "$416,161 million" in body["text"]
    [citation] = body["citations"]
    assert "416,161" in citation["quote"]
    assert body["source"]["ticker"] == "AAPL"
    assert body["source"]["fiscal_year"] == 2025
    assert body["tokens"] == {"prompt": 100, "completion": 10}


def test_ask_by_cik_scopes_to_that_company(make_app: AppMaker) -> None:
    model = ScriptedGenerator([lambda prompt: prompt.refusal_token])
    reply = TestClient(make_app(model)).post("/ask", json={"cik": 354950, "question": "Revenue?"})
    assert reply.status_code == 200
    assert reply.json()["source"]["ticker"] == "HD"
    assert reply.json()["reason"] == "model_declined"


def test_ask_without_a_company_searches_the_whole_corpus(make_app: AppMaker) -> None:
    model = ScriptedGenerator([lambda prompt: prompt.refusal_token])
    reply = TestClient(make_app(model)).post("/ask", json={"question": "total net sales"})
    assert reply.status_code == 200
    assert reply.json()["source"] is None
    assert "10-K fiscal" in model.prompts[0].messages[-1].content


def test_a_decline_is_a_200_with_its_reason(make_app: AppMaker) -> None:
    model = ScriptedGenerator([])
    reply = TestClient(make_app(model)).post(
        "/ask", json={"ticker": "AAPL", "question": "What was Microsoft's revenue in fiscal 2025?"}
    )
    assert reply.status_code == 200
    body = reply.json()
    assert (body["abstained"], body["reason"], body["text"]) == (True, "out_of_scope", None)
    assert body["citations"] == []
    assert model.prompts == []


def test_query_answers_in_docs_rag_s_shape(make_app: AppMaker) -> None:
    client = TestClient(make_app(ScriptedGenerator([lambda prompt: prompt.refusal_token])))
    reply = client.post("/query", json={"question": "total net sales", "top_k": 3})
    assert reply.status_code == 200
    body = reply.json()
    assert {"answer", "sources"} <= set(body)
    assert body["answer"].startswith(REASON_WORDS["model_declined"])
    assert len(body["sources"]) == 3
    for source in body["sources"]:
        assert set(source) == {"filing", "chunk", "score", "excerpt"}
        assert " 10-K FY" in source["filing"]


def test_search_ranks_passages_inside_the_scope(make_app: AppMaker) -> None:
    client = TestClient(make_app())
    reply = client.post(
        "/search", json={"ticker": "AAPL", "fiscal_year": 2024, "question": "net sales", "k": 4}
    )
    assert reply.status_code == 200
    body = reply.json()
    assert body["source"]["fiscal_year"] == 2024
    assert [hit["rank"] for hit in body["hits"]] == [1, 2, 3, 4]
    assert all(set(hit) == HIT_FIELDS for hit in body["hits"])
    assert {(hit["ticker"], hit["fiscal_year"]) for hit in body["hits"]} == {("AAPL", 2024)}


def test_filings_lists_the_index(make_app: AppMaker, index: SqliteIndex) -> None:
    reply = TestClient(make_app()).get("/filings")
    assert reply.status_code == 200
    listed = {(f["ticker"], f["fiscal_year"]) for f in reply.json()}
    assert {("AAPL", 2024), ("AAPL", 2025), ("HD", 2024), ("WFC", 2024)} <= listed
    apple = next(f for f in reply.json() if f["ticker"] == "AAPL" and f["fiscal_year"] == 2025)
    assert apple["chunks"] > 0
    assert apple["years_reported"] == [2023, 2024, 2025]
    assert index.filing_meta(apple["filing_id"]).fiscal_year == 2025


def test_a_citation_is_shown_inside_its_item(make_app: AppMaker) -> None:
    client = TestClient(make_app(sales_model()))
    body = client.post("/ask", json={"ticker": "AAPL", "question": SALES_2025}).json()
    [citation] = body["citations"]
    filing = next(
        f
        for f in client.get("/filings").json()
        if (f["ticker"], f["fiscal_year"]) == ("AAPL", 2025)
    )
    reply = client.get(
        f"/filings/{filing['filing_id']}/text",
        params={"start": citation["start"], "end": citation["end"]},
    )
    assert reply.status_code == 200
    item = reply.json()
    assert (item["item"], item["title"]) == (citation["item"], citation["title"])
    assert item["text"][item["quote_start"] : item["quote_end"]] == citation["quote"]
    assert item["start"] <= citation["start"] < citation["end"] <= item["end"]


def test_a_span_outside_the_filing_is_404(make_app: AppMaker) -> None:
    client = TestClient(make_app())
    assert (
        client.get("/filings/1/text", params={"start": 10**8, "end": 10**8 + 5}).status_code == 404
    )
    assert client.get("/filings/1/text", params={"start": 50, "end": 40}).status_code == 404
    missing = client.get("/filings/999/text", params={"start": 0, "end": 5})
    assert missing.status_code == 404
    assert "filing 999" in missing.json()["detail"]


def test_health_tells_corpus_index_and_generator(make_app: AppMaker, index: SqliteIndex) -> None:
    body = TestClient(make_app(sales_model(), slots=2)).get("/health").json()
    counts = index.counts()
    assert (body["filings"], body["chunks"]) == (counts["filings"], counts["chunks"])
    assert body["embedder"]["model"] == HashingEmbedder().identity.model
    assert body["generator"] == {"name": "scripted", "ready": True, "detail": None}
    assert body["slots"] == {"total": 2, "busy": 0, "queue": 4, "waiting": 0}


def test_without_a_generator_search_works_and_ask_is_502(make_app: AppMaker) -> None:
    client = TestClient(make_app(None, generator_problem="no local model in /models"))
    health = client.get("/health").json()
    assert health["generator"] == {
        "name": None,
        "ready": False,
        "detail": "no local model in /models",
    }
    assert client.post("/search", json={"question": "net sales"}).status_code == 200
    reply = client.post("/ask", json={"question": "net sales"})
    assert reply.status_code == 502
    assert "no local model" in reply.json()["detail"]


def test_the_page_is_served_self_contained(make_app: AppMaker) -> None:
    reply = TestClient(make_app()).get("/")
    assert reply.status_code == 200
    assert reply.headers["content-type"].startswith("text/html")
    page = reply.text
    assert "{{" not in page
    assert REASON_WORDS["out_of_period"] in page
    assert all(url.startswith("data:") for url in re.findall(r'(?:src|href)="([^"]*)"', page))
    assert "http://" not in page
    assert "https://" not in page


def test_the_schema_and_docs_are_served(make_app: AppMaker) -> None:
    client = TestClient(make_app())
    schema = client.get("/openapi.json")
    paths = schema.json()["paths"]
    assert {"/ask", "/query", "/search", "/filings", "/filings/{filing_id}/text"} <= set(paths)
    assert {"/health", "/metrics"} <= set(paths)
    assert "503" in paths["/ask"]["post"]["responses"]
    assert "docs-rag" not in schema.text  # the design it came from is no name of this service
    assert client.get("/docs").status_code == 200


def test_the_api_docs_load_nothing_from_outside_the_service(make_app: AppMaker) -> None:
    client = TestClient(make_app(api_key="secret"))
    docs = client.get("/docs")
    assert docs.status_code == 200
    referenced = re.findall(r"""(?:src|href|url)\s*[=:]\s*['"]([^'"]*)['"]""", docs.text)
    assert {"/openapi.json", "/docs/assets/swagger-ui-bundle.js"} <= set(referenced)
    assert all(url.startswith("/") and not url.startswith("//") for url in referenced)
    assert "http://" not in docs.text
    assert "https://" not in docs.text
    assert '"validatorUrl": null' in docs.text
    for url in referenced:
        assert client.get(url).status_code == 200, url


def test_build_services_reads_the_settings(index: SqliteIndex, tmp_path: Path) -> None:
    echo = Settings(db=Path(index.path), embedder="hashing", generator="echo", slots=3)
    services = build_services(echo)
    try:
        body = TestClient(create_app(services)).get("/health").json()
    finally:
        services.index.close()
    assert body["generator"]["ready"] is True
    assert body["slots"]["total"] == 3
    replay = echo.model_copy(update={"tape_mode": "replay", "tape": tmp_path / "none.jsonl"})
    services = build_services(replay)
    try:
        health = TestClient(create_app(services)).get("/health").json()["generator"]
    finally:
        services.index.close()
    assert health["ready"] is False
    assert "none.jsonl" in health["detail"]


@pytest.mark.parametrize("store", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_an_item_is_read_around_a_span_from_either_store(
    request: pytest.FixtureRequest, store: str, tmp_path: Path, apple_2025: ParsedFiling
) -> None:
    index = (
        SqliteIndex(tmp_path / "index.db")
        if store == "sqlite"
        else PostgresIndex(str(request.getfixturevalue("postgres_url")))
    )
    try:
        embedder = HashingEmbedder()
        index.ensure_embedder(embedder.identity)
        vectors = embedder.embed([chunk.text for chunk in apple_2025.chunks])
        filing_id = index.write_filing(apple_2025, vectors)
        chunk = next(c for c in apple_2025.chunks if "416,161" in c.text)
        section = next(s for s in apple_2025.sections if s.item == chunk.item)
        span = item_span(index, filing_id, chunk.start, chunk.end)
        assert (span.item, span.title) == (section.item, section.title)
        assert (span.start, span.end) == (section.start, section.end)
        assert span.text[span.quote_start : span.quote_end] == chunk.text
    finally:
        index.close()


def test_a_span_in_no_item_is_shown_with_the_text_around_it(
    tmp_path: Path, apple_2025: ParsedFiling
) -> None:
    index = SqliteIndex(tmp_path / "index.db")
    embedder = HashingEmbedder()
    filing_id = index.write_filing(
        apple_2025, embedder.embed([chunk.text for chunk in apple_2025.chunks])
    )
    index.db.execute("DELETE FROM sections")
    span = item_span(index, filing_id, 5000, 5010)
    index.close()
    assert (span.item, span.start, span.end) == ("", 5000 - 2000, 5010 + 2000)
    assert span.text[span.quote_start : span.quote_end] == apple_2025.text[5000:5010]


# -- errors ---------------------------------------------------------------------------------------


def test_an_unknown_ticker_or_cik_is_404_naming_it(make_app: AppMaker) -> None:
    client = TestClient(make_app(ScriptedGenerator([])))
    reply = client.post("/ask", json={"ticker": "ZZZZ", "question": "Revenue?"})
    assert reply.status_code == 404
    assert reply.json()["error"] == "not_found"
    assert "ZZZZ" in reply.json()["detail"]
    reply = client.post("/search", json={"cik": 123456789, "question": "Revenue?"})
    assert reply.status_code == 404
    assert "123456789" in reply.json()["detail"]


def test_a_year_not_indexed_is_404_listing_the_indexed_years(make_app: AppMaker) -> None:
    client = TestClient(make_app(ScriptedGenerator([])))
    reply = client.post("/ask", json={"ticker": "AAPL", "fiscal_year": 2019, "question": "Sales?"})
    assert reply.status_code == 404
    assert "2024, 2025" in reply.json()["detail"]


def test_a_ticker_and_a_cik_of_different_companies_is_404(make_app: AppMaker) -> None:
    client = TestClient(make_app(ScriptedGenerator([])))
    reply = client.post("/ask", json={"ticker": "AAPL", "cik": 354950, "question": "Sales?"})
    assert reply.status_code == 404
    assert "320193" in reply.json()["detail"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"ticker": "AAPL", "question": ""}, "question"),
        ({"ticker": "AAPL", "question": "   \n"}, "question"),
        ({"ticker": "AAPL", "question": "x" * (MAX_QUESTION_CHARS + 1)}, "question"),
        ({"ticker": "AAPL"}, "question"),
        ({"ticker": "AAPL", "question": "Sales?", "fiscal_year": "next"}, "fiscal_year"),
        ({"ticker": "AAPL", "question": "Sales?", "gate": "strict"}, "gate"),
        ({"ticker": "AAPL", "question": "Sales?", "colour": "red"}, "colour"),
    ],
)
def test_a_bad_body_is_422_naming_its_field(
    make_app: AppMaker, body: dict[str, Any], field: str
) -> None:
    reply = TestClient(make_app(ScriptedGenerator([]))).post("/ask", json=body)
    assert reply.status_code == 422
    answer = reply.json()
    assert answer["error"] == "invalid_request"
    assert any(error["loc"][-1] == field for error in answer["fields"])


def test_a_question_at_the_limit_is_read(make_app: AppMaker) -> None:
    model = ScriptedGenerator([lambda prompt: prompt.refusal_token])
    question = ("What were net sales? " * 100)[:MAX_QUESTION_CHARS]
    reply = TestClient(make_app(model)).post("/ask", json={"ticker": "AAPL", "question": question})
    assert reply.status_code == 200


def test_malformed_json_is_422_with_the_field_errors(make_app: AppMaker) -> None:
    client = TestClient(make_app(ScriptedGenerator([])))
    reply = client.post(
        "/ask", content=b'{"question": "Sales?",', headers={"content-type": "application/json"}
    )
    assert reply.status_code == 422
    [error] = reply.json()["fields"]
    assert error["type"] == "json_invalid"
    assert error["loc"][0] == "body"
    assert client.post("/query", content=b"[1, 2]").status_code == 422


@pytest.mark.parametrize(
    ("error", "status", "code"),
    [
        (SourceError("openai at http://127.0.0.1:9 did not answer"), 502, "source_unreachable"),
        (GeneratorTimeout("openai at http://127.0.0.1:9 timed out"), 504, "generator_timeout"),
    ],
)
def test_a_model_that_fails_is_502_or_504(
    make_app: AppMaker, error: Exception, status: int, code: str
) -> None:
    client = TestClient(make_app(raising(error)))
    reply = client.post("/ask", json={"ticker": "AAPL", "question": SALES_2025})
    assert reply.status_code == status
    assert reply.json() == {"error": code, "detail": str(error)}


def test_a_replay_with_no_recorded_generation_is_404(make_app: AppMaker, tmp_path: Path) -> None:
    tape = tmp_path / "tape.jsonl"
    tape.write_text("")
    client = TestClient(make_app(TapeGenerator(ScriptedGenerator([]), tape, "replay")))
    reply = client.post("/ask", json={"ticker": "AAPL", "question": SALES_2025})
    assert reply.status_code == 404
    assert reply.json()["error"] == "not_recorded"
    assert reply.json()["detail"].startswith("not recorded")


def test_an_unexpected_failure_is_logged_and_answered_without_a_traceback(
    make_app: AppMaker, caplog: pytest.LogCaptureFixture
) -> None:
    client = TestClient(make_app(raising(RuntimeError("boom in the model"))))
    with caplog.at_level(logging.INFO, logger="edgar_rag.service"):
        reply = client.post("/ask", json={"ticker": "AAPL", "question": SALES_2025})
    assert reply.status_code == 500
    assert reply.json() == {
        "error": "internal",
        "detail": "internal error (RuntimeError); see the log",
    }
    [failure] = [r for r in caplog.records if r.exc_info]
    assert "boom in the model" in str(failure.exc_info[1] if failure.exc_info else "")


class Gate:
    """A model that waits until the test lets it answer (bounded), so a slot stays taken."""

    name = "gated"

    def __init__(self) -> None:
        self.started = threading.Event()
        self.release = threading.Event()

    def generate(self, prompt: Prompt) -> Generation:
        self.started.set()
        if not self.release.wait(timeout=30):
            raise SourceError("the gated model was never released")
        return Generation(text=prompt.refusal_token, model=self.name)


def test_a_busy_slot_with_no_place_to_wait_is_503_with_retry_after_at_once(
    make_app: AppMaker,
) -> None:
    model = Gate()
    app = make_app(model, queue=0)
    body = {"ticker": "AAPL", "question": SALES_2025}

    async def scenario() -> tuple[httpx.Response, httpx.Response, httpx.Response]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://service") as client:
            first = asyncio.create_task(client.post("/ask", json=body))
            for _ in range(300):
                if model.started.is_set():
                    break
                await asyncio.sleep(0.01)
            assert model.started.is_set()
            second = await client.post("/ask", json=body)
            query = await client.post("/query", json={"question": "net sales"})
            assert not first.done()
            model.release.set()
            return await first, second, query

    first, second, query = asyncio.run(scenario())
    assert first.status_code == 200
    for busy in (second, query):
        assert busy.status_code == 503
        assert busy.json()["error"] == "busy"
        assert int(busy.headers["retry-after"]) >= 1


def test_the_api_key_is_asked_everywhere_but_health_and_the_page(make_app: AppMaker) -> None:
    client = TestClient(make_app(sales_model(), api_key="s3cret"))
    for method, path, body in [
        ("POST", "/ask", {"question": SALES_2025}),
        ("POST", "/query", {"question": SALES_2025}),
        ("POST", "/search", {"question": SALES_2025}),
        ("GET", "/filings", None),
        ("GET", "/filings/1/text?start=0&end=10", None),
        ("GET", "/metrics", None),
    ]:
        reply = client.request(method, path, json=body)
        assert reply.status_code == 401, path
        assert reply.json()["error"] == "unauthorized"
        assert reply.headers["www-authenticate"] == "Bearer"
        wrong = client.request(method, path, json=body, headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 401
    assert client.get("/health").status_code == 200
    assert client.get("/").status_code == 200
    keyed = client.get("/filings", headers={"Authorization": "Bearer s3cret"})
    assert keyed.status_code == 200
    reply = client.post(
        "/ask",
        json={"ticker": "AAPL", "question": SALES_2025},
        headers={"Authorization": "Bearer s3cret"},
    )
    assert reply.status_code == 200


# -- metrics and logs -----------------------------------------------------------------------------


def test_metrics_count_requests_stages_and_tokens(make_app: AppMaker) -> None:
    client = TestClient(make_app(sales_model()))
    client.post("/ask", json={"ticker": "AAPL", "question": SALES_2025})
    client.post("/ask", json={"ticker": "ZZZZ", "question": SALES_2025})
    text = client.get("/metrics").text
    assert 'edgar_rag_requests_total{endpoint="/ask",outcome="answered",reason="none"} 1.0' in text
    assert (
        'edgar_rag_requests_total{endpoint="/ask",outcome="error",reason="not_found"} 1.0' in text
    )
    assert 'edgar_rag_stage_seconds_count{stage="generate"} 1.0' in text
    assert 'edgar_rag_stage_seconds_count{stage="search"} 1.0' in text
    assert 'edgar_rag_tokens_total{kind="prompt"} 100.0' in text
    assert 'edgar_rag_tokens_total{kind="completion"} 10.0' in text
    assert "edgar_rag_generation_slots 1.0" in text


def test_each_app_counts_in_a_registry_of_its_own(make_app: AppMaker) -> None:
    first, second = TestClient(make_app()), TestClient(make_app())
    first.get("/filings")
    assert 'endpoint="/filings"' in first.get("/metrics").text
    assert 'endpoint="/filings"' not in second.get("/metrics").text


def _request_lines(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "edgar_rag.service" and hasattr(r, "endpoint")]


def test_one_log_line_per_request_without_the_question(
    make_app: AppMaker, caplog: pytest.LogCaptureFixture
) -> None:
    client = TestClient(make_app(sales_model()))
    with caplog.at_level(logging.INFO, logger="edgar_rag.service"):
        client.post("/ask", json={"ticker": "AAPL", "question": SALES_2025})
        client.post("/ask", json={"ticker": "AAPL", "fiscal_year": 2019, "question": SALES_2025})
    answered, missing = _request_lines(caplog)
    fields = vars(answered)
    assert (fields["endpoint"], fields["status"]) == ("/ask", 200)
    assert (fields["outcome"], fields["reason"]) == ("answered", "none")
    stages = {"embed", "search", "compute", "gate", "generate", "verify"}
    assert set(fields["timings_ms"]) == stages
    assert fields["tokens"] == {"prompt": 100, "completion": 10}
    assert fields["duration_ms"] > 0
    json.dumps({key: fields[key] for key in ("endpoint", "status", "timings_ms", "tokens")})
    assert (missing.status, missing.outcome, missing.reason) == (404, "error", "not_found")  # type: ignore[attr-defined]
    for record in (answered, missing):
        assert not hasattr(record, "question")
        assert "net sales" not in record.getMessage()


def test_the_question_is_logged_only_when_allowed(
    make_app: AppMaker, caplog: pytest.LogCaptureFixture
) -> None:
    client = TestClient(make_app(sales_model(), log_questions=True))
    with caplog.at_level(logging.INFO, logger="edgar_rag.service"):
        client.post("/ask", json={"ticker": "AAPL", "question": SALES_2025})
    [line] = _request_lines(caplog)
    assert line.question == SALES_2025  # type: ignore[attr-defined]


def test_serve_writes_each_request_as_one_json_line() -> None:
    config = log_config(uvicorn.config.LOGGING_CONFIG)
    assert config["loggers"]["edgar_rag.service"]["handlers"] == ["json_lines"]
    assert "uvicorn.error" in config["loggers"]
    record = logging.LogRecord(
        "edgar_rag.service", logging.INFO, __file__, 1, "POST /ask", (), None
    )
    tokens = {"prompt": 3, "completion": 1}
    record.__dict__.update(endpoint="/ask", status=200, tokens=tokens)
    line = json.loads(JsonLineFormatter().format(record))
    assert line["message"] == "POST /ask"
    assert (line["endpoint"], line["status"], line["tokens"]) == ("/ask", 200, tokens)
    assert "question" not in line


# -- fuzzing against the app's own schema ---------------------------------------------------------


class AlwaysAnswers:
    """A model that answers every prompt with a short cited sentence."""

    name = "always"

    def generate(self, prompt: Prompt) -> Generation:
        return Generation(text="The passage covers this [1].", model=self.name)


FUZZED = [
    ("GET", "/health"),
    ("POST", "/ask"),
    ("POST", "/query"),
    ("POST", "/search"),
    ("GET", "/filings"),
    ("GET", "/filings/{filing_id}/text"),
    ("GET", "/metrics"),
]


@pytest.fixture(scope="module")
def fuzzed_schema(index: SqliteIndex, directory: CompanyDirectory) -> BaseSchema:
    answerer = Answerer(
        searcher=Searcher(index, HashingEmbedder()),
        generator=AlwaysAnswers(),
        draw_token=lambda request: draw_refusal_token(b"test", request),
        directory=directory,
    )
    services = Services(index, Searcher(index, HashingEmbedder()), answerer, ServiceSettings())
    return schemathesis.openapi.from_asgi("/openapi.json", create_app(services))


def test_every_operation_is_fuzzed(fuzzed_schema: BaseSchema) -> None:
    operations = []
    for result in fuzzed_schema.get_all_operations():
        assert isinstance(result, Ok)
        operations.append(result.ok())
    assert sorted((op.method.upper(), op.path) for op in operations) == sorted(FUZZED)


FUZZED_WITH_INPUT = [
    (method, path, mode)
    for method, path in FUZZED
    for mode in GenerationMode
    if mode is GenerationMode.POSITIVE or method == "POST" or "{" in path
]


@pytest.mark.parametrize(("method", "path", "mode"), FUZZED_WITH_INPUT)
def test_the_app_keeps_to_its_own_schema(
    fuzzed_schema: BaseSchema, method: str, path: str, mode: GenerationMode
) -> None:
    """Schema-valid requests are answered as documented, invalid ones are 4xx; never a 5xx.

    (schemathesis' lazy ``from_fixture`` does not run under pytest 9, so each operation's
    strategy is driven by hypothesis here.)
    """
    operation = fuzzed_schema[path][method]

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(
        max_examples=30, deadline=None, database=None, suppress_health_check=list(HealthCheck)
    )
    def call(case: Case[Any]) -> None:
        case.call_and_validate()

    call()
