"""The load benchmark's parts: its settings, its tape, its server process and its clients."""

from __future__ import annotations

import asyncio
import math
import time
from pathlib import Path

import pytest

from edgar_rag.answer.answerer import Answerer
from edgar_rag.answer.computed import ComputedAnswers
from edgar_rag.answer.prompt import draw_refusal_token
from edgar_rag.domain import Generation, Prompt
from edgar_rag.figures.library import load_library
from edgar_rag.index.embedders import HashingEmbedder
from edgar_rag.index.sqlite import SqliteIndex
from edgar_rag.ingest.indexer import index_filings
from edgar_rag.ingest.local import find_local_filings
from edgar_rag.model.tapes import read_tape
from edgar_rag.retrieve.search import Searcher
from edgar_rag.service.app import Services, ServiceSettings, create_app
from edgar_rag.service.server import serve_in_thread
from edgar_rag.service.slots import DEFAULT_GENERATION_S
from edgar_rag_dev.bench.load import (
    ask_bodies,
    bench_settings,
    prepare_tape,
    running_server,
    server_environment,
)
from edgar_rag_dev.bench.traffic import (
    Reply,
    SaturationPlan,
    closed_loop,
    saturate,
    summarise_level,
)

# Narrative questions: a figure question is answered in code and never holds a model's slot.
SALES = ("AAPL", 2025, "How does Apple describe the markets it sells its products in?")
MARGIN = ("AAPL", 2025, "What was Apple's gross margin in fiscal 2025?")
NET_INCOME = ("AAPL", 2025, "How much net income did Apple report for fiscal year 2025?")
R_AND_D = ("AAPL", 2025, "What does Apple say about its research and development strategy?")
HOLD_S = 1.0


@pytest.fixture(scope="module")
def index_path(tmp_path_factory: pytest.TempPathFactory, sample_dir: Path) -> Path:
    path = tmp_path_factory.mktemp("bench-load") / "index.db"
    index = SqliteIndex(path)
    apple = [f for f in find_local_filings([sample_dir]) if f.matches(("AAPL",), ())]
    list(index_filings(apple, index, HashingEmbedder()))
    index.close()
    return path


def test_the_bench_reads_neither_the_environment_nor_a_dotenv(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("EDGAR_RAG_GATE", "cosine")
    monkeypatch.setenv("EDGAR_RAG_API_KEY", "from-the-shell")
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text("EDGAR_RAG_SLOTS=7\n", encoding="utf-8")
    settings = bench_settings(tmp_path / "index.db", tmp_path, tmp_path / "tape.jsonl", slots=4)
    assert (settings.gate, settings.api_key, settings.slots) == ("period", None, 4)

    environment = server_environment(settings)
    ours = {k: v for k, v in environment.items() if k.startswith("EDGAR_RAG_")}
    assert ours == {
        "EDGAR_RAG_DB": str(tmp_path / "index.db"),
        "EDGAR_RAG_MODEL_DIR": str(tmp_path),
        "EDGAR_RAG_TAPE": str(tmp_path / "tape.jsonl"),
        "EDGAR_RAG_TAPE_MODE": "replay",
        "EDGAR_RAG_SLOTS": "4",
    }


def test_a_level_counts_replies_by_status_and_times_the_answered() -> None:
    replies = [Reply(200, 10.0), Reply(200, 30.0), Reply(503, 1.0, "5"), Reply(404, 2.0)]
    row = summarise_level("/ask", 4, replies, seconds=2.0)
    assert (row["requests"], row["ok"], row["busy"], row["other"]) == (4, 2, 1, 1)
    assert row["requests_per_s"] == 2.0
    assert row["ok_per_s"] == 1.0
    assert (row["p50_ms"], row["max_ms"]) == (20.0, 30.0)


def test_the_tape_is_recorded_once_then_served_by_a_real_server(
    index_path: Path, tmp_path: Path
) -> None:
    tape = tmp_path / "bench" / "tape.jsonl"
    settings = bench_settings(index_path, tmp_path, tape, generator="echo", embedder="hashing")
    held = prepare_tape(settings, [SALES, R_AND_D])  # each recorded generation's seconds
    assert len(held) == 2
    assert all(seconds >= 0.0 for seconds in held)
    recorded = tape.read_text(encoding="utf-8")
    assert len(read_tape(tape)) == 2
    prepare_tape(settings, [SALES, R_AND_D])
    assert tape.read_text(encoding="utf-8") == recorded, "a full tape was recorded again"

    two_slots = settings.model_copy(update={"slots": 2})
    with running_server(two_slots, tape.parent / "server.log") as url:
        bodies = ask_bodies([SALES, R_AND_D])
        replies, seconds = asyncio.run(closed_loop(url, "/ask", bodies, 2, 0.3))
    assert replies
    assert {reply.status for reply in replies} == {200}
    assert seconds >= 0.3


class SlowModel:
    """Declines after HOLD_S, as a paced replay of a slow generation would."""

    name = "slow"

    def generate(self, prompt: Prompt) -> Generation:
        time.sleep(HOLD_S)
        return Generation(text=prompt.refusal_token, model=self.name)


def test_figures_are_answered_while_the_slot_is_held_and_past_the_queue_is_503(
    index_path: Path,
) -> None:
    index = SqliteIndex(index_path)
    answerer = Answerer(
        searcher=Searcher(index, HashingEmbedder()),
        generator=SlowModel(),
        draw_token=lambda request: draw_refusal_token(b"test", request),
        computed=ComputedAnswers(index, load_library()),
    )
    settings = ServiceSettings(slots=1, queue=1)
    services = Services(index, Searcher(index, HashingEmbedder()), answerer, settings)
    bodies = ask_bodies([SALES, R_AND_D])
    plan = SaturationPlan(
        holder=bodies[0],
        figures=ask_bodies([MARGIN, NET_INCOME]),
        probes=bodies[1:],
        searches=[{**body, "k": 3} for body in bodies],
        queue=1,
        rounds=1,
        burst=4,
        one_at_a_time=2,
        idle_searches=2,
    )
    try:
        with serve_in_thread(create_app(services)) as url:
            result = asyncio.run(saturate(url, plan))
    finally:
        index.close()
    for figures in ("figure_at_once_idle", "figure_at_once_generating"):
        assert result[figures]["statuses"] == {"200": 4}
    assert result["figure_one_at_a_time_generating"]["statuses"] == {"200": 2}
    assert result["ask_past_the_queue"]["statuses"] == {"503": 4}
    assert result["ask_past_the_queue"]["busy_with_retry_after"] == 4
    assert result["search_while_held"]["statuses"] == {"200": 2}
    assert result["holder"]["statuses"] == result["queued"]["statuses"] == {"200": 1}
    # Nothing had been generated before: the generation running and the one queued, each
    # taken to last the default.
    [wait] = result["waits"]
    assert wait["retry_after_s"] == [math.ceil(2 * DEFAULT_GENERATION_S)]
    assert len(wait["waited_s"]) == 4
    assert all(waited >= 0 for waited in wait["waited_s"])
