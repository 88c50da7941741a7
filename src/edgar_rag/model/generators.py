"""Generators that call a model over HTTP (OpenAI-compatible, Anthropic, Ollama), and an echo.

Each takes its ``httpx.Client`` in the constructor and turns every failure at the HTTP boundary
into a ``SourceError`` (a ``GeneratorTimeout`` on a timeout): an unreachable model is an error,
never a decline. API keys are kept in ``SecretStr`` and never reach a message, a log or a repr.
The OpenAI-compatible generator also streams (``stream``: the server's server-sent events, read
as they come); the others answer whole. The local llama.cpp model lives in ``local_model.py``;
recording and replay in ``tapes.py``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import httpx
from pydantic import BaseModel, Field, SecretStr, ValidationError

from edgar_rag.domain import Generation, Message, Prompt, TokenSink
from edgar_rag.errors import SourceError

OPENAI_KEY_ENV = "OPENAI_API_KEY"
ANTHROPIC_KEY_ENV = "ANTHROPIC_API_KEY"
ANTHROPIC_VERSION = "2023-06-01"
_DETAIL_CHARS = 200
_PASSAGES = re.compile(r"<passages>(.*?)</passages>", re.DOTALL)
_EVENT_DATA = "data:"
_STREAM_DONE = "[DONE]"

_Reply = TypeVar("_Reply", bound=BaseModel)


class GeneratorTimeout(SourceError):  # noqa: N818  (the name the service maps to 504)
    """The model server did not answer in time (the service answers 504, not 502)."""


class ChatUsage(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0


class ChatMessage(BaseModel):
    content: str | None = None


class ChatChoice(BaseModel):
    message: ChatMessage


class ChatCompletion(BaseModel):
    """The part of an OpenAI chat completion we read (llama-cpp-python answers the same shape)."""

    choices: list[ChatChoice] = Field(min_length=1)
    usage: ChatUsage = Field(default_factory=ChatUsage)

    def to_generation(self, model: str) -> Generation:
        return Generation(
            text=self.choices[0].message.content or "",
            model=model,
            prompt_tokens=self.usage.prompt_tokens,
            completion_tokens=self.usage.completion_tokens,
        )


class ChatDelta(BaseModel):
    content: str | None = None


class ChunkChoice(BaseModel):
    delta: ChatDelta = Field(default_factory=ChatDelta)


class ChatChunk(BaseModel):
    """One server-sent event of a streamed OpenAI chat completion: a piece of the text, or
    (``stream_options.include_usage``) the usage, with no choices, before ``[DONE]``."""

    choices: list[ChunkChoice] = Field(default_factory=list)
    usage: ChatUsage | None = None


class _AnthropicBlock(BaseModel):
    type: str
    text: str = ""


class _AnthropicUsage(BaseModel):
    input_tokens: int = 0
    output_tokens: int = 0


class _AnthropicReply(BaseModel):
    content: list[_AnthropicBlock]
    usage: _AnthropicUsage = Field(default_factory=_AnthropicUsage)


class _OllamaMessage(BaseModel):
    content: str


class _OllamaReply(BaseModel):
    message: _OllamaMessage
    prompt_eval_count: int = 0
    eval_count: int = 0


def chat_messages(messages: tuple[Message, ...]) -> list[dict[str, str]]:
    """Messages as the chat APIs (and llama-cpp-python) take them."""
    return [{"role": message.role, "content": message.content} for message in messages]


class _Endpoint:
    """One provider's base URL and key, and the translation of its failures into our errors."""

    def __init__(
        self,
        http: httpx.Client,
        provider: str,
        base_url: str,
        timeout_s: float,
        api_key: SecretStr | None = None,
        key_env: str | None = None,
    ) -> None:
        self.http = http
        self.provider = provider
        self.base_url = base_url.rstrip("/")
        self.timeout_s = timeout_s
        self.api_key = api_key
        self.key_env = key_env

    def describe(self) -> str:
        return f"{self.provider} at {self.base_url}"

    def post(
        self, path: str, headers: dict[str, str], body: dict[str, Any], reply: type[_Reply]
    ) -> _Reply:
        with self._reaching():
            response = self.http.post(
                self.base_url + path, headers=headers, json=body, timeout=self.timeout_s
            )
        self._check_status(response)
        return self.parse(reply, response.content)

    @contextmanager
    def streamed(
        self, path: str, headers: dict[str, str], body: dict[str, Any]
    ) -> Iterator[httpx.Response]:
        """The reply, its status checked, open to be read as it arrives (``event_data``);
        closed on leaving the block, which tells a streaming server to stop. The timeout holds
        for each read, so a slow model that keeps writing is not cut off."""
        with self._reaching():
            request = self.http.build_request(
                "POST", self.base_url + path, headers=headers, json=body, timeout=self.timeout_s
            )
            response = self.http.send(request, stream=True)
        try:
            if response.status_code >= 400:
                self.read(response)
                self._check_status(response)
            yield response
        finally:
            response.close()

    def event_data(self, response: httpx.Response) -> Iterator[str]:
        """The data of each server-sent event of ``response`` as it arrives, until ``[DONE]``;
        a stream that ends before ``[DONE]`` is a SourceError (the server went away)."""
        lines = response.iter_lines()
        while True:
            with self._reaching():
                line = next(lines, None)
            if line is None:
                raise SourceError(f"{self.describe()} ended its stream before [DONE]")
            if line.startswith(_EVENT_DATA):
                data = line.removeprefix(_EVENT_DATA).strip()
                if data == _STREAM_DONE:
                    return
                yield data

    def read(self, response: httpx.Response) -> bytes:
        with self._reaching():
            return response.read()

    @contextmanager
    def _reaching(self) -> Iterator[None]:
        """httpx's failures as ours: a timeout, or a server that cannot be reached."""
        try:
            yield
        except httpx.TimeoutException as exc:
            raise GeneratorTimeout(
                f"{self.describe()} did not answer within {self.timeout_s:g} s"
            ) from exc
        except httpx.HTTPError as exc:
            raise SourceError(
                f"{self.describe()} could not be reached "
                f"({type(exc).__name__}: {self._redact(str(exc))})"
            ) from exc

    def parse(self, reply: type[_Reply], content: bytes | str) -> _Reply:
        try:
            return reply.model_validate_json(content)
        except ValidationError as exc:
            raise SourceError(
                f"{self.describe()} answered with malformed JSON "
                f"({exc.error_count()} problems, first: {exc.errors()[0]['msg']})"
            ) from exc

    def _check_status(self, response: httpx.Response) -> None:
        status = response.status_code
        if status < 400:
            return
        if status in (401, 403):
            if self.key_env is None:
                raise SourceError(f"{self.describe()} refused the request (HTTP {status})")
            raise SourceError(
                f"{self.describe()} refused the API key (HTTP {status}); check {self.key_env}"
            )
        raise SourceError(f"{self.describe()} answered HTTP {status}: {self._detail(response)}")

    def _detail(self, response: httpx.Response) -> str:
        text = " ".join(response.text.split())[:_DETAIL_CHARS]
        return self._redact(text) or "(empty body)"

    def _redact(self, text: str) -> str:
        if self.api_key is None or not self.api_key.get_secret_value():
            return text
        return text.replace(self.api_key.get_secret_value(), "***")


def _secret(api_key: str | SecretStr | None) -> SecretStr | None:
    if api_key is None or isinstance(api_key, SecretStr):
        return api_key
    return SecretStr(api_key)


class OpenAICompatibleGenerator:
    """``POST {base_url}/chat/completions``: OpenAI, vLLM, a llama.cpp server, Ollama's ``/v1``."""

    def __init__(
        self,
        http: httpx.Client,
        base_url: str,
        model: str,
        api_key: str | SecretStr | None,
        timeout_s: float,
    ) -> None:
        self._model = model
        self._endpoint = _Endpoint(
            http, "openai", base_url, timeout_s, _secret(api_key), OPENAI_KEY_ENV
        )

    @property
    def name(self) -> str:
        return f"openai:{self._model}"

    def __repr__(self) -> str:
        base_url = self._endpoint.base_url
        return f"OpenAICompatibleGenerator(model={self._model!r}, base_url={base_url!r})"

    def generate(self, prompt: Prompt) -> Generation:
        reply = self._endpoint.post(
            "/chat/completions", self._headers(), self._body(prompt), ChatCompletion
        )
        return reply.to_generation(self.name)

    def stream(self, prompt: Prompt, on_token: TokenSink) -> Generation:
        """``generate`` with ``"stream": true``: each piece of text goes to ``on_token`` as it
        arrives. An exception ``on_token`` raises closes the connection and propagates. A server
        that answers whole instead (one that does not stream, or a local model process started
        by an edgar-rag from before streaming) has its text told in one piece."""
        body = self._body(prompt) | {"stream": True, "stream_options": {"include_usage": True}}
        endpoint = self._endpoint
        with endpoint.streamed("/chat/completions", self._headers(), body) as response:
            if not response.headers.get("content-type", "").startswith("text/event-stream"):
                whole = endpoint.parse(ChatCompletion, endpoint.read(response))
                generation = whole.to_generation(self.name)
                if generation.text:
                    on_token(generation.text)
                return generation
            pieces: list[str] = []
            usage = ChatUsage()
            for data in endpoint.event_data(response):
                chunk = endpoint.parse(ChatChunk, data)
                usage = chunk.usage or usage
                for choice in chunk.choices[:1]:
                    if choice.delta.content:
                        pieces.append(choice.delta.content)
                        on_token(choice.delta.content)
        return Generation(
            text="".join(pieces),
            model=self.name,
            prompt_tokens=usage.prompt_tokens,
            completion_tokens=usage.completion_tokens,
        )

    def _headers(self) -> dict[str, str]:
        key = self._endpoint.api_key
        if key is not None and key.get_secret_value():
            return {"Authorization": f"Bearer {key.get_secret_value()}"}
        return {}

    def _body(self, prompt: Prompt) -> dict[str, Any]:
        return {
            "model": self._model,
            "messages": chat_messages(prompt.messages),
            "temperature": prompt.temperature,
            "max_tokens": prompt.max_tokens,
        }


class AnthropicGenerator:
    """``POST /v1/messages``; the system messages go in the separate ``system`` field."""

    def __init__(
        self,
        http: httpx.Client,
        model: str,
        api_key: str | SecretStr,
        timeout_s: float,
        base_url: str = "https://api.anthropic.com",
    ) -> None:
        self._model = model
        self._endpoint = _Endpoint(
            http, "anthropic", base_url, timeout_s, _secret(api_key), ANTHROPIC_KEY_ENV
        )

    @property
    def name(self) -> str:
        return f"anthropic:{self._model}"

    def __repr__(self) -> str:
        return f"AnthropicGenerator(model={self._model!r}, base_url={self._endpoint.base_url!r})"

    def generate(self, prompt: Prompt) -> Generation:
        key = self._endpoint.api_key
        headers = {
            "x-api-key": key.get_secret_value() if key is not None else "",
            "anthropic-version": ANTHROPIC_VERSION,
        }
        system = "\n\n".join(m.content for m in prompt.messages if m.role == "system")
        body: dict[str, Any] = {
            "model": self._model,
            "messages": chat_messages(tuple(m for m in prompt.messages if m.role != "system")),
            "temperature": prompt.temperature,
            "max_tokens": prompt.max_tokens,
        }
        if system:
            body["system"] = system
        reply = self._endpoint.post("/v1/messages", headers, body, _AnthropicReply)
        return Generation(
            text="".join(block.text for block in reply.content if block.type == "text"),
            model=self.name,
            prompt_tokens=reply.usage.input_tokens,
            completion_tokens=reply.usage.output_tokens,
        )


class OllamaGenerator:
    """Ollama's native ``POST /api/chat``, not streamed."""

    def __init__(self, http: httpx.Client, base_url: str, model: str, timeout_s: float) -> None:
        self._model = model
        self._endpoint = _Endpoint(http, "ollama", base_url, timeout_s)

    @property
    def name(self) -> str:
        return f"ollama:{self._model}"

    def __repr__(self) -> str:
        return f"OllamaGenerator(model={self._model!r}, base_url={self._endpoint.base_url!r})"

    def generate(self, prompt: Prompt) -> Generation:
        body = {
            "model": self._model,
            "messages": chat_messages(prompt.messages),
            "stream": False,
            "options": {"temperature": prompt.temperature, "num_predict": prompt.max_tokens},
        }
        reply = self._endpoint.post("/api/chat", {}, body, _OllamaReply)
        return Generation(
            text=reply.message.content,
            model=self.name,
            prompt_tokens=reply.prompt_eval_count,
            completion_tokens=reply.eval_count,
        )


class EchoGenerator:
    """No model: answers with the passages of the last user message, so the pipeline runs bare.

    The passages are what ``prompt.py`` puts between ``<passages>`` and ``</passages>`` (filing
    text cannot hold those tags: its angle brackets are replaced); a message without them is
    echoed whole.
    """

    @property
    def name(self) -> str:
        return "echo"

    def __repr__(self) -> str:
        return "EchoGenerator()"

    def generate(self, prompt: Prompt) -> Generation:
        users = [m.content for m in prompt.messages if m.role == "user"]
        text = users[-1] if users else ""
        passages = _PASSAGES.search(text)
        text = (passages[1] if passages else text).strip()
        return Generation(text=text, model=self.name, verbatim=True)
