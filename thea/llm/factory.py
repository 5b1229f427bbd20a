"""Settings -> a LangChain chat model. The only place that picks an LLM provider."""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel

from thea.config import Settings, default_cache_dir
from thea.errors import ConfigError, NetworkLLMBlocked
from thea.llm.guard import network_llms_blocked

#: providers whose model is reached over the network (one model answers and reads)
REMOTE_PROVIDERS = frozenset({"openai", "ollama"})


def _reading_copy(settings: Settings) -> BaseChatModel | None:
    """The endpoint's model at temperature 0 for reading claims, picks and the user's words: the
    same reading every time (at the answering 0.2 one run in three read a move without the old
    home in its history); None when the answering model already runs at 0."""
    if settings.llm.temperature == 0.0:
        return None
    steady = settings.model_copy(update={"llm": settings.llm.model_copy(update={"temperature": 0.0})})
    return build_chat_model(steady)


def build_claims_model(settings: Settings, *, progress: bool = True) -> BaseChatModel | None:
    """The offline model that reads claims in the slow loop, when one other than the answering
    model is configured (``knowledge.claims_model``); with a network provider, its model at
    temperature 0; None: the answering model reads them."""
    name = settings.knowledge.claims_model
    if settings.llm.provider in REMOTE_PROVIDERS:
        return _reading_copy(settings)
    if name in ("answering", settings.llm.model) or settings.llm.provider != "local":
        return None
    from thea.llm.assets import ASSETS, ensure_local_model
    from thea.llm.local import LocalChatModel

    asset = ASSETS.get(name)
    if asset is None:
        known = ", ".join(["answering", *ASSETS])
        raise ConfigError(f"knowledge.claims_model={name!r} is not an offline model thea knows ({known})")
    cfg = settings.llm
    path = ensure_local_model(cfg.model_dir or default_cache_dir(), asset=asset, progress=progress)
    return LocalChatModel(
        model_path=str(path),
        model_name=asset.name,
        n_ctx=cfg.context_window,
        # the claims prompt, the comparison prompt and the foreground's (picks, reactions) each
        # keep their evaluated prefix
        slots=3,
        threads=cfg.threads,
        poll=cfg.poll,
        # one context: a second one for busy moments would hold its own, cold, prompt cache
        adapt_threads=False,
        temperature=0.0,
        max_tokens=cfg.max_output_tokens,
    )


def build_chat_model(settings: Settings, *, progress: bool = True) -> BaseChatModel:
    cfg = settings.llm
    if cfg.provider == "fake":
        from thea.llm.fake import StreamingFakeChatModel

        return StreamingFakeChatModel.minimal(
            token_delay_s=1.0 / cfg.fake_words_per_s if cfg.fake_words_per_s else 0.0,
        )
    if cfg.provider == "local":
        from thea.llm.assets import ensure_local_model
        from thea.llm.local import LocalChatModel

        path = ensure_local_model(cfg.model_dir or default_cache_dir(), progress=progress)
        return LocalChatModel(
            model_path=str(path),
            model_name=cfg.model,
            n_ctx=cfg.context_window,
            threads=cfg.threads,
            poll=cfg.poll,
            adapt_threads=cfg.adapt_threads,
            repeat_penalty=cfg.repeat_penalty,
            temperature=cfg.temperature,
            max_tokens=cfg.max_output_tokens,
        )
    if network_llms_blocked():
        raise NetworkLLMBlocked(
            f"llm.provider={cfg.provider} is a network model and network LLMs are blocked"
        )
    key = cfg.api_key.get_secret_value() if cfg.api_key else None
    if cfg.provider == "openai":
        try:
            from langchain_openai import ChatOpenAI

            from thea.llm.openai_chat import SchemaChatOpenAI
        except ImportError as exc:
            raise ConfigError("llm.provider=openai needs: pip install 'thea[server]'") from exc
        client = SchemaChatOpenAI if cfg.json_schema else ChatOpenAI
        return client(
            model=cfg.model,
            base_url=cfg.base_url,
            api_key=key or "not-needed",
            timeout=cfg.timeout_s,
            max_retries=1,
            temperature=cfg.temperature,
            max_completion_tokens=cfg.max_output_tokens,
            stream_usage=True,
        )
    if cfg.provider == "ollama":
        try:
            from langchain_ollama import ChatOllama
        except ImportError as exc:
            raise ConfigError("llm.provider=ollama needs: pip install 'thea[server]'") from exc
        return ChatOllama(
            model=cfg.model,
            base_url=cfg.base_url,
            temperature=cfg.temperature,
            num_predict=cfg.max_output_tokens,
            num_ctx=cfg.context_window,
        )
    raise ConfigError(f"unknown llm.provider {cfg.provider!r}")
