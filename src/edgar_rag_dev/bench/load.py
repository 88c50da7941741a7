"""``make bench-load``: the HTTP service under load, written into docs/performance.json and .md.

``edgar-rag serve`` runs in its own process on loopback over the whole corpus index, and the
clients of ``traffic.py`` drive ``/search`` and ``/ask`` at 1, 4 and 16 at once. ``/ask`` replays
generations from a tape this benchmark owns (``build/bench/load-tape.jsonl``): each question is
answered once in-process first, and what the tape lacks (a first run, or a prompt that changed
since) is recorded then with the local model. Two servers run in turn:

- replay at once, with as many generation slots as clients: the /ask rows time the pipeline
  around the model, not the model;
- replay at the recorded pace (``EDGAR_RAG_TAPE_MODE=replay-paced``) with the default one slot
  and ``SATURATION_QUEUE`` queue places: figure questions sent 16 at once must all be answered
  in code, with nothing generating and while one narrative question holds the slot as its
  recorded generation did (issue 41); with the queue filled behind it, narrative questions
  past it must be turned away at once with 503 and a Retry-After near the time the queue
  ahead of them then took; /search must not wait.

The rest of docs/performance.json (``make bench``) is kept as it is.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
from pydantic import SecretStr

from edgar_rag.answer.answerer import Answerer
from edgar_rag.compose import build_answerer, open_index
from edgar_rag.config import Settings
from edgar_rag.domain import FilingStore
from edgar_rag.model.tapes import NotRecorded, TapeGenerator, read_tape
from edgar_rag_dev.bench.report import write_performance
from edgar_rag_dev.bench.traffic import SaturationPlan, closed_loop, saturate, summarise_level

HOST = "127.0.0.1"
CLIENTS = (1, 4, 16)
QUESTIONS = (
    ("AAPL", 2025, "What does Apple say about its dependence on outsourcing partners?"),
    ("NVDA", 2025, "How does NVIDIA describe the export controls that affect its sales?"),
    ("TSLA", 2024, "What risks does Tesla describe about its supply of battery cells?"),
    ("JNJ", 2024, "What does Johnson & Johnson say about its talc litigation?"),
)
"""Narrative questions, which go to the model: a figure question is answered in code and would
never hold a generation slot."""
FIGURE_QUESTIONS = (
    ("AAPL", 2025, "What was Apple's gross margin in fiscal 2025?"),
    ("NVDA", 2025, "What was NVIDIA's operating margin in fiscal 2025?"),
    ("TSLA", 2024, "How much net income did Tesla report for fiscal 2024?"),
    ("JNJ", 2024, "What were Johnson & Johnson's total sales in fiscal 2024?"),
)
"""Figure questions the corpus index answers in code (a margin, a reported figure)."""
SATURATION_QUEUE = 1
"""Queue places of the paced server: each round lasts as long as the generations the full
queue holds (the running one and one waiting), whatever the default."""
MIN_HOLD_S = 2.0
"""The holding generation must outlast the probes sent while it runs (a burst takes well under
a second here): the shortest recorded generation at least this long holds the slot."""


def bench_settings(index: Path, model_dir: Path, tape: Path, **knobs: Any) -> Settings:
    """Settings from these values and the defaults only: neither the environment nor a .env
    file, so that the in-process answers and the server draw the same prompts."""
    values = {
        "db": index,
        "model_dir": model_dir,
        "embedder": "minilm-onnx",
        "generator": "local",
        "tape": tape,
        "tape_mode": "replay",
        **knobs,
    }
    # model_construct skips BaseSettings.__init__, which is where the environment is read
    # (model_validate reads it too); the values above are already of their fields' types.
    return Settings.model_construct(**values)


def server_environment(settings: Settings) -> dict[str, str]:
    """The process environment without EDGAR_RAG_* variables, plus the settings that differ
    from their defaults, so that the server reads exactly ``settings``."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("EDGAR_RAG_")}
    for name, field in Settings.model_fields.items():
        value = getattr(settings, name)
        if isinstance(value, SecretStr):
            value = value.get_secret_value()
            default = field.default.get_secret_value() if field.default is not None else None
        else:
            default = field.default
        if value is not None and value != default:
            environment[f"EDGAR_RAG_{name.upper()}"] = str(value)
    return environment


Question = tuple[str, int, str]
"""Ticker, fiscal year, question."""


def prepare_tape(settings: Settings, questions: Sequence[Question] = QUESTIONS) -> list[float]:
    """Each question answered once in-process from the tape, recording what it lacks with the
    settings' generator; the recorded generation seconds of each question (0: declined before
    the model)."""
    assert settings.tape is not None
    with closing(open_index(settings)) as index:
        # Its generator is replaced by the tape's; echo keeps the local model unloaded.
        plain = settings.model_copy(update={"tape_mode": "off", "generator": "echo"})
        replayer = build_answerer(plain, index)
        if settings.tape.exists():
            held = _recorded_seconds(replayer, index, settings.tape, questions)
            if held is not None:
                return held
        recorder = build_answerer(settings.model_copy(update={"tape_mode": "record"}), index)
        for ticker, year, question in questions:
            recorder.answer(question, index.resolve_scope(ticker, fiscal_year=year))
        held = _recorded_seconds(replayer, index, settings.tape, questions)
        if held is None:
            raise RuntimeError(f"{settings.tape} still lacks a prompt after recording")
        return held


def _recorded_seconds(
    answerer: Answerer, index: FilingStore, tape: Path, questions: Sequence[Question]
) -> list[float] | None:
    """How long each question's recorded generation took (0: declined before the model), or
    None when one is not on the tape. A paced replay that notes its pauses tells."""
    noted: list[float] = []
    paced = TapeGenerator(None, tape, "replay", paced=True, sleep=noted.append)
    replaying = replace(answerer, generator=paced)
    held = []
    for ticker, year, question in questions:
        noted.clear()
        try:
            replaying.answer(question, index.resolve_scope(ticker, fiscal_year=year))
        except NotRecorded:
            return None
        held.append(sum(noted))
    return held


@contextmanager
def running_server(settings: Settings, log: Path, start_timeout_s: float = 300.0) -> Iterator[str]:
    """``edgar-rag serve`` over ``settings`` on a free loopback port until the block ends."""
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        port = probe.getsockname()[1]
    command = [str(Path(sys.executable).with_name("edgar-rag")), "serve"]
    command += ["--host", HOST, "--port", str(port)]
    url = f"http://{HOST}:{port}"
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("w", encoding="utf-8") as output:
        server = subprocess.Popen(
            command,
            env=server_environment(settings),
            cwd=log.parent,  # away from the repository's .env
            stdout=output,
            stderr=subprocess.STDOUT,
        )
        try:
            _wait_ready(url, server, log, start_timeout_s)
            yield url
        finally:
            server.send_signal(signal.SIGINT)
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()


def _wait_ready(url: str, server: subprocess.Popen[bytes], log: Path, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"the server exited with {server.returncode}; see {log}")
        try:
            health = httpx.get(f"{url}/health", timeout=5).json()
        except httpx.TransportError:
            time.sleep(0.25)
            continue
        if not health["generator"]["ready"]:
            raise RuntimeError(f"the server's generator is not ready: {health['generator']}")
        return
    raise RuntimeError(f"the server did not answer within {timeout_s} s; see {log}")


def ask_bodies(questions: Sequence[Question] = QUESTIONS) -> list[dict[str, Any]]:
    return [{"ticker": t, "fiscal_year": y, "question": q} for t, y, q in questions]


def run(index: Path, model_dir: Path, tape: Path, seconds: float) -> dict[str, Any]:
    load_average = os.getloadavg()[0]
    settings = bench_settings(index, model_dir, tape)
    held_s = prepare_tape(settings)
    bodies = ask_bodies()
    searches = [{**body, "k": 5} for body in bodies]
    levels = []
    logs = tape.parent
    with running_server(settings.model_copy(update={"slots": max(CLIENTS)}), logs / "a.log") as url:
        for path, posted in (("/search", searches), ("/ask", bodies)):
            for clients in CLIENTS:
                replies, elapsed = asyncio.run(closed_loop(url, path, posted, clients, seconds))
                levels.append(summarise_level(path, clients, replies, elapsed))
    long_enough = [n for n, seconds in enumerate(held_s) if seconds >= MIN_HOLD_S]
    if not long_enough:
        raise RuntimeError(f"no recorded generation took {MIN_HOLD_S} s or more: {held_s}")
    holder = min(long_enough, key=lambda n: held_s[n])
    paced = settings.model_copy(
        update={"tape_mode": "replay-paced", "slots": 1, "queue": SATURATION_QUEUE}
    )
    plan = SaturationPlan(
        holder=bodies[holder],
        figures=ask_bodies(FIGURE_QUESTIONS),
        probes=[body for n, body in enumerate(bodies) if n != holder],
        searches=searches,
        queue=paced.queue,
    )
    with running_server(paced, logs / "saturated.log") as url:
        saturation = asyncio.run(saturate(url, plan))
    saturation |= {"holder_recorded_s": held_s[holder], "min_hold_s": MIN_HOLD_S}
    saturation["burst"] = plan.burst
    saturation["one_at_a_time_per_round"] = plan.one_at_a_time
    saturation["figure_questions"] = [f"{t} {y}: {q}" for t, y, q in FIGURE_QUESTIONS]
    saturation["queue_default"] = Settings.model_fields["queue"].default
    return {
        "seconds_per_level": seconds,
        "questions": [f"{t} {y}: {q}" for t, y, q in QUESTIONS],
        "tape": {
            "path": str(tape),
            "generator": read_tape(tape)[0].generator,
            "recorded_generation_s": held_s,
        },
        "slots_for_levels": max(CLIENTS),
        "levels": levels,
        "saturation": saturation,
        "cpus": os.cpu_count(),
        "load_average_1m_at_start": round(load_average, 2),
        "load_average_1m_at_end": round(os.getloadavg()[0], 2),
    }


def measure_load(index: Path, model_dir: Path, tape: Path, out: Path, *, seconds: float) -> None:
    """Load the service into the ``load`` entry of ``out`` (which the rest of the bench wrote),
    then its page; ``seconds`` per endpoint and number of clients."""
    data = json.loads(out.read_text(encoding="utf-8"))
    if "stages" not in data:
        raise SystemExit(f"{out} lacks the rest of the bench: run `make bench` first")
    data["load"] = run(index.resolve(), model_dir.resolve(), tape.resolve(), seconds)
    out.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    write_performance(out)
