"""``python -m edgar_rag.model.worker``: the local model behind an OpenAI-compatible endpoint.

It loads the GGUF file once, listens on 127.0.0.1 on a port the system picks, and only then
writes its state file, so any edgar-rag process that finds the file finds a model ready to
answer. One generation runs at a time (later requests wait their turn); ``GET /health`` answers
while one runs. Between requests llama.cpp keeps the evaluated tokens, so a prompt that starts
like the last one (the fixed preamble) is evaluated only from where it differs.

A request with ``"stream": true`` is answered as server-sent events, one per token as llama.cpp
writes it, then the usage and ``[DONE]``; a client that closes the connection stops the
generation at the next token, so the model is free for the next request.

It stops by itself after ``--idle-s`` seconds without a request, or on SIGTERM, and removes its
state file first. Its stderr is the log file its starter opened: ``faulthandler`` writes there
the cause of a native crash (``Fatal Python error: Segmentation fault``), which the starter reads
to say why the process died.

A llama.cpp build that uses AMX crashes on its first decode when weights are repacked into its
extra buffer types (RUNTIME.md), so with such a build repacking is turned off whatever was asked.
"""

from __future__ import annotations

import argparse
import faulthandler
import json
import os
import signal
import sys
import threading
import time
from collections.abc import Generator, Iterator, Sequence
from contextlib import closing
from dataclasses import replace
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from edgar_rag.model.state import (
    LOAD_FAILED,
    ModelOptions,
    WorkerState,
    log_prefix,
    read_state,
    remove_state,
    write_state,
)

if TYPE_CHECKING:
    from llama_cpp import Llama

AMX_MARK = "AMX_INT8 = 1"
_MAX_BODY = 1 << 20
_IDLE_CHECK_S = 0.5


class BadRequestError(ValueError):
    """A request the worker cannot run (HTTP 400, with this message)."""


def log(message: str) -> None:
    print(log_prefix(os.getpid()) + message, file=sys.stderr)
    sys.stderr.flush()


def load_llama(model: Path, options: ModelOptions) -> tuple[Llama, bool, str]:
    """The model loaded with ``options``; also whether weights were repacked and the build's
    system info.

    The high-level ``Llama`` does not expose ``use_extra_bufts``; it reads its defaults from
    ``llama_model_default_params``, which is wrapped for the length of the load (this process
    loads one model and nothing else).
    """
    import llama_cpp  # noqa: PLC0415  (heavy: only the worker process loads it)
    from llama_cpp import llama_cpp as native  # noqa: PLC0415

    system_info = native.llama_print_system_info().decode(errors="replace").strip()
    repack = options.repack and AMX_MARK not in system_info
    if options.repack and not repack:
        log("this llama.cpp build uses AMX: weight repacking is turned off (it crashes there)")
    defaults = native.llama_model_default_params

    def model_params() -> Any:
        params = defaults()
        params.use_extra_bufts = repack
        return params

    native.llama_model_default_params = model_params
    drafted = options.prompt_lookup
    try:
        llama = (_prompt_lookup_llama(drafted) if drafted > 0 else llama_cpp.Llama)(
            model_path=str(model),
            n_ctx=options.ctx,
            n_threads=options.threads,
            n_threads_batch=options.threads,
            seed=options.seed,
            verbose=False,
            **_prompt_lookup(options.prompt_lookup),
        )
    finally:
        native.llama_model_default_params = defaults
    return llama, repack, system_info


def _prompt_lookup(tokens: int) -> dict[str, Any]:
    """``Llama``'s arguments for prompt-lookup decoding drafting ``tokens`` a step (none: off).

    A draft model turns on logits for every token, but llama-cpp-python 0.3.36 sizes its logits
    array by the ``logits_all`` argument, not by that: without ``logits_all=True`` it holds only
    ``n_batch`` rows and a prompt longer than 512 tokens fails ("could not broadcast input
    array from shape (2279040,) into shape (0,)").
    """
    if tokens <= 0:
        return {}
    from llama_cpp.llama_speculative import LlamaPromptLookupDecoding  # noqa: PLC0415

    return {"draft_model": LlamaPromptLookupDecoding(num_pred_tokens=tokens), "logits_all": True}


def _prompt_lookup_llama(drafted: int) -> Any:
    """``Llama`` asking for every token's logits only in a batch short enough to be a sampled
    token and its ``drafted`` tokens, which are checked position by position.

    With a draft model llama-cpp-python 0.3.36 asks for them in every batch, the prompt's too:
    the output layer runs for each of its ~800 tokens and 151,936 floats a token are copied
    (about 0.5 GB), where sampling after the prompt reads only its last token's.
    """
    import llama_cpp  # noqa: PLC0415

    class PromptLookupLlama(llama_cpp.Llama):
        def eval(self, tokens: Sequence[int]) -> None:
            self._logits_all = len(tokens) <= drafted + 1
            super().eval(tokens)

    return PromptLookupLlama


def _messages(body: dict[str, Any]) -> list[dict[str, str]]:
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise BadRequestError("messages: a non-empty list is required")
    for message in messages:
        if not (
            isinstance(message, dict)
            and isinstance(message.get("role"), str)
            and isinstance(message.get("content"), str)
        ):
            raise BadRequestError("messages: each needs a string role and content")
    return cast("list[dict[str, str]]", messages)


def _request(body: dict[str, Any]) -> tuple[list[dict[str, str]], float, int]:
    """A chat completion request's messages, temperature and token limit, checked."""
    messages = _messages(body)
    temperature = _number(body, "temperature", 0.0, float)
    max_tokens = _number(body, "max_tokens", 200, int)
    if max_tokens < 1:
        raise BadRequestError("max_tokens: at least 1")
    return messages, temperature, max_tokens


def _counted(chunks: Iterator[dict[str, Any]], llama: Llama) -> Iterator[dict[str, Any]]:
    """The chunks, then one with the usage (as OpenAI's ``include_usage`` sends it).

    llama-cpp-python's stream carries no usage: each chunk of text is one token, and the prompt
    is what llama.cpp holds evaluated beyond them (the last token is evaluated only when the
    model stopped by itself, not at the token limit).
    """
    completion, finish = 0, None
    for chunk in chunks:
        choice = chunk["choices"][0] if chunk.get("choices") else {}
        completion += bool(choice.get("delta", {}).get("content"))
        finish = choice.get("finish_reason") or finish
        yield chunk
    prompt = llama.n_tokens - completion + (finish == "length")
    yield {
        "choices": [],
        "usage": {"prompt_tokens": max(prompt, 0), "completion_tokens": completion},
    }


def _number(body: dict[str, Any], name: str, default: float, kind: type[float] | type[int]) -> Any:
    value = body.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise BadRequestError(f"{name}: a number is required")
    return kind(value)


class Worker:
    """The loaded model and what ``/health`` reports of it."""

    def __init__(self, llama: Llama, state: WorkerState) -> None:
        self.llama = llama
        self.state = state
        self._lock = threading.Lock()
        self._counter = threading.Lock()
        self._active = 0
        self._requests = 0
        self._last_used = time.monotonic()

    def complete(self, body: dict[str, Any]) -> dict[str, Any]:
        messages, temperature, max_tokens = _request(body)
        self._enter()
        try:
            with self._lock:
                return self._generate(messages, temperature, max_tokens)
        finally:
            self._leave()

    def _generate(
        self, messages: list[dict[str, str]], temperature: float, max_tokens: int
    ) -> dict[str, Any]:
        from llama_cpp import llama_cpp as native  # noqa: PLC0415

        native.llama_perf_context_reset(self.llama.ctx)
        started = time.perf_counter()
        try:
            reply = self.llama.create_chat_completion(
                messages=cast("Any", messages), temperature=temperature, max_tokens=max_tokens
            )
        except (ValueError, RuntimeError) as exc:
            raise BadRequestError(str(exc)) from exc
        perf = native.llama_perf_context(self.llama.ctx)
        result = dict(cast("dict[str, Any]", reply))
        result["timings"] = {
            "seconds": round(time.perf_counter() - started, 4),
            "prompt_evaluated": perf.n_p_eval,
            "prompt_ms": round(perf.t_p_eval_ms, 2),
            "generated": perf.n_eval,
            "generate_ms": round(perf.t_eval_ms, 2),
        }
        return result

    def stream(self, body: dict[str, Any]) -> Generator[dict[str, Any], None, None]:
        """The chunks of a streamed chat completion, the last one holding the usage; the body
        is checked before this returns. Closing the iterator ends the generation there."""
        request = _request(body)
        return self._streamed(*request)

    def _streamed(
        self, messages: list[dict[str, str]], temperature: float, max_tokens: int
    ) -> Generator[dict[str, Any], None, None]:
        self._enter()
        try:
            with self._lock:
                try:
                    chunks = self.llama.create_chat_completion(
                        messages=cast("Any", messages),
                        temperature=temperature,
                        max_tokens=max_tokens,
                        stream=True,
                    )
                    pieces = cast("Generator[dict[str, Any], None, None]", chunks)
                    with closing(pieces):
                        yield from _counted(pieces, self.llama)
                except (ValueError, RuntimeError) as exc:
                    raise BadRequestError(str(exc)) from exc
        finally:
            self._leave()

    def _enter(self) -> None:
        with self._counter:
            self._active += 1
            self._requests += 1

    def _leave(self) -> None:
        with self._counter:
            self._active -= 1
            self._last_used = time.monotonic()

    def close(self) -> None:
        """Free the model once the generation under way (if any) has answered."""
        with self._lock:
            self.llama.close()

    def idle_for(self) -> float:
        """Seconds since the last request ended; 0 while one runs."""
        with self._counter:
            return 0.0 if self._active else time.monotonic() - self._last_used

    def health(self) -> dict[str, Any]:
        with self._counter:
            active, requests = self._active, self._requests
        return {
            "pid": self.state.pid,
            "model": self.state.model,
            "busy": active > 0,
            "waiting": max(active - 1, 0),
            "requests": requests,
            "idle_s": round(self.idle_for(), 1),
        }


class WorkerServer(ThreadingHTTPServer):
    # A client's idle keep-alive connection must not hold the process open on its way out;
    # the generation under way is waited for through the worker's lock instead (``close``).
    daemon_threads = True
    block_on_close = False

    def __init__(self, worker: Worker) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.worker = worker


class _Handler(BaseHTTPRequestHandler):
    server: WorkerServer
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        if self.path != "/health":
            self._reply(HTTPStatus.NOT_FOUND, {"error": {"message": f"no such path {self.path}"}})
            return
        self._reply(HTTPStatus.OK, self.server.worker.health())

    def do_POST(self) -> None:
        if self.path != "/v1/chat/completions":
            self._reply(HTTPStatus.NOT_FOUND, {"error": {"message": f"no such path {self.path}"}})
            return
        try:
            body = self._body()
            if body.get("stream") is True:
                self._stream(self.server.worker.stream(body))
            else:
                self._reply(HTTPStatus.OK, self.server.worker.complete(body))
        except BadRequestError as exc:
            self._reply(HTTPStatus.BAD_REQUEST, {"error": {"message": str(exc)}})

    def _stream(self, chunks: Generator[dict[str, Any], None, None]) -> None:
        """Server-sent events, each written as it comes; the connection closes after ``[DONE]``
        (the body has no length). A request llama.cpp refuses (a prompt longer than the
        context) fails before the first token, so it is still answered 400."""
        with closing(chunks):
            first = next(chunks, None)
            self.send_response(HTTPStatus.OK)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-store")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            try:
                for chunk in chain([first] if first is not None else [], chunks):
                    self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
                    self.wfile.flush()
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                return  # the client left: closing the chunks ends the generation
            except BadRequestError as exc:  # too late for a 400: the stream ends without [DONE]
                log(f"a streamed generation failed after it began: {exc}")

    def _body(self) -> dict[str, Any]:
        length = int(self.headers.get("Content-Length") or 0)
        if not 0 < length <= _MAX_BODY:
            raise BadRequestError(f"a JSON body of 1 to {_MAX_BODY} bytes is required")
        try:
            body = json.loads(self.rfile.read(length))
        except ValueError as exc:
            raise BadRequestError(f"the body is not JSON ({exc})") from exc
        if not isinstance(body, dict):
            raise BadRequestError("the body must be a JSON object")
        return body

    def _reply(self, status: HTTPStatus, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        """Requests are not logged: the log is for the process's life and its failures."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m edgar_rag.model.worker")
    parser.add_argument("--model", type=Path, required=True, help="the GGUF file")
    parser.add_argument("--state", type=Path, required=True, help="the state file to write")
    parser.add_argument("--threads", type=int, required=True)
    parser.add_argument("--ctx", type=int, default=4096)
    parser.add_argument("--repack", choices=["on", "off"], default="off")
    parser.add_argument("--idle-s", type=float, default=900.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--prompt-lookup", type=int, default=0, help="tokens drafted; 0: off")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    faulthandler.enable()
    options = ModelOptions(
        args.threads, args.ctx, args.repack == "on", args.idle_s, args.seed, args.prompt_lookup
    )
    log(f"loading {args.model} ({options})")
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    try:
        llama, repack, system_info = load_llama(args.model, options)
    except (ValueError, OSError) as exc:
        log(f"{LOAD_FAILED}: {exc}")
        return 3
    pid = os.getpid()
    state = WorkerState(
        pid=pid,
        port=0,
        model=str(args.model),
        options=replace(options, repack=repack),
        started_at=time.time(),
        system_info=system_info,
    )
    worker = Worker(llama, state)
    server = WorkerServer(worker)
    worker.state = state = replace(state, port=server.server_address[1])
    threading.Thread(target=server.serve_forever, name="http", daemon=True).start()
    write_state(args.state, state)
    log(f"ready on {state.url} (repack {'on' if repack else 'off'}; {system_info})")
    reason = "stopped (SIGTERM)"
    while not stop.wait(_IDLE_CHECK_S):
        if worker.idle_for() >= options.idle_s:
            reason = f"stopped: no request for {options.idle_s:g} s"
            break
        if not _owns(args.state, pid):
            # Nobody can find this process any more (its run folder was removed, or another
            # worker took its place): it would only hold memory.
            reason = f"stopped: {args.state} no longer names this process"
            break
    remove_state(args.state, pid)
    server.shutdown()
    server.server_close()
    worker.close()
    log(reason)
    return 0


def _owns(state_file: Path, pid: int) -> bool:
    state = read_state(state_file)
    return state is not None and state.pid == pid


if __name__ == "__main__":
    sys.exit(main())
