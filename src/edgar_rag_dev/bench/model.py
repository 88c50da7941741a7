"""``make bench-model``: the local model process, measured as a user meets it.

1. **Load parameters side by side**: one model process per configuration (weight repacking on
   and off), all running at once and asked the same golden dev prompts in turn, so each
   configuration meets the same machine; llama.cpp's own counters give prompt and generated
   tokens per second.
2. **``edgar-rag ask`` as a new process**, over golden dev questions on ``build/corpus.db``:
   *cold* (no model process: each call starts one) and *warm* (the process is running).
3. **Narrative answers, arm by arm** (issue 41): ``edgar-rag ask`` as a new process with the
   model process running, once per arm (``ARMS``: prompt-lookup decoding, a shorter prompt,
   fewer tokens), the arms taking each question in turn so a busy machine slows them alike;
   each arm's answers are compared
   with the first arm's, word for word. Beside the wall seconds, the CPU seconds the arm's
   model process spent on each answer, which other work on the cores does not inflate.

Written into the ``model`` entry of docs/performance.json and rendered in docs/performance.md;
the rest of that file is kept as it is.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from edgar_rag.model.local_model import MODEL_FILE, assemble_model
from edgar_rag.model.process import ModelProcess
from edgar_rag.model.state import STATE_FILE, ModelOptions, read_state
from edgar_rag_dev.bench.report import write_performance

GOLDEN = Path("data/golden/questions.jsonl")
NARRATIVE = Path("data/narrative/questions.jsonl")
TAPE = Path("data/golden/tape-dev.jsonl")
_CPU_FLAGS = ("avx2", "avx512f", "avx512_vnni", "amx_tile", "amx_int8", "amx_bf16")


@dataclass(frozen=True, slots=True)
class Config:
    name: str
    repack: bool


CONFIGS = (Config("repack off", False), Config("repack on", True))


@dataclass(frozen=True, slots=True)
class Arm:
    name: str
    settings: tuple[tuple[str, str], ...]
    """``EDGAR_RAG_*`` variables this arm's ``ask`` and model process run with."""


ARMS = (
    Arm("prompt lookup off", (("EDGAR_RAG_MODEL_PROMPT_LOOKUP", "0"),)),
    Arm("prompt lookup 10", (("EDGAR_RAG_MODEL_PROMPT_LOOKUP", "10"),)),
    Arm("shorter prompt: 4 x 500 characters", (("EDGAR_RAG_NARRATIVE_PASSAGE_CHARS", "500"),)),
    Arm("fewer tokens: at most 64", (("EDGAR_RAG_ANSWER_MAX_TOKENS", "64"),)),
)
"""The default first; the others each change one thing: prompt-lookup decoding, the passage
window the narrative evaluation measured next shorter (docs/narrative.md), the cap on tokens."""


def cpu_flags() -> list[str]:
    """The CPU features llama.cpp's kernels depend on, as /proc/cpuinfo names them."""
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="ascii", errors="replace")
    except OSError:
        return []
    flags = next((line.split(":", 1)[1].split() for line in text.splitlines()
                  if line.startswith("flags")), [])  # fmt: skip
    return [flag for flag in _CPU_FLAGS if flag in flags]


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    question: str
    ticker: str | None
    """None: asked of the whole corpus."""
    fiscal_year: int | None

    def scope_args(self) -> list[str]:
        if self.ticker is None:
            return []
        year = [] if self.fiscal_year is None else ["--year", str(self.fiscal_year)]
        return ["--ticker", self.ticker, *year]


def dev_questions() -> list[Question]:
    """The golden set's dev-split questions (``edgar_rag_dev.eval.golden`` writes them)."""
    with GOLDEN.open(encoding="utf-8") as lines:
        rows = [json.loads(line) for line in lines if line.strip()]
    return [
        Question(row["id"], row["question"], row["ticker"], row["fiscal_year"])
        for row in rows
        if row["split"] == "dev"
    ]


def narrative_questions() -> list[Question]:
    """The hand-written narrative questions of both splits, each in its scope (a filing, or the
    whole corpus)."""
    with NARRATIVE.open(encoding="utf-8") as lines:
        rows = [json.loads(line) for line in lines if line.strip()]
    return [
        Question(row["id"], row["question"], row["ticker"], row["fiscal_year"])
        if row["scope"] == "filing"
        else Question(row["id"], row["question"], None, None)
        for row in rows
    ]


def tape_prompts(count: int) -> list[dict[str, Any]]:
    """The first ``count`` recorded dev prompts (messages, temperature, max_tokens)."""
    prompts = []
    with TAPE.open(encoding="utf-8") as tape:
        for line in tape:
            entry = json.loads(line)
            prompts.append({key: entry[key] for key in ("messages", "temperature", "max_tokens")})
            if len(prompts) == count:
                break
    return prompts


@contextmanager
def _process(model: Path, folder: Path, options: ModelOptions) -> Iterator[ModelProcess]:
    folder.mkdir(parents=True)
    (folder / MODEL_FILE).symlink_to(model)
    process = ModelProcess(folder / MODEL_FILE, folder, options)
    try:
        yield process
    finally:
        process.stop()
        process.close()


def measure_configs(model: Path, prompts: Sequence[dict[str, Any]], threads: int) -> dict[str, Any]:
    """Each configuration's load time and tokens per second over the same prompts, in turn."""
    rows: dict[str, dict[str, Any]] = {}
    # The processes stop before their folders go (ExitStack is left first).
    with tempfile.TemporaryDirectory() as scratch, ExitStack() as stack:
        urls = {}
        for config in CONFIGS:
            options = ModelOptions(threads=threads, repack=config.repack, idle_s=3600)
            process = stack.enter_context(_process(model, Path(scratch) / config.name, options))
            started = time.perf_counter()
            state = process.ensure()
            urls[config.name] = state.url
            rows[config.name] = {
                "repack": state.options.repack,
                "load_s": round(time.perf_counter() - started, 2),
                "timings": [],
                "texts": [],
            }
        with httpx.Client(timeout=600) as http:
            for prompt in prompts:
                for config in CONFIGS:
                    reply = http.post(f"{urls[config.name]}/v1/chat/completions", json=prompt)
                    reply.raise_for_status()
                    answer = reply.json()
                    rows[config.name]["timings"].append(answer["timings"])
                    rows[config.name]["texts"].append(answer["choices"][0]["message"]["content"])
    default = rows[CONFIGS[0].name]["texts"]
    for row in rows.values():
        row["same_text_as_default"] = sum(
            a == b for a, b in zip(row.pop("texts"), default, strict=True)
        )
    return {name: _speeds(row) for name, row in rows.items()}


def _speeds(row: dict[str, Any]) -> dict[str, Any]:
    timings = row.pop("timings")
    prompt_tokens = sum(t["prompt_evaluated"] for t in timings)
    generated = sum(t["generated"] for t in timings)
    return {
        **row,
        "requests": len(timings),
        "prompt_tokens": prompt_tokens,
        "prompt_tok_s": round(prompt_tokens / (sum(t["prompt_ms"] for t in timings) / 1000), 1),
        "generated_tokens": generated,
        "generate_tok_s": round(generated / (sum(t["generate_ms"] for t in timings) / 1000), 1),
        "request_s_p50": round(statistics.median(t["seconds"] for t in timings), 2),
    }


def _environment(db: Path, model_dir: Path, threads: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("EDGAR_RAG_")}
    return env | {
        "EDGAR_RAG_DB": str(db),
        "EDGAR_RAG_MODEL_DIR": str(model_dir),
        "EDGAR_RAG_MODEL_THREADS": str(threads),
        "EDGAR_RAG_MODEL_IDLE_S": "3600",
    }


def _cli(*args: str) -> list[str]:
    return [str(Path(sys.executable).parent / "edgar-rag"), *args]


def measure_asks(
    db: Path, model_dir: Path, threads: int, asked: Sequence[Question]
) -> dict[str, Any]:
    """``edgar-rag ask`` wall seconds per question, cold and warm, on the user's model cache
    (its model file, its exported embedder, its model process)."""
    seconds: dict[str, list[float]] = {"cold": [], "warm": []}
    failures: dict[str, int] = {"cold": 0, "warm": 0}
    env = _environment(db, model_dir, threads)
    try:
        for mode in ("cold", "warm"):
            for question in asked:
                if mode == "cold":
                    subprocess.run(_cli("model", "stop"), env=env, check=True, capture_output=True)
                command = _cli("ask", question.question, *question.scope_args(), "--json")
                started = time.perf_counter()
                done = subprocess.run(command, env=env, check=False, capture_output=True)
                seconds[mode].append(time.perf_counter() - started)
                failures[mode] += done.returncode != 0
    finally:
        subprocess.run(_cli("model", "stop"), env=env, check=False, capture_output=True)
    return {
        mode: {
            "questions": len(values),
            "failed": failures[mode],
            "p50_s": round(statistics.median(values), 2),
            "p95_s": round(_percentile(values, 0.95), 2),
        }
        for mode, values in seconds.items()
    }


def measure_arms(
    db: Path, model_dir: Path, threads: int, asked: Sequence[Question]
) -> dict[str, Any]:
    """Each arm's ``edgar-rag ask`` wall seconds per question with its model process running
    (one process per arm, in a run folder of its own holding the user's model and exported
    embedder), and how many of its answers match the first arm's (text, or decline reason)."""
    runs: dict[str, list[dict[str, Any]]] = {arm.name: [] for arm in ARMS}
    with tempfile.TemporaryDirectory() as scratch, ExitStack() as stack:
        envs, workers = {}, {}
        for number, arm in enumerate(ARMS):
            folder = Path(scratch) / f"arm-{number}"
            folder.mkdir()
            for shared in (MODEL_FILE, "embedders"):
                if (model_dir / shared).exists():
                    (folder / shared).symlink_to((model_dir / shared).resolve())
            envs[arm.name] = env = _environment(db, folder, threads) | dict(arm.settings)
            stack.callback(subprocess.run, _cli("model", "stop"), env=env, capture_output=True)
            subprocess.run(_cli("model", "start"), env=env, check=True, capture_output=True)
            state = read_state(folder / STATE_FILE)
            workers[arm.name] = 0 if state is None else state.pid
        for question in asked:
            for arm in ARMS:
                command = _cli("ask", question.question, *question.scope_args(), "--json")
                cpu, started = _cpu_s(workers[arm.name]), time.perf_counter()
                done = subprocess.run(command, env=envs[arm.name], check=False, capture_output=True)
                asked_row = _asked(done, time.perf_counter() - started) | {"id": question.id}
                asked_row["model_cpu_s"] = _cpu_s(workers[arm.name]) - cpu
                runs[arm.name].append(asked_row)
    first = runs[ARMS[0].name]
    return {name: _arm_row(rows, first) for name, rows in runs.items()}


def _cpu_s(pid: int) -> float:
    """User and system CPU seconds process ``pid`` has spent (0 when it cannot be read)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _asked(done: subprocess.CompletedProcess[bytes], seconds: float) -> dict[str, Any]:
    if done.returncode != 0:
        return {"seconds": seconds, "failed": True, "said": None, "generated": 0}
    response = json.loads(done.stdout)
    return {
        "seconds": seconds,
        "failed": False,
        "said": response.get("text") or response.get("reason"),
        "generated": response["tokens"]["completion"],
        "generate_s": response.get("timings_ms", {}).get("generate", 0.0) / 1000,
    }


def _arm_row(rows: Sequence[dict[str, Any]], first: Sequence[dict[str, Any]]) -> dict[str, Any]:
    seconds = [row["seconds"] for row in rows]
    return {
        "questions": len(rows),
        "failed": sum(row["failed"] for row in rows),
        "p50_s": round(statistics.median(seconds), 2),
        "p95_s": round(_percentile(seconds, 0.95), 2),
        "generate_p50_s": round(statistics.median(row.get("generate_s", 0.0) for row in rows), 2),
        "generated_tokens_p50": statistics.median(row["generated"] for row in rows),
        "model_cpu_p50_s": round(statistics.median(row["model_cpu_s"] for row in rows), 2),
        "same_as_first": sum(
            row["said"] is not None and row["said"] == other["said"]
            for row, other in zip(rows, first, strict=True)
        ),
        "differing": [
            {"id": row["id"], "first": other["said"], "this": row["said"]}
            for row, other in zip(rows, first, strict=True)
            if row["said"] != other["said"]
        ],
    }


def _percentile(values: Sequence[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def measure_model(
    index: Path,
    model_dir: Path,
    out: Path,
    *,
    prompts: int,
    every: int,
    narrative_every: int,
    skip_asks: bool,
    arm_questions: int = 30,
    arms_only: bool = False,
) -> None:
    """Measure the configurations (and, unless ``skip_asks``, ``edgar-rag ask`` cold and warm
    on every ``every``-th golden dev question and every ``narrative_every``-th narrative one,
    then the arms on ``arm_questions`` narrative questions spread over the set) into the
    ``model`` entry of ``out``, then its page. ``arms_only`` measures the arms alone, keeping
    the entry's other figures."""
    data = json.loads(out.read_text(encoding="utf-8"))
    model = assemble_model(model_dir)
    threads = os.cpu_count() or 1
    entry: dict[str, Any] = dict(data.get("model") or {})
    entry |= {"cpu_flags": cpu_flags(), "threads": threads}
    if not arms_only:
        entry["configs"] = measure_configs(model, tape_prompts(prompts), threads)
    if arm_questions > 0 and (arms_only or not skip_asks):
        narrative = narrative_questions()
        spread = narrative[:: max(1, len(narrative) // arm_questions)][:arm_questions]
        entry["narrative_arms"] = measure_arms(index, model_dir, threads, spread)
        entry["narrative_arms_of"] = len(narrative)
    if not skip_asks and not arms_only:
        if not index.is_file():
            raise SystemExit(f"{index} is missing: run `make build/corpus.db` first")
        entry["ask"] = measure_asks(index, model_dir, threads, dev_questions()[::every])
        entry["ask_of"] = len(dev_questions())
        entry["ask_every"] = every
        narrative = narrative_questions()
        entry["ask_narrative"] = measure_asks(
            index, model_dir, threads, narrative[::narrative_every]
        )
        entry["ask_narrative_of"] = len(narrative)
        entry["ask_narrative_every"] = narrative_every
    data["model"] = entry
    out.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    write_performance(out)
