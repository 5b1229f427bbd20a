"""Reply: thea's short reaction to a message that tells something or makes small talk.

A person who is told "we got a puppy last week" does not answer "Noted: we got a puppy last
week. I'll remember that."; they react ("A puppy, how lovely!"). The answering model writes
that reaction in its own words; code checks it (services/cycle/reply.py) and falls back to a
plain acknowledgement when it echoes the message, refuses, gives advice nobody asked for or
runs on. Nothing in the reaction is ever evidence: the claims are read from the user's own
words in the slow loop.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from services.prompts import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    PromptId,
    PromptSpec,
    SystemMessage,
    neutralise,
)
from services.prompts.quoting import user_turn

PROMPT = PromptSpec(PromptId.REPLY, "3")

#: the reply's length allowance in tokens: one or two short sentences
MAX_TOKENS = 60

SYSTEM = (
    "You are thea, a friendly assistant who remembers what the user tells you. The user's latest "
    "message tells you something or is small talk. Reply like a kind friend in ONE short sentence "
    "(at most two), in your own words, speaking to the user as 'you': react to the main thing they "
    "said, named in a few words, so they can see you understood it. Do not repeat or rephrase their "
    "whole sentence, do not give advice or lists, and never say you cannot help. Say nothing they "
    "did not tell you. Words that fit: great news, lovely, wonderful, exciting, amazing, sounds, "
    "sorry to hear that, sad, oh no, oops, congratulations, well done, proud, good luck, hope, enjoy, "
    "take care, hello, welcome, glad, happy, fun, funny, nice, today, noted, named, celebration, "
    "thanks for telling me, letting me know, I'll keep that in mind and out of anything I suggest."
)

#: worked examples, given as earlier turns (a small model follows turns better than a list)
EXAMPLES: tuple[tuple[str, str], ...] = (
    (
        "we got a puppy last week, hes called Biscuit",
        "A puppy named Biscuit, how lovely! I hope he's settling in.",
    ),
    ("Hi there!", "Hi! Good to see you."),
    (
        "Started at the bakery on Monday, early shifts from now on",
        "A new job at the bakery, congratulations! Early mornings will take some getting used to.",
    ),
    ("🎉🎉", "What a celebration, how lovely!"),
    (
        "my knee is acting up again so no running for a while",
        "Sorry about your knee; I'll keep in mind that running is off for now.",
    ),
    ("thanks so much", "You're welcome, happy to help!"),
    (
        "fyi I'm allergic to nuts so nothing with nuts please",
        "Thanks for telling me, I'll keep nuts out of anything I suggest.",
    ),
    ("my sister Ana lives in Porto", "Your sister Ana is in Porto, noted!"),
    ("the boiler broke again this morning", "Oh no, not the boiler again! I hope it gets fixed soon."),
    ("I passed my driving test!!", "Wow, congratulations on passing your driving test!"),
)


#: the question back when a statement opens on a pronoun nothing earlier names (not the model's)
ASK_WHO = (
    "Who do you mean by \u201c{pronoun}\u201d? Tell me their name and I'll keep it with the right person."
)


class Reply(BaseModel):
    """What the model wrote, as the user will see it (after the checks)."""

    text: str = Field(max_length=400)


def build(text: str, name: str = "") -> list[BaseMessage]:
    """The prompt for a reaction to ``text``; ``name``: the user's name when they told it (a
    greeting may use it)."""
    system = SYSTEM
    if name:
        system += f"\n\nThe user's name is {neutralise(name)}."
    turns: list[BaseMessage] = []
    for said, reply in EXAMPLES:
        turns += [HumanMessage(content=said), AIMessage(content=reply)]
    return [SystemMessage(content=system), *turns, HumanMessage(content=user_turn(text))]
