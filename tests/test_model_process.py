"""The local model process: started on first use, shared, stopped when idle, restarted after a
crash that costs one request (a 502 in the service, one line from the CLI), never the caller."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from edgar_rag.config import Settings
from edgar_rag.domain import Message, Prompt
from edgar_rag.errors import ConfigError, SourceError
from edgar_rag.index.embedders import HashingEmbedder
from edgar_rag.index.sqlite import SqliteIndex
from edgar_rag.ingest.indexer import index_filings
from edgar_rag.ingest.local import find_local_filings
from edgar_rag.model.generator import LocalModelGenerator
from edgar_rag.model.local_model import (
    MODEL_FILE,
    MODEL_NAME,
    assemble_model,
    installed_part_paths,
)
from edgar_rag.model.process import ModelProcess
from edgar_rag.model.state import STATE_FILE, ModelOptions, WorkerState, read_state, write_state
from edgar_rag.service.app import build_services, create_app
from fakes import FakeLlama, fake_worker, words_of

OPTIONS = ModelOptions(threads=2, idle_s=300)
RAG_PROMPT = Prompt(
    messages=(
        Message(
            "user",
            "Passages:\n"
            "[1] Total net sales | 2025: 416,161 | 2024: 391,035 | (in millions)\n\n"
            "Question: What were Apple's total net sales in fiscal 2025?\n"
            "Quote the exact figure as written in the passage, and cite the passage number "
            "like [1]. If the passages do not contain the answer reply exactly NOT_IN_FILING.",
        ),
    ),
    refusal_token="NOT_IN_FILING",
    max_tokens=40,
    temperature=0.0,
)
# A narrative question, so that the model answers it (a figure is answered in code).
NARRATIVE = "How does Apple describe the competition it faces?"
CRASHED = "the local model process died while answering (Segmentation fault)"


def dead_pid() -> int:
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def wait_until_busy(process: ModelProcess, timeout_s: float = 60.0) -> int:
    """The worker's pid once it is generating."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        status = process.status()
        if status is not None and status.busy:
            return status.state.pid
        time.sleep(0.05)
    raise AssertionError("the model process never became busy")


# -- without the model ------------------------------------------------------------------------


def test_the_state_file_round_trips_and_a_dead_worker_is_not_running(tmp_path: Path) -> None:
    state = WorkerState(dead_pid(), 1, "m.gguf", OPTIONS, 1.0, "AVX2 = 1 | AMX_INT8 = 0")
    write_state(tmp_path / STATE_FILE, state)
    assert read_state(tmp_path / STATE_FILE) == state
    process = ModelProcess(tmp_path / "m.gguf", tmp_path, OPTIONS)
    assert process.status() is None
    assert process.stop() is None


def test_a_torn_state_file_reads_as_none(tmp_path: Path) -> None:
    (tmp_path / STATE_FILE).write_text('{"pid": 12', encoding="utf-8")
    assert read_state(tmp_path / STATE_FILE) is None


def test_a_file_that_is_no_model_fails_the_start_in_one_line_naming_it(tmp_path: Path) -> None:
    bogus = tmp_path / "bogus.gguf"
    bogus.write_bytes(b"GGUF but not really" * 100)
    told: list[str] = []
    process = ModelProcess(bogus, tmp_path / "run", OPTIONS, announce=told.append)
    with pytest.raises(SourceError) as caught:
        process.ensure()
    message = str(caught.value)
    assert message.startswith("the local model process exited while loading the model (")
    assert "could not load the model" in message
    assert str(bogus) in message
    assert "\n" not in message
    assert told[0].startswith("starting the local model process (pid ")
    assert not (tmp_path / "run" / STATE_FILE).exists()


# -- streamed, from a fake worker (the real worker's server over a scripted llama) ---------------

DRAFT = "Apple's total net sales were $416,161 million in fiscal 2025 [1]."
LONG_DRAFT = " ".join(["Apple describes a highly competitive market [1]."] * 40)


class ReaderLeft(Exception):  # noqa: N818
    """What a token sink raises when its reader has gone (the service raises its own)."""


@pytest.fixture
def fake_model(tmp_path: Path) -> Path:
    return tmp_path / "cache" / MODEL_FILE


def test_a_streamed_generation_comes_from_the_worker_token_by_token(fake_model: Path) -> None:
    llama = FakeLlama(DRAFT)
    process = ModelProcess(fake_model, fake_model.parent, OPTIONS)
    told: list[str] = []
    with fake_worker(llama, fake_model, OPTIONS):
        generation = LocalModelGenerator(process, timeout_s=10).stream(RAG_PROMPT, told.append)
        status = process.status()
    process.close()
    assert told == words_of(DRAFT)
    assert generation.text == DRAFT
    assert generation.model == MODEL_NAME
    assert (generation.prompt_tokens, generation.completion_tokens) == (40, len(told))
    assert status is not None
    assert (status.busy, status.requests) == (False, 1)


def test_a_reader_that_leaves_mid_stream_frees_the_worker_for_the_next_request(
    fake_model: Path,
) -> None:
    llama = FakeLlama(LONG_DRAFT, pause_s=0.01)
    process = ModelProcess(fake_model, fake_model.parent, OPTIONS)
    generator = LocalModelGenerator(process, timeout_s=10)
    told: list[str] = []

    def leave_after_three(piece: str) -> None:
        told.append(piece)
        if len(told) == 3:
            raise ReaderLeft

    with fake_worker(llama, fake_model, OPTIONS):
        with pytest.raises(ReaderLeft):
            generator.stream(RAG_PROMPT, leave_after_three)
        assert llama.closed.wait(5), "the worker went on generating for a reader that left"
        assert llama.told < len(words_of(LONG_DRAFT))
        status = process.status()
        assert status is not None
        assert status.busy is False
        llama.pause_s = 0.0
        again = generator.stream(RAG_PROMPT, lambda piece: None)
    process.close()
    assert again.text == LONG_DRAFT
    assert llama.streams == 2


def test_a_stream_that_ends_before_done_is_a_source_error_not_an_answer(
    fake_model: Path,
) -> None:
    class Failing(FakeLlama):
        def _chunks(self) -> Iterator[dict[str, Any]]:
            yield {"choices": [{"delta": {"content": "Apple"}, "finish_reason": None}]}
            raise RuntimeError("llama_decode returned -1")

    process = ModelProcess(fake_model, fake_model.parent, OPTIONS)
    told: list[str] = []
    with fake_worker(Failing(DRAFT), fake_model, OPTIONS), pytest.raises(SourceError) as caught:
        LocalModelGenerator(process, timeout_s=10).stream(RAG_PROMPT, told.append)
    process.close()
    assert told == ["Apple"]
    assert "ended its stream before [DONE]" in str(caught.value)


# -- with the real model ------------------------------------------------------------------------


@pytest.fixture(scope="session")
def real_model() -> Path:
    import llama_cpp  # noqa: F401, PLC0415  (CI installs it: a missing build fails, never skips)

    # The CLI's default model cache: the 1.1 GB file is assembled once per machine, not per run.
    model_dir = Path.home() / ".cache" / "edgar-rag"
    if not (model_dir / MODEL_FILE).is_file():
        try:
            installed_part_paths()
        except ConfigError as exc:
            pytest.skip(str(exc))
    return assemble_model(model_dir)


@pytest.fixture
def model_dir(tmp_path: Path, real_model: Path) -> Path:
    """A model cache of this test's own (its own model process) holding the real model."""
    folder = tmp_path / "cache"
    folder.mkdir()
    (folder / MODEL_FILE).symlink_to(real_model)
    return folder


@pytest.fixture
def process(model_dir: Path) -> Iterator[ModelProcess]:
    process = ModelProcess(model_dir / MODEL_FILE, model_dir, OPTIONS)
    yield process
    process.stop()
    process.close()


@pytest.mark.slow
def test_the_real_local_model_quotes_and_cites_a_table_row(process: ModelProcess) -> None:
    generator = LocalModelGenerator(process, timeout_s=120)
    generation = generator.generate(RAG_PROMPT)
    assert "416,161" in generation.text
    assert "[1]" in generation.text
    assert generation.model == MODEL_NAME
    assert generation.prompt_tokens > 0
    assert generation.completion_tokens > 0
    first = process.status()
    assert first is not None
    again = LocalModelGenerator(process, timeout_s=120).generate(RAG_PROMPT)
    assert again.text == generation.text
    second = process.status()
    assert second is not None
    assert (second.state.pid, second.requests) == (first.state.pid, 2)
    assert "AMX_INT8 = 1" not in second.state.system_info or not second.state.options.repack
    url = f"{second.state.url}/v1/chat/completions"
    bad = httpx.post(url, json={"messages": [{"role": "user"}]}, timeout=10)
    assert bad.status_code == 400
    assert bad.json()["error"]["message"] == "messages: each needs a string role and content"
    assert httpx.post(url, content=b"{not json", timeout=10).status_code == 400
    assert process.status() is not None


@pytest.mark.slow
def test_prompt_lookup_decoding_answers_a_long_prompt_as_plain_decoding_does(
    model_dir: Path,
) -> None:
    """Greedy decoding checks each drafted token against the model's own choice, so the text
    is the same; the prompt is longer than llama.cpp's 512-token batch, which a draft model
    made llama-cpp-python 0.3.36 fail on unless the worker works around it."""
    rows = "\n".join(
        f"Segment {n} net sales | 2025: {n},{n:03d} | (in millions)" for n in range(60)
    )
    [message] = RAG_PROMPT.messages
    long = replace(RAG_PROMPT, messages=(Message("user", rows + "\n" + message.content),))
    texts = []
    for drafted in (0, 10):
        options = replace(OPTIONS, prompt_lookup=drafted)
        process = ModelProcess(model_dir / MODEL_FILE, model_dir, options)
        try:
            generation = LocalModelGenerator(process, timeout_s=300).generate(long)
            status = process.status()
            assert status is not None
            assert status.state.options.prompt_lookup == drafted
            assert generation.prompt_tokens > 512
            texts.append(generation.text)
        finally:
            process.stop()
            process.close()
    assert "416,161" in texts[0]
    assert texts[1] == texts[0]


@pytest.mark.slow
def test_the_real_local_model_streams_the_answer_it_gives_whole(process: ModelProcess) -> None:
    generator = LocalModelGenerator(process, timeout_s=120)
    whole = generator.generate(RAG_PROMPT)
    told: list[str] = []
    streamed = generator.stream(RAG_PROMPT, told.append)
    assert len(told) > 1
    assert "".join(told) == streamed.text == whole.text
    assert (streamed.prompt_tokens, streamed.completion_tokens) == (
        whole.prompt_tokens,
        whole.completion_tokens,
    )

    def leave(piece: str) -> None:
        raise ReaderLeft

    with pytest.raises(ReaderLeft):
        generator.stream(RAG_PROMPT, leave)
    assert generator.generate(RAG_PROMPT).text == whole.text
    status = process.status()
    assert status is not None
    assert (status.busy, status.requests) == (False, 4)


@pytest.mark.slow
def test_the_worker_stops_by_itself_when_idle_and_removes_its_state(model_dir: Path) -> None:
    process = ModelProcess(model_dir / MODEL_FILE, model_dir, ModelOptions(threads=2, idle_s=1))
    state = process.ensure()
    deadline = time.monotonic() + 30
    while process.death(state.pid) is None and time.monotonic() < deadline:
        time.sleep(0.2)
    assert process.death(state.pid) is not None
    assert not (model_dir / STATE_FILE).exists()
    assert "stopped: no request for 1 s" in (model_dir / "model-process.log").read_text()


@pytest.mark.slow
def test_a_worker_nobody_can_find_stops_by_itself(model_dir: Path) -> None:
    process = ModelProcess(model_dir / MODEL_FILE, model_dir, OPTIONS)
    state = process.ensure()
    (model_dir / STATE_FILE).unlink()
    assert process.death(state.pid, wait_s=30) is not None
    assert "no longer names this process" in (model_dir / "model-process.log").read_text()


@pytest.fixture
def local_settings(model_dir: Path, sample_dir: Path) -> Settings:
    db = model_dir.parent / "index.db"
    index = SqliteIndex(db)
    list(index_filings(find_local_filings([sample_dir]), index, HashingEmbedder()))
    index.close()
    return Settings(
        db=db, embedder="hashing", generator="local", model_dir=model_dir, model_threads=2
    )


@pytest.mark.slow
def test_a_crash_during_a_request_is_a_502_naming_it_and_the_next_request_is_answered(
    local_settings: Settings,
) -> None:
    services = build_services(local_settings)
    client = TestClient(create_app(services))
    process = ModelProcess(local_settings.model_dir / MODEL_FILE, local_settings.model_dir, OPTIONS)
    replies: list[Any] = []
    body = {"question": NARRATIVE, "ticker": "AAPL", "fiscal_year": 2025}
    asking = threading.Thread(target=lambda: replies.append(client.post("/ask", json=body)))
    try:
        asking.start()
        os.kill(wait_until_busy(process), signal.SIGSEGV)
        asking.join(timeout=60)
        assert replies[0].status_code == 502
        assert CRASHED in replies[0].json()["detail"]
        again = client.post("/ask", json=body)
        assert again.status_code == 200
        assert again.json()["generator"] == MODEL_NAME
    finally:
        process.stop()
        process.close()
        services.index.close()


def cli(settings: Settings, *args: str) -> tuple[list[str], dict[str, str]]:
    """The ``edgar-rag`` command line as a user runs it, and its environment."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("EDGAR_RAG_")}
    env |= {
        "EDGAR_RAG_DB": str(settings.db),
        "EDGAR_RAG_EMBEDDER": "hashing",
        "EDGAR_RAG_MODEL_DIR": str(settings.model_dir),
        "EDGAR_RAG_MODEL_THREADS": "2",
        "EDGAR_RAG_MODEL_IDLE_S": f"{OPTIONS.idle_s:g}",
    }
    return [str(Path(sys.executable).parent / "edgar-rag"), *args], env


@pytest.mark.slow
def test_the_cli_says_in_one_line_that_the_model_died_and_the_next_ask_is_answered(
    local_settings: Settings,
) -> None:
    command, env = cli(local_settings, "model", "start")
    started = subprocess.run(
        command, check=False, env=env, capture_output=True, text=True, timeout=120
    )
    assert started.returncode == 0, started.stderr
    assert started.stdout.startswith("running     pid ")
    process = ModelProcess(local_settings.model_dir / MODEL_FILE, local_settings.model_dir, OPTIONS)
    try:
        command, env = cli(local_settings, "ask", NARRATIVE, "--ticker", "AAPL", "--json")
        asking = subprocess.Popen(
            command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        os.kill(wait_until_busy(process), signal.SIGSEGV)
        out, err = asking.communicate(timeout=60)
        assert asking.returncode == 1
        assert out == ""
        assert err.splitlines() == [err.strip()]
        assert err.startswith(f"Error: {CRASHED}")
        again = subprocess.run(
            command, check=False, env=env, capture_output=True, text=True, timeout=180
        )
        assert again.returncode == 0, again.stderr
        assert json.loads(again.stdout)["generator"] == MODEL_NAME
        assert again.stderr.startswith("starting the local model process (pid ")
        command, env = cli(local_settings, "model", "status", "--json")
        status = json.loads(
            subprocess.run(command, check=False, env=env, capture_output=True, text=True).stdout
        )
        assert status["running"] is True
        assert status["requests"] == 1
    finally:
        process.stop()
        process.close()
    command, env = cli(local_settings, "model", "status")
    gone = subprocess.run(command, check=False, env=env, capture_output=True, text=True)
    assert gone.stdout.startswith("not running")
