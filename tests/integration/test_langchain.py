"""thea through LangChain's own interfaces: the retriever and the chat model, both built on
``thea.Client`` against a served app (real engines, scripted model)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from langchain_core.documents import Document
from langchain_core.messages import AIMessage, AIMessageChunk

from thea import Client
from thea.errors import InputError
from thea.interfaces.langchain import TheaChatModel, TheaRetriever
from thea.runtime import Runtime
from thea.testing.service import LiveServer, local_token, service_app


@pytest.fixture
def client(runtime: Runtime) -> Iterator[Client]:
    token = local_token(runtime.settings)
    with LiveServer(service_app(runtime)) as live, Client(live.url, token) as made:
        yield made


def test_the_retriever_returns_recalled_memories_as_documents(client: Client) -> None:
    stored = client.remember("Ana maintains the billing service in Go.")
    client.remember("The office plant is a ficus.")
    docs = TheaRetriever(client=client, limit=3).invoke("who maintains billing")
    assert all(isinstance(d, Document) for d in docs)
    first = docs[0]
    assert first.page_content == "Ana maintains the billing service in Go."
    assert first.metadata["id"] == stored.id
    assert first.metadata["type"] == "DialogueTurn"
    assert first.metadata["stages"]
    assert first.metadata["score"] > 0
    assert first.metadata["time"] > 0
    with pytest.raises(InputError, match="empty"):
        TheaRetriever(client=client).invoke("   ")


def test_the_chat_model_runs_the_cycle(client: Client) -> None:
    chat = TheaChatModel(client=client, session_id="lc")
    answer = chat.invoke("Is the bike red?")
    assert isinstance(answer, AIMessage)
    assert answer.content == "Here is my answer."
    impulse = answer.response_metadata["impulse_id"]
    assert client.trace(impulse).impulse.content == "Is the bike red?"
    assert answer.usage_metadata is not None
    assert answer.usage_metadata["total_tokens"] > 0

    chunks = list(chat.stream("What colour is the bike?"))
    assert all(isinstance(c, AIMessageChunk) for c in chunks)
    assert "".join(str(c.content) for c in chunks) == "Here is my answer."
    asked = next(c.response_metadata["impulse_id"] for c in chunks if c.response_metadata.get("impulse_id"))
    recall = next(s for s in client.trace(asked).steps if s.step == "recall")
    assert recall.report is not None
    # a question is never evidence: asking again recalls what was told, not the earlier question
    assert impulse not in [hit["id"] for hit in recall.report.output["hits"]]
    assert client.whoami("lc").last_impulse_id == asked
    with pytest.raises(InputError, match="empty"):
        chat.invoke("  ")
