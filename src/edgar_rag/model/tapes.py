"""Record generations to a tape (a JSONL file) and replay them with no model and no network.

A generation is keyed by the sha256 of a canonical JSON of the generator's name, the temperature,
the token limit and the exact messages. The refusal token is inside the messages, so a prompt can
be replayed only when its caller draws that token deterministically: that is the caller's job.
A tape holds prompts and answers, never a key or a setting. Each generation also keeps how long it
took, so that a paced replay can take as long (a load test then holds the service's generation
slots as the model would, though sleeping where the model would use the CPU). Streamed, a replay
tells its recorded text in pieces of a word each (paced: spread over the recorded time), and a
recording streams what its generator streams.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from edgar_rag.domain import Generation, Generator, Prompt, StreamingGenerator, TokenSink
from edgar_rag.errors import ConfigError, NotFoundError

TapeMode = Literal["record", "replay"]
_PIECE = re.compile(r"\s*\S+|\s+$")
"""A replayed stream's pieces: each word with the spaces before it, as a model's tokens come."""


class NotRecorded(NotFoundError):  # noqa: N818  (a 404 in the service)
    """Replay was asked a prompt that the tape does not hold (the service answers 404)."""


class TapeMessage(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    role: str
    content: str


class TapeEntry(BaseModel):
    """One recorded generation: one line of a tape."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    key: str
    generator: str
    """The name of the generator that was asked; part of the key."""
    model: str
    """The model the generation reports."""
    temperature: float
    max_tokens: int
    messages: tuple[TapeMessage, ...]
    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    generation_s: float = 0.0
    """How long the recorded generation took; 0 on tapes recorded before it was kept."""


def tape_key(generator: str, prompt: Prompt) -> str:
    """The sha256 that names a prompt on a tape; the same in every process and on every machine."""
    canonical = json.dumps(
        {
            "generator": generator,
            "temperature": float(prompt.temperature),
            "max_tokens": prompt.max_tokens,
            "messages": [[m.role, m.content] for m in prompt.messages],
        },
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def read_tape(path: Path) -> list[TapeEntry]:
    """Every entry of a tape, in the order recorded; ConfigError for a missing or damaged tape."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError as exc:
        raise ConfigError(f"tape not found: {path}") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"tape {path} cannot be read: {exc}") from exc
    entries = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            entries.append(TapeEntry.model_validate_json(line))
        except ValidationError as exc:
            raise ConfigError(
                f"tape {path} line {number} is not a recorded generation ({exc.errors()[0]['msg']})"
            ) from exc
    return entries


class TapeGenerator:
    """A ``Generator`` that records its inner generator's answers, or replays recorded ones.

    In replay ``inner`` may be None; the generator's name is then read from the tape, which must
    hold one generator's generations. A replay tape is read once, when constructed; a prompt
    recorded twice replays its latest generation. A ``paced`` replay sleeps for as long as the
    recorded generation took before it answers.
    """

    def __init__(
        self,
        inner: Generator | None,
        path: Path,
        mode: TapeMode,
        *,
        paced: bool = False,
        clock: Callable[[], float] = time.perf_counter,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._inner = inner
        self._path = path
        self._mode = mode
        self._paced = paced
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        self._recorded: dict[str, TapeEntry] = {}
        if mode == "record":
            if inner is None:
                raise ConfigError(f"recording the tape {path} needs a generator to record")
            self._name = inner.name
            if path.exists():
                self._recorded = {entry.key: entry for entry in read_tape(path)}
            else:  # a run whose every answer needs no model still leaves its (empty) tape
                path.parent.mkdir(parents=True, exist_ok=True)
                path.touch()
        else:
            entries = read_tape(path)
            self._recorded = {entry.key: entry for entry in entries}
            self._name = inner.name if inner is not None else _only_generator(path, entries)

    @property
    def name(self) -> str:
        return self._name

    def __repr__(self) -> str:
        return f"TapeGenerator({self._mode}, {str(self._path)!r}, {self._name!r})"

    def generate(self, prompt: Prompt) -> Generation:
        """Replay a recorded generation; in record mode, generate and record what is not on the
        tape yet (so an interrupted recording resumes where it stopped)."""
        if self._mode == "replay" or self._inner is None:
            return self._replay(prompt)
        if tape_key(self._name, prompt) in self._recorded:
            return self._replay(prompt)
        return self._record(self._inner, prompt)

    def stream(self, prompt: Prompt, on_token: TokenSink) -> Generation:
        """``generate``, telling the text as it comes: a replay in pieces of its recorded text,
        a recording as its generator streams it (nothing, if that one does not stream)."""
        if self._mode == "replay" or self._inner is None:
            return self._replay(prompt, on_token)
        if tape_key(self._name, prompt) in self._recorded:
            return self._replay(prompt, on_token)
        return self._record(self._inner, prompt, on_token)

    def _replay(self, prompt: Prompt, on_token: TokenSink | None = None) -> Generation:
        entry = self._recorded.get(tape_key(self._name, prompt))
        if entry is None:
            raise NotRecorded(
                f"not recorded: no generation on the tape {self._path} for this prompt "
                f"(model {self._name})"
            )
        if on_token is not None:
            self._tell(entry, on_token)
        elif self._paced and entry.generation_s > 0:
            self._sleep(entry.generation_s)
        return Generation(
            text=entry.text,
            model=entry.model,
            prompt_tokens=entry.prompt_tokens,
            completion_tokens=entry.completion_tokens,
            replayed=True,
            recorded_s=entry.generation_s,
        )

    def _tell(self, entry: TapeEntry, on_token: TokenSink) -> None:
        pieces = _PIECE.findall(entry.text)
        pause_s = entry.generation_s / max(len(pieces), 1) if self._paced else 0.0
        for piece in pieces:
            if pause_s > 0:
                self._sleep(pause_s)
            on_token(piece)

    def _record(
        self, inner: Generator, prompt: Prompt, on_token: TokenSink | None = None
    ) -> Generation:
        started = self._clock()
        if on_token is not None and isinstance(inner, StreamingGenerator):
            generation = inner.stream(prompt, on_token)
        else:
            generation = inner.generate(prompt)
        generation_s = self._clock() - started
        entry = TapeEntry(
            key=tape_key(self._name, prompt),
            generator=self._name,
            model=generation.model,
            temperature=prompt.temperature,
            max_tokens=prompt.max_tokens,
            messages=tuple(TapeMessage(role=m.role, content=m.content) for m in prompt.messages),
            text=generation.text,
            prompt_tokens=generation.prompt_tokens,
            completion_tokens=generation.completion_tokens,
            generation_s=round(generation_s, 3),
        )
        line = entry.model_dump_json() + "\n"
        with self._lock:
            self._path.parent.mkdir(parents=True, exist_ok=True)
            with self._path.open("a", encoding="utf-8") as tape:
                tape.write(line)
                tape.flush()
        return generation


def _only_generator(path: Path, entries: list[TapeEntry]) -> str:
    """The one generator the tape holds; ``none`` for an empty tape (a run that needed no model:
    every prompt is then not recorded)."""
    names = sorted({entry.generator for entry in entries})
    if len(names) > 1:
        raise ConfigError(f"tape {path} holds {', '.join(names)}; name the generator to replay")
    return names[0] if names else "none"
