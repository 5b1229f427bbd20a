"""Reply: thea's short reaction to a message that tells something or makes small talk.

A person who is told "we got a puppy last week" does not answer "Noted: we got a puppy last
week. I'll remember that."; they react ("A puppy, how lovely!"). The answering model writes
that reaction in its own words, after saying how the message feels to the user (good, bad or
neutral news: a small model that names the feeling first cheers a cancelled test less often);
code checks it (services/cycle/reply.py) and falls back to a plain acknowledgement when it
echoes the message, refuses, gives advice nobody asked for, runs on or cheers bad news.
Nothing in the reaction is ever evidence: the claims are read from the user's own words in the
slow loop.

v5: a break-up, and something the user will miss coming to an end, are named as bad news (first
contact set 28: "also darragh n i r done. like done done. …" got "That's great news!").
"""

from __future__ import annotations

from enum import StrEnum

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

PROMPT = PromptSpec(PromptId.REPLY, "5")

#: the reply's length allowance in tokens: the feeling and one or two short sentences, as JSON
MAX_TOKENS = 80


class Feeling(StrEnum):
    """How the message feels to the one who wrote it: the model says so before it reacts."""

    #: good news, a joy, a success, a greeting, thanks
    GOOD = "good"
    #: bad news, a loss, a worry, a setback, an illness, a complaint, sarcasm about a bad thing
    BAD = "bad"
    #: plain news, a fact about someone, neither good nor bad
    NEUTRAL = "neutral"


#: thea's cheerful words: a reaction to bad news never holds one
CHEERFUL = (
    "great",
    "lovely",
    "wonderful",
    "exciting",
    "amazing",
    "congratulations",
    "well done",
    "proud",
    "enjoy",
    "fun",
    "yay",
    "fantastic",
)
#: thea's words of sympathy: a reaction to bad news holds one (or a hope), one to good news none
SYMPATHETIC = ("sorry", "sad", "oh no", "oops", "take care", "rough", "tough")
#: the user's own apology ("sorry, I got that wrong ..."): a message that holds one may be felt
#: as bad news for it, and is no loss to be sorry about (closed class)
APOLOGY = ("sorry", "oops", "my bad")
#: what a reaction to bad news may hold instead of sympathy ("I hope it gets fixed soon"); good
#: news may have it too ("I hope he's settling in")
HOPEFUL = ("hope",)

SYSTEM = (
    "You are thea, a friendly assistant who remembers what the user tells you. The user's latest "
    'message tells you something or is small talk. First decide how it feels to them: "good" '
    '(good news, a joy, a success, a greeting, thanks), "bad" (bad news, a loss, a death, a '
    "break-up, something they will miss coming to an end, an illness, a setback, something "
    "cancelled or broken, a complaint, even when said with a joke or "
    'sarcasm) or "neutral" (a plain fact). Then reply like a kind friend in ONE short sentence '
    "(at most two), in your own words, speaking to the user as 'you': react to the main thing they "
    "said, named in a few words, so they can see you understood it. Do not repeat or rephrase their "
    "whole sentence, do not give advice or lists, and never say you cannot help. Say nothing they "
    "did not tell you. For good news: great news, lovely, wonderful, exciting, amazing, "
    "congratulations, well done, proud, good luck, enjoy, fun. For bad news: sorry to hear that, sad, oh no, "
    "oops, take care, hope it gets better, rough, tough. Also: sounds, hello, welcome, glad, happy, "
    "funny, nice, today, noted, named, celebration, thanks for telling me, letting me know, I'll "
    "keep that in mind and out of anything I suggest. Answer with JSON "
    '{"feeling": "good" | "bad" | "neutral", "reply": "..."}.'
)

#: worked examples, given as earlier turns (a small model follows turns better than a list)
EXAMPLES: tuple[tuple[str, Feeling, str], ...] = (
    (
        "we got a puppy last week, hes called Biscuit",
        Feeling.GOOD,
        "A puppy named Biscuit, how lovely! I hope he's settling in.",
    ),
    ("Hi there!", Feeling.GOOD, "Hi! Good to see you."),
    (
        "Started at the bakery on Monday, early shifts from now on",
        Feeling.GOOD,
        "A new job at the bakery, congratulations! Early mornings will take some getting used to.",
    ),
    ("🎉🎉", Feeling.GOOD, "What a celebration, how lovely!"),
    (
        "my knee is acting up again so no running for a while",
        Feeling.BAD,
        "Sorry about your knee; I'll keep in mind that running is off for now.",
    ),
    ("thanks so much", Feeling.GOOD, "You're welcome, happy to help!"),
    (
        "fyi I'm allergic to nuts so nothing with nuts please",
        Feeling.NEUTRAL,
        "Thanks for telling me, I'll keep nuts out of anything I suggest.",
    ),
    ("my sister Ana lives in Porto", Feeling.NEUTRAL, "Your sister Ana is in Porto, noted!"),
    (
        "the boiler broke again this morning",
        Feeling.BAD,
        "Oh no, not the boiler again! I hope it gets fixed soon.",
    ),
    ("I passed my driving test!!", Feeling.GOOD, "Wow, congratulations on passing your driving test!"),
)


#: the question back when a statement opens on a pronoun nothing earlier names (not the model's)
ASK_WHO = (
    "Who do you mean by \u201c{pronoun}\u201d? Tell me their name and I'll keep it with the right person."
)


class Reply(BaseModel):
    """How the message feels to the user, and the model's reaction (shown after the checks)."""

    feeling: Feeling
    reply: str = Field(max_length=400)


def build(text: str, name: str = "") -> list[BaseMessage]:
    """The prompt for a reaction to ``text``; ``name``: the user's name when they told it (a
    greeting may use it)."""
    system = SYSTEM
    if name:
        system += f"\n\nThe user's name is {neutralise(name)}."
    turns: list[BaseMessage] = []
    for said, feeling, reply in EXAMPLES:
        shown = Reply(feeling=feeling, reply=reply).model_dump_json()
        turns += [HumanMessage(content=said), AIMessage(content=shown)]
    return [SystemMessage(content=system), *turns, HumanMessage(content=user_turn(text))]
