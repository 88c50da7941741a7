"""The HTTP generators against fake providers served through ``httpx.MockTransport``."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from edgar_rag.answer.prompt import PromptPassage, build_prompt
from edgar_rag.domain import Generator, Message, Prompt
from edgar_rag.errors import SourceError
from edgar_rag.model.generators import (
    AnthropicGenerator,
    EchoGenerator,
    GeneratorTimeout,
    OllamaGenerator,
    OpenAICompatibleGenerator,
)

KEY = "sk-test-7d1c0ffee5ecret"
OPENAI_URL = "http://127.0.0.1:8080/v1"
ANTHROPIC_URL = "https://api.anthropic.com"
OLLAMA_URL = "http://127.0.0.1:11434"
PASSAGE = "[1] Total net sales | 2025: 416,161 | 2024: 391,035 | (in millions)"
PROMPT = Prompt(
    messages=(
        Message("system", "Answer only from the passages."),
        Message("user", f"Passages:\n{PASSAGE}\n\nQuestion: What were net sales in fiscal 2025?"),
    ),
    refusal_token="NOT_IN_FILING_5c2e",
    max_tokens=64,
    temperature=0.0,
)
ANSWER = "Total net sales were $416,161 million in fiscal 2025 [1]."

Handler = Callable[[httpx.Request], httpx.Response]
PROVIDERS = ["openai", "anthropic", "ollama"]
REPLIES: dict[str, dict[str, Any]] = {
    "openai": {
        "choices": [{"message": {"role": "assistant", "content": ANSWER}}],
        "usage": {"prompt_tokens": 120, "completion_tokens": 17},
    },
    "anthropic": {
        "content": [{"type": "text", "text": ANSWER}],
        "usage": {"input_tokens": 120, "output_tokens": 17},
    },
    "ollama": {
        "message": {"role": "assistant", "content": ANSWER},
        "prompt_eval_count": 120,
        "eval_count": 17,
    },
}
BASE_URLS = {"openai": OPENAI_URL, "anthropic": ANTHROPIC_URL, "ollama": OLLAMA_URL}


def make_generator(provider: str, handler: Handler) -> Generator:
    http = httpx.Client(transport=httpx.MockTransport(handler))
    if provider == "openai":
        return OpenAICompatibleGenerator(http, OPENAI_URL, "gpt-4o-mini", KEY, timeout_s=30)
    if provider == "anthropic":
        return AnthropicGenerator(http, "claude-3-5-haiku-latest", KEY, timeout_s=30)
    return OllamaGenerator(http, OLLAMA_URL, "qwen2.5:7b", timeout_s=30)


class Recorder:
    """Answers every request with one reply and keeps the requests for assertions."""

    def __init__(self, reply: dict[str, Any]) -> None:
        self.reply = reply
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return httpx.Response(200, json=self.reply)

    def body(self) -> dict[str, Any]:
        [request] = self.requests
        parsed: dict[str, Any] = json.loads(request.content)
        return parsed


def test_openai_posts_the_model_messages_and_temperature_zero() -> None:
    recorder = Recorder(REPLIES["openai"])
    make_generator("openai", recorder).generate(PROMPT)
    [request] = recorder.requests
    assert str(request.url) == f"{OPENAI_URL}/chat/completions"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.extensions["timeout"]["read"] == 30
    assert recorder.body() == {
        "model": "gpt-4o-mini",
        "messages": [
            {"role": "system", "content": "Answer only from the passages."},
            {"role": "user", "content": PROMPT.messages[1].content},
        ],
        "temperature": 0.0,
        "max_tokens": 64,
    }


def test_openai_compatible_server_without_a_key_gets_no_authorization_header() -> None:
    recorder = Recorder(REPLIES["openai"])
    http = httpx.Client(transport=httpx.MockTransport(recorder))
    OpenAICompatibleGenerator(http, OPENAI_URL + "/", "qwen", None, timeout_s=5).generate(PROMPT)
    [request] = recorder.requests
    assert str(request.url) == f"{OPENAI_URL}/chat/completions"
    assert "authorization" not in request.headers


def test_anthropic_sends_the_system_prompt_apart_with_its_headers() -> None:
    recorder = Recorder(REPLIES["anthropic"])
    make_generator("anthropic", recorder).generate(PROMPT)
    [request] = recorder.requests
    assert str(request.url) == f"{ANTHROPIC_URL}/v1/messages"
    assert request.headers["x-api-key"] == KEY
    assert request.headers["anthropic-version"] == "2023-06-01"
    assert "authorization" not in request.headers
    assert recorder.body() == {
        "model": "claude-3-5-haiku-latest",
        "system": "Answer only from the passages.",
        "messages": [{"role": "user", "content": PROMPT.messages[1].content}],
        "temperature": 0.0,
        "max_tokens": 64,
    }


def test_ollama_posts_its_native_chat_unstreamed() -> None:
    recorder = Recorder(REPLIES["ollama"])
    make_generator("ollama", recorder).generate(PROMPT)
    [request] = recorder.requests
    assert str(request.url) == f"{OLLAMA_URL}/api/chat"
    body = recorder.body()
    assert body["model"] == "qwen2.5:7b"
    assert body["stream"] is False
    assert body["options"] == {"temperature": 0.0, "num_predict": 64}
    assert [m["role"] for m in body["messages"]] == ["system", "user"]


@pytest.mark.parametrize(
    ("provider", "name"),
    [
        ("openai", "openai:gpt-4o-mini"),
        ("anthropic", "anthropic:claude-3-5-haiku-latest"),
        ("ollama", "ollama:qwen2.5:7b"),
    ],
)
def test_each_provider_reads_the_text_and_the_tokens(provider: str, name: str) -> None:
    generator = make_generator(provider, Recorder(REPLIES[provider]))
    generation = generator.generate(PROMPT)
    assert generator.name == name
    assert generation.text == ANSWER
    assert generation.model == name
    assert (generation.prompt_tokens, generation.completion_tokens) == (120, 17)
    assert generation.replayed is False


def test_anthropic_joins_its_text_blocks_and_skips_others() -> None:
    reply = {"content": [{"type": "thinking"}, {"type": "text", "text": ANSWER}]}
    generation = make_generator("anthropic", Recorder(reply)).generate(PROMPT)
    assert generation.text == ANSWER
    assert generation.prompt_tokens == 0


def raising(error: type[httpx.TransportError]) -> Handler:
    def handler(request: httpx.Request) -> httpx.Response:
        raise error("boom", request=request)

    return handler


def replying(status: int, content: bytes) -> Handler:
    return lambda request: httpx.Response(status, content=content)


def failure(provider: str, handler: Handler) -> SourceError:
    generator = make_generator(provider, handler)
    with pytest.raises(SourceError) as caught:
        generator.generate(PROMPT)
    assert KEY not in str(caught.value)
    return caught.value


@pytest.mark.parametrize("provider", PROVIDERS)
def test_an_unreachable_provider_is_a_source_error_naming_it(provider: str) -> None:
    error = failure(provider, raising(httpx.ConnectError))
    assert not isinstance(error, GeneratorTimeout)
    assert f"{provider} at {BASE_URLS[provider]} could not be reached" in str(error)


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("timeout", [httpx.ConnectTimeout, httpx.ReadTimeout])
def test_a_timeout_is_a_generator_timeout(
    provider: str, timeout: type[httpx.TransportError]
) -> None:
    error = failure(provider, raising(timeout))
    assert isinstance(error, GeneratorTimeout)
    assert str(error) == f"{provider} at {BASE_URLS[provider]} did not answer within 30 s"


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_server_error_is_a_source_error_with_its_status(provider: str) -> None:
    error = failure(provider, replying(500, b"upstream overloaded"))
    assert not isinstance(error, GeneratorTimeout)
    assert (
        str(error) == f"{provider} at {BASE_URLS[provider]} answered HTTP 500: upstream overloaded"
    )


@pytest.mark.parametrize(
    ("provider", "env"), [("openai", "OPENAI_API_KEY"), ("anthropic", "ANTHROPIC_API_KEY")]
)
@pytest.mark.parametrize("status", [401, 403])
def test_a_refused_key_names_its_environment_variable(provider: str, env: str, status: int) -> None:
    error = failure(provider, replying(status, f'{{"error": "bad key {KEY}"}}'.encode()))
    assert str(error) == (
        f"{provider} at {BASE_URLS[provider]} refused the API key (HTTP {status}); check {env}"
    )


def test_a_refusal_by_ollama_names_no_key() -> None:
    error = failure("ollama", replying(403, b"forbidden"))
    assert str(error) == f"ollama at {OLLAMA_URL} refused the request (HTTP 403)"


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("content", [b"<html>502 Bad Gateway</html>", b'{"choices": []}', b"{}"])
def test_malformed_json_is_a_source_error(provider: str, content: bytes) -> None:
    error = failure(provider, replying(200, content))
    assert f"{provider} at {BASE_URLS[provider]} answered with malformed JSON" in str(error)


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_an_error_body_that_echoes_the_key_is_redacted(provider: str) -> None:
    error = failure(provider, replying(400, f"invalid request for key {KEY}".encode()))
    assert "invalid request for key ***" in str(error)


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_the_key_is_in_no_repr_or_str(provider: str) -> None:
    generator = make_generator(provider, Recorder(REPLIES[provider]))
    assert KEY not in repr(generator)
    assert KEY not in str(generator)
    assert KEY not in repr(vars(generator))


def test_echo_answers_with_the_passages_of_the_last_user_message() -> None:
    passages = "[1] Item 8\nTotal net sales | 2025: 416,161\n\n[2] Item 7\nNet sales rose 6%."
    prompt = Prompt(
        messages=(
            Message("system", "<passages>not the user's</passages>"),
            Message("user", "<passages>an earlier question</passages>"),
            Message("user", f"Passages:\n<passages>\n{passages}\n</passages>\n\nQuestion: q?"),
        ),
        refusal_token="NOANSWERBCDFGH",
    )
    generator: Generator = EchoGenerator()
    generation = generator.generate(prompt)
    assert generation.text == passages
    assert (generator.name, generation.model) == ("echo", "echo")


def test_echo_answers_a_real_prompt_with_its_passages() -> None:
    passage = PromptPassage(1, "Item 8", "Total net sales | 2025: 416,161 | (in millions)")
    prompt = build_prompt("Net sales in 2025?", [passage], "NOANSWERBCDFGH", "Apple 10-K 2025")
    assert EchoGenerator().generate(prompt).text == (
        "[1] Item 8\nTotal net sales | 2025: 416,161 | (in millions)"
    )


def test_echo_without_passages_echoes_the_whole_message() -> None:
    prompt = Prompt(messages=(Message("user", "  just a question?  "),), refusal_token="NO")
    assert EchoGenerator().generate(prompt).text == "just a question?"


def sse(*events: dict[str, Any]) -> bytes:
    """A streamed chat completion as an OpenAI-compatible server writes it."""
    lines = [f"data: {json.dumps(event)}\n\n" for event in events] + ["data: [DONE]\n\n"]
    return "".join(lines).encode()


def test_openai_streams_the_text_as_it_comes_and_reads_the_usage_last() -> None:
    pieces = ["Total net sales", " were $416,161 million", " in fiscal 2025 [1]."]
    events: list[dict[str, Any]] = [{"choices": [{"delta": {"role": "assistant"}}]}]
    events += [{"choices": [{"delta": {"content": piece}}]} for piece in pieces]
    events += [{"choices": [], "usage": {"prompt_tokens": 120, "completion_tokens": 17}}]
    requests: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        return httpx.Response(
            200, headers={"content-type": "text/event-stream"}, content=sse(*events)
        )

    generator = make_generator("openai", handler)
    assert isinstance(generator, OpenAICompatibleGenerator)
    told: list[str] = []
    generation = generator.stream(PROMPT, told.append)
    assert told == pieces
    assert generation.text == ANSWER
    assert (generation.prompt_tokens, generation.completion_tokens) == (120, 17)
    body = json.loads(requests[0].content)
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert body["max_tokens"] == 64
    assert requests[0].headers["authorization"] == f"Bearer {KEY}"


def test_a_stream_cut_before_done_or_refused_is_a_source_error() -> None:
    cut = sse({"choices": [{"delta": {"content": "Total"}}]}).removesuffix(b"data: [DONE]\n\n")
    streamed = {"content-type": "text/event-stream"}
    generator = make_generator(
        "openai", lambda request: httpx.Response(200, headers=streamed, content=cut)
    )
    assert isinstance(generator, OpenAICompatibleGenerator)
    with pytest.raises(SourceError, match=r"ended its stream before \[DONE\]"):
        generator.stream(PROMPT, lambda piece: None)
    refused = make_generator("openai", lambda request: httpx.Response(401, json={"error": KEY}))
    assert isinstance(refused, OpenAICompatibleGenerator)
    with pytest.raises(SourceError, match="refused the API key"):
        refused.stream(PROMPT, lambda piece: None)


def test_an_exception_from_the_token_sink_stops_the_stream_and_propagates() -> None:
    class Left(Exception):  # noqa: N818  (not an error: the reader left)
        pass

    closed: list[bool] = []

    class Stream(httpx.SyncByteStream):
        def __iter__(self) -> Iterator[bytes]:
            for piece in ["a", " b", " c"]:
                yield sse({"choices": [{"delta": {"content": piece}}]}).split(b"data: [DONE]")[0]
            yield b"data: [DONE]\n\n"

        def close(self) -> None:
            closed.append(True)

    generator = make_generator(
        "openai",
        lambda request: httpx.Response(
            200, headers={"content-type": "text/event-stream"}, stream=Stream()
        ),
    )
    assert isinstance(generator, OpenAICompatibleGenerator)

    def leave(piece: str) -> None:
        raise Left

    with pytest.raises(Left):
        generator.stream(PROMPT, leave)
    assert closed == [True]


def test_a_server_that_answers_whole_has_its_text_told_in_one_piece() -> None:
    """A server that ignores ``stream`` (a model process from before streaming) still answers."""
    generator = make_generator("openai", Recorder(REPLIES["openai"]))
    assert isinstance(generator, OpenAICompatibleGenerator)
    told: list[str] = []
    generation = generator.stream(PROMPT, told.append)
    assert told == [ANSWER]
    assert (generation.text, generation.prompt_tokens, generation.completion_tokens) == (
        ANSWER,
        120,
        17,
    )
