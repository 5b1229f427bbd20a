"""A question about now answered from the user's words shows what they said since that answers
it too (live, before the slow loop had read it: "what does dev do for work these days?" ->
"Paramedic", copied from the first message, with "Dev's leaving the ambulance service, he starts
retraining as a nurse in March" shown to the model above it)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

import pytest

from services.prompts.extract_claims import ClaimKind, ClaimOut
from tests.claims_support import said, scripted_reader
from thea.llm.fake import FakeCall, FakeChatModel, plain_text
from thea.llm.prompt_ids import PromptId
from thea.runtime import Runtime

USER = "mara"

# (what was told first; the words the reader copies from it; its answer; what was said since;
# the question about now; something else said since that shares none of its words)
CASES = [
    pytest.param(
        "my husband Dev is a paramedic",
        "my husband Dev is a paramedic",
        "paramedic",
        "Dev's leaving the ambulance service, he starts retraining as a nurse in March",
        "what does dev do for work these days?",
        "Pepper had a tooth out yesterday, poor thing",
        id="job",
    ),
    pytest.param(
        "our vet is Dr Hale in Kendal",
        "our vet is Dr Hale in Kendal",
        "Dr Hale",
        "we switched vets, Pickle sees Dr Osei at Riverside now",
        "who is our vet now?",
        "the boiler broke again this morning",
        id="vet",
    ),
    pytest.param(
        "dentist on the 9th of January at 4pm",
        "dentist on the 9th of January at 4pm",
        "the 9th of January",
        "the dentist rang, they moved me to the 16th, same time",
        "when's my dentist appointment now?",
        "got the deputy head job at Hillcrest!!!",
        id="date",
    ),
]


def _check(newer: str, says: bool) -> Callable[[FakeCall], str]:
    """The answer check: the newer line answers (``says``), any other line does."""

    def answer(call: FakeCall) -> str:
        line = plain_text(call.messages[-1:])
        verdict = "answers" if says or newer not in line else "does not answer"
        return json.dumps({"asked": "", "answer": "", "verdict": verdict})

    return answer


async def _told_then_changed(
    runtime: Runtime, llm: FakeChatModel, told: str, copied: str, answer: str, since: str, other: str
) -> None:
    """The first message read into a claim, then the change and something else said, not read
    yet; questions after it are about the user's own life."""
    llm.answer(PromptId.EXTRACT_CLAIMS, scripted_reader({told: [said(copied, "detail", answer)]}))
    await runtime.orchestrator.handle_impulse(told, USER, "s1")
    await asyncio.to_thread(runtime.run_jobs)  # the first message is read ...
    await runtime.orchestrator.handle_impulse(since, USER, "s2")  # ... the change is not yet
    await runtime.orchestrator.handle_impulse(other, USER, "s2")
    llm.answer(PromptId.QUESTION_SCOPE, json.dumps({"about": "the user's own", "known": "you"}))


@pytest.mark.parametrize(("told", "copied", "answer", "since", "question", "other"), CASES)
async def test_an_answer_from_the_users_words_shows_what_they_said_since_that_answers_it(
    runtime: Runtime,
    llm: FakeChatModel,
    told: str,
    copied: str,
    answer: str,
    since: str,
    question: str,
    other: str,
) -> None:
    await _told_then_changed(runtime, llm, told, copied, answer, since, other)
    llm.answer(PromptId.ANSWER_FROM_TOLD, json.dumps({"about": "me", "quotes": [copied], "answer": answer}))
    llm.answer(PromptId.ANSWER_CHECK, _check(since, says=True))
    got = (await runtime.orchestrator.handle_impulse(question, USER, "s3")).answer
    assert copied in got, got  # what the model copied, dated ...
    assert "Since then you said" in got, got
    assert since in got, got  # ... and the change, in the user's words
    assert got.index(copied) < got.index(since)
    assert other not in got, got  # nothing said since about anything else

    # the claims model reads the newer words as no answer to it: only the copied words
    llm.answer(PromptId.ANSWER_CHECK, _check(since, says=False))
    plain = (await runtime.orchestrator.handle_impulse(question, USER, "s4")).answer
    assert copied in plain, plain
    assert since not in plain, plain


NEWER_ANSWERS = {"job": "retraining as a nurse", "vet": "Dr Osei", "date": "the 16th"}


def _copies(told: str, copied: str, answer: str, since: str, newer: str) -> Callable[[FakeCall], str]:
    """The model answering from the user's words: it copies the first words when they are shown
    (as the 1.5B did, with the change beside them), the change when it is shown alone."""

    def read(call: FakeCall) -> str:
        shown = plain_text(call.messages[-1:])
        if told in shown:
            return json.dumps({"about": "me", "quotes": [copied], "answer": answer})
        return json.dumps({"about": "me", "quotes": [since], "answer": newer})

    return read


@pytest.mark.parametrize(("told", "copied", "answer", "since", "question", "other"), CASES)
async def test_when_what_they_said_since_answers_on_its_own_it_is_the_answer(
    runtime: Runtime,
    llm: FakeChatModel,
    told: str,
    copied: str,
    answer: str,
    since: str,
    question: str,
    other: str,
    request: pytest.FixtureRequest,
) -> None:
    """First contact set 16: "Where is Divya going to teach after we shift?" -> "Edappally" (the
    first message), with "Divya got teaching job in a school in Whitefield" only shown after it.
    The lines said since that answer are read alone; what the model copies from them, checked,
    is the answer about now, and the older value is not said as true now."""
    newer = NEWER_ANSWERS[request.node.callspec.id]
    await _told_then_changed(runtime, llm, told, copied, answer, since, other)
    llm.answer(PromptId.ANSWER_FROM_TOLD, _copies(told, copied, answer, since, newer))
    llm.answer(PromptId.ANSWER_CHECK, _check(since, says=True))
    got = (await runtime.orchestrator.handle_impulse(question, USER, "s3")).answer
    assert got.startswith(newer[0].upper() + newer[1:]), got  # the newest words' answer ...
    assert since in got, got  # ... quoted, dated
    assert copied not in got, got
    assert "Since then" not in got, got

    # the newer words, read again, do not answer it: the first answer, then what was said since
    llm.answer(PromptId.ANSWER_CHECK, _check(since, says=False))
    plain = (await runtime.orchestrator.handle_impulse(question, USER, "s4")).answer
    assert copied in plain, plain
    assert since not in plain, plain


# (what was told first; the words copied from it; its answer; the change said since, in none of
# the question's words; the question about now, in other words than both; the change's answer;
# something said since that shares one word of the first message only)
OTHER_WORDS = [
    pytest.param(
        "my leaving do is at the Crown in Ealing on Friday 6 March",
        "my leaving do is at the Crown in Ealing on Friday 6 March",
        "Friday 6 March",
        "the Crown cancelled on us, so the leaving do moved to the Anchor in Ealing, Friday 13 March",
        "when's my farewell get-together now?",
        "Friday 13 March",
        "the Anchor's quiz night is brilliant by the way",
        id="moved-party",
    ),
    pytest.param(
        "renting a flat in Armley with my mate Tom, he's a chef",
        "renting a flat in Armley",
        "Armley",
        "Tom and I gave up the Armley flat, I'm in Headingley now",
        "which part of Leeds do I call home at the moment?",
        "Headingley",
        "Tom made a curry last night, amazing",
        id="moved-home",
    ),
    pytest.param(
        "Nana's 90th is at the Grand Hotel in Brighton on 2 May",
        "Nana's 90th is at the Grand Hotel in Brighton on 2 May",
        "2 May",
        "the Grand Hotel lost our booking so Nana's 90th is on 9 May now, still in Brighton",
        "what day is my big family celebration now?",
        "9 May",
        "Brighton was freezing today",
        id="moved-birthday",
    ),
]


@pytest.mark.parametrize(("told", "copied", "answer", "since", "question", "newer", "other"), OTHER_WORDS)
async def test_a_change_said_in_other_words_than_the_question_is_read_when_it_speaks_of_the_same_thing(
    runtime: Runtime,
    llm: FakeChatModel,
    told: str,
    copied: str,
    answer: str,
    since: str,
    question: str,
    newer: str,
    other: str,
) -> None:
    """First contact, set 24: "When is Dad's birthday get-together at the sugar shack happening
    now?" -> the party's first day, copied, with "Change of plans for papa's fête: … Saturday
    April 18 now, same cabane" shown above it, in no word of the question, so never read. A line
    said since that shares the names, places and days of the words copied is read as a change
    (the model says whether it answers); one sharing a single word is not."""
    await _told_then_changed(runtime, llm, told, copied, answer, since, other)
    llm.answer(PromptId.ANSWER_FROM_TOLD, _copies(told, copied, answer, since, newer))
    llm.answer(PromptId.ANSWER_CHECK, _check(since, says=True))
    got = (await runtime.orchestrator.handle_impulse(question, USER, "s3")).answer
    assert got.startswith(newer[0].upper() + newer[1:]), got  # what they said last ...
    assert since in got, got  # ... quoted, dated
    assert copied not in got, got
    assert other not in got, got


# (what was told first, read into a claim; its label and value; the change, read as replacing
# it; its value; the question about now; the old value the model copies)
REPLACED = [
    pytest.param(
        "Good news at last, my hip operation is on Monday the 9th of March.",
        "appointment",
        "Monday the 9th of March",
        "The surgeon is ill, so they have put me back three weeks, to Monday the 30th of March.",
        "Monday the 30th of March",
        "What date has the hospital given me for my new hip now?",
        id="date",
    ),
    pytest.param(
        "We stay in a top-floor flat in Dennistoun, just off Duke Street.",
        "home",
        "Dennistoun",
        "We got the keys to the ground-floor flat in Carntyne, no more stairs!",
        "Carntyne",
        "Which area of Glasgow do we live in now?",
        id="home",
    ),
    pytest.param(
        "part time ko: crew sa milk tea shop sa españa",
        "job",
        "crew sa milk tea shop",
        "so online english tutor na ko now, japanese kids",
        "online english tutor",
        "What do I do for extra income these days?",
        id="job",
    ),
]


@pytest.mark.parametrize(("told", "label", "old", "change", "new", "question"), REPLACED)
async def test_an_answer_copied_from_words_replaced_since_is_the_answer_of_what_replaced_them(
    runtime: Runtime,
    llm: FakeChatModel,
    told: str,
    label: str,
    old: str,
    change: str,
    new: str,
    question: str,
) -> None:
    """First contact, set 25: "What date has the hospital given me for my new hip now?" -> "I
    don't know": the words reader copied "the 9th of March", whose claim the move to the 30th had
    replaced, and a question about now is never answered by words replaced since. The lines
    holding the claims that replaced them (the record's links) are read alone: what the model
    copies from them is the answer."""
    script = {told: [said(told, label, old)], change: [said(change, label, new, kind=ClaimKind.REPLACES)]}
    llm.answer(PromptId.EXTRACT_CLAIMS, scripted_reader(script))
    for text in script:
        await runtime.orchestrator.handle_impulse(text, USER, "s1")
        await asyncio.to_thread(runtime.run_jobs)
    held = runtime.memory.facts.facts_of_record(USER, current_only=True, limit=20)
    assert [f.value for f in held if f.attribute == label] == [new]  # the record holds the change

    def read(call: FakeCall) -> str:  # the 1.5B copied the old words when both were shown
        shown = plain_text(call.messages[-1:])
        if told in shown:
            return json.dumps({"about": "me", "quotes": [old], "answer": old})
        return json.dumps({"about": "me", "quotes": [new], "answer": new})

    llm.answer(PromptId.ANSWER_FROM_TOLD, read)
    llm.answer(PromptId.ANSWER_CHECK, json.dumps({"asked": "", "answer": "", "verdict": "answers"}))
    got = (await runtime.orchestrator.handle_impulse(question, USER, "s2")).answer
    assert got.casefold().startswith(new.casefold()), got
    assert change in got, got  # the user's words, dated
    assert old not in got, got


# (what was told first, read into a claim; its answer; a change told in two sentences, the first
# naming what changed, the second giving the new value; the question about now; the change's
# answer; the claim the second sentence was read into, of something else)
TWO_SENTENCES = [
    pytest.param(
        "my cousin obinna's trad wedding is in enugu on saturday 6 december",
        "saturday 6 december",
        "obinna wedding don shift o.",
        "the bride papa dey hospital so dem push am 2 wks, now na sat dec 20.",
        "When is my cousin's traditional marriage holding now?",
        "sat dec 20",
        said("the bride papa dey hospital", "health", "hospital", subject="bride papa", relation="friend"),
        id="pidgin-wedding",
    ),
    pytest.param(
        "Maya's piano recital is at St John's on the 3rd of May",
        "the 3rd of May",
        "Maya's recital at St John's got moved.",
        "The organist is away, so it is on the 7th of June instead.",
        "when does my daughter play her concert now?",
        "the 7th of June",
        said("The organist is away", "status", "away", subject="organist", relation="friend"),
        id="careful-recital",
    ),
    pytest.param(
        "our Lisbon trip with Colleen is on the 9th of September",
        "the 9th of September",
        "Colleen and I changed the Lisbon trip.",
        "Her passport expired, so we fly on the 23rd of September now.",
        "when do we go away now?",
        "the 23rd of September",
        said("Her passport expired", "passport", "expired", subject="Colleen", relation="friend"),
        id="trip",
    ),
]


@pytest.mark.parametrize(("told", "answer", "changed", "detail", "question", "newer", "read"), TWO_SENTENCES)
async def test_a_change_whose_new_value_is_in_the_sentence_after_it_is_read_with_it(
    runtime: Runtime,
    llm: FakeChatModel,
    told: str,
    answer: str,
    changed: str,
    detail: str,
    question: str,
    newer: str,
    read: ClaimOut,
) -> None:
    """First contact, set 26: "When is my cousin's traditional marriage holding now?" -> "Enugu
    sat dec 6 … Since then you said: “obinna wedding don shift o.”": the sentence naming the
    wedding was read as a change and held no date; the next one ("… now na sat dec 20."), read
    into a claim of the bride's father, shares no word of the first message and was never read.
    A line said since is read after the sentence before it in its message."""
    llm.answer(
        PromptId.EXTRACT_CLAIMS,
        scripted_reader(
            {
                told: [said(told, "event", answer)],
                detail: [read],
            }
        ),
    )
    await runtime.orchestrator.handle_impulse(told, USER, "s1")
    await runtime.orchestrator.handle_impulse(f"{changed} {detail}", USER, "s2")
    await asyncio.to_thread(runtime.run_jobs)  # both read: the change's second sentence holds a claim
    llm.answer(PromptId.QUESTION_SCOPE, json.dumps({"about": "the user's own", "known": "you"}))

    def copies(call: FakeCall) -> str:
        """The 1.5B: the first words when shown; the new value only when the line holding it is
        shown after the sentence naming what changed (alone, "now na sat dec 20" is no wedding)."""
        shown = plain_text(call.messages[-1:])
        if told in shown:
            return json.dumps({"about": "me", "quotes": [told], "answer": answer})
        if f"{changed} {detail}" in shown:
            return json.dumps({"about": "me", "quotes": [detail], "answer": newer})
        return json.dumps({"about": "me", "quotes": [], "answer": ""})

    def check(call: FakeCall) -> str:  # the lines holding a value answer; "… don shift o." does not
        line = plain_text(call.messages[-1:])
        says = detail in line or told in line
        return json.dumps({"asked": "", "answer": "", "verdict": "answers" if says else "does not answer"})

    llm.answer(PromptId.ANSWER_FROM_TOLD, copies)
    llm.answer(PromptId.ANSWER_CHECK, check)
    got = (await runtime.orchestrator.handle_impulse(question, USER, "s3")).answer
    assert got.startswith(newer[0].upper() + newer[1:]), got  # the new value ...
    assert detail in got, got  # ... quoted, dated
    assert answer not in got, got
