"""Which prompt a model call carries: an id per prompt.

:func:`asking` marks the calls made inside it as that prompt's (a context variable: it reaches a
model's ``_generate`` and ``_stream`` whichever thread or wrapper runs them, where LangChain's run
metadata does not reach a streamed call); a fake model answers by it, never by the prompt's
wording. :func:`prompt_config` also names the prompt in the run's metadata, for tracers.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from enum import StrEnum

from langchain_core.runnables import RunnableConfig

#: the run-metadata key carrying the prompt id (and its version) of a model call
PROMPT_KEY = "thea_prompt"
PROMPT_VERSION_KEY = "thea_prompt_version"


class PromptId(StrEnum):
    """One id per prompt in ``services/prompts/``."""

    PLANNER = "planner"
    FIRST_LOOK = "first_look"
    SYNTHESIS = "synthesis"
    DISTILL = "distill"
    CRYSTALLIZE = "crystallize"
    CRYSTALLIZE_SESSION = "crystallize_session"
    REFLECT = "reflect"
    FACT_CHECK = "fact_check"
    VERIFY_CLAIMS = "verify_claims"
    EXTRACT_CLAIMS = "extract_claims"
    SORT_CLAIMS = "sort_claims"
    SUPERSESSION = "supersession"
    PICK_CLAIMS = "pick_claims"
    REPLY = "reply"
    ANSWER_FROM_TEXT = "answer_from_text"
    ANSWER_FROM_TOLD = "answer_from_told"
    QUESTION_SCOPE = "question_scope"
    ANSWER_CHECK = "answer_check"
    SAME_SUBJECT = "same_subject"
    REVISE_CLAIMS = "revise_claims"
    VALUE_CHECK = "value_check"
    HELP_OR_RECALL = "help_or_recall"
    ASKED_BESIDE_NEWS = "asked_beside_news"
    STILL_THEIRS = "still_theirs"
    ASKED_WHEN = "asked_when"


def prompt_config(prompt: PromptId, version: str) -> RunnableConfig:
    """The run config that tells the model (and any tracer) which prompt this call is."""
    return {"metadata": {PROMPT_KEY: prompt.value, PROMPT_VERSION_KEY: version}}


_CURRENT: ContextVar[PromptId | None] = ContextVar(PROMPT_KEY, default=None)


@contextmanager
def asking(prompt: PromptId) -> Iterator[None]:
    """Model calls made inside this block (and in threads and tasks it starts) ask ``prompt``."""
    token = _CURRENT.set(prompt)
    try:
        yield
    finally:
        _CURRENT.reset(token)


def current_prompt() -> PromptId | None:
    """The prompt the model is being asked (None: a call outside :func:`asking`)."""
    return _CURRENT.get()
