"""thea's reaction to a statement or small talk (issue 38, items 1 and 2): what the model wrote
is shown only when it reacts in thea's own words and says nothing the user did not."""

from __future__ import annotations

import pytest

from services.common.understanding import understand
from services.cycle.reply import checked_reply, copied_run, in_tone, made_up, reaction_shown, unclear_who
from services.prompts.reply import Feeling, Reply
from thea.models import MessageKind


@pytest.mark.parametrize(
    ("told", "reply"),
    [
        ("we got a kitten on Saturday, her name is Miso", "A kitten named Miso, how lovely!"),
        ("Theres Ansgar, my brother, he lives in Tromsø", "Your brother Ansgar lives in Tromsø, noted!"),
        ("good morning!", "Good morning! Good to see you."),
        ("🐢🎉❤️", "What a celebration, how lovely!"),
        ("thanks so much", "You're welcome, glad to help!"),
        ("Started my new job at Nordbrise on the 3rd", "A new job at Nordbrise, congratulations!"),
    ],
)
def test_a_reaction_in_thea_s_own_words_is_shown(told: str, reply: str) -> None:
    assert checked_reply(reply, told) == reply


@pytest.mark.parametrize(
    ("told", "reply"),
    [
        # an echo of the message, typos and all
        ("From the 3rd of next month im at Nordbrise", "From the 3rd of next month im at Nordbrise, noted!"),
        ("my daughter Ines turned 7 yesterday", "Noted: my daughter Ines turned 7 yesterday."),
        # a refusal of small talk
        ("🐢🎉❤️", "I'm sorry, but I can't assist with that request."),
        ("lol", "As an AI language model, I do not laugh."),
        # made up: a place, a number, an inference, an opinion
        ("I start at Microsoft on Monday", "Congratulations on the job at Google!"),
        ("my daughter turned 7", "Happy 8th birthday to her!"),
        ("the bus leaves at 8:20", "Lovely, the bus at 82!"),  # digits of "8:20" run together
        (
            "I'm allergic to peanuts, always have been",
            "You're allergic to peanuts, but you've never had them before!",
        ),
        ("we moved to Leipzig last month", "A new job at Leipzig, congratulations!"),  # "job": an example's
        # what an example of the prompt told, said of another message
        ("ok", "A puppy named Biscuit, how lovely!"),
        ("thanks!!", "I'm glad you passed your driving test!"),
        # the user's first person said back as thea's
        ("Theres Ansgar, my brother", "Ansgar, my brother, noted."),
        # advice and lists nobody asked for
        ("we got a puppy", "Great news!\n1. Walk him\n2. Feed him"),
    ],
)
def test_an_echo_a_refusal_or_anything_made_up_is_not_shown(told: str, reply: str) -> None:
    assert checked_reply(reply, told) is None


@pytest.mark.parametrize(
    ("told", "reply", "shown"),
    [
        ("we moved to Leipzig last month", "Great news! Leipzig is a beautiful city.", "Great news!"),
        (
            "I got the promotion!! head of department from September",
            "Congratulations on the promotion! You're now in charge of the department, well done!",
            "Congratulations on the promotion!",
        ),
        (
            "I'm running the Leeds half marathon on 12 April",
            "That sounds exciting! Running is a great way to stay fit.",
            "That sounds exciting!",
        ),
        (
            "haha that's so true",
            "That's great to hear! I'm glad you passed.",
            "That's great to hear!",
        ),
    ],
)
def test_a_sentence_that_makes_something_up_is_left_out_and_the_rest_stands(
    told: str, reply: str, shown: str
) -> None:
    """The rest of a reaction is shown without the sentence that says what the user did not (seen
    with the reading model: a good first sentence and an opinion or an inference after it)."""
    assert checked_reply(reply, told) == shown


@pytest.mark.parametrize(
    ("told", "reply"),
    [
        ("hey, I teach chemistry in Leeds", "I'm glad you're teaching chemistry."),
        ("my dad turns 60 on the 3rd of May", "Your dad is turning 60 on May 3rd, congratulations!"),
        ("I'm training for a 10k in October", "Good luck with your training, that sounds exciting!"),
        ("our daughter starts nursery next monday!!", "Starting nursery, exciting news!"),
    ],
)
def test_a_reaction_may_name_what_the_user_said_in_another_form(told: str, reply: str) -> None:
    """ "teaching" for "I teach", "turning" for "turns": the user's words in another ending are
    not made up (the reading model's reactions were hidden for them)."""
    assert checked_reply(reply, told) == reply


def test_a_word_that_only_looks_like_one_the_user_said_is_still_made_up() -> None:
    assert made_up("Good luck with your trip!", "Dev's mum is coming to stay for a week") == ["trip"]
    assert made_up("Your mother is here!", "my mum is here") == ["mother"]


def test_a_long_reaction_is_cut_to_two_sentences() -> None:
    shown = checked_reply("Lovely! How wonderful. Enjoy it. Take care.", "we got a kitten")
    assert shown == "Lovely! How wonderful."


def test_the_user_s_name_may_greet_them() -> None:
    assert checked_reply("Hello Maya! Good to see you.", "hi", name="Maya") == "Hello Maya! Good to see you."
    assert made_up("Hello Maya!", "hi") == ["maya"]


def test_copied_runs_are_counted_in_words_whatever_the_case_and_marks() -> None:
    assert copied_run("FROM the 3rd, of next month!", "from the 3rd of next month im at") == 6
    assert copied_run("a kitten", "we got a kitten") == 2
    assert copied_run("nothing alike", "we got a kitten") == 0


@pytest.mark.parametrize("text", ["🐢🎉❤️", "?!", "😂😂", "  ", "👍"])
def test_a_message_without_a_word_is_small_talk(text: str) -> None:
    assert understand(text).kind is MessageKind.SMALL_TALK


@pytest.mark.parametrize(
    ("said", "pronoun"),
    [
        ("she got the job at Arup!!", "she"),
        ("She's moving to Leeds next week", "she"),
        ("her exam went really well", "her"),
        ("He finally said yes", "he"),
        ("...he'll be 40 on Sunday", "he"),
    ],
)
def test_a_statement_opening_on_a_pronoun_nothing_earlier_names_is_unclear(said: str, pronoun: str) -> None:
    assert unclear_who(said, []) == pronoun
    assert unclear_who(said, ["my brother Tom called"]) is None  # whom it means was said before


@pytest.mark.parametrize(
    "said",
    [
        "Shelby got the job",  # a name, not a pronoun
        "heading out now",
        "he?",
        "The kids are fine, she said",  # whom "she" means is in the message
        "My sister called. She got the job!",
        "It's raining again",
    ],
)
def test_a_statement_that_names_whom_it_speaks_of_is_not_unclear(said: str) -> None:
    assert unclear_who(said, []) is None


@pytest.mark.parametrize(
    ("told", "small_talk", "reply", "shown"),
    [
        (
            "Hi! I'm Sam, a bus driver in Leeds. I was diagnosed coeliac last spring so gluten is out.",
            "Hi!",
            "You're welcome! Gluten is out for you, Sam.",
            "Gluten is out for you, Sam.",
        ),
        (
            "We got the keys to our new flat in Headingley!",
            "",
            "You're welcome, happy to help! Keys to a new flat, how exciting!",
            "Keys to a new flat, how exciting!",
        ),
        (
            "my sister had a baby girl last night",
            "",
            "Good to see you. A baby girl, congratulations!",
            "A baby girl, congratulations!",
        ),
        (
            "hey! started at the bakery today",
            "hey!",
            "Happy to help! The bakery, good luck today!",
            "The bakery, good luck today!",
        ),
    ],
)
def test_a_stock_reply_to_small_talk_the_user_did_not_make_is_left_out_of_a_reaction_to_news(
    told: str, small_talk: str, reply: str, shown: str
) -> None:
    """The prompt's reply to thanks or a greeting, said to news ("You're welcome!" to someone who
    just said they are coeliac: seen live), answers nothing the user said: it is left out."""
    assert checked_reply(reply, told, "Sam", small_talk) == shown


@pytest.mark.parametrize(
    ("told", "small_talk", "reply"),
    [
        (
            "thanks so much! the recipe worked, I made it for my mum",
            "thanks so much!",
            "You're welcome, happy to help!",
        ),
        ("Hi there! I started my new job today", "Hi there!", "Hi! Good to see you."),
    ],
)
def test_a_stock_reply_to_the_small_talk_the_user_made_stays(told: str, small_talk: str, reply: str) -> None:
    assert checked_reply(reply, told, "", small_talk) == reply


def test_a_reaction_made_only_of_stock_replies_to_other_small_talk_is_not_shown() -> None:
    assert checked_reply("You're welcome!", "we got a kitten", "", "") is None


@pytest.mark.parametrize(
    ("told", "reply", "shown"),
    [
        # thea speaking of itself: its "I" stays
        (
            "just found out I'm lactose intolerant, so no more milky coffees for me :(",
            "Sorry to hear that, I'll keep that in mind.",
            "Sorry to hear that, I'll keep that in mind.",
        ),
        (
            "I can't eat shellfish, bad reaction last time",
            "Sorry to hear that, I'll keep that in mind.",
            "Sorry to hear that, I'll keep that in mind.",
        ),
        (
            "heads up, I've got coeliac disease so nothing with gluten for me",
            "Thanks for letting me know, I'll keep gluten out of anything I suggest.",
            "Thanks for letting me know, I'll keep gluten out of anything I suggest.",
        ),
        # the user's first person said back: turned to "you"
        (
            "just found out I'm lactose intolerant",
            "Oh no, I'm lactose intolerant!",
            "Oh no, you're lactose intolerant!",
        ),
        ("I'm a nurse on nights now", "I'm a nurse on nights, noted!", "You're a nurse on nights, noted!"),
    ],
)
def test_thea_s_own_first_person_stays_and_the_user_s_is_turned(told: str, reply: str, shown: str) -> None:
    """ "I'll keep that in mind" was shown as "you'll keep that in mind" (the voice check took
    every "I" it did not know for the user's): a sentence naming nothing of the message is thea's."""
    assert checked_reply(reply, told) == shown


@pytest.mark.parametrize(
    "reaction",
    [
        "That's great news!",
        "Congratulations on the new date!",
        "Sounds like an exciting week ahead.",
        "Well done, enjoy the rest of your day!",
    ],
)
def test_bad_news_is_never_cheered(reaction: str) -> None:
    """First contact set 10: "dvsa cancelled on me smh, test is now 22 may" got "That's great
    news!". The model says first how the message feels; a cheerful reaction to what it felt as
    bad news is not shown."""
    assert in_tone(reaction, Feeling.BAD) is None


@pytest.mark.parametrize(
    ("reaction", "shown"),
    [
        ("I'll keep that in mind.", "I'm sorry to hear that. I'll keep that in mind."),
        (
            "Noted, your nan passed away on Sunday.",
            "I'm sorry to hear that. Noted, your nan passed away on Sunday.",
        ),
        ("Oh no, not the washing machine!", "Oh no, not the washing machine!"),
        ("I hope it gets fixed soon.", "I hope it gets fixed soon."),
        ("Sorry about your knee.", "Sorry about your knee."),
    ],
)
def test_bad_news_gets_sympathy(reaction: str, shown: str) -> None:
    assert in_tone(reaction, Feeling.BAD) == shown


@pytest.mark.parametrize(
    ("reaction", "feeling", "shown"),
    [
        ("Oh no, that's sad news.", Feeling.GOOD, None),  # a cousin's wedding, set 9
        ("Sorry to hear that!", Feeling.GOOD, None),
        (
            "A puppy named Biscuit, how lovely! I hope he's settling in.",
            Feeling.GOOD,
            "A puppy named Biscuit, how lovely! I hope he's settling in.",
        ),
        ("Your sister Ana is in Porto, noted!", Feeling.NEUTRAL, "Your sister Ana is in Porto, noted!"),
    ],
)
def test_good_news_is_never_pitied_and_plain_news_stands(
    reaction: str, feeling: Feeling, shown: str | None
) -> None:
    assert in_tone(reaction, feeling) == shown


@pytest.mark.parametrize(
    ("told", "reply", "shown"),
    [
        (  # live
            "we're off to Porto on the 14th of March for a long weekend, can't wait",
            "I can't wait to go to Porto for the long weekend!",
            None,
        ),
        ("the wedding is in Sorrento in June, can't wait", "I can't wait for Sorrento in June!", None),
        (
            "the wedding is in Sorrento in June, can't wait",
            "How lovely! I can't wait for Sorrento.",
            "How lovely!",
        ),
        # the user's first person said back is turned, not left out
        (
            "starting at Southmead on monday, new job!",
            "Congratulations! I start at Southmead on Monday.",
            "Congratulations! You start at Southmead on Monday.",
        ),
        # naming nothing of the message: thea's own "I" stays
        (
            "heads up, I'm coeliac so no gluten for me",
            "Thanks, I'll keep gluten out of anything I suggest.",
            "Thanks, I'll keep gluten out of anything I suggest.",
        ),
    ],
)
def test_the_users_news_is_never_told_as_theas_own(told: str, reply: str, shown: str | None) -> None:
    assert checked_reply(reply, told) == shown


@pytest.mark.parametrize(
    ("told", "reply", "shown"),
    [
        (
            "OMG zoe got engaged to her bf marco!!! so happy for her i cried",
            "I'm so happy for you and your bf Marco!",
            None,
        ),
        (
            "my brother just passed his driving test, so proud of him",
            "Congratulations! I'm so proud of you and your driving test.",
            "Congratulations!",
        ),
        (
            "my mum finally retired from the bakery, we're throwing her a party",
            "How exciting! I'm throwing you a party at the bakery.",
            "How exciting!",
        ),
    ],
)
def test_the_users_words_said_back_as_i_to_you_are_left_out(told: str, reply: str, shown: str | None) -> None:
    """First contact, set 19: "OMG zoe got engaged to her bf marco!!! … so happy for her" ->
    "You're so happy for me and my bf Marco.": a sentence saying the user's words back as "I"
    while speaking to "you" was turned round, and said the friend's news as the user's. Whose
    "I" and whose "you" it is cannot be told: it is left out, the rest stands."""
    assert checked_reply(reply, told) == shown


@pytest.mark.parametrize(
    "told",
    [
        # first contact, sets 21 and 22: "I'm sorry to hear that." to a slip put right
        "eish sorry i got that wrong juzi, achieng yuko moi uni in eldoret not kenyatta",
        "oops the dentist is on the 14th not the 4th, got my dates muddled",
        "my bad, Tom's birthday is in june, not july",
        "I am sorry, I got something wrong earlier: my mother is seventy-six, not seventy-four.",
    ],
)
def test_the_users_own_apology_for_a_slip_is_not_met_with_sympathy(told: str) -> None:
    """A correction the model felt as bad news (the user said sorry) whose reaction cannot be
    shown gets the plain acknowledgement, never "I'm sorry to hear that."; one it can show is
    shown as written."""
    echo = Reply(feeling=Feeling.BAD, reply=told)  # an echo: never shown
    assert reaction_shown(echo, told) is None
    fine = Reply(feeling=Feeling.BAD, reply="Thanks for letting me know, noted!")
    shown = reaction_shown(fine, told)
    assert shown is not None
    assert "sorry" not in shown.text.lower()
    # bad news without an apology still gets sympathy when its reaction cannot be shown
    loss = "the vet said Biscuit's kidneys are failing, we have to say goodbye on friday"
    shown = reaction_shown(Reply(feeling=Feeling.BAD, reply=loss), loss)
    assert shown is not None
    assert shown.text == "I'm sorry to hear that."


@pytest.mark.parametrize(
    ("told", "reply"),
    [
        # the reactions benchmark had shown these; the mixed-voice check then hid them
        ("finally finished painting the spare room, it's a lovely sage green now",
         "I'm glad you finished painting the spare room."),
        ("morning! name's Olu, I drive buses for First in Bristol",
         "I'm glad you're driving buses for First in Bristol."),
        ("passed my theory test this morning!!", "I hope you're proud, passing your theory test is great."),
    ],
)  # fmt: skip
def test_thea_s_own_i_beside_its_own_words_speaking_to_the_user_stays(told: str, reply: str) -> None:
    """A reaction in which thea says "I" of itself, beside words of its own ("I'm glad", "I
    hope"), while it speaks to the user of their news, is shown; only an "I" that stands beside
    the user's words is their first person said back (the cases above)."""
    assert checked_reply(reply, told) == reply
