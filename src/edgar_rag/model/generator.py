"""The default generator: the local model, reached in its own process (``process.py``).

A worker that dies during a request (a native crash in llama.cpp, the out-of-memory killer)
costs that request a ``SourceError`` naming the cause (the service answers 502, the CLI prints
one line); the next request starts a new worker. Streamed, the worker's tokens come back over the
same connection as it writes them; a caller that stops reading closes it, and the worker stops
generating at its next token.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import cached_property
from typing import TYPE_CHECKING

from edgar_rag.domain import Generation, Prompt, TokenSink
from edgar_rag.errors import SourceError
from edgar_rag.model.local_model import MODEL_NAME
from edgar_rag.model.process import ModelProcess

if TYPE_CHECKING:
    import httpx

    from edgar_rag.model.generators import OpenAICompatibleGenerator

_DEATH_WAIT_S = 2.0
"""How long a failed request waits for the worker's exit to show, before blaming the network."""


class LocalModelGenerator:
    """Answers through the local model process, starting it on first use."""

    def __init__(self, process: ModelProcess, timeout_s: float) -> None:
        self._process = process
        self._timeout_s = timeout_s

    @cached_property
    def _http(self) -> httpx.Client:
        """Made on first use, as the process's own (``ModelProcess._http``): a question
        answered in code imports neither httpx nor the HTTP generators."""
        import httpx  # noqa: PLC0415

        return httpx.Client()

    @property
    def name(self) -> str:
        return MODEL_NAME

    def __repr__(self) -> str:
        return f"LocalModelGenerator({self._process!r})"

    def generate(self, prompt: Prompt) -> Generation:
        return self._ask(lambda client: client.generate(prompt))

    def stream(self, prompt: Prompt, on_token: TokenSink) -> Generation:
        return self._ask(lambda client: client.stream(prompt, on_token))

    def _ask(self, call: Callable[[OpenAICompatibleGenerator], Generation]) -> Generation:
        from edgar_rag.model.generators import (  # noqa: PLC0415
            GeneratorTimeout,
            OpenAICompatibleGenerator,
        )

        worker = self._process.ensure()
        client = OpenAICompatibleGenerator(
            self._http, f"{worker.url}/v1", MODEL_NAME, None, self._timeout_s
        )
        try:
            generation = call(client)
        except GeneratorTimeout as exc:
            raise GeneratorTimeout(
                f"the local model process did not answer within {self._timeout_s:g} s "
                "(EDGAR_RAG_GENERATOR_TIMEOUT_S; other work on the cores slows it)"
            ) from exc
        except SourceError as exc:
            cause = self._process.death(worker.pid, wait_s=_DEATH_WAIT_S)
            if cause is None:
                raise
            raise SourceError(
                f"the local model process died while answering ({cause}); the next request "
                f"starts it again (log: {self._process.log_path})"
            ) from exc
        return replace(generation, model=MODEL_NAME)
