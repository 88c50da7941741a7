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
        "period",
        "minilm-onnx",
    )
    assert settings.db == Path("edgar-rag.db")


def test_the_narrative_window_is_set_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from edgar_rag.compose import answer_settings  # noqa: PLC0415

    monkeypatch.setenv("EDGAR_RAG_NARRATIVE_PASSAGES", "5")
    monkeypatch.setenv("EDGAR_RAG_NARRATIVE_PASSAGE_CHARS", "800")
    chosen = answer_settings(load_settings())
    assert (chosen.narrative_passages, chosen.narrative_passage_chars) == (5, 800)
    monkeypatch.setenv("EDGAR_RAG_NARRATIVE_PASSAGES", "0")
    with pytest.raises(ConfigError, match="EDGAR_RAG_NARRATIVE_PASSAGES"):
        load_settings()


def test_a_bad_value_names_its_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EDGAR_RAG_GATE", "sometimes")
    with pytest.raises(ConfigError, match=r"^EDGAR_RAG_GATE: "):
        load_settings()


def test_provider_keys_use_their_conventional_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-123")
    settings = load_settings()
    assert settings.openai_api_key is not None
    assert "sk-test-123" not in repr(settings)


CASES = [
    ({}, "", {}),
    ({"EDGAR_RAG_DB": "env.db"}, "", {}),
    ({"edgar_rag_db": "lower.db"}, "", {}),
    ({}, "EDGAR_RAG_DB=dotenv.db\nEDGAR_RAG_DATABASE_URL='postgresql://x/y'\n", {}),
    ({"EDGAR_RAG_DB": "env.db"}, "EDGAR_RAG_DB=dotenv.db\n", {}),
    ({"EDGAR_RAG_DB": "env.db"}, "", {"db": Path("given.db")}),
    ({"EDGAR_RAG_DATABASE_URL": "postgresql://env/db"}, "", {}),
    ({"EDGAR_RAG_DATABASE_URL": ""}, "", {}),
    ({}, "export EDGAR_RAG_DB=exported.db  # a comment\n", {"database_url": "postgresql://k/w"}),
]


@pytest.mark.parametrize(("environ", "env_file", "overrides"), CASES)
def test_the_index_is_located_where_settings_would_find_it(
    environ: dict[str, str],
    env_file: str,
    overrides: dict[str, object],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """``edgar-rag filings`` reads only the index's location, without pydantic-settings: the
    same variables, ``.env`` and precedence as Settings."""
    from edgar_rag.location import locate_index  # noqa: PLC0415

    monkeypatch.chdir(tmp_path)
    if env_file:
        (tmp_path / ".env").write_text(env_file)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    settings = load_settings(**overrides)
    located = locate_index(overrides)
    url = settings.database_url
    assert (located.db, located.database_url) == (
        settings.db,
        None if url is None else url.get_secret_value(),
    )
