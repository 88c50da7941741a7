"""Recording generations to a tape and replaying them with no model."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import httpx
import pytest

from edgar_rag.compose import build_generator
from edgar_rag.config import Settings
from edgar_rag.domain import Generation, Generator, Message, Prompt
from edgar_rag.errors import ConfigError
from edgar_rag.model.generators import OpenAICompatibleGenerator
from edgar_rag.model.tapes import NotRecorded, TapeGenerator, read_tape, tape_key

PROMPT = Prompt(
    messages=(
        Message("system", "Answer only from the passages. Decline with NOT_IN_FILING_5c2e."),
        Message("user", "[1] Total net sales | 2025: 416,161\n\nQuestion: net sales in 2025?"),
    ),
    refusal_token="NOT_IN_FILING_5c2e",
    max_tokens=64,
)
# The key of PROMPT for "scripted", computed once; a change here breaks every recorded tape.
PROMPT_KEY = "d51d474a5723c205321b8fa87fa2e25c3963f0641233c42bc0671d28e2b103b3"


@dataclass
class ScriptedGenerator:
    """Answers with its replies in order and keeps every prompt."""

    replies: list[str]
    prompts: list[Prompt] = field(default_factory=list)

    @property
    def name(self) -> str:
        return "scripted"

    def generate(self, prompt: Prompt) -> Generation:
        self.prompts.append(prompt)
        return Generation(
            text=self.replies.pop(0), model="scripted-1", prompt_tokens=50, completion_tokens=9
        )


def test_a_recorded_generation_replays_without_the_model(tmp_path: Path) -> None:
    tape = tmp_path / "tapes" / "dev.jsonl"
    ticks = iter([10.0, 12.5])
    recorder: Generator = TapeGenerator(
        ScriptedGenerator(["$416,161 million [1]."]), tape, "record", clock=lambda: next(ticks)
    )
    recorded = recorder.generate(PROMPT)
    assert recorded == Generation("$416,161 million [1].", "scripted-1", 50, 9, replayed=False)

    replayer = TapeGenerator(None, tape, "replay")
    assert replayer.name == "scripted"
    assert replayer.generate(PROMPT) == replace(recorded, replayed=True, recorded_s=2.5)


def test_replay_with_its_generator_never_calls_it(tmp_path: Path) -> None:
    tape = tmp_path / "dev.jsonl"
    TapeGenerator(ScriptedGenerator(["[1]"]), tape, "record").generate(PROMPT)
    untouched = ScriptedGenerator([])
    assert TapeGenerator(untouched, tape, "replay").generate(PROMPT).text == "[1]"
    assert untouched.prompts == []


def test_a_changed_prompt_is_not_recorded(tmp_path: Path) -> None:
    tape = tmp_path / "dev.jsonl"
    TapeGenerator(ScriptedGenerator(["[1]"]), tape, "record").generate(PROMPT)
    replayer = TapeGenerator(None, tape, "replay")
    other_token = replace(
        PROMPT, messages=(replace(PROMPT.messages[0], content="Decline with NOT_IN_FILING_0000."),)
    )
    for changed in (other_token, replace(PROMPT, max_tokens=65), replace(PROMPT, temperature=0.7)):
        with pytest.raises(NotRecorded) as caught:
            replayer.generate(changed)
        assert str(caught.value) == (
            f"not recorded: no generation on the tape {tape} for this prompt (model scripted)"
        )


def test_another_generator_does_not_replay_a_tape_it_did_not_record(tmp_path: Path) -> None:
    tape = tmp_path / "dev.jsonl"
    TapeGenerator(ScriptedGenerator(["[1]"]), tape, "record").generate(PROMPT)

    @dataclass
    class Other(ScriptedGenerator):
        @property
        def name(self) -> str:
            return "other"

    with pytest.raises(NotRecorded, match=r"\(model other\)$"):
        TapeGenerator(Other([]), tape, "replay").generate(PROMPT)


def test_the_key_is_stable_across_processes() -> None:
    code = (
        "from edgar_rag.model.tapes import tape_key\n"
        "from edgar_rag.domain import Message, Prompt\n"
        f"print(tape_key('scripted', Prompt(messages={PROMPT.messages!r}, "
        f"refusal_token={PROMPT.refusal_token!r}, max_tokens=64)))\n"
    )
    for seed in ("1", "2"):
        child = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={"PYTHONHASHSEED": seed},
        )
        assert child.stdout.strip() == tape_key("scripted", PROMPT) == PROMPT_KEY


def test_an_integer_temperature_has_the_key_of_its_float() -> None:
    assert tape_key("m", replace(PROMPT, temperature=0)) == tape_key("m", PROMPT)


def test_an_api_key_never_reaches_the_tape(tmp_path: Path) -> None:
    secret = "sk-live-0123456789abcdef"
    reply = {
        "choices": [{"message": {"content": "$416,161 million [1]."}}],
        "usage": {"prompt_tokens": 80, "completion_tokens": 8},
    }
    http = httpx.Client(transport=httpx.MockTransport(lambda _: httpx.Response(200, json=reply)))
    inner = OpenAICompatibleGenerator(http, "http://127.0.0.1:9/v1", "gpt-4o-mini", secret, 10)
    tape = tmp_path / "dev.jsonl"
    taped = TapeGenerator(inner, tape, "record")
    taped.generate(PROMPT)
    assert secret not in tape.read_text(encoding="utf-8")
    assert secret not in repr(taped)
    [entry] = read_tape(tape)
    assert (entry.generator, entry.model, entry.prompt_tokens) == (
        "openai:gpt-4o-mini",
        "openai:gpt-4o-mini",
        80,
    )


def test_concurrent_recordings_each_write_one_whole_line(tmp_path: Path) -> None:
    tape = tmp_path / "dev.jsonl"
    prompts = [replace(PROMPT, max_tokens=n) for n in range(1, 41)]
    recorder = TapeGenerator(ScriptedGenerator([f"answer {n}" for n in range(40)]), tape, "record")
    threads = [threading.Thread(target=recorder.generate, args=(p,)) for p in prompts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    lines = tape.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 40
    assert all(json.loads(line)["key"] for line in lines)
    replayer = TapeGenerator(None, tape, "replay")
    assert {replayer.generate(p).text for p in prompts} == {f"answer {n}" for n in range(40)}


def test_replaying_a_missing_tape_is_a_config_error_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.jsonl"
    with pytest.raises(ConfigError, match=f"tape not found: {missing}"):
        TapeGenerator(ScriptedGenerator([]), missing, "replay")


def test_a_damaged_tape_is_a_config_error_naming_the_line(tmp_path: Path) -> None:
    tape = tmp_path / "dev.jsonl"
    TapeGenerator(ScriptedGenerator(["[1]"]), tape, "record").generate(PROMPT)
    with tape.open("a", encoding="utf-8") as file:
        file.write('{"key": "truncated"\n')
    with pytest.raises(ConfigError, match="line 2 is not a recorded generation"):
        TapeGenerator(None, tape, "replay")


def test_replay_without_a_generator_needs_a_tape_of_one_generator(tmp_path: Path) -> None:
    tape = tmp_path / "dev.jsonl"
    TapeGenerator(ScriptedGenerator(["[1]"]), tape, "record").generate(PROMPT)
    (entry,) = read_tape(tape)
    with tape.open("a", encoding="utf-8") as file:
        file.write(entry.model_copy(update={"key": "k", "generator": "other"}).model_dump_json())
    held = sorted(["other", entry.generator])
    with pytest.raises(ConfigError, match=f"holds {held[0]}, {held[1]}; name the generator"):
        TapeGenerator(None, tape, "replay")


def test_a_run_that_needed_no_model_leaves_an_empty_tape_that_replays(tmp_path: Path) -> None:
    """Every figure answered in code: the recording asks nothing, and its replay knows no
    prompt (each is not recorded) rather than failing to open."""
    tape = tmp_path / "dev.jsonl"
    TapeGenerator(ScriptedGenerator([]), tape, "record")
    assert tape.read_text(encoding="utf-8") == ""
    replay = TapeGenerator(None, tape, "replay")
    with pytest.raises(NotRecorded):
        replay.generate(PROMPT)


def test_recording_needs_a_generator(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="needs a generator"):
        TapeGenerator(None, tmp_path / "dev.jsonl", "record")


def test_a_recording_keeps_how_long_the_generation_took(tmp_path: Path) -> None:
    tape = tmp_path / "dev.jsonl"
    ticks = iter([10.0, 12.5])
    recorder = TapeGenerator(ScriptedGenerator(["[1]"]), tape, "record", clock=lambda: next(ticks))
    recorder.generate(PROMPT)
    [entry] = read_tape(tape)
    assert entry.generation_s == 2.5


def test_a_paced_replay_takes_as_long_as_its_recording(tmp_path: Path) -> None:
    tape = tmp_path / "dev.jsonl"
    ticks = iter([0.0, 1.75])
    TapeGenerator(ScriptedGenerator(["[1]"]), tape, "record", clock=lambda: next(ticks)).generate(
        PROMPT
    )
    slept: list[float] = []
    assert TapeGenerator(None, tape, "replay", sleep=slept.append).generate(PROMPT).replayed
    assert slept == []
    paced = TapeGenerator(None, tape, "replay", paced=True, sleep=slept.append)
    assert paced.generate(PROMPT).text == "[1]"
    assert slept == [1.75]


def test_a_tape_recorded_before_durations_were_kept_replays_without_pause(
    tmp_path: Path,
) -> None:
    tape = tmp_path / "dev.jsonl"
    TapeGenerator(ScriptedGenerator(["[1]"]), tape, "record").generate(PROMPT)
    line = json.loads(tape.read_text(encoding="utf-8"))
    del line["generation_s"]
    tape.write_text(json.dumps(line) + "\n", encoding="utf-8")
    slept: list[float] = []
    paced = TapeGenerator(None, tape, "replay", paced=True, sleep=slept.append)
    assert paced.generate(PROMPT).text == "[1]"
    assert slept == []


def test_the_replay_paced_setting_builds_a_paced_replay(tmp_path: Path) -> None:
    tape = tmp_path / "dev.jsonl"
    ticks = iter([0.0, 0.05])
    TapeGenerator(ScriptedGenerator(["[1]"]), tape, "record", clock=lambda: next(ticks)).generate(
        PROMPT
    )
    generator = build_generator(Settings(tape=tape, tape_mode="replay-paced"))
    started = time.perf_counter()
    assert generator.generate(PROMPT).text == "[1]"
    assert time.perf_counter() - started >= 0.05


def test_a_streamed_replay_tells_its_recorded_text_a_word_at_a_time(tmp_path: Path) -> None:
    tape = tmp_path / "dev.jsonl"
    answer = "Total net sales were $416,161 million [1].\n"
    ticks = iter([0.0, 2.0])
    recorder = TapeGenerator(ScriptedGenerator([answer]), tape, "record", clock=lambda: next(ticks))
    recorder.generate(PROMPT)
    told: list[str] = []
    slept: list[float] = []
    paced = TapeGenerator(None, tape, "replay", paced=True, sleep=slept.append)
    generation = paced.stream(PROMPT, told.append)
    assert told == ["Total", " net", " sales", " were", " $416,161", " million", " [1].", "\n"]
    assert "".join(told) == generation.text == answer
    assert generation.replayed
    assert sum(slept) == pytest.approx(2.0)  # spread over the words, as long as it took
    assert TapeGenerator(None, tape, "replay").stream(PROMPT, told.append).text == answer


def test_a_streamed_recording_streams_what_its_generator_streams(tmp_path: Path) -> None:
    from fakes import StreamingScriptedGenerator  # noqa: PLC0415

    tape = tmp_path / "dev.jsonl"
    told: list[str] = []
    recorder = TapeGenerator(StreamingScriptedGenerator(["Net sales [1]."]), tape, "record")
    assert recorder.stream(PROMPT, told.append).text == "Net sales [1]."
    assert told == ["Net", " sales", " [1]."]
    [entry] = read_tape(tape)
    assert entry.text == "Net sales [1]."
    plain = TapeGenerator(ScriptedGenerator(["[1]"]), tmp_path / "plain.jsonl", "record")
    assert plain.stream(replace(PROMPT, max_tokens=9), told.append).text == "[1]"
    assert told == ["Net", " sales", " [1]."]  # a generator that does not stream tells nothing
