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
    return _said(impulse, understand(impulse.content).told)


def read_for_claims(impulse: UserImpulse) -> str:
    """What the claims model reads of a message: its statements and its requests for help (a
    request often tells something beside what it asks; read alone it gives no claim), orders to
    the assistant left out; nothing of a question, small talk or a pasted text."""
    return _said(impulse, understand(impulse.content).read_for_claims)


def _said(impulse: UserImpulse, parts: list[str]) -> str:
    """The parts of the message, orders to the assistant left out ("the correct answer about the
    cat is Garfield" tells nothing); nothing of a pasted text (a letter or timetable the user
    gave: its writer's words); a message recorded before messages were read, whole."""
    if is_pasted(impulse.content):
        return ""
    kept = [without_any_order(part)[0] for part in parts]
    if any(kept):
        return " ".join(k for k in kept if k)
    if impulse.kind is None and tells_anything(impulse.content):
        return without_any_order(impulse.content)[0]
    return ""
