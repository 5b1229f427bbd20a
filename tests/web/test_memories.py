"""What thea knows about you, and your hand on it, through the service's API (issue 23): tell three
facts in a chat, list them grouped by subject, correct one, delete one, then ask about both in a
new conversation: the answer's prompt holds the correction and not the old value, and the deleted
fact is nowhere (graph, vectors, chronicle text, recall, insights). Real engines, scripted model."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi.testclient import TestClient

from services.views.trace import load_trace
from tests.claims_support import said, scripted_reader
from tests.service_support import chat, done_of
from thea.api import PREFIX
from thea.api.models import FactEditResult, FactOfRecordView, FactsOfRecordView
from thea.llm.fake import StreamingFakeChatModel
from thea.llm.prompt_ids import PromptId
from thea.memory.consistency import Issue, check
from thea.memory.erasure import FORGOTTEN_EVENT
from thea.models import Collection, EdgeType, now_ms
from thea.runtime import Runtime
from thea.testing.service import service_app

FACTS = f"{PREFIX}/facts"
TOLD = ["I live in Leeds.", "My partner Sam is a carpenter.", "I'm allergic to peanuts."]
#: what the (scripted) model reads in them
READ = {
    "Leeds": [said("I live in Leeds", "home", "Leeds")],
    "Sam": [
        said("My partner Sam", "name", "Sam", subject="Sam", relation="partner"),
        said("Sam is a carpenter", "job", "carpenter", subject="Sam", relation="partner"),
    ],
    "peanuts": [said("I'm allergic to peanuts", "allergy", "peanuts")],
}


def listed(client: TestClient, **params: Any) -> FactsOfRecordView:
    response = client.get(FACTS, params=params)
    assert response.status_code == 200, response.text
    return FactsOfRecordView.model_validate(response.json())


def find(view: FactsOfRecordView, words: str) -> FactOfRecordView:
    return next(f for group in view.subjects for f in group.facts if words in f.text)


def synthesis_prompt(llm: StreamingFakeChatModel) -> str:
    prompts = llm.prompts_for(PromptId.SYNTHESIS)
    assert prompts, "the model was not asked"
    return "\n".join(str(m.content) for m in prompts[-1])


def recall_report(runtime: Runtime, impulse_id: str) -> list[dict[str, Any]]:
    trace = load_trace(runtime.memory, impulse_id)
    report = next(s.report for s in trace.steps if s.task.step == "recall")
    assert report is not None
    hits: list[dict[str, Any]] = report.output["hits"]
    return hits


def test_tell_list_correct_forget_then_ask_in_a_new_chat(
    client: TestClient, runtime: Runtime, llm: StreamingFakeChatModel
) -> None:
    llm.answer(PromptId.EXTRACT_CLAIMS, scripted_reader(READ))
    impulses = [done_of(chat(client, text, session="tell"))["impulse_id"] for text in TOLD]
    asyncio.run(asyncio.to_thread(runtime.run_jobs))  # the claims and insights of each message

    view = listed(client)
    assert [(g.key, g.name) for g in view.subjects][:2] == [("user", "You"), ("sam", "Sam")]
    assert {f.text for f in view.subjects[0].facts} >= {"Your home: Leeds.", "Your allergy: peanuts."}
    leeds, peanuts, sam = find(view, "Leeds"), find(view, "peanuts"), find(view, "Sam")
    assert sam.subject == "Sam"
    assert leeds.source.kind == "message"
    assert leeds.source.id == impulses[0]
    assert leeds.source.text == "I live in Leeds"  # the words that say it
    assert leeds.source.at is not None
    assert leeds.since <= now_ms()
    assert view.summary.startswith("You: ")
    assert "your home: Leeds" in view.summary
    assert "Sam: Sam (your partner), job: carpenter" in view.summary
    assert peanuts.category == "constraint"
    resting = runtime.memory.facts.insights_resting_on([impulses[2]], "local")
    assert resting, "the slow loop made an insight of the allergy"
    on_leeds = runtime.memory.facts.insights_resting_on([impulses[0]], "local")
    assert on_leeds

    # one fact, by a prefix of its id
    one = client.get(f"{FACTS}/{peanuts.id[:10]}")
    assert one.status_code == 200, one.text
    assert FactOfRecordView.model_validate(one.json()).id == peanuts.id

    # correct: the correction supersedes, history kept
    corrected = client.patch(f"{FACTS}/{leeds.id[:8]}", json={"action": "correct", "text": "York"})
    assert corrected.status_code == 200, corrected.text
    edit = FactEditResult.model_validate(corrected.json())
    assert edit.action == "correct"
    assert leeds.id in edit.closed
    (york,) = edit.facts
    assert york.text == "Your home: York."
    assert york.source.kind == "correction"
    assert [e.id for e in york.history] == [leeds.id]
    old = runtime.memory.get([leeds.id])[0]
    assert getattr(old, "valid_until", None) is not None
    assert getattr(old, "superseded_by", None) == york.id
    assert old.id in {n.id for n in runtime.memory.neighbourhood(york.id, 1, [EdgeType.SUPERSEDES]).nodes}
    assert runtime.memory.facts.insights_resting_on([impulses[0]], "local") == []  # re-checked
    assert set(edit.insights_superseded) == {k.id for k in on_leeds}

    # forget: gone from every layer; the chronicle keeps only that a deletion happened
    deleted = client.delete(f"{FACTS}/{peanuts.id}")
    assert deleted.status_code == 200, deleted.text
    gone = FactEditResult.model_validate(deleted.json())
    assert gone.action == "forget"
    # the insights resting on it are erased, and any other that held its words
    assert {k.id for k in resting} <= set(gone.insights_superseded)
    assert runtime.memory.get(gone.insights_superseded) == []
    assert runtime.memory.get([peanuts.id]) == []
    assert runtime.memory.vectors.existing_ids(Collection.EXPERIENCE, [peanuts.id]) == set()
    assert runtime.memory.chronicle.existing_ids([peanuts.id]) == set()
    erasures = [e for e in runtime.memory.chronicle.latest(50, user_id="local") if e.type == FORGOTTEN_EVENT]
    # one record per memory erased (the fact, the insights), none saying what it was
    assert len(erasures) == 1 + len(gone.insights_superseded)
    assert {e.summary for e in erasures} == {""}
    assert not check(runtime.memory).found[Issue.ORPHAN_EVENTS]  # the erasure record is no orphan
    assert client.get(f"{FACTS}/{peanuts.id}").status_code == 404
    assert client.delete(f"{FACTS}/{peanuts.id}").status_code == 404

    after = listed(client)
    texts = [f.text for g in after.subjects for f in g.facts]
    assert "Your home: York." in texts
    assert not any("Leeds" in t or "peanut" in t for t in texts)
    assert "York" in after.summary
    assert "Leeds" not in after.summary  # the summary is made of current facts only
    assert "peanut" not in after.summary
    assert [e.value for e in find(after, "York").history] == ["Leeds"]
    assert find(listed(client, include_history="false"), "York").history == []

    # a new conversation: the correction is the current value, the deleted fact is unknown
    llm.calls.clear()
    where = done_of(chat(client, "What's my home?", session="later"))
    assert where["answer"].startswith("Your home: York.")  # the correction, said back
    llm.calls.clear()
    near = done_of(chat(client, "Do you know a good cafe near where I live?", session="later-1"))
    prompt = synthesis_prompt(llm)  # no plain answer: the model, with the current claim
    assert "Your home: York." in prompt
    assert "Leeds" not in prompt.split("EARLIER", 1)[0]
    llm.calls.clear()
    allergy = done_of(chat(client, "What am I allergic to?", session="later-2"))
    assert "peanut" not in allergy["answer"].lower()
    for sent in llm.prompts_for(PromptId.SYNTHESIS):  # a rule may answer without the model
        assert "peanut" not in "\n".join(str(m.content) for m in sent).lower()
    for impulse in (where["impulse_id"], near["impulse_id"], allergy["impulse_id"]):
        hits = recall_report(runtime, impulse)
        assert peanuts.id not in {h["id"] for h in hits}
        assert not any("peanut" in h["text"].lower() for h in hits)
        assert not any("Leeds" in h["text"] for h in hits if h["type"] == "Fact")
    recalled = client.post(f"{PREFIX}/recall", json={"query": "allergic to peanuts", "limit": 20}).json()
    assert not any("peanut" in m["text"].lower() for m in recalled["memories"])
    active = client.get(f"{PREFIX}/insights").json()["insights"]
    assert not any("peanut" in k["content"].lower() for k in active)


def test_outdate_closes_a_fact_without_a_replacement(client: TestClient, runtime: Runtime) -> None:
    done_of(chat(client, "I drive a red Fiat Panda.", session="car"))
    asyncio.run(asyncio.to_thread(runtime.run_jobs))  # the slow loop reads it (the fake: a note)
    panda = find(listed(client), "Panda")
    outdated = client.patch(f"{FACTS}/{panda.id}", json={"action": "outdate"})
    assert outdated.status_code == 200, outdated.text
    assert FactEditResult.model_validate(outdated.json()).closed == [panda.id]
    assert not any("Panda" in f.text for g in listed(client).subjects for f in g.facts)
    shown = FactOfRecordView.model_validate(client.get(f"{FACTS}/{panda.id}").json())
    assert shown.current is False
    assert shown.until is not None
    assert shown.superseded_by is None
    again = client.patch(f"{FACTS}/{panda.id}", json={"action": "correct", "text": "I drive a Skoda."})
    assert again.status_code == 400  # only a current fact is corrected or outdated
    assert "no longer holds" in again.json()["error"]


def test_another_users_fact_is_exactly_as_missing_as_no_fact(client: TestClient, runtime: Runtime) -> None:
    done_of(chat(client, "My sister Mia is a nurse.", session="mia"))
    asyncio.run(asyncio.to_thread(runtime.run_jobs))
    mia = find(listed(client), "Mia")
    bob = {"X-Thea-User": "bob"}  # a user named by the caller: on the unix socket only
    assert listed(client, **{}).count >= 1
    assert client.get(FACTS, headers=bob).status_code == 401  # on TCP the token is the user
    socket = TestClient(service_app(runtime, transport="unix"), base_url="http://localhost")
    theirs = socket.get(FACTS, headers=bob).json()
    assert theirs["count"] == 0
    for method, kwargs in [
        ("GET", {}),
        ("PATCH", {"json": {"action": "correct", "text": "Mia is a doctor."}}),
        ("PATCH", {"json": {"action": "outdate"}}),
        ("DELETE", {}),
    ]:
        foreign = socket.request(method, f"{FACTS}/{mia.id}", headers=bob, **kwargs)
        missing = socket.request(method, f"{FACTS}/ffffffff-0000", headers=bob, **kwargs)
        assert foreign.status_code == missing.status_code == 404
        assert foreign.json()["kind"] == missing.json()["kind"] == "not_found"
        assert foreign.json()["error"].replace(mia.id, "X") == missing.json()["error"].replace(
            "ffffffff-0000", "X"
        )
    assert find(listed(client), "Mia").current  # untouched
    bad = client.patch(f"{FACTS}/{mia.id}", json={"action": "rename"})
    assert bad.status_code == 422 or bad.status_code == 400
    empty = client.patch(f"{FACTS}/{mia.id}", json={"action": "correct", "text": ""})
    assert empty.status_code in (400, 422)
    assert client.get(f"{FACTS}/..%2Fetc").status_code in (400, 404, 422)


def test_memories_in_chat_list_correct_outdate_forget(client: TestClient, runtime: Runtime) -> None:
    done_of(chat(client, "My cat Pixel is four years old.", session="pets"))
    asyncio.run(asyncio.to_thread(runtime.run_jobs))
    [(kind, data)] = [(k, d) for k, d in chat(client, "!memories", session="pets") if k == "command"]
    assert kind == "command"
    assert "Pixel" in data["text"]
    pixel = find(FactsOfRecordView.model_validate(data["data"]), "Pixel")
    assert pixel.id[:8] in data["text"]
    events = chat(client, f"!memories correct {pixel.id[:8]} Pixel is five years old.", session="pets")
    (result,) = [d for k, d in events if k == "command"]
    assert result["text"].startswith(f"corrected {pixel.id[:8]}")
    (five,) = FactEditResult.model_validate(result["data"]).facts
    events = chat(client, f"!memories forget {five.id[:8]}", session="pets")
    (result,) = [d for k, d in events if k == "command"]
    assert result["text"].startswith(f"deleted {five.id[:8]}")
    errors = [d for k, d in chat(client, "!memories rename x", session="pets") if k == "error"]
    assert errors
    assert "usage: !memories" in errors[0]["error"]
    (helped,) = [d for k, d in chat(client, "!help", session="pets") if k == "command"]
    assert "!memories" in helped["text"]


def test_the_routes_are_documented(client: TestClient) -> None:
    schema = client.get(f"{PREFIX}/openapi.json").json()
    facts = schema["paths"][f"{PREFIX}/facts"]
    assert set(facts) == {"get", "post", "delete"}  # delete: everything about a subject
    assert facts["delete"]["summary"]
    assert "404" in facts["delete"]["responses"]
    one = schema["paths"][f"{PREFIX}/facts/{{fact_id}}"]
    assert set(one) == {"get", "patch", "delete"}
    for operation in (facts["get"], *one.values()):
        assert operation["summary"]
    assert "404" in one["delete"]["responses"]
    body = one["patch"]["requestBody"]["content"]["application/json"]["schema"]
    assert "discriminator" in body or "oneOf" in body or "anyOf" in body
