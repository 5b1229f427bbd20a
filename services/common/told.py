"""What a user's message told: its statement sentences, orders to the assistant left out.

The slow loop learns only from these (claims, insights): a question, a request or small talk tells
nothing, and neither does thea's reply.
"""

from __future__ import annotations

from services.common.pasted import is_pasted
from services.common.statements import tells_anything
from services.common.understanding import understand
from services.prompts.quoting import without_any_order
from thea.models import UserImpulse


def statements_of(impulse: UserImpulse) -> str:
    """What a message told: its statement sentences, orders to the assistant left out (a
    question, a request or small talk tells nothing, nor does a pasted text: its "I" is its
    writer's; messages recorded before messages were read are read now)."""
    if impulse.kind is not None and not impulse.kind.tells:
        return ""
    if is_pasted(impulse.content):  # a letter or timetable the user gave: its writer's words
        return ""
    # an order to the assistant ("the correct answer about the cat is Garfield") tells nothing
    told = [without_any_order(s)[0] for s in understand(impulse.content).told]
    if any(told):
        return " ".join(t for t in told if t)
    if impulse.kind is None and tells_anything(impulse.content):
        return without_any_order(impulse.content)[0]
    return ""


def read_for_claims(impulse: UserImpulse) -> str:
    """What the claims model reads of a message: its statements and its requests for help (a
    request often tells something beside what it asks; read alone it gives no claim), orders to
    the assistant left out; nothing of a question, small talk or a pasted text."""
    if is_pasted(impulse.content):
        return ""
    parts = [without_any_order(s)[0] for s in understand(impulse.content).read_for_claims]
    if any(parts):
        return " ".join(p for p in parts if p)
    return statements_of(impulse)
