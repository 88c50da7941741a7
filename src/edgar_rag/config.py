"""Settings, read once at an entry point from the environment (``EDGAR_RAG_*``) or a ``.env`` file.

Adapters never read settings themselves: ``compose.py`` turns these into plain arguments.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import Field, SecretStr, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

from edgar_rag.errors import ConfigError
from edgar_rag.location import DEFAULT_DB, ENV_FILE, ENV_PREFIX

GeneratorName = Literal["local", "openai", "anthropic", "ollama", "echo"]
TapeMode = Literal["off", "record", "replay", "replay-paced"]
GateName = Literal["none", "cosine", "period", "period+cosine"]
EmbedderName = Literal[
    "minilm-onnx",
    "minilm",
    "minilm-bf16",
    "minilm-int8",
    "minilm-int8-mixed",
    "minilm-int8-block",
    "hashing",
]


class Settings(BaseSettings):
    """Every setting edgar-rag reads, with defaults that need nothing installed by hand."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX, env_file=ENV_FILE, extra="ignore", frozen=True
    )

    db: Path = Field(DEFAULT_DB, description="the SQLite index file")
    database_url: SecretStr | None = Field(
        None, description="a PostgreSQL URL; when set, used instead of the SQLite file"
    )
    embedder: EmbedderName = Field(
        "minilm-onnx",
        description="all-MiniLM-L6-v2 through ONNX Runtime (minilm-onnx), plain "
        "sentence-transformers (minilm), the same in bfloat16 (minilm-bf16), int8 ONNX "
        "(minilm-int8), int8 with each feed-forward output projection kept fp32 "
        "(minilm-int8-mixed), int8 in blocks of 32 values (minilm-int8-block), or hashing "
        "(tests only)",
    )
    generator: GeneratorName = Field("local", description="which model writes answers")
    model_dir: Path = Field(
        Path.home() / ".cache" / "edgar-rag", description="cache of the local model and EDGAR"
    )
    model_threads: int | None = Field(
        None, ge=1, le=256, description="threads the local model runs on (default: every core)"
    )
    model_ctx: int = Field(4096, ge=512, le=32768, description="the local model's context tokens")
    model_repack: bool = Field(
        False,
        description="llama.cpp's weight repacking (extra buffer types); off by default, as "
        "measured in docs/performance.md, and always off on a build that uses AMX",
    )
    model_prompt_lookup: int = Field(
        0,
        ge=0,
        le=64,
        description="tokens the local model drafts from its prompt per step (llama.cpp's "
        "prompt-lookup speculative decoding; 0: off), measured in docs/performance.md",
    )
    model_idle_s: float = Field(
        900.0, gt=0, description="seconds the local model process waits unused before it stops"
    )
    answer_max_tokens: int | None = Field(
        None,
        ge=16,
        le=1024,
        description="tokens the model may write for an answer (default: the measured 120, "
        "docs/performance.md); an answer cut there is declined as cut short",
    )
    narrative_passages: int | None = Field(
        None,
        ge=1,
        le=20,
        description="passages given the model for a narrative question (default: the measured "
        "number, docs/narrative.md)",
    )
    narrative_passage_chars: int | None = Field(
        None,
        ge=100,
        le=4000,
        description="characters quoted from each passage for a narrative question (default: the "
        "measured one, docs/narrative.md)",
    )
    reranker: Path | None = Field(
        None, description="a local cross-encoder model folder; reranking is off when unset"
    )
    tape: Path | None = Field(None, description="a tape file of recorded generations")
    tape_mode: TapeMode = Field(
        "off",
        description="record, replay, replay-paced (each replay takes as long as its recording) "
        "or off",
    )
    gate: GateName = Field(
        "period",
        description="the relevance gate before the model: period declines a figure question "
        "for a year its filing does not report without running the model",
    )
    api_key: SecretStr | None = Field(None, description="bearer token required by the service")
    slots: int = Field(1, ge=1, le=64, description="concurrent generations in the service")
    queue: int = Field(
        4,
        ge=0,
        le=1024,
        description="questions for the model that may wait, in arrival order, for a busy "
        "generation slot in the service; past them, 503 with Retry-After",
    )
    log_questions: bool = Field(False, description="write question text into request logs")
    sec_contact: str | None = Field(
        None, description="name and e-mail sent to SEC EDGAR in the User-Agent header"
    )
    cosine_threshold: float = Field(
        0.0, description="the cosine gate's threshold (see `edgar-rag thresholds`)"
    )
    refusal_secret: SecretStr = Field(
        SecretStr("edgar-rag"),
        description="key from which each request's refusal token is drawn; set your own",
    )
    generator_timeout_s: float = Field(120.0, gt=0, description="seconds to wait for a model")
    openai_base_url: str = Field(
        "https://api.openai.com/v1", description="any OpenAI-compatible server (vLLM, llama.cpp)"
    )
    openai_model: str = Field("gpt-4o-mini", description="model name for the openai generator")
    anthropic_model: str = Field(
        "claude-sonnet-4-5", description="model name for the anthropic generator"
    )
    ollama_url: str = Field("http://127.0.0.1:11434", description="Ollama's base URL")
    ollama_model: str = Field("qwen2.5-coder:1.5b", description="model name for Ollama")
    openai_api_key: SecretStr | None = Field(
        None, validation_alias="OPENAI_API_KEY", description="OpenAI (or compatible) API key"
    )
    anthropic_api_key: SecretStr | None = Field(
        None, validation_alias="ANTHROPIC_API_KEY", description="Anthropic API key"
    )


def load_settings(**overrides: Any) -> Settings:
    """Read the settings (``overrides``, by field name, over the environment), turning a bad
    value into one line that names the variable or the keyword."""
    try:
        return Settings(**overrides)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = "_".join(str(part) for part in first["loc"])
        name = field if field in overrides else "EDGAR_RAG_" + field.upper()
        raise ConfigError(f"{name}: {first['msg']}") from exc
