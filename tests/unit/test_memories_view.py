"""The read model "What I know about you" (services/views/memories.py), built from facts in memory:
grouping by subject, the history chain, the summary from current facts only, where each fact came
from; and how a correction is read (services/knowledge/memory_edits.py)."""

from __future__ import annotations

from services.knowledge.memory_edits import as_told
from services.views.memories import CORRECTION, NOTHING_YET, SUMMARY_FACTS, FactBook, memories_view
from thea.client import specs
from thea.models import Fact, FactOrigin, UserImpulse

DAY = 86_400_000
T0 = 1_700_000_000_000


def fact(
    fid: str,
    content: str,
    *,
    key: str = "user",
    subject: str = "you",
    attribute: str = "liv",
    value: str = "",
    at: int = T0,
    until: int | None = None,
    by: str | None = None,
    origin: FactOrigin = FactOrigin.SAID,
    source: str | None = None,
    change: str = "none",
) -> Fact:
    return Fact(
        id=fid,
        content=content,
        user_id="ana",
        subject_key=key,
        subject=subject,
        attribute=attribute,
        value=value,
        created_at=at,
        valid_from=at,
        valid_until=until,
        superseded_by=by,
        origin=origin,
        source_message_id=source or f"m-{fid}",
        change=change,
    )


def message(mid: str, text: str, at: int = T0) -> UserImpulse:
    return UserImpulse(id=mid, content=text, user_id="ana", created_at=at)


def test_current_facts_are_grouped_by_subject_the_user_first_then_by_name() -> None:
    facts = [
        fact("f1", "I live in Leeds.", at=T0),
        fact("f2", "Zoe is a pilot.", key="zoe", subject="Zoe", attribute="be-a", at=T0 + 1),
        fact("f3", "My partner Sam is a carpenter.", key="sam", subject="Sam", attribute="be-a", at=T0 + 2),
        fact("f4", "I'm allergic to peanuts.", attribute="be-allergic", at=T0 + 3),
    ]
    view = memories_view(facts)
    assert [(g.key, g.name) for g in view.subjects] == [("user", "You"), ("sam", "Sam"), ("zoe", "Zoe")]
    assert [f.id for f in view.subjects[0].facts] == ["f4", "f1"]  # newest first
    assert view.subjects[0].facts[0].text == "You're allergic to peanuts."
    assert view.subjects[1].facts[0].text == "Your partner Sam is a carpenter."
    assert view.count == 4


def test_history_follows_superseded_by_backwards_through_the_whole_chain() -> None:
    facts = [
        fact("york", "I live in York.", value="in York", at=T0 + 2 * DAY),
        fact("leeds", "I live in Leeds.", value="in Leeds", at=T0 + DAY, until=T0 + 2 * DAY, by="york"),
        fact("bath", "I live in Bath.", value="in Bath", at=T0, until=T0 + DAY, by="leeds"),
        fact("cat", "I have a cat.", attribute="hav", at=T0),
    ]
    view = memories_view(facts)
    (you,) = view.subjects
    assert [f.id for f in you.facts] == ["york", "cat"]  # earlier values are not current facts
    york = you.facts[0]
    assert [(e.id, e.value, e.until) for e in york.history] == [
        ("leeds", "in Leeds", T0 + 2 * DAY),
        ("bath", "in Bath", T0 + DAY),
    ]
    assert york.history[0].text == "You live in Leeds."
    assert you.facts[1].history == []
    assert memories_view(facts, include_history=False).subjects[0].facts[0].history == []


def test_a_loop_in_superseded_by_does_not_hang_the_history() -> None:
    a = fact("a", "I live in A.", by="b", until=T0 + 1)
    b = fact("b", "I live in B.", by="a", until=T0 + 1)
    assert [f.id for f in FactBook([a, b]).history(a)] == ["b"]


def test_the_summary_is_made_from_current_facts_only() -> None:
    facts = [
        fact("york", "I live in York.", at=T0 + DAY),
        fact("leeds", "I live in Leeds.", at=T0, until=T0 + DAY, by="york"),
        fact("sam", "Sam is a carpenter.", key="sam", subject="Sam", attribute="be-a"),
        fact("old", "Sam is a baker.", key="sam", subject="Sam", attribute="be-a", until=T0 + 5),
    ]
    summary = memories_view(facts).summary
    assert summary == "You: you live in York. Sam: Sam is a carpenter."
    assert memories_view([]).summary == NOTHING_YET
    many = [
        fact(f"f{i}", f"I like colour {i}.", attribute=f"lik{i}", at=T0 + i) for i in range(SUMMARY_FACTS + 2)
    ]
    assert memories_view(many).summary.endswith("(and 2 more).")


def test_each_fact_says_where_it_came_from() -> None:
    facts = [
        fact("said", "I live in York.", source="m1"),
        fact("lost", "I work as a nurse.", attribute="work", source="m-gone"),
        fact("told", "I am vegan.", attribute="be", origin=FactOrigin.TOLD, source="chat-last"),
        fact("fixed", "I am a teacher.", attribute="be-a", origin=FactOrigin.TOLD, change=CORRECTION),
    ]
    messages = [message("m1", "Hi! I live in York.", T0), message("chat-last", "What's up?", T0)]
    by_id = {f.id: f for g in memories_view(facts, messages).subjects for f in g.facts}
    said = by_id["said"].source
    assert (said.kind, said.id, said.text, said.at) == ("message", "m1", "Hi! I live in York.", T0)
    assert said.label.startswith("you said on 14 November 2023: ")
    assert by_id["lost"].source.kind == "message"
    assert "no longer stored" in by_id["lost"].source.label
    told = by_id["told"].source
    assert told.kind == "fact_command"
    assert told.id is None  # the chat's last message did not tell it
    assert told.label.startswith("told with !fact")
    fixed = by_id["fixed"].source
    assert (fixed.kind, fixed.text) == ("correction", "I am a teacher.")
    assert fixed.label.startswith("your correction on")


def test_a_correction_is_read_as_the_user_would_tell_it() -> None:
    leeds = fact("leeds", "I live in Leeds.")
    sam = fact("sam", "My partner Sam is a carpenter.", key="sam", subject="Sam", attribute="be-a")
    assert as_told("You live in York.", leeds) == "I live in York."  # as the list shows it
    assert as_told("I live in York.", leeds) == "I live in York."
    assert as_told("He is a plumber.", sam) == "Sam is a plumber."
    assert as_told("He's a plumber.", sam) == "Sam is a plumber."
    assert as_told("Your partner Sam is a plumber.", sam) == "My partner Sam is a plumber."
    assert as_told("Hello there", sam) == "Hello there"


def test_the_clients_call_the_fact_routes() -> None:
    assert (specs.memories().method, specs.memories().url) == ("GET", "/api/v1/facts")
    assert specs.memories(include_history=False).params == {"include_history": "false"}
    assert specs.memory("ab12").url == "/api/v1/facts/ab12"
    correct = specs.correct_memory("ab12", "I live in York.")
    assert (correct.method, correct.json) == ("PATCH", {"action": "correct", "text": "I live in York."})
    assert specs.outdate_memory("ab12").json == {"action": "outdate"}
    assert (specs.forget_memory("a/b").method, specs.forget_memory("a/b").url) == (
        "DELETE",
        "/api/v1/facts/a%2Fb",
    )
