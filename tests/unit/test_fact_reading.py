"""Statements are read by their grammar: whatever the wording, the subject, what is said of it,
and what it changes come out the same.

None of these sentences is a benchmark persona's: they are the usual shapes of chat (an
appositive, a relative clause, no subject at all, a verbless introduction, a relation's
possession, a pronoun, a habit that stopped) with other words.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from benchmarks.live_memory_facts import replay
from services.knowledge.record.extraction import USER, Change, extract_facts
from services.knowledge.record.slots import Slot
from services.recall.lexical import stem
from thea.models import Fact


def history(*messages: str) -> list[Fact]:
    """Every fact the messages told, one message a day, superseded ones closed (as the keeper does)."""
    return replay(messages, start_ms=1_000_000)


def current_texts(facts: Sequence[Fact]) -> list[str]:
    return [f.content for f in facts if f.valid_until is None]


def test_an_appositive_and_a_relative_clause_stay_with_what_they_describe() -> None:
    (kids,) = extract_facts("I have two daughters, Mia who is 5 and Zoe who is 2.")
    assert kids.subject_key == USER
    assert kids.text == "I have two daughters, Mia who is 5 and Zoe who is 2."
    (dog,) = extract_facts("We got a puppy in March, a collie called Bramble.")
    assert "Bramble" in dog.text
    assert Slot.PET in dog.slots


def test_a_sentence_without_a_subject_is_about_the_user() -> None:
    (job,) = extract_facts("Just started a new job at Fernway Labs!")
    assert job.subject_key == USER
    assert job.text == "I just started a new job at Fernway Labs."
    assert Slot.JOB in job.slots


@pytest.mark.parametrize(
    ("message", "name"),
    [
        ("Priya here.", "Priya"),
        ("Tom Baker, nurse, based in Cork.", "Tom Baker"),
        ("My name's Ada Quist.", "Ada Quist"),
    ],
)
def test_an_introduction_in_any_shape_names_the_user(message: str, name: str) -> None:
    facts = extract_facts(message)
    assert facts
    assert all(f.subject_key == USER for f in facts)
    assert name in facts[0].text


def test_a_name_then_a_description_is_a_name_and_a_role() -> None:
    name, role = extract_facts("Hi, I'm Oskar, a night-shift radiographer at St Luke's.")
    assert (name.text, name.slots) == ("I'm Oskar.", frozenset({Slot.NAME}))
    assert role.text == "I'm a night-shift radiographer at St Luke's."
    assert {Slot.JOB, Slot.WORKPLACE} <= role.slots


def test_someone_known_by_their_relation_is_the_subject_not_the_user() -> None:
    (father,) = extract_facts("Anna's father turns 80 on June 3.")
    assert father.subject_key == "anna's father"
    assert {Slot.AGE, Slot.BIRTHDAY} <= father.slots
    (plumber,) = extract_facts("The plumber is coming on Friday.")
    assert plumber.subject_key == "plumber"
    (leo,) = extract_facts("Leo's a plumber.")
    assert (leo.subject_key, leo.attribute) == ("leo", "be-a")


def test_a_pronoun_is_the_person_named_before_and_it_stays_with_its_clause() -> None:
    facts = extract_facts("My cousin Lea works in Porto, she's a dentist there.")
    assert [f.subject_key for f in facts] == ["lea", "lea"]
    assert facts[1].text.startswith("Lea is a dentist")
    (shop,) = extract_facts("Sam opened a bakery, it's called Crumb.")
    assert shop.text == "Sam opened a bakery, it's called Crumb."


def test_what_ended_is_the_object_or_place_not_the_person() -> None:
    (left,) = extract_facts("Nadia left the law firm.")
    assert left.change is Change.END
    assert left.about == ("law", "firm")
    (stopped,) = extract_facts("Ben doesn't coach the under-12s anymore.")
    assert stopped.change is Change.END
    (volunteer,) = extract_facts("Ruth doesn't volunteer at the food bank anymore.")
    assert volunteer.change is Change.END
    assert volunteer.about == ("food", "bank")
    (died,) = extract_facts("Our old rabbit Clover died last week.")
    assert died.change is Change.END
    assert died.about == ("old", "rabbit", "clover")
    (adjective,) = extract_facts("I'm a retired firefighter.")
    assert adjective.change is Change.NONE  # "retired" describes, it ends nothing


def test_a_swap_replaces_what_was_swapped() -> None:
    facts = history("We drive a silver Toyota Yaris.", "We traded the Yaris for a Ford Focus.")
    assert current_texts(facts) == ["We traded the Yaris for a Ford Focus."]


def test_a_plan_told_again_with_a_new_date_replaces_the_old_date_only() -> None:
    facts = history(
        "We fly to Rome on May 3 for a long weekend.",
        "The dentist appointment is on May 4.",
        "Our flight now leaves on May 6.",
    )
    assert current_texts(facts) == ["The dentist appointment is on May 4.", "Our flight now leaves on May 6."]
    wedding = history(
        "My cousin Lea is getting married on May 20.", "Lea's wedding has been moved to June 2."
    )
    assert current_texts(wedding) == ["Lea's wedding has been moved to June 2."]


def test_a_promotion_keeps_where_one_works() -> None:
    facts = history("I'm a developer at Acme Robotics.", "Just got promoted to team lead!")
    assert len(current_texts(facts)) == 2  # where one works is still true
    moved = history("I'm a barista at Cup & Co.", "I work as a sous-chef at Olive now.")
    assert current_texts(moved) == ["I work as a sous-chef at Olive now."]


def test_what_was_got_in_place_of_what_ended_takes_its_slot() -> None:
    facts = history("My bike is an old Raleigh.", "I sold the Raleigh and bought a Ridley Kanzo.")
    (grail,) = [f for f in facts if f.valid_until is None]
    assert "bike" in grail.slots  # an unknown make is still the bike
    assert stem("bike") in grail.keywords


def test_a_statement_about_someone_else_never_replaces_the_users_own() -> None:
    facts = history(
        "I teach chemistry at Hillcrest.", "The caretaker is off sick.", "My sister lives in Leeds."
    )
    assert "I teach chemistry at Hillcrest." in current_texts(facts)


def test_moving_house_reschedules_no_plan_in_the_same_town() -> None:
    facts = history("I'm running the Bath half marathon on March 9.", "And we're moving to Bath in April.")
    assert "I'm running the Bath half marathon on March 9." in current_texts(facts)
    later = history(
        *[f.content for f in facts], "The half marathon got postponed to March 23 because of flooding."
    )
    assert "I'm running the Bath half marathon on March 9." not in current_texts(later)


def test_a_role_at_a_named_place_is_a_job_with_or_without_an_article() -> None:
    (head,) = extract_facts("Karim is head of humanities at Clifton College now.")
    assert head.attribute == "be-a"
    assert {Slot.JOB, Slot.WORKPLACE} <= head.slots


def test_retraining_as_another_occupation_replaces_the_job() -> None:
    facts = history(
        "I work as a paramedic in Bristol.", "I quit the ambulance service, I'm retraining as a nurse now."
    )
    assert "I work as a paramedic in Bristol." not in current_texts(facts)


def test_a_relations_name_is_theirs_not_the_users() -> None:
    facts = history("I'm Noah Fischer.", "My mum's name is Ingrid.")
    assert current_texts(facts) == ["I'm Noah Fischer.", "My mum's name is Ingrid."]


def test_a_correction_replaces_what_it_corrects() -> None:
    facts = history(
        "Our wedding anniversary is on March 14.", "Scratch that, our anniversary is actually March 15."
    )
    assert current_texts(facts) == ["Our anniversary is actually March 15."]


def test_a_new_job_replaces_the_job_of_someone_introduced_by_their_relation() -> None:
    facts = history(
        "My husband Karim teaches history at a sixth-form college.",
        "Karim got a new job, he's head of humanities at Clifton College now.",
    )
    assert "My husband Karim teaches history at a sixth-form college." not in current_texts(facts)


@pytest.mark.parametrize(
    "message",
    ["Yusuf, 41, I'm a ferry engineer in Dover.", "Yusuf here, 41, I fix ferry engines in Dover."],
)
def test_a_name_and_an_age_before_the_sentence_are_the_users_and_the_rest_is_kept(message: str) -> None:
    name, age, work = extract_facts(message)
    assert (name.subject_key, name.value, Slot.NAME in name.slots) == (USER, "Yusuf", True)
    assert (age.subject_key, age.attribute, age.value, Slot.AGE in age.slots) == (USER, "age", "41", True)
    assert work.subject_key == USER
    assert "Dover" in work.text


def test_a_name_and_an_age_before_a_verb_are_someone_elses() -> None:
    (fact,) = extract_facts("Pickle, 6, hates the vacuum cleaner.")
    assert fact.subject_key == "pickle"


def test_a_name_given_after_a_noun_is_whom_the_next_pronoun_means() -> None:
    had, turned = extract_facts("My husband and I have a baby boy, Idris, he turned one in May.")
    assert "Idris" in had.text
    assert turned.subject_key == "idris"
    assert turned.text.startswith("Idris turned one")


def test_a_business_one_runs_is_ones_work() -> None:
    (shop,) = extract_facts("We own a tiny bookshop in Hay.")
    assert shop.attribute == "job"
    assert Slot.JOB in shop.slots
    (club,) = extract_facts("I run a chess club on Tuesdays.")
    assert Slot.JOB not in club.slots


def test_a_switch_from_one_thing_to_another_replaces_the_first() -> None:
    facts = history("My son Ollie is studying law at Durham.", "Ollie switched from law to history.")
    assert current_texts(facts) == ["Ollie switched to history."]
    (now,) = [f for f in facts if f.valid_until is None]
    assert "study" in (now.slots or [])  # what the switch replaced was a course of study


def test_a_move_by_those_who_do_the_work_moves_that_work() -> None:
    facts = history("The kitchen painting is booked for June 3.", "The painters postponed to June 17.")
    assert current_texts(facts) == ["The painters postponed to June 17."]


def test_a_change_of_plan_label_is_not_part_of_the_fact() -> None:
    (flight,) = extract_facts("Change of plan, our ferry to Bilbao now leaves on May 2.")
    assert not flight.text.lower().startswith("change of plan")
    assert flight.change is Change.CHANGE


def test_a_new_name_for_a_one_at_a_time_relation_replaces_the_old_but_a_second_sibling_does_not() -> None:
    facts = history("My supervisor is called Harriet.", "My new boss is Tunde.")
    assert current_texts(facts) == ["My new boss is Tunde."]
    siblings = history("My sister is called Ama.", "My sister is called Efua.")
    assert len(current_texts(siblings)) == 2  # two sisters


def test_a_name_an_age_and_a_role_without_a_verb_are_three_facts() -> None:
    name, age, role = extract_facts("Tomasz, 38, site welder from Gdansk.")
    assert (name.value, age.value) == ("Tomasz", "38")
    assert Slot.JOB in role.slots
    assert "welder" in role.text


def test_a_question_about_what_the_user_cannot_have_asks_about_diet_and_health() -> None:
    from services.knowledge.record.slots import question_slots

    assert {Slot.DIET, Slot.HEALTH} <= question_slots("What can't I have?")
    assert Slot.DIET not in question_slots("Where can I have lunch?")


def test_a_clauses_own_not_anymore_is_kept_and_the_earlier_role_answers_what_came_before() -> None:
    from services.cycle.from_facts import answer_from_facts

    facts = history(
        "My partner Dev is a teacher.", "And Dev's not teaching anymore, he's retraining as a nurse."
    )
    assert "Dev's not teaching anymore." in [f.content for f in facts]  # was read as "Dev's."
    earlier = [f for f in facts if f.valid_until is not None]
    answer = answer_from_facts("What did Dev do before?", [], earlier, earlier=True)
    assert answer is not None
    assert answer.text.startswith("Earlier you told me: your partner Dev is a teacher. That changed on ")
    assert answer.text.endswith(": Dev's not teaching anymore.")  # what ended it, said as such
    # a value replaced beside the new one is still taken out of the current fact
    assert current_texts(history("We live in Munich, not Berlin anymore.")) == ["We live in Munich."]


@pytest.mark.parametrize("message", ["Everyone calls me Maggie.", "My friends call me Maggie."])
def test_a_name_others_call_the_user_is_the_users_name(message: str) -> None:
    (called,) = extract_facts(message)
    assert (called.subject_key, called.value) == (USER, "Maggie")
    assert Slot.NAME in called.slots


@pytest.mark.parametrize(
    "message",
    [
        "I'm starting at a hospital pharmacy in Bath next month.",
        "I'm starting a new job at Lidl on Monday.",
        "I joined a law firm.",
    ],
)
def test_starting_at_a_workplace_is_a_new_job_that_replaces_the_old(message: str) -> None:
    facts = history("I work as a pharmacist in Bristol.", message)
    assert current_texts(facts) == [message]
    (job,) = extract_facts(message)
    assert Slot.JOB in job.slots
    assert Slot.JOB not in extract_facts("We started a new school project.")[0].slots


def test_and_then_a_relative_with_a_verb_is_a_clause_of_its_own() -> None:
    shop, age = extract_facts("My wife Ingrid runs a flower shop and our daughter Astrid is 16.")
    assert shop.text == "My wife Ingrid runs a flower shop."  # was "... and our daughter Astrid."
    assert (age.subject_key, age.value) == ("astrid", "16")
    (love,) = extract_facts("I love my wife and my son Tom very much.")  # no verb after: one clause
    assert love.subject_key == USER


def test_a_role_said_without_an_article_gets_one_when_said_back() -> None:
    *_, role = extract_facts("Morning! Henrik here, 52, carpenter from Aarhus.")
    assert role.text == "I'm a carpenter from Aarhus."
    *_, head = extract_facts("Tom here, 33, head of sales at Lidl.")
    assert head.text == "I'm head of sales at Lidl."


def test_a_pet_named_as_one_of_its_kind_is_that_pet_and_no_child() -> None:
    from services.cycle.fact_match import people_of
    from services.cycle.from_facts import answer_from_facts

    facts = history("We also got a cat, a grey one called Mochi.")
    assert people_of(facts) == {"mochi": frozenset({"cat"})}
    son = answer_from_facts("What's my son's name?", [], facts, earlier=False)
    assert son is None or "Mochi" not in son.text  # it was "Your one is called Mochi."


def test_being_in_a_place_now_is_where_the_user_lives_now() -> None:
    facts = history("I live in Manchester.", "We moved in together, we're in Salford now.")
    assert "We're in Salford now." in current_texts(facts)
    assert "I live in Manchester." not in current_texts(facts)
    assert current_texts(history("I live in Leeds.", "I'm in Paris this week.")) == [
        "I live in Leeds.",
        "I'm in Paris this week.",
    ]


def test_a_pet_that_died_ends_facts_about_it_but_not_where_the_user_lives() -> None:
    home = "I live in a cottage near Inverness with my husband Alasdair and our two collies, Bran and Skye."
    facts = history(home, "Sad news, Skye passed away on Sunday.")
    assert current_texts(facts) == [home]
    assert current_texts(history("We have a dog called Rex.", "Rex died last week.")) == []


def test_an_all_lower_case_introduction_is_read_as_if_cased() -> None:
    name, age, role = extract_facts("yo im jake, 24, bartender in austin")
    assert (name.value, age.value) == ("Jake", "24")
    assert role.text == "I'm a bartender in austin."
    # a word before a comma and a number is no name when the number starts something else
    assert all(f.attribute != stem("name") for f in extract_facts("im tired, 2 kids keep me up"))
    assert extract_facts("im vegetarian btw")[0].value == "vegetarian"


def test_i_am_a_name_and_an_age_then_and_what_i_do() -> None:
    name, age, job = extract_facts("I'm Anna, 31, and I work as a nurse.")
    assert (name.value, age.value, job.attribute) == ("Anna", "31", "job")


def test_someone_who_moved_out_ends_and_a_birthday_passed_is_the_new_age() -> None:
    facts = history("My roommate is called Luis.", "Luis moved out, my new roommate is Priya.")
    assert current_texts(facts) == ["My new roommate is Priya."]
    facts = history("My daughter Ada is 5.", "Ada turned 6 yesterday!")
    assert current_texts(facts) == ["Ada turned 6 yesterday."]
    assert [f.value for f in facts if f.valid_until is None] == ["6"]
    # a birthday to come is no age yet
    facts = history("Tom is 39.", "Tom turns 40 on May 3.")
    assert "Tom is 39." in current_texts(facts)


@pytest.mark.parametrize(
    ("first", "correction", "now"),
    [
        (
            "My dentist appointment is on the 12th of June.",
            "Actually it's the 14th of June, not the 12th.",
            "My dentist appointment is on the 14th of June.",
        ),
        (
            "My wife Karin and I are going to Crete on September 9.",
            "Sorry, I meant Rhodes, not Crete.",
            "My wife Karin and I are going to Rhodes on September 9.",
        ),
        ("I like coffee.", "I like tea, not coffee.", "I like tea."),
    ],
)
def test_a_correction_that_names_only_the_new_value_rewrites_what_it_corrects(
    first: str, correction: str, now: str
) -> None:
    facts = history(first, correction)
    assert current_texts(facts) == [now]
    assert [f.content for f in facts if f.valid_until is not None] == [first]


def test_retiring_replaces_the_job_and_is_what_one_does_now() -> None:
    facts = history("I work as a nurse.", "I retired in May.")
    assert current_texts(facts) == ["I retired in May."]
    assert current_texts(history("I work as a nurse.", "I'm going to retire next year.")) == [
        "I work as a nurse.",
        "I'm going to retire next year.",
    ]


def test_what_happened_and_do_i_still_are_answered_from_what_ended() -> None:
    from services.cycle.from_facts import answer_from_facts

    facts = history(
        "I ride a Brompton to work.", "My Brompton got stolen last night.", "Got a new bike - a Trek FX 3."
    )
    now = [f for f in facts if f.valid_until is None]
    ended = [f for f in facts if f.valid_until is not None]
    happened = answer_from_facts("What happened to my Brompton?", [], now, earlier=False, history=ended)
    assert happened is not None
    assert happened.text.startswith("Your Brompton got stolen last night (")  # the date spelled out
    facts = history(
        "I'm a translator and I work from home in Valencia.",
        "I've started working at an agency in town, no more working from home.",
    )
    now = [f for f in facts if f.valid_until is None]
    ended = [f for f in facts if f.valid_until is not None]
    still = answer_from_facts("Do I still work from home?", [], now, earlier=False, history=ended)
    assert still is not None
    assert still.text == "Not any more. Now: you've started working at an agency in town."


def test_an_age_said_alone_after_a_name_is_the_users_age() -> None:
    name, age, role = extract_facts("Sam here. 41. Software engineer at Monzo.")
    assert (name.value, age.value, age.attribute) == ("Sam", "41", "age")
    assert "Monzo" in role.text
    assert [f.attribute for f in extract_facts("I have 2 cats. 3 dogs.")] == [stem("cat")]


def test_a_who_is_clause_stays_with_the_name_it_describes() -> None:
    (kids,) = extract_facts("I have two kids: Leo who's 9 and Maya who's 6.")
    assert kids.subject_key == USER
    assert "Maya who is 6" in kids.text


def test_a_subject_of_someone_and_i_is_the_users_and_said_back_as_told() -> None:
    (engaged,) = extract_facts("Dan and I got engaged last month.")
    assert engaged.subject_key == USER
    assert engaged.text == "Dan and I got engaged last month."  # not "I dan and I got ..."


def test_a_relative_named_without_my_is_the_users_and_she_stays_that_relative() -> None:
    name, job = extract_facts("husband is Calum, he drives a bin lorry")
    assert (name.subject_key, name.text) == ("husband", "My husband is Calum.")
    assert (job.subject_key, job.text) == ("husband", "My husband drives a bin lorry.")
    _, said = extract_facts("My sister is Ines, she lives in Faro.")
    assert said.subject_key == "sister"  # not "my sister": the relation the questions look up
    (birthday,) = extract_facts("Dad's birthday is on 3 March.")
    assert birthday.text == "Dad's birthday is on 3 March."  # a capitalised relative is left as said


def test_what_a_doctor_says_is_the_fact_not_that_they_said_it() -> None:
    facts = extract_facts("My dietician says I have to cut down on sugar.")
    assert [f.text for f in facts] == ["I have to cut down on sugar."]  # no "My dietician says."
    (coming,) = extract_facts("Gran said she's visiting on Sunday.")
    assert coming.subject_key == "gran" or coming.text.startswith("Gran")


def test_a_degree_is_what_one_studies_not_the_flatmates_who_are_students() -> None:
    from services.cycle.from_facts import answer_from_facts

    facts = history(
        "I'm doing a masters in urban planning at Cardiff.", "I rent a house with three other students."
    )
    studying = answer_from_facts("What am I studying?", [], facts, earlier=False)
    assert studying is not None
    assert "urban planning" in studying.text


def test_a_fact_naming_someone_who_later_left_is_said_with_that_news() -> None:
    from services.cycle.from_facts import answer_from_facts

    facts = history("I live with my two flatmates, Ravi and Ola.", "Ola moved out last week.")
    now = [f for f in facts if f.valid_until is None]
    ended = [f for f in facts if f.valid_until is not None]
    answer = answer_from_facts("Who do I live with?", [], now, earlier=False, history=ended)
    assert answer is not None
    assert "Since then: Ola moved out last week" in answer.text
    facts = history("My friend Ola teaches yoga.", "Ola doesn't teach yoga anymore.", "I live near Ola.")
    now = [f for f in facts if f.valid_until is None]
    ended = [f for f in facts if f.valid_until is not None]
    answer = answer_from_facts("Where do I live?", [], now, earlier=False, history=ended)
    assert answer is not None
    assert "Since then" not in answer.text  # news of a habit is no news of someone leaving


def test_his_or_her_name_is_the_name_of_who_was_just_mentioned_never_the_users() -> None:
    facts = history(
        "Hi, I'm Lorna.",
        "I have a younger brother. His name is Euan.",
        "We adopted a kitten, her name is Fig.",
    )
    now = current_texts(facts)
    assert "Hi, I'm Lorna." in now or "I'm Lorna." in now  # the user's name is not replaced
    assert "My brother's name is Euan." in now
    assert "We adopted a kitten called Fig." in now
    # no one to give the name to: nothing stored, least of all as the user's name
    assert extract_facts("His name is Tam.") == []


def test_a_pronoun_after_her_name_is_means_that_person() -> None:
    facts = extract_facts("We have a son, his name is Ilya, he is 4 years old.")
    assert [f.subject_key for f in facts][-1] == "ilya"


def test_an_opening_word_before_a_label_before_an_introduction() -> None:
    name, age, role, home = extract_facts("ok so about me: Ines, 33, nurse, live in Porto with my wife")
    assert (name.value, age.value) == ("Ines", "33")
    assert role.text == "I'm a nurse."
    assert home.text == "I live in Porto with my wife."


def test_losing_a_job_replaces_it() -> None:
    facts = history("I work as a welder at a shipyard.", "I was made redundant last week.")
    assert current_texts(facts) == ["I was made redundant last week."]


def test_a_breed_is_the_pet_it_names() -> None:
    from services.cycle.from_facts import answer_from_facts

    facts = history("We've got a corgi called Waffle.")
    answer = answer_from_facts("What's our dog called?", [], facts, earlier=False)
    assert answer is not None
    assert answer.text == "Your corgi is called Waffle."


def test_half_and_little_and_one_are_no_relatives() -> None:
    from services.cycle.from_facts import answer_from_facts

    facts = history(
        "I signed up for the Leeds half marathon on 5 May.", "The Leeds half marathon got cancelled."
    )
    now = [f for f in facts if f.valid_until is None]
    ended = [f for f in facts if f.valid_until is not None]
    answer = answer_from_facts("Is the half marathon still on?", [], now, earlier=False, history=ended)
    assert answer is not None  # "half" had made it a question about the user's partner
    assert answer.text.startswith("Not any more.")
    assert "cancelled" in answer.text


def test_please_call_me_is_the_name_one_goes_by() -> None:
    _, nickname = extract_facts("I'm Margarethe but please call me Greta.")
    assert (nickname.subject_key, nickname.text, nickname.value) == (USER, "I go by Greta.", "Greta")


def test_not_the_old_role_anymore_before_the_new_one_replaces_it() -> None:
    facts = history(
        "I work weekends as a lifeguard at the Pond Street leisure centre.",
        "Not a lifeguard anymore, I've been made swim coach.",
    )
    assert current_texts(facts) == ["I've been made swim coach."]


def test_a_lower_case_greeting_then_a_name_and_an_age_is_an_introduction() -> None:
    name, age, year = extract_facts("hiya! tomasz, 20, second year law at Durham")
    assert (name.value, age.value) == ("Tomasz", "20")
    assert Slot.STUDY in year.slots


def test_a_verb_without_subject_opening_a_sentence_is_a_clause_of_its_own() -> None:
    facts = extract_facts("Changed from nursing to midwifery, nursing burnt me out.")
    assert facts[0].text == "I changed to midwifery."
    assert facts[0].old_value == "nursing"


def test_what_to_call_the_user_is_the_name_they_go_by() -> None:
    from services.cycle.from_facts import answer_from_facts

    facts = history("I'm Bartholomew but please call me Bart.")
    answer = answer_from_facts("What should you call me?", [], facts, earlier=False)
    assert answer is not None
    assert answer.text == "You go by Bart."


def test_the_old_role_named_as_a_doer_replaces_the_fact_of_doing_it() -> None:
    facts = history(
        "I teach piano at a music school in Bath.",
        "Not a piano teacher anymore, I've been made director of the school.",
    )
    assert current_texts(facts) == ["I've been made director of the school."]


def test_moving_from_a_town_does_not_end_a_job_in_that_town() -> None:
    facts = history("I work at a bakery in Leith.", "We moved from Leith to Portobello in May.")
    now = current_texts(facts)
    assert "I work at a bakery in Leith." in now  # found in the terminal: the move had replaced it
    assert len(now) == 2


@pytest.mark.parametrize(
    "message", ["So here's my plan for Monday.", "so here's my plan for Monday", "ok here is the list"]
)
def test_so_or_ok_before_here_is_no_ones_name(message: str) -> None:
    assert not any(
        f.attribute in ("be", stem("name")) and f.value in ("So", "Ok") for f in extract_facts(message)
    )


def _answer(question: str, *messages: str) -> str:
    from services.cycle.from_facts import answer_from_facts

    facts = history(*messages)
    now = [f for f in facts if f.valid_until is None]
    ended = [f for f in facts if f.valid_until is not None]
    found = answer_from_facts(question, [], now, earlier=False, history=ended)
    return found.text if found else ""


def test_a_relative_of_someone_else_is_not_the_users() -> None:
    told = "My son Jamie lives in Bristol with his wife Priti and their baby."
    assert _answer("Who is Priti?", told).startswith("Priti is Jamie's wife.")
    assert "your wife" not in _answer("Who is Priti?", told)
    assert _answer("What's my wife's name?", told) == ""  # the user never named a wife


def test_a_capitalised_word_in_a_question_is_no_misspelt_relative() -> None:
    # "German" is close to "grandma" as typed, but a capitalised word is no typing slip
    said = _answer("When is my German course?", "My German course starts on 3 May.")
    assert "3 May" in said


def test_breaking_up_and_pulling_out_end_what_they_name() -> None:
    facts = history("I have a boyfriend, Piet, he works at a bakery.", "Piet and I broke up last week.")
    assert "I have a boyfriend, Piet." not in current_texts(facts)
    facts = history("I'm training for the Leeds half marathon in May.", "I've pulled out of the race.")
    assert not any("training" in t for t in current_texts(facts))


def test_a_foreign_greeting_and_an_introduction_with_where_from() -> None:
    facts = current_texts(history("hola, I'm Marta, 41, from Seville but I live in Lyon now."))
    assert "I'm Marta." in facts
    assert "I'm 41." in facts
    assert "I'm from Seville." in facts
    assert _answer("Where am I from?", "hola, I'm Marta, 41, from Seville but I live in Lyon now.") == (
        "You're from Seville."
    )


def test_a_pet_named_after_a_comma_with_a_word_before_its_kind() -> None:
    said = _answer("What's my cat's name?", "We share a flat in Leith with our ginger cat, Toffee.")
    assert said == "Your ginger cat is called Toffee."


def test_a_weekly_day_moved_replaces_the_day_not_the_membership() -> None:
    facts = history("I've signed up to the chess club, we meet on Mondays.", "Chess has moved to Fridays.")
    now = current_texts(facts)
    assert "I've signed up to the chess club." in now
    assert "We meet on Mondays." not in now
    facts = history("I coach the under-tens on Saturdays.", "I've switched my coaching day to Sundays.")
    assert "I coach the under-tens on Saturdays." not in current_texts(facts)


@pytest.mark.parametrize(
    ("message", "told"),
    [
        ("I'm allergic to shellfish, forgot to say.", ["I'm allergic to shellfish."]),
        ("Just so you know, I'm pescatarian.", ["I'm pescatarian."]),
        ("I forgot to mention that I have a hamster called Nibbles.", ["I have a hamster called Nibbles."]),
        ("Here's the thing. I can't stand early starts.", ["I can't stand early starts."]),
    ],
)
def test_a_remark_about_telling_is_not_itself_a_fact(message: str, told: list[str]) -> None:
    assert current_texts(history(message)) == told


def test_an_occasion_named_after_relatives_moved_to_an_ordinal_day() -> None:
    told = ("Parents' evening is on 3 October.", "Parents' evening got moved to the 10th.")
    said = _answer("When is parents' evening?", *told)
    assert said == "Parents' evening got moved to the 10th."


def test_a_trip_called_off_ends_the_plan() -> None:
    facts = history("We're flying to Lisbon on 2 May for my cousin's wedding.", "The Lisbon trip is off.")
    assert not any("Lisbon on 2 May" in t for t in current_texts(facts))


def test_a_pet_rehomed_is_no_longer_counted() -> None:
    told = ("We have two rabbits, Clover and Bean.", "Bean was rehomed.")
    said = _answer("What are my rabbits called?", *told)
    assert said == "Your rabbit is called Clover."


def test_a_clause_without_a_subject_after_the_users_own_is_the_users() -> None:
    assert current_texts(history("I'm not vegan anymore, started eating eggs again")) == [
        "I'm not vegan anymore.",
        "I started eating eggs again.",
    ]


def test_a_break_up_said_with_the_partner_first_keeps_the_home_and_is_said_as_news() -> None:
    home = "I live in Hull with my boyfriend Dario and our dog, Pip."
    told = (home, "Dario and I broke up, he went to Leeds.")
    facts = history(*told)
    now = current_texts(facts)
    assert home in now  # still where the user lives
    assert "Dario went to Leeds." in now  # "he" is Dario
    assert "Dario and I broke up." in [f.content for f in facts]
    said = _answer("Do I have a boyfriend?", *told)
    assert said.startswith("You live in Hull with your boyfriend Dario and your dog, Pip. Since then: Dario")


def test_a_clause_going_on_about_what_was_just_said_is_found_by_it() -> None:
    from services.common.understanding import asks_history
    from services.cycle.from_facts import answer_from_facts

    told = ("I've signed up for a pottery class, we meet on Mondays.", "Pottery has moved to Fridays.")
    assert _answer("What day is pottery?", *told) == "Pottery has moved to Fridays."
    for question in ("What day was pottery before?", "What day did pottery use to be?"):
        assert asks_history(question)
        facts = history(*told)
        earlier = [f for f in facts if f.valid_until is not None]
        found = answer_from_facts(question, [], earlier, earlier=True)
        assert found is not None
        assert "you meet on Mondays" in found.text


def test_someone_elses_partner_does_not_answer_about_the_users() -> None:
    told = ("I live in Bath with my wife Cerys.", "Our son Rhys lives in Cardiff with his wife Anwen.")
    assert _answer("Where does my wife live?", *told) == "You live in Bath with your wife Cerys."


def test_a_student_with_a_part_time_job_is_both() -> None:
    told = ["I'm a second year history student at Durham.", "I've got a part-time job at Costa."]
    assert current_texts(history(*told)) == told


def test_a_deadline_extended_replaces_the_due_date() -> None:
    told = ("My thesis is due on 2 June.", "The thesis deadline got extended to 30 June.")
    assert _answer("When is my thesis due?", *told) == "The thesis deadline got extended to 30 June."


def test_a_carer_who_retired_and_the_new_ones_time_of_day() -> None:
    told = (
        "My carer Brenda comes every evening at 6.",
        "Brenda has retired, my new carer is called Tomasz.",
        "Tomasz comes at 7 instead of 6.",
    )
    assert _answer("What time does my carer come?", *told) == "Tomasz comes at 7."
    facts = history(*told)
    earlier = [f for f in facts if f.valid_until is not None]
    from services.cycle.from_facts import answer_from_facts

    before = answer_from_facts("Who was my carer before?", [], earlier, earlier=True)
    assert before is not None
    assert "Brenda comes every evening at 6" in before.text


def test_a_diagnosis_a_gig_job_and_starting_a_business() -> None:
    assert _answer("What health conditions do I have?", "I was diagnosed with glaucoma.") == (
        "You were diagnosed with glaucoma."
    )
    told = ("I deliver for Deliveroo.", "stopped delivering for Deliveroo, set up my own cleaning firm")
    assert current_texts(history(*told)) == ["I set up my own cleaning firm."]
    assert _answer("What do I do for work?", *told) == "You set up your own cleaning firm."


def test_a_staffie_is_a_dog() -> None:
    said = _answer("What's my dog called?", "We've got a staffie called Bruno.")
    assert said == "Your staffie is called Bruno."


def test_his_name_after_a_pet_with_a_time_names_the_pet_and_running_a_place_is_a_job() -> None:
    told = "We got a puppy on Saturday, her name is Nell."
    assert current_texts(history(told)) == ["We got a puppy called Nell on Saturday."]
    assert _answer("What's my dog called?", told) == "Your puppy is called Nell."
    assert _answer("Where do I work?", "I run a bike shop in Ripon.") == "You run a bike shop in Ripon."


def test_a_changed_diet_leaves_a_health_condition_and_a_verbless_clause_keeps_its_words() -> None:
    facts = history("I'm coeliac, so no gluten at all for me.", "I'm not pescatarian anymore.")
    assert current_texts(facts)[:2] == ["I'm coeliac.", "No gluten at all for me."]
    assert "I'm pescatarian." not in current_texts(history("I'm pescatarian.", "I'm vegan now."))


def test_a_question_of_one_thing_in_two_slots_is_not_answered_with_a_later_fact_of_one() -> None:
    told = (
        "I commute on a Trek hybrid.",
        "I'm doing a 50 mile sponsored ride on 3 May.",
        "My Trek got stolen, so I'm commuting on an e-bike for now.",
        "The sponsored ride got moved to 10 May.",
    )
    assert _answer("What bike do I commute on now?", *told) == "You're commuting on an e-bike for now."


def test_every_pet_a_relation_knows_is_a_pet_of_the_slots() -> None:
    from services.knowledge.record.slots import fact_slots, relation_word

    for breed in ("staffy", "pitbull", "whippet", "kitty", "bunny", "pup"):
        assert relation_word(breed) is not None
        assert Slot.PET in fact_slots(f"I got a {breed} called Rolo.")


def test_a_before_answer_says_what_ended_the_earlier_fact() -> None:
    from services.cycle.from_facts import answer_from_facts

    facts = history("I drive a 2009 Honda Jazz.", "I sold the Jazz.", "I bought a Mazda 2.")
    earlier = [f for f in facts if f.valid_until is not None]
    found = answer_from_facts("What car did I have before?", [], earlier, earlier=True)
    assert found is not None
    assert found.text.startswith("Earlier you told me: you drive a 2009 Honda Jazz. That changed on ")
    assert found.text.endswith(": you sold the Jazz.")
