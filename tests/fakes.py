"""Scripted stand-ins for the edges that cost money or time: the model."""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from edgar_rag.answer.answerer import Answerer, AnswerSettings
from edgar_rag.answer.computed import ComputedAnswers
from edgar_rag.answer.prompt import draw_refusal_token
from edgar_rag.domain import FilingStore, Generation, Generator, Prompt, TokenSink
from edgar_rag.figures.library import load_library
from edgar_rag.index.embedders import HashingEmbedder
from edgar_rag.model.state import STATE_FILE, ModelOptions, WorkerState, remove_state, write_state
from edgar_rag.model.worker import Worker, WorkerServer
from edgar_rag.question.companies import CompanyDirectory
from edgar_rag.retrieve.search import Searcher

if TYPE_CHECKING:
    from llama_cpp import Llama

Reply = str | Callable[[Prompt], str]


@dataclass
class ScriptedGenerator:
    """Replies in order (a string, or a function of the prompt); keeps every prompt it was given."""

    replies: list[Reply]
    prompts: list[Prompt] = field(default_factory=list)
    name: str = "scripted"

    def generate(self, prompt: Prompt) -> Generation:
        self.prompts.append(prompt)
        reply = self.replies.pop(0)
        text = reply(prompt) if callable(reply) else reply
        return Generation(text=text, model=self.name, prompt_tokens=100, completion_tokens=10)


def words_of(text: str) -> list[str]:
    """Text in the pieces a model streams: each word with the spaces before it."""
    return re.findall(r"\s*\S+|\s+$", text)


@dataclass
class StreamingScriptedGenerator(ScriptedGenerator):
    """A ScriptedGenerator that also streams each reply a word at a time, ``pause_s`` apart.

    ``told`` keeps the pieces given to the sink; ``stopped`` is set when a stream ends, whether
    it ran to its end or the sink raised; ``first_told`` once the first piece was given, and
    then the stream waits for ``go_on`` (set by default) before the rest."""

    pause_s: float = 0.0
    told: list[str] = field(default_factory=list)
    first_told: threading.Event = field(default_factory=threading.Event)
    go_on: threading.Event = field(default_factory=threading.Event)
    stopped: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        self.go_on.set()

    def stream(self, prompt: Prompt, on_token: TokenSink) -> Generation:
        generation = self.generate(prompt)
        try:
            for piece in words_of(generation.text):
                on_token(piece)
                self.told.append(piece)
                if not self.first_told.is_set():
                    self.first_told.set()
                    self.go_on.wait(30)
                time.sleep(self.pause_s)
        finally:
            self.stopped.set()
        return generation


@dataclass
class FakeLlama:
    """What the model worker uses of llama-cpp-python's ``Llama`` for a streamed chat
    completion: chunks of ``text`` a word each, ``pause_s`` apart. ``closed`` is set when the
    worker stops reading (``told`` says how far it came); ``streams`` counts the requests."""

    text: str
    pause_s: float = 0.0
    n_tokens: int = 0
    told: int = 0
    streams: int = 0
    closed: threading.Event = field(default_factory=threading.Event)

    def create_chat_completion(self, **request: Any) -> Iterator[dict[str, Any]]:
        assert request["stream"] is True
        self.streams += 1
        self.closed.clear()
        return self._chunks()

    def _chunks(self) -> Iterator[dict[str, Any]]:
        try:
            yield {"choices": [{"delta": {"role": "assistant"}, "finish_reason": None}]}
            self.n_tokens, self.told = 40, 0
            for piece in words_of(self.text):
                time.sleep(self.pause_s)
                self.n_tokens += 1
                self.told += 1
                yield {"choices": [{"delta": {"content": piece}, "finish_reason": None}]}
            yield {"choices": [{"delta": {}, "finish_reason": "stop"}]}
        finally:
            self.closed.set()

    def close(self) -> None:
        """Nothing to free."""


def scripted_answerer(
    index: FilingStore, generator: Generator, *, computed: bool = False
) -> Answerer:
    """An answerer over ``index`` (embedded by the hashing embedder) asking ``generator``, with
    the index's companies known to the company guard; with ``computed``, figure questions are
    answered in code from the index's figures first."""
    return Answerer(
        searcher=Searcher(index, HashingEmbedder()),
        generator=generator,
        draw_token=lambda request: draw_refusal_token(b"test", request),
        directory=CompanyDirectory.from_edgartools(
            [(s.company, s.ticker, s.cik) for s in index.filings()]
        ),
        computed=ComputedAnswers(index, load_library()) if computed else None,
    )


def marker_of(prompt: Prompt, needle: str) -> int:
    """The marker of the first passage in the prompt whose text contains ``needle``."""
    user = prompt.messages[-1].content
    for match in re.finditer(
        r"^\[(\d+)\] [^\n]*\n(.*?)(?=^\[\d+\] |</passages>)", user, re.M | re.S
    ):
        if needle in match.group(2):
            return int(match.group(1))
    raise AssertionError(f"no passage prints {needle!r}")


WHOLE_PASSAGES = AnswerSettings(
    search_k=20,
    passages_in_prompt=20,
    passage_chars=2000,
    narrative_passages=20,
    narrative_passage_chars=2000,
)
"""Twenty whole passages in the prompt, for any kind of question: a scripted reply can cite
the passage printing its figure wherever search ranks it."""


@contextmanager
def fake_worker(llama: FakeLlama, model: Path, options: ModelOptions) -> Iterator[WorkerState]:
    """The model worker's real HTTP server, in this process, over ``llama``: a ModelProcess of
    ``model``'s folder with these options finds it through its state file, as it finds a real
    worker (its pid is this process's)."""
    state = WorkerState(os.getpid(), 0, str(model), options, time.time(), "fake llama")
    worker = Worker(cast("Llama", llama), state)
    server = WorkerServer(worker)
    worker.state = state = replace(state, port=server.server_address[1])
    thread = threading.Thread(target=server.serve_forever, name="fake-worker", daemon=True)
    thread.start()
    write_state(model.parent / STATE_FILE, state)
    try:
        yield state
    finally:
        remove_state(model.parent / STATE_FILE, state.pid)
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
