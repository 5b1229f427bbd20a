"""Claims for tests: built as the claims keeper builds them, and scripted for the fake model.

Unit tests build claims directly (:func:`claim`); tests through the service script the fake
model's extraction (:func:`scripted_reader`): the real model reads claims in the slow suite and
the benchmarks, never by a rule of the tests'.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

import pytest

from services.knowledge.claims.keeper import SaidMessage, build_claims
from services.knowledge.claims.verify import checked_claims
from services.prompts.extract_claims import ClaimKind, ClaimOut
from thea.llm.fake import FakeCall, Handler
from thea.models import Fact, FactOrigin

USER = "user"


def said(
    quote: str,
    attribute: str,
    value: str,
    *,
    subject: str = USER,
    relation: str = "self",
    when: str = "",
    kind: ClaimKind = ClaimKind.NEW,
) -> ClaimOut:
    """One claim as the model returns it."""
    return ClaimOut(
        quote=quote,
        subject=subject,
        relation=relation,
        attribute=attribute,
        value=value,
        when=when,
        kind=kind,
    )


def claims_of(
    text: str,
    claims: Sequence[ClaimOut],
    *,
    user_id: str = "u",
    source_id: str = "m1",
    said_at: int = 1_700_000_000_000,
) -> list[Fact]:
    """The claim nodes the keeper builds for ``text`` read as ``claims`` (unsupported ones dropped)."""
    checked, _ = checked_claims(claims, text)
    message = SaidMessage(
        source_id=source_id, user_id=user_id, text=text, said_at=said_at, origin=FactOrigin.SAID
    )
    return build_claims(checked, message, "test")


def claim(
    text: str,
    attribute: str,
    value: str,
    *,
    subject: str = USER,
    relation: str = "self",
    kind: ClaimKind = ClaimKind.NEW,
    quote: str | None = None,
    source_id: str | None = None,
    said_at: int = 1_700_000_000_000,
) -> Fact:
    """One claim node told in ``text`` (its quote: the whole text unless given; its message's id
    derived from what it says unless given)."""
    facts = claims_of(
        text,
        [said(quote or text, attribute, value, subject=subject, relation=relation, kind=kind)],
        source_id=source_id or f"m-{text}-{attribute}-{value}",
        said_at=said_at,
    )
    assert facts, f"{value!r} is not in {text!r}"
    return facts[0]


def scripted_reader(script: Mapping[str, Sequence[ClaimOut]]) -> Handler:
    """A fake model's answer to the extraction prompt: the claims scripted for the message
    (found by a key the message contains), else none."""

    def answer(call: FakeCall) -> str:
        message = str(call.messages[-1].content)
        for key, claims in script.items():
            if key in message:
                return json.dumps({"claims": [c.model_dump(mode="json") for c in claims]})
        return json.dumps({"claims": []})

    return answer


# (a request for help that tells something beside it, as one sentence, the claim the model reads)
REQUESTS_THAT_TELL = [
    pytest.param(
        "Doctor says my sugar is too high so I'm type 2 diabetic now can you give me a pudding recipe "
        "that won't send it threw the roof",
        said("I'm type 2 diabetic now", "health", "type 2 diabetic"),
        id="dictated-without-a-stop",
    ),
    pytest.param(
        "suggest some dinners for me n my wife Jo, she went vegan last month",
        said("my wife Jo, she went vegan last month", "diet", "vegan", subject="Jo", relation="wife"),
        id="someone-else's-diet",
    ),
    pytest.param(
        "Help me plan my week around the night shifts I started at the bakery on Monday",
        said("the night shifts I started at the bakery", "workplace", "bakery"),
        id="a-job",
    ),
]


# (news with a request inside it, the words the model copies as asking)
REQUESTS_IN_NEWS = [
    pytest.param(
        "PASSED MY DRIVING TEST 🎉 which insurance is cheapest for new drivers, no too cost",
        "which insurance is cheapest for new drivers",
        id="inside-one-sentence",
    ),
    pytest.param(
        "Our Leo turns six on Sunday. I would like to bake him a cake. Have you a good recipe?",
        "Have you a good recipe?",
        id="have-you-a",
    ),
    pytest.param(
        "wahala o, my phone don spoil again. abeg wetin i fit do",
        "abeg wetin i fit do",
        id="pidgin",
    ),
]


def picks_line_with(words: str) -> Handler:
    """The pick's answer (pick_claims): the shown line holding ``words``, else none."""

    def answer(call: FakeCall) -> str:
        lines = str(call.messages[-1].content).splitlines()
        found = [line.split(".")[0] for line in lines if words in line and line[:1].isdigit()]
        return json.dumps({"facts": [int(found[0])] if found else []})

    return answer
