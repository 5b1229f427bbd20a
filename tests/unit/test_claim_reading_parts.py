"""A long message is read a part at a time, each with the words before it for whom a pronoun
means (services/knowledge/claims/keeper.py, ``ClaimReader.read``); what a part reads of the words
before it is kept too. First contact set 23: given
the sentence before it, the 1.5B read that sentence again instead of the part ("My name is
Hamish Drummond, I am sixty-seven, …" gave eight claims of "My daughter has set this up for me
…"), and the user's name, age and job were lost."""

from __future__ import annotations

import json

import pytest

from services.knowledge.claims.keeper import ClaimReader, parts_of
from services.prompts.extract_claims import BEFORE, ClaimOut
from tests.claims_support import said
from thea.llm.fake import FakeCall, FakeChatModel
from thea.llm.prompt_ids import PromptId

LEAD = BEFORE.split("{", 1)[0]

# (a message of two parts, what the words before the second part give, what the part alone gives)
MESSAGES = [
    pytest.param(
        "Good evening. My daughter has set this up for me and assures me it will not sell my details "
        "to anyone unsavoury, so let us proceed. My name is Hamish Drummond, I am sixty-seven, and I "
        "spent thirty-eight years as a railway signalman, the last twenty of them in the box at Perth.",
        [said("My daughter has set this up for me", "trust", "set up")],
        [
            said("My name is Hamish Drummond", "name", "Hamish Drummond"),
            said("I am sixty-seven", "age", "67"),
        ],
        id="a-careful-introduction",
    ),
    pytest.param(
        "heyy so this is my first time using one of these assistant things, my mate said its good for "
        "keeping track of stuff lol. anyway im priya, 31, i do the accounts for a dental practice in "
        "leicester and i live with my partner sam and two very loud cats",
        [
            said("my mate said its good for keeping track of stuff", "friend", "mate"),
            said("this is my first time using one of these assistant things", "activity", "first time"),
        ],
        [said("im priya", "name", "priya"), said("i live with my partner sam", "partner", "sam")],
        id="a-casual-introduction",
    ),
    pytest.param(
        "Bonjour! Ma fille m'a installé ça hier soir et elle dit que c'est très pratique pour tout "
        "noter. Je m'appelle Hélène Martin, j'ai soixante-dix ans et je vis à Lyon depuis 1979 avec "
        "mon chat Minou.",
        [said("Ma fille m'a installé ça hier soir", "setup", "installé")],
        [said("Je m'appelle Hélène Martin", "name", "Hélène Martin"), said("je vis à Lyon", "home", "Lyon")],
        id="in-another-language",
    ),
]


def _reader(before_gives: list[ClaimOut], alone_gives: list[ClaimOut]) -> FakeChatModel:
    """A model that, given the words before a part, reads only them; alone, reads the part."""

    def answer(call: FakeCall) -> str:
        message = str(call.messages[-1].content)
        read = before_gives if LEAD in message else alone_gives
        if LEAD not in message and not any(c.quote in message for c in alone_gives):
            read = before_gives  # the first part: its own words
        return json.dumps({"claims": [c.model_dump(mode="json") for c in read]})

    llm = FakeChatModel()
    llm.answer(PromptId.EXTRACT_CLAIMS, answer)
    return llm


@pytest.mark.parametrize(("message", "before_gives", "alone_gives"), MESSAGES)
async def test_a_part_read_as_the_words_before_it_is_read_again_alone(
    message: str, before_gives: list[ClaimOut], alone_gives: list[ClaimOut]
) -> None:
    assert len(parts_of(message)) == 2
    llm = _reader(before_gives, alone_gives)
    read = await ClaimReader(llm).read(message)
    kept = {c.claim.value for c in read.kept}
    assert {c.value for c in alone_gives} <= kept  # the user's name and the rest, kept
    # the first part's claims once, not again from the second part's reading
    values = [c.claim.value for c in read.kept]
    assert all(values.count(c.value) <= 1 for c in before_gives)
    assert len(llm.prompts_for(PromptId.EXTRACT_CLAIMS)) == 3  # two parts, one read again


@pytest.mark.parametrize(("message", "before_gives", "alone_gives"), MESSAGES)
async def test_what_a_part_reads_of_the_words_before_it_is_kept_once(
    message: str, before_gives: list[ClaimOut], alone_gives: list[ClaimOut]
) -> None:
    """A part's reading that also quotes the words before it keeps what it read anew of them:
    their own reading may have left it out (first contact set 25: "We have done it. After two
    years on the transfer list we have been given a ground-floor flat in Carntyne …", the move was
    read only beside the sentence after it, and the home stayed the old one). What both readings
    gave is kept once, and the part is not read again."""
    quote = before_gives[0].quote
    anew = said(quote, "extra", max(quote.split(), key=len))

    def answer(call: FakeCall) -> str:
        message_shown = str(call.messages[-1].content)
        read = [anew, *before_gives, *alone_gives] if LEAD in message_shown else before_gives
        return json.dumps({"claims": [c.model_dump(mode="json") for c in read]})

    llm = FakeChatModel()
    llm.answer(PromptId.EXTRACT_CLAIMS, answer)
    read = await ClaimReader(llm).read(message)
    labelled = [(c.claim.attribute, c.claim.value) for c in read.kept]
    assert {(c.attribute, c.value) for c in alone_gives} <= set(labelled)
    assert all(labelled.count((c.attribute, c.value)) == 1 for c in before_gives)
    assert "extra" in {c.claim.attribute for c in read.kept}
    assert len(llm.prompts_for(PromptId.EXTRACT_CLAIMS)) == 2
