"""Bodies of the OpenAI-compatible endpoint (``/v1/chat/completions``, ``/v1/models``).

Only what thea uses is modelled; the other parameters OpenAI clients send (temperature,
max_tokens, tools, ...) are accepted and ignored, so any OpenAI client or chat UI can talk to
thea. Every answer is one cognitive cycle of thea.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

#: the one model id thea lists and accepts
MODEL_ID = "thea"
#: most messages one request may carry (only the last user message is the impulse)
MAX_MESSAGES = 1000

Role = Literal["system", "developer", "user", "assistant", "tool", "function"]


class TextPart(BaseModel):
    model_config = ConfigDict(extra="ignore")

    type: str
    text: str | None = None


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="ignore")

    role: Role
    content: str | list[TextPart] | None = None

    def text(self) -> str:
        """The message's text (text parts joined; images and other parts left out)."""
        if self.content is None:
            return ""
        if isinstance(self.content, str):
            return self.content
        return "\n".join(p.text or "" for p in self.content if p.type == "text")


class StreamOptions(BaseModel):
    model_config = ConfigDict(extra="ignore")

    include_usage: bool = False


class ChatCompletionRequest(BaseModel):
    model_config = ConfigDict(extra="ignore")

    model: str = Field(MODEL_ID, max_length=200)
    messages: list[ChatMessage] = Field(min_length=1, max_length=MAX_MESSAGES)
    stream: bool = False
    stream_options: StreamOptions | None = None
    #: picks the user on a trusted local connection only (see docs/interfaces.md)
    user: str | None = Field(None, max_length=128)
    #: thea's own: the conversation (default: derived from the user and the first message)
    session_id: str | None = Field(None, min_length=1, max_length=128, pattern=r"^[A-Za-z0-9_.:@-]+$")


class CompletionUsage(BaseModel):
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class AssistantMessage(BaseModel):
    role: Literal["assistant"] = "assistant"
    content: str


class Choice(BaseModel):
    index: int = 0
    message: AssistantMessage
    finish_reason: Literal["stop"] = "stop"


class ChatCompletion(BaseModel):
    id: str
    object: Literal["chat.completion"] = "chat.completion"
    created: int
    model: str = MODEL_ID
    choices: list[Choice]
    usage: CompletionUsage
    #: thea's own fields: the cycle's impulse (open it with `thea trace <id>`) and conversation
    impulse_id: str
    session_id: str


class ModelCard(BaseModel):
    id: str = MODEL_ID
    object: Literal["model"] = "model"
    created: int
    owned_by: str = "thea"


class ModelList(BaseModel):
    object: Literal["list"] = "list"
    data: list[ModelCard]


class OpenAIErrorDetail(BaseModel):
    message: str
    type: str
    param: str | None = None
    code: str | None = None


class OpenAIError(BaseModel):
    """OpenAI's error shape: ``{"error": {"message", "type", "param", "code"}}``."""

    error: OpenAIErrorDetail


def chunk(
    completion_id: str, created: int, impulse_id: str, delta: dict[str, Any], finish: bool
) -> dict[str, Any]:
    """One ``chat.completion.chunk`` of a streamed answer."""
    return {
        "id": completion_id,
        "object": "chat.completion.chunk",
        "created": created,
        "model": MODEL_ID,
        "impulse_id": impulse_id,
        "choices": [{"index": 0, "delta": delta, "finish_reason": "stop" if finish else None}],
    }
