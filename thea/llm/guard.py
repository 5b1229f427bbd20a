"""A switch that makes every network LLM call fail (tests must never reach one).

``block_network_llms()`` patches the request methods of LangChain's OpenAI and
Ollama chat models (when installed) to raise :class:`NetworkLLMBlocked`, and
makes :func:`thea.llm.factory.build_chat_model` refuse network providers.
The test suite turns it on for the whole session (tests/conftest.py).
"""

from __future__ import annotations

import importlib
from typing import Any

from thea.errors import NetworkLLMBlocked

_TARGETS = (
    ("langchain_openai.chat_models.base", "BaseChatOpenAI"),
    ("langchain_ollama.chat_models", "ChatOllama"),
    ("langchain_openai.embeddings.base", "OpenAIEmbeddings"),
    ("langchain_ollama.embeddings", "OllamaEmbeddings"),
)
_METHODS = (
    "_generate",
    "_agenerate",
    "_stream",
    "_astream",
    "embed_documents",
    "embed_query",
    "aembed_documents",
)
_saved: list[tuple[type, str, Any]] = []
_blocked = False


def _refuse(*_args: Any, **_kwargs: Any) -> Any:
    raise NetworkLLMBlocked("a network LLM call was attempted while network LLMs are blocked (tests)")


def block_network_llms() -> None:
    global _blocked
    if _blocked:
        return
    for module_name, class_name in _TARGETS:
        try:
            cls = getattr(importlib.import_module(module_name), class_name)
        except (ImportError, AttributeError):
            continue
        for method in _METHODS:
            if method in vars(cls):
                _saved.append((cls, method, vars(cls)[method]))
                setattr(cls, method, _refuse)
    _blocked = True


def unblock_network_llms() -> None:
    global _blocked
    while _saved:
        cls, method, original = _saved.pop()
        setattr(cls, method, original)
    _blocked = False


def network_llms_blocked() -> bool:
    return _blocked
