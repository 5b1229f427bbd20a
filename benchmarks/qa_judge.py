"""An optional LLM judge for the QA benchmark (the "J" score Mem0 and Zep report).

Runs only when a model endpoint is configured (``--judge-url`` / ``--judge-model``): an
OpenAI-compatible chat model reads the question, the gold answer and the prediction and
says CORRECT or WRONG, generously (the same date or thing in other words is correct).
Adversarial questions are not judged (as in those reports); their score stays the
refusal check of benchmarks/qa_metrics.py.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage

from benchmarks.locomo_data import Question
from benchmarks.qa_metrics import CATEGORY_ADVERSARIAL

SYSTEM = (
    "You grade answers to questions about a long conversation. You get the question, the gold "
    "answer and a generated answer. Be generous: the generated answer is CORRECT when it states the "
    "same fact, thing, person or time as the gold answer, even in other words, another date format "
    "or with more detail; it is WRONG when it misses the gold answer, contradicts it or does not "
    "answer. Reply with one word: CORRECT or WRONG."
)


def verdict(reply: str) -> float:
    """1.0 for CORRECT, 0.0 for WRONG or anything unclear."""
    words = reply.strip().upper()
    return 1.0 if "CORRECT" in words and "WRONG" not in words and "INCORRECT" not in words else 0.0


@dataclass
class Judge:
    llm: BaseChatModel
    name: str

    async def grade(self, question: Question, prediction: str) -> float | None:
        if question.category_id == CATEGORY_ADVERSARIAL:
            return None
        body = (
            f"Question: {question.question}\nGold answer: {question.answer}\nGenerated answer: {prediction}"
        )
        reply = await self.llm.ainvoke([SystemMessage(content=SYSTEM), HumanMessage(content=body)])
        return verdict(str(reply.text))


def build_judge(url: str | None, model: str | None, key_env: str) -> Judge | None:
    """A judge at an OpenAI-compatible endpoint, or None when none is configured."""
    if not url and not model:
        return None
    if not (url and model):
        raise SystemExit("an LLM judge needs both --judge-url and --judge-model")
    from langchain_openai import ChatOpenAI

    llm = ChatOpenAI(
        model=model,
        base_url=url,
        api_key=os.environ.get(key_env) or "not-needed",
        temperature=0,
        max_retries=2,
    )
    return Judge(llm=llm, name=f"{model} at {url}")
