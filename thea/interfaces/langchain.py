"""thea in LangChain: a retriever over thea's recall and a chat model that runs thea's cycle.

Both are clients of the service (:class:`thea.Client`): no engine or model is loaded here.

    from thea import Client
    from thea.interfaces.langchain import TheaChatModel, TheaRetriever

    docs = TheaRetriever(client=Client()).invoke("what does Ana work on?")
    answer = TheaChatModel(client=Client()).invoke("What does Ana work on?")
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun, CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage
from langchain_core.messages.ai import UsageMetadata
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, Field

from thea.api import models as m
from thea.client import Client, Done, Token
from thea.errors import InputError


def document(hit: m.MemoryHit) -> Document:
    return Document(
        page_content=hit.text,
        id=hit.id,
        metadata={"id": hit.id, "type": hit.type, "score": hit.score, "stages": hit.stages, "time": hit.time},
    )


class TheaRetriever(BaseRetriever):
    """The caller's memories that match a query, best first, as Documents (metadata: id, type,
    score, stages, time in epoch ms). No model call."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    client: Client
    limit: int = Field(8, ge=1, le=50)

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        return [document(hit) for hit in self.client.recall(query, self.limit)]


def impulse_of(messages: list[BaseMessage]) -> str:
    """The last message is the impulse and must be the human's; earlier ones are thea's own
    conversation context (kept by the service per ``session_id``), not sent again."""
    if not messages or not isinstance(messages[-1], HumanMessage):
        raise InputError("the last message must be the human's: it is what thea answers")
    return str(messages[-1].text)


def _usage(result: m.AskResult) -> UsageMetadata:
    tokens_in, tokens_out = result.usage.tokens_in, result.usage.tokens_out
    return UsageMetadata(
        input_tokens=tokens_in, output_tokens=tokens_out, total_tokens=tokens_in + tokens_out
    )


def _metadata(result: m.AskResult) -> dict[str, Any]:
    return {"impulse_id": result.impulse_id, "session_id": result.session_id, "model_name": "thea"}


class TheaChatModel(BaseChatModel):
    """Each call is one cognitive cycle of thea for the client's user. ``session_id`` keeps a
    conversation; ``response_metadata`` carries the impulse id (for ``thea trace``)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    client: Client
    session_id: str | None = None

    @property
    def _llm_type(self) -> str:
        return "thea"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        result = self.client.ask(impulse_of(messages), self.session_id)
        message = AIMessage(
            content=result.answer, response_metadata=_metadata(result), usage_metadata=_usage(result)
        )
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        for event in self.client.stream(impulse_of(messages), self.session_id):
            if isinstance(event, Token):
                if run_manager is not None:
                    run_manager.on_llm_new_token(event.text)
                yield ChatGenerationChunk(message=AIMessageChunk(content=event.text))
            elif isinstance(event, Done):
                last = AIMessageChunk(
                    content="", response_metadata=_metadata(event.result), usage_metadata=_usage(event.result)
                )
                yield ChatGenerationChunk(message=last)

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        return await asyncio.to_thread(self._generate, messages, stop)
