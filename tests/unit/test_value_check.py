"""What the value check's answer bears out (services/knowledge/claims/value_check.py)."""

from __future__ import annotations

import json

import pytest

from services.knowledge.claims.keeper import ClaimReader
from services.knowledge.claims.value_check import answers_its_label, backs
from services.prompts import value_check
from services.prompts.extract_claims import ClaimKind, ClaimOut
from tests.claims_support import scripted_reader
from thea.llm.fake import FakeCall, FakeChatModel
from thea.llm.prompt_ids import PromptId


@pytest.mark.parametrize(
    ("answer", "value"),
    [
        ("bungalow in Sutton Coldfield", "Sutton Coldfield"),
        ("21st", "the 21st"),
        ("don't drink coffee anymore", "no coffee"),
        ("skoda octavia", "Skoda Octavia"),
        ("540", "540"),
        ("Keisha is now 9 years old.", "nine"),  # a number in digits or in words
        ("10", "ten"),
        ("fifty-eight", "58"),
        ("", "anything"),  # no verdict: kept, as a failed call
        ("physiotherapist", "physio"),  # a shortened form (live: the job was lost)
    ],
)
def test_a_short_answer_sharing_a_word_of_the_value_bears_it_out(answer: str, value: str) -> None:
    assert backs(answer, value)


@pytest.mark.parametrize(
    ("answer", "value", "attribute"),
    [
        ("diabetic", "type 1", "diabetes"),  # live: "I'm type 1 diabetic" had lost its claim
        ("allergy", "peanuts", "allergy"),
        ("her school", "Park Primary", "school"),
    ],
)
def test_an_answer_that_only_names_the_label_is_no_verdict(answer: str, value: str, attribute: str) -> None:
    assert backs(answer, value, attribute)
    assert not backs(f"{answer} Leeds", value, attribute)  # a word beyond the label is a value


@pytest.mark.parametrize(
    ("answer", "value"),
    [
        ("bungalow", "boxes will take us weeks"),
        ("not said", "silly mistake"),
        ("hospital pharmacy", "notice"),
        ("9", "ten"),
        ("bus", "business"),  # too short to be a shortened form
        ("hospital", "workplace: notice"),
        # a sentence about the message is no answer, whatever words it shares
        (
            "The user's health is better now, they got the keys and the sunny spot by the back door",
            "sunny spot by the back door",
        ),
    ],
)
def test_another_value_a_sentence_or_not_said_does_not(answer: str, value: str) -> None:
    assert not backs(answer, value)


@pytest.mark.parametrize(
    ("answer", "value", "attribute"),
    [
        ("The user's dentist appointment is on January 9th at 4 PM.", "the 9th of January at 4pm",
         "dentist appointment"),
        ("Keisha's school is Park Primary in Leeds from next September.", "Park Primary", "school"),
        ("The user's workplace now is the hospital pharmacy on Mill Road.", "hospital pharmacy", "workplace"),
    ],
)  # fmt: skip
def test_a_sentence_of_the_label_and_the_value_bears_it_out(answer: str, value: str, attribute: str) -> None:
    """Live trial: "dentist on the 9th of January at 4pm" lost its claim: asked for the user's
    dentist appointment, the model answered in a sentence naming it and the value."""
    assert backs(answer, value, attribute)
    assert not backs(answer, "the 3rd of March", attribute)  # another value
    assert not backs(answer.replace(attribute.split()[0], "holiday"), value, attribute)  # not the label's


def test_the_question_names_the_label_and_whose_it_is_never_the_value() -> None:
    asked = value_check.question("Keisha", "granddaughter", False, "age")
    assert asked == "By this message, what is Keisha's age now? (the user's granddaughter)"
    assert value_check.question("user", "self", True, "workplace") == (
        "By this message, what is the user's workplace now?"
    )


@pytest.mark.parametrize(
    ("answer", "value"),
    [
        (
            "cataract surgery on the left eye at the Hospital Regional de Salto on Tuesday 22 April at nine",
            "cataract surgery",
        ),
        ("a two-bed flat on Mill Road, above the bakery, with a tiny garden at the back", "two-bed flat"),
        ("The Red Lion in Harrogate, where she has been head chef since the spring of last year", "Red Lion"),
    ],
)
def test_a_long_answer_that_leads_with_the_value_bears_it_out(answer: str, value: str) -> None:
    """First contact, set 17: the appointment told with its eye, hospital, day and hour was lost,
    the check answered all of it in one long answer that began with the value."""
    assert backs(answer, value)
    assert not backs(answer, "hip replacement")
    assert not backs(f"The user said {answer}", value)  # a sentence about the message


async def _kept_when_answered(answer: str, message: str, quote: str, attribute: str, value: str) -> bool:
    """Whether the user's new claim is kept when the check answers ``answer`` of the message."""
    llm = FakeChatModel()
    llm.answer(PromptId.VALUE_CHECK, json.dumps({"answer": answer}))
    claim = ClaimOut(
        quote=quote, subject="user", relation="self", attribute=attribute, value=value, when="",
        kind=ClaimKind.NEW,
    )  # fmt: skip
    got, _ = await answers_its_label(llm, claim, True, message, 30.0)
    return got


@pytest.mark.parametrize(
    ("message", "quote", "attribute", "value", "answer", "kept"),
    [
        # first contact set 17: the check wrote its own word for the diet, and the diet was lost
        ("oh n im lactose intolerant so no milk/cheese stuff pls lol", "im lactose intolerant",
         "diet", "lactose intolerant", "dairy-free", True),
        ("I'm coeliac, so bread is out for me", "I'm coeliac", "health", "coeliac", "gluten-free diet", True),
        ("no nuts for me, I carry an epipen", "no nuts for me", "allergy", "nuts", "tree nut allergy", True),
        # the other side of the same constraint, copied from the clause the claim quotes (first
        # contact set 21: "lactose intolerant" was lost)
        ("btw im lactose intolerant so no milk cheese ice cream for me 😭 milk tea is my weakness tho",
         "im lactose intolerant", "diet", "lactose intolerant", "no milk cheese ice cream", True),
        ("I'm coeliac so no bread or pasta for me, sadly", "I'm coeliac", "health", "coeliac",
         "no bread or pasta", True),
        ("my doctor put me on a low salt diet because of my blood pressure", "because of my blood pressure",
         "health", "blood pressure", "low salt diet", True),
        # a constraint the message names otherwise, copied: the check stands
        ("I'm vegan now, and I walk to work", "I walk to work", "diet", "walk to work", "vegan", False),
        # the check saying the message does not say it, in its own words: the claim goes
        ("the 4am starts are killing me lol", "the 4am starts are killing me", "health",
         "4am starts are killing me", "not said", False),
        ("ugh my back", "ugh my back", "health", "back", "none mentioned", False),
        # not a constraint: an answer in the check's own words still says another value
        ("we moved into the bungalow, boxes will take us weeks", "boxes will take us weeks",
         "workplace", "boxes will take us weeks", "a warehouse", False),
    ],
)  # fmt: skip
async def test_a_constraint_is_not_lost_to_a_check_answer_in_its_own_words(
    message: str, quote: str, attribute: str, value: str, answer: str, kept: bool
) -> None:
    assert await _kept_when_answered(answer, message, quote, attribute, value) is kept


@pytest.mark.parametrize(
    ("message", "attribute", "value", "answer", "kept"),
    [
        # first contact set 25: the home, told in a long clause, was lost
        ("My wife Isobel and I stay in a top-floor tenement flat in Dennistoun, just off Duke Street.",
         "home", "Dennistoun", "top-floor tenement flat in Dennistoun, just off Duke Street", True),
        ("part time ko: crew sa milk tea shop sa españa, 'tea-rrific' ang name lol", "job", "crew",
         "part time ko: crew sa milk tea shop sa españa", True),
        ("Since March I've been doing nights as a porter at the Royal Infirmary, mostly weekends.",
         "workplace", "Royal Infirmary", "doing nights as a porter at the Royal Infirmary, mostly weekends",
         True),
        # the clause copied does not hold the value's words in order: another value
        ("My wife Isobel and I stay in a top-floor tenement flat in Dennistoun, just off Duke Street.",
         "home", "Duke Street Dennistoun", "top-floor tenement flat in Dennistoun, just off Duke Street",
         False),
        # not the message's words: a sentence of the check's own
        ("My wife Isobel and I stay in a top-floor tenement flat in Dennistoun, just off Duke Street.",
         "home", "Dennistoun", "The user and his wife are said to be living in a flat in Dennistoun now",
         False),
        # the whole message copied back, longer than an answer
        ("update!! aalis na ko sa dorm next month, lilipat ako sa unit ng cousin ko si ate rhea sa sta. ana",
         "event", "dorm",
         "update!! aalis na ko sa dorm next month, lilipat ako sa unit ng cousin ko si ate rhea sa sta. ana",
         False),
    ],
)  # fmt: skip
async def test_a_clause_of_the_message_holding_the_value_bears_it_out(
    message: str, attribute: str, value: str, answer: str, kept: bool
) -> None:
    """First contact, set 25: asked for the user's home, the check copied the clause that says it
    ("top-floor tenement flat in Dennistoun, just off Duke Street"), longer than an answer, and
    the home was lost. A short run of the message's words holding the value whole is an answer."""
    assert await _kept_when_answered(answer, message, message, attribute, value) is kept


@pytest.mark.parametrize(
    ("answer", "value"),
    [
        (
            "Colleen and I are now leaving on the 23rd of September rather than the 9th, which suits us.",
            "the 23rd of September",
        ),
        (
            "The appointment was moved by the surgery and it is now on 14 March at ten in the morning.",
            "14 March",
        ),
        (
            "My sister says the wedding will now be held on Saturday 3 May 2027 at the old mill in town.",
            "3 May 2027",
        ),
    ],
)
def test_a_long_answer_that_says_the_day_the_value_is_bears_it_out(answer: str, value: str) -> None:
    """First contact, set 20: the trip moved to the 23rd of September was lost, the check
    answering in a sentence that said the day (the old day stayed current)."""
    assert backs(answer, value)
    assert not backs(answer, "the 2nd of June")  # a day it does not say
    assert not backs(answer, "mill pond")  # words it holds that are no day: a sentence, no answer


_TOURS = (
    "I have also finally closed the ledger at Pruitt's after eleven years, and the maritime museum "
    "downtown has taken me on part-time to lead tours, mostly telling schoolchildren about old ships."
)


@pytest.mark.parametrize(
    ("message", "quote", "attribute", "value", "kind", "answer", "users"),
    [
        # first contact, set 20: the new job was dropped as words the user never wrote
        (_TOURS, "the maritime museum downtown has taken me on part-time to lead tours", "job",
         "tour guide", ClaimKind.REPLACES, "tour guide", "tours"),
        ("We finally got the keys to the flat above the bakery on Mill Lane last Friday.",
         "We finally got the keys to the flat above the bakery on Mill Lane", "home", "new apartment",
         ClaimKind.REPLACES, "The user's home is now above the bakery on Mill Lane.",
         "above the bakery on Mill Lane"),
        ("my doc says i'm borderline diabetic so cutting right back on sweets",
         "my doc says i'm borderline diabetic", "health", "prediabetes", ClaimKind.NEW,
         "The user's health is borderline diabetic, and they are cutting back on sweets.",
         "borderline diabetic"),
        ("so i quit the call centre lol, doing deliveries on my bike for uber eats now",
         "doing deliveries on my bike for uber eats now", "job", "delivery driver", ClaimKind.NEW,
         "delivery driver", "deliveries"),
    ],
)  # fmt: skip
async def test_a_value_in_the_models_own_words_is_kept_in_the_users(
    message: str, quote: str, attribute: str, value: str, kind: ClaimKind, answer: str, users: str
) -> None:
    """A claim whose quote is the user's but whose value is the model's own word ("tour guide" of
    "lead tours") is no memory as it stands; asked for the claim's label, the model's answer names
    the user's words, and those are the value. An answer in none of the user's words, or one that
    says the message does not say it, leaves the claim dropped."""
    claim = ClaimOut(
        quote=quote, subject="user", relation="self", attribute=attribute, value=value, when="", kind=kind
    )
    # (a health claim the check answers in none of the user's words is kept as they said it: below)
    unanswered = [quote] if attribute == "health" else []
    for said_back, kept in ((answer, [users]), ("a warehouse", unanswered), ("not said", [])):
        llm = FakeChatModel()
        llm.answer(PromptId.EXTRACT_CLAIMS, scripted_reader({message: [claim]}))
        llm.answer(PromptId.VALUE_CHECK, json.dumps({"answer": said_back}))
        read = await ClaimReader(llm).read(message)
        assert [c.claim.value for c in read.kept] == kept, said_back
        assert [c.value for c in read.dropped] == ([] if kept else [value])


@pytest.mark.parametrize(
    ("message", "name", "attribute", "value", "known"),
    [
        # tried live: the job of "Marta" was asked as another's, answered in a sentence and lost,
        # so the later new job closed nothing and the answer said "Teacher"
        ("hi, I'm Marta, I work as a teacher at a primary school in Porto", "Marta", "job", "teacher", ""),
        ("Hello! Name's Tomasz, 34, I drive a tram in Krakow for a living", "Tomasz", "job", "tram", ""),
        ("My name is Wen and I am allergic to shellfish", "Wen", "allergy", "shellfish", ""),
        # the name told in an earlier message, as the record holds it
        ("Ama here again, still a midwife at Korle Bu", "Ama", "job", "midwife", "Ama"),
    ],
)  # fmt: skip
async def test_a_claim_about_the_users_own_name_is_checked_as_the_users(
    message: str, name: str, attribute: str, value: str, known: str
) -> None:
    """A claim the model puts on the user's name rather than on the user is checked as the user's:
    asked for a named person's label, the 1.5B answered a sentence ("Marta is now a teacher at a
    primary school in Porto.") and the claim was lost; asked for the user's, "teacher"."""
    quote = next(part.strip() for part in message.split(",") if value.split()[0] in part)
    claims = [
        ClaimOut(quote=quote, subject=name, relation="self", attribute=attribute, value=value, when="",
                 kind=ClaimKind.NEW),
    ]  # fmt: skip
    if not known:
        claims.append(
            ClaimOut(quote=f"{name}", subject="user", relation="self", attribute="name", value=name, when="",
                     kind=ClaimKind.NEW)
        )  # fmt: skip

    def check(call: FakeCall) -> str:
        asked = str(call.messages[-1].content)
        said = f"{name} is now {value}, as the message says, in {message}"
        if "the user's" in asked:
            said = name if "name" in asked.split("the user's")[-1] else value
        return json.dumps({"answer": said})

    llm = FakeChatModel()
    llm.answer(PromptId.EXTRACT_CLAIMS, scripted_reader({message: claims}))
    llm.answer(PromptId.VALUE_CHECK, check)
    read = await ClaimReader(llm).read(message, {name.lower()} if known else set())
    held = {(c.claim.subject, c.claim.attribute, c.claim.value) for c in read.kept}
    assert ("user", attribute, value) in held
    assert not read.dropped


@pytest.mark.parametrize(
    ("message", "quote", "attribute", "value"),
    [
        # first contact, set 22: a translation as the value, dropped; the salt limit was lost
        ("went to the clinic last wk n doc said my bp iko juu sana, 150 smthng, so ameniambia nipunguze "
         "chumvi kabisa", "so ameniambia nipunguze chumvi kabisa", "diet", "low salt"),
        ("je suis allergique aux arachides, so no satay for me pls", "je suis allergique aux arachides",
         "allergy", "peanuts"),
        ("doctor says ich habe Zöliakie, so the bread thing is serious", "ich habe Zöliakie", "health",
         "coeliac disease"),
    ],
)  # fmt: skip
async def test_a_constraint_in_the_models_words_the_users_do_not_answer_is_kept_as_they_said_it(
    message: str, quote: str, attribute: str, value: str
) -> None:
    """A health or diet claim whose value is the model's (a translation) and whose label the
    user's words do not answer is kept with the user's quote as its value: a lost constraint
    breaks the help given. Any other claim so read stays dropped."""
    for label, kept in ((attribute, [quote]), ("job", [])):
        claim = ClaimOut(
            quote=quote, subject="user", relation="self", attribute=label, value=value, when="",
            kind=ClaimKind.NEW,
        )  # fmt: skip
        llm = FakeChatModel()
        llm.answer(PromptId.EXTRACT_CLAIMS, scripted_reader({message: [claim]}))
        llm.answer(PromptId.VALUE_CHECK, json.dumps({"answer": value}))  # the model's word again
        read = await ClaimReader(llm).read(message)
        assert [c.claim.value for c in read.kept] == kept, label
        assert [c.value for c in read.dropped] == ([] if kept else [value])


@pytest.mark.parametrize(
    ("message", "ended", "new", "attribute"),
    [
        # first contact, set 22: the new home was checked, answered in a sentence and lost
        ("We have left Cihangir at last. Elif and I have rented an old wooden house on Büyükada.",
         "Cihangir", "Büyükada", "home"),
        ("sold the civic last week, picked up a used corolla on saturday", "civic", "corolla", "car"),
        ("done with the call centre for good!! starting at the bakery on monday", "call centre", "bakery",
         "workplace"),
    ],
)  # fmt: skip
async def test_a_new_value_beside_an_end_of_the_same_label_is_what_replaces_it(
    message: str, ended: str, new: str, attribute: str
) -> None:
    """An end and a new value of one subject's label in one message are a change: the new value
    is kept as its replacement, whatever the value check would answer (a whole sentence here)."""
    sentence = "The user said a great many things in this message, all of them in one long sentence."
    read_as = [
        ClaimOut(quote=ended, subject="user", relation="self", attribute=attribute, value=ended, when="",
                 kind=ClaimKind.ENDS),
        ClaimOut(quote=new, subject="user", relation="self", attribute=attribute, value=new, when="",
                 kind=ClaimKind.NEW),
    ]  # fmt: skip
    llm = FakeChatModel()
    llm.answer(PromptId.EXTRACT_CLAIMS, scripted_reader({message: read_as}))
    llm.answer(PromptId.VALUE_CHECK, json.dumps({"answer": sentence}))
    read = await ClaimReader(llm).read(message)
    kinds = {c.claim.value: c.claim.kind for c in read.kept}
    assert kinds == {ended: ClaimKind.ENDS, new: ClaimKind.REPLACES}
    # a new value of another label, or an item of a list, is checked as any new claim is
    other = [read_as[0], read_as[1].model_copy(update={"attribute": "hobby"})]
    llm.answer(PromptId.EXTRACT_CLAIMS, scripted_reader({message: other}))
    assert [c.claim.value for c in (await ClaimReader(llm).read(message)).kept] == [ended]
    for label in ("shopping list", "diet"):  # items of a list; constraints add up
        listed = [c.model_copy(update={"attribute": label}) for c in read_as]
        llm.answer(PromptId.EXTRACT_CLAIMS, scripted_reader({message: listed}))
        kept = (await ClaimReader(llm).read(message)).kept
        assert ClaimKind.REPLACES not in [c.claim.kind for c in kept], label


@pytest.mark.parametrize(
    ("message", "mine", "sibling", "attribute"),
    [
        # first contact set 23: asked the user's age, the whole message answered "6" (the years in
        # Porto) and the age was lost
        ("oi! im ju, 44, from bh but living in porto 6 yrs now", ("44, from bh", "44"),
         ("living in porto 6 yrs now", "years in porto", "6"), "age"),
        ("we rent a tiny flat in Paranhos. it's the north of Porto, five minutes from work",
         ("we rent a tiny flat in Paranhos", "Paranhos"), ("it's the north of Porto", "city", "Porto"),
         "home"),
        ("I drive a Skoda to work, and the old Volvo is for weekends with the dogs",
         ("I drive a Skoda to work", "Skoda"), ("the old Volvo is for weekends", "weekend car", "Volvo"),
         "car"),
    ],
)  # fmt: skip
async def test_a_message_telling_two_things_of_a_kind_is_asked_again_in_the_claims_own_words(
    message: str, mine: tuple[str, str], sibling: tuple[str, str, str], attribute: str
) -> None:
    """Asked for a claim's label, a message telling two things of one kind may answer with the
    other claim's value; the clauses the claim quotes, asked alone, answer its own. An answer
    naming nothing the message's claims say is not asked again."""
    quote, value = mine
    other_quote, other_attribute, other_value = sibling
    claims = [
        ClaimOut(quote=quote, subject="user", relation="self", attribute=attribute, value=value, when="",
                 kind=ClaimKind.NEW),
        ClaimOut(quote=other_quote, subject="user", relation="self", attribute=other_attribute,
                 value=other_value, when="", kind=ClaimKind.NEW),
    ]  # fmt: skip

    for whole_answer, kept in ((other_value, True), ("the weather", False)):

        def check(call: FakeCall, whole_answer: str = whole_answer) -> str:
            shown = str(call.messages[-1].content)
            if f"user's {attribute} now" not in shown:
                return json.dumps({"answer": other_value})
            return json.dumps({"answer": whole_answer if message in shown else value})

        llm = FakeChatModel()
        llm.answer(PromptId.EXTRACT_CLAIMS, scripted_reader({message: claims}))
        llm.answer(PromptId.VALUE_CHECK, check)
        read = await ClaimReader(llm).read(message)
        assert (value in [c.claim.value for c in read.kept]) is kept, whole_answer
        assert other_value in [c.claim.value for c in read.kept]
        asked = [str(p[-1].content) for p in llm.prompts_for(PromptId.VALUE_CHECK)]
        assert len([a for a in asked if f"user's {attribute} now" in a]) == (2 if kept else 1)


@pytest.mark.parametrize(
    ("message", "subject", "attribute", "new", "rival"),
    [
        # first contact set 23: the move read as three new homes (the street, the esplanade a walk
        # away and the removal van); the van's and the esplanade's closed nothing right
        ("Sold up at last: we've taken a flat on Brook Street, a short walk from the esplanade",
         "user", "home", ("we've taken a flat on Brook Street", "Brook Street"),
         ("a short walk from the esplanade", "esplanade")),
        ("I start at Lidl on Monday, right next to the old Tesco I was at for years",
         "user", "job", ("I start at Lidl on Monday", "Lidl"), ("the old Tesco I was at for years", "Tesco")),
        ("the kitten is called Miso now, Ana wanted Mochi but lost the vote",
         "kitten", "name", ("the kitten is called Miso now", "Miso"), ("Ana wanted Mochi", "Mochi")),
    ],
)  # fmt: skip
async def test_a_message_changing_one_label_twice_keeps_the_change_it_gives_the_label(
    message: str, subject: str, attribute: str, new: tuple[str, str], rival: tuple[str, str]
) -> None:
    """Changes are not checked (a right change lost leaves the old value current), but one
    message gives a label one new value: when it changes the same subject's label twice, each is
    asked of the message, and one whose label the message answers with the other's value is not
    kept. An answer naming neither keeps both; a single change is never asked."""
    relation = "self" if subject == "user" else "pet"

    def change(quote: str, value: str) -> ClaimOut:
        return ClaimOut(quote=quote, subject=subject, relation=relation, attribute=attribute, value=value,
                        when="", kind=ClaimKind.REPLACES)  # fmt: skip

    both = [change(*new), change(*rival)]
    for answer, kept in ((new[1], [new[1]]), ("not said", [new[1], rival[1]])):
        llm = FakeChatModel()
        llm.answer(PromptId.EXTRACT_CLAIMS, scripted_reader({message: both}))
        llm.answer(PromptId.VALUE_CHECK, json.dumps({"answer": answer}))
        read = await ClaimReader(llm).read(message)
        assert [c.claim.value for c in read.kept] == kept, answer
        assert [c.value for c in read.unanswered] == [v for v in (new[1], rival[1]) if v not in kept]
    llm = FakeChatModel()
    llm.answer(PromptId.EXTRACT_CLAIMS, scripted_reader({message: both[:1]}))
    read = await ClaimReader(llm).read(message)
    assert [c.claim.value for c in read.kept] == [new[1]]
    assert not llm.prompts_for(PromptId.VALUE_CHECK)
