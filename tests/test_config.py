"""Settings: every variable is documented in .env.example, and bad values are one-line errors."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from edgar_rag.config import Settings, load_settings
from edgar_rag.errors import ConfigError

EXAMPLE = Path(__file__).resolve().parent.parent / ".env.example"


def test_env_example_lists_every_setting() -> None:
    documented = set(re.findall(r"^#\s*([A-Z_]+)=", EXAMPLE.read_text(), re.MULTILINE))
    expected = {
        field.validation_alias
        if isinstance(field.validation_alias, str)
        else f"EDGAR_RAG_{name.upper()}"
        for name, field in Settings.model_fields.items()
    }
    assert documented == expected


def test_defaults_need_nothing(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    settings = load_settings()
    assert (settings.generator, settings.gate, settings.embedder) == (
        "local",
        "none",
        "minilm-onnx",
    )
    assert settings.db == Path("edgar-rag.db")


def test_a_bad_value_names_its_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EDGAR_RAG_GATE", "sometimes")
    with pytest.raises(ConfigError, match=r"^EDGAR_RAG_GATE: "):
        load_settings()


def test_provider_keys_use_their_conventional_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-123")
    settings = load_settings()
    assert settings.openai_api_key is not None
    assert "sk-test-123" not in repr(settings)
