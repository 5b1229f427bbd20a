"""The web page end to end in headless Chromium (Playwright) against a live uvicorn server
on a real embedded runtime with the scripted, streaming fake model."""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from tests.web.conftest import TOKEN
from thea.config import Settings
from thea.llm.fake import StreamingFakeChatModel
from thea.llm.prompt_ids import PromptId
from thea.models import Claim, Evidence, KnowledgeCrystal
from thea.runtime import Runtime
from thea.testing.seed import seed_insights
from thea.testing.service import LiveServer, service_app

CHROMIUM = Path("/usr/bin/chromium")
pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="needs the Debian chromium package at /usr/bin/chromium"
)
sync_api = pytest.importorskip("playwright.sync_api", reason="needs playwright (pip install -e '.[dev]')")

XSS = '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">'


#: each visit is its own user of a shared service (a token per user), so tests never see
#: each other's memories
VISITORS = [f"visitor-{i:02d}" for i in range(40)]
_next_visitor = itertools.count()


def visitor_settings(runtime: Runtime) -> Settings:
    """The runtime's settings with a token per visitor."""
    tokens = {user: SecretStr(f"token-of-{user}") for user in VISITORS}
    tokens["local"] = SecretStr(TOKEN)
    service = runtime.settings.service.model_copy(update={"tokens": tokens})
    return runtime.settings.model_copy(update={"service": service})


@pytest.fixture(scope="module")
def server(runtime: Runtime) -> Iterator[LiveServer]:
    with LiveServer(service_app(runtime, visitor_settings(runtime))) as live:
        yield live


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True)
        try:
            yield chromium
        finally:
            chromium.close()


@dataclasses.dataclass
class Visit:
    page: Any
    url: str
    user_id: str
    errors: list[str]


@pytest.fixture
def visit(browser: Any, server: LiveServer) -> Iterator[Visit]:
    """A fresh browser context opened on a visitor's token address, as `thea serve` prints it
    (so the test knows its user); the cookie carries it from then on."""
    user = VISITORS[next(_next_visitor)]
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.set_default_timeout(10_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.goto(f"{server.url}/?token=token-of-{user}")
    try:
        yield Visit(page=page, url=server.url, user_id=user, errors=errors)
    finally:
        context.close()


def say(page: Any, text: str) -> Any:
    """Type a message, send it with Enter, and return the answer bubble once it is complete."""
    before = page.locator("#messages li.msg").count()
    page.fill("#input", text)
    page.press("#input", "Enter")
    answer = page.locator("#messages li.msg").nth(before + 1)
    page.wait_for_function(
        "i => { const m = document.querySelectorAll('#messages li.msg')[i];"
        " return m && !m.classList.contains('streaming'); }",
        arg=before + 1,
    )
    return answer


def test_chat_streams_an_answer_and_its_trace_opens(visit: Visit, llm: StreamingFakeChatModel) -> None:
    page = visit.page
    llm.token_delay_s = 0.15
    page.fill("#input", "Which Redis queues does the team use?")
    page.press("#input", "Enter")
    # while streaming, the bubble shows a part of the answer, then all of it
    page.wait_for_function(
        "() => { const m = document.querySelector('#messages li.msg.thea.streaming .text');"
        " return m && m.textContent.length > 0 && m.textContent !== 'Here is my answer.'; }"
    )
    answer = page.locator("#messages li.msg.thea").last
    sync_api.expect(answer.locator(".text")).to_have_text("Here is my answer.")
    asked = ["Which Redis queues does the team use?"]
    sync_api.expect(page.locator("#messages li.msg.user")).to_have_text(asked)

    answer.get_by_role("button", name="How I got this").click()
    panel = page.locator("#trace-panel")
    sync_api.expect(panel).to_be_visible()
    sync_api.expect(panel.locator(".impulse")).to_have_text("Which Redis queues does the team use?")
    steps = panel.locator("li.step")
    sync_api.expect(steps.locator(".step-name")).to_have_text(["instinct", "plan", "recall", "synthesis"])
    sync_api.expect(steps.locator(".badge")).to_have_text(["SUCCESS"] * 4)
    sync_api.expect(steps.nth(1)).to_contain_text("concepts: Redis")
    sync_api.expect(steps.nth(3)).to_contain_text("FinalResponse: Here is my answer.")
    panel.locator("#close-trace").click()
    sync_api.expect(panel).to_be_hidden()
    assert visit.errors == []


def test_the_trace_shows_what_was_recalled_and_the_prompt_on_request(visit: Visit) -> None:
    page = visit.page
    say(page, "I work on Redis queues.")
    # (not "What do I work on?": the fact itself answers that, with no model and no prompt)
    question = "Which of my queues gets most traffic, do you think?"
    asked = say(page, question)
    asked.get_by_role("button", name="How I got this").click()
    recall = page.locator("#trace-panel li.step").nth(2)
    memory = recall.locator("li.hit", has_text="I work on Redis queues.").first
    sync_api.expect(memory.locator(".hit-text")).to_have_text("I work on Redis queues.")
    sync_api.expect(memory.locator(".badge")).to_have_text("in prompt")
    sync_api.expect(memory.locator(".hit-type")).to_have_text(re.compile(r"^(UserImpulse|Fact)$"))
    sync_api.expect(memory.locator(".stage-scores")).to_contain_text("keywords")
    prompt = page.locator("#trace-panel details.prompt")
    sync_api.expect(prompt.locator("summary")).to_contain_text("Prompt sent to the model (synthesis v")
    sync_api.expect(prompt.locator(".prompt-message")).to_have_count(0)  # fetched when opened
    prompt.locator("summary").click()
    messages = prompt.locator(".prompt-message")
    sync_api.expect(messages.first.locator(".role")).to_have_text("system")
    sync_api.expect(messages.first.locator("pre")).to_contain_text("You are thea")
    sync_api.expect(messages.first.locator("pre")).to_contain_text("REFERENCE MEMORY")
    sync_api.expect(messages.last.locator("pre")).to_have_text(question)
    assert visit.errors == []


def test_a_failed_step_is_highlighted(visit: Visit, llm: StreamingFakeChatModel) -> None:
    page = visit.page
    llm.fail = {PromptId.SYNTHESIS}
    answer = say(page, "Can you suggest a name for my new project?")
    sync_api.expect(answer.locator(".failed")).to_have_text("failed steps: synthesis")
    answer.get_by_role("button", name="How I got this").click()
    failed = page.locator("#trace-panel li.step.FAILURE")
    sync_api.expect(failed).to_have_count(1)
    sync_api.expect(failed.locator(".step-name")).to_have_text("synthesis")
    sync_api.expect(failed.locator(".err")).to_contain_text("scripted failure in synthesis")
    sync_api.expect(page.locator("#trace-panel .summary .badge")).to_have_text("1 failed")


def test_insights_page_filters_and_shows_lineage(visit: Visit, runtime: Runtime) -> None:
    page = visit.page
    seeded = seed_insights(runtime.memory, user_id=visit.user_id, concept="Redis")
    page.click("#tab-insights")
    rows = page.locator("#insights-table tbody tr.insight")
    sync_api.expect(rows).to_have_count(2)  # active only, strongest first
    sync_api.expect(rows.locator("td.content")).to_have_text([seeded.merged.content, seeded.weak.content])
    sync_api.expect(rows.first.locator("td.strength")).to_have_text("2.50")
    sync_api.expect(rows.first.locator(".chip")).to_have_text(["Redis"])

    page.select_option("#insight-state", "archived")
    sync_api.expect(rows).to_have_count(2)
    sync_api.expect(rows.locator(".badge")).to_have_text(["archived", "archived"])
    page.select_option("#insight-state", "all")
    page.fill("#insight-min", "2")
    page.click("#insight-refresh")
    sync_api.expect(rows).to_have_count(1)
    page.fill("#insight-min", "0")
    page.click("#insight-refresh")
    sync_api.expect(rows).to_have_count(4)
    page.locator("#insights-table .chip", has_text="Gardening").click()  # filter by a concept chip
    sync_api.expect(rows.locator("td.content")).to_have_text([seeded.weak.content])

    page.fill("#insight-concept", "")
    page.click("#insight-refresh")
    page.locator("tr.insight", has_text=seeded.merged.content).click()
    detail = page.locator("#insight-detail")
    sync_api.expect(detail.locator(".insight-text")).to_have_text(seeded.merged.content)
    merged_from = detail.locator(".lineage", has_text="Merged from").locator("li")
    sync_api.expect(merged_from).to_have_count(2)
    sync_api.expect(merged_from.first).to_contain_text("archived")
    merged_from.filter(has_text=seeded.first.content).get_by_role("button").click()
    sync_api.expect(detail.locator(".insight-text")).to_have_text(seeded.first.content)
    sync_api.expect(detail.locator(".lineage", has_text="Merged into")).to_contain_text(seeded.merged.content)
    sync_api.expect(detail).to_contain_text("I use Redis streams for my job queue.")  # source impulse
    assert visit.errors == []


def test_an_unverified_insight_shows_each_claim_with_its_status_and_evidence(
    visit: Visit, runtime: Runtime
) -> None:
    ok = Claim(
        text="Ana works on Redis queues.",
        status="supported",
        support=1.0,
        evidence=[Evidence(source_id="imp-1", kind="UserImpulse", quote="I work on Redis queues.")],
    )
    bad = Claim(
        text="Ana is a renowned core developer.",
        status="unsupported",
        support=0.25,
        reason="not in its evidence: core, developer, renowned",
    )
    insight = KnowledgeCrystal(
        content=f"{ok.text} {bad.text}",
        active=False,
        verification="unverified",
        support=0.25,
        verification_reason=bad.reason,
        evidence=ok.evidence,
        claims=[ok, bad],
        user_id=visit.user_id,
    )
    runtime.memory.record([insight])
    page = visit.page
    page.click("#tab-insights")
    page.select_option("#insight-state", "unverified")
    page.locator("tr.insight", has_text="renowned").click()
    claims = page.locator("#insight-detail .claims > li")
    sync_api.expect(claims).to_have_count(2)
    sync_api.expect(claims.first.locator(".badge")).to_have_text("supported")
    sync_api.expect(claims.first).to_contain_text("I work on Redis queues.")  # its own evidence
    sync_api.expect(claims.nth(1).locator(".badge")).to_have_text("unsupported")
    sync_api.expect(claims.nth(1).locator(".reason")).to_have_text(bad.reason)
    assert visit.errors == []


#: the page's fetch, with the answers to one kind of request held back (a slow server)
SLOW_FETCH = """
const realFetch = window.fetch;
window.fetch = (input, init) => {
  const answer = realFetch(input, init);
  const url = String((input && input.url) || input);
  const late = (r) => new Promise((done) => setTimeout(() => done(r), 1500));
  return url.includes(%r) ? answer.then(late) : answer;
};
"""


def test_a_slow_answer_to_an_older_filter_does_not_overwrite_the_newer_one(
    visit: Visit, runtime: Runtime
) -> None:
    """Before: the list of active insights, asked for when the tab opened, landed after the list
    of unverified ones the user had switched to, and replaced it (seen once in a full run)."""
    shown = KnowledgeCrystal(content="Ana said she is a renowned juggler.", active=False,
                             verification="unverified", user_id=visit.user_id)  # fmt: skip
    other = KnowledgeCrystal(content="Ana keeps bees on the roof.", user_id=visit.user_id)
    runtime.memory.record([shown, other])
    page = visit.page
    page.add_init_script(SLOW_FETCH % "/insights?state=active")
    page.reload()
    page.click("#tab-insights")  # asks for the active insights: their answer is slow
    page.select_option("#insight-state", "unverified")  # asks again, answered at once
    sync_api.expect(page.locator("tr.insight", has_text="juggler")).to_be_visible()
    page.wait_for_timeout(2_500)  # the older answer has arrived by now
    sync_api.expect(page.locator("tr.insight", has_text="juggler")).to_be_visible()
    sync_api.expect(page.locator("tr.insight", has_text="bees")).to_have_count(0)
    assert visit.errors == []


def test_graph_view_renders_a_concept_neighbourhood(visit: Visit, runtime: Runtime) -> None:
    page = visit.page
    seeded = seed_insights(runtime.memory, user_id=visit.user_id, concept="Kafka")
    page.goto(visit.url + "/#graph?concept=kafka")
    page.wait_for_function("() => window.theaGraph && window.theaGraph.nodes().length >= 4")
    sync_api.expect(page.locator("#graph-info")).to_contain_text("nodes")
    assert page.locator("#graph canvas").count() >= 1
    labels = page.evaluate("() => window.theaGraph.nodes().map(n => n.data('label'))")
    assert "Kafka" in labels
    assert seeded.merged.content[:39] in " ".join(labels)
    # the start concept is selected and described; clicking another node describes that one
    sync_api.expect(page.locator("#graph-selected h3")).to_have_text("Concept")
    box = page.locator("#graph").bounding_box()
    pos = page.evaluate("id => window.theaGraph.getElementById(id).renderedPosition()", seeded.merged.id)
    page.mouse.click(box["x"] + pos["x"], box["y"] + pos["y"])
    sync_api.expect(page.locator("#graph-selected .node-text")).to_have_text(seeded.merged.content)
    page.get_by_role("button", name="Insight").click()
    sync_api.expect(page.locator("#insight-detail .insight-text")).to_have_text(seeded.merged.content)
    assert visit.errors == []


def test_the_graph_of_an_answer_opens_from_its_trace(visit: Visit) -> None:
    page = visit.page
    say(page, "Tell me about Redis streams.").get_by_role("button", name="How I got this").click()
    page.click("#trace-graph")
    page.wait_for_function("() => window.theaGraph && window.theaGraph.nodes().length >= 5")
    types = set(page.evaluate("() => window.theaGraph.nodes().map(n => n.data('type'))"))
    assert {"UserImpulse", "Task", "FinalResponse"} <= types


def test_stored_markup_is_shown_as_text_and_never_run(visit: Visit, runtime: Runtime) -> None:
    page = visit.page
    runtime.memory.record([KnowledgeCrystal(content=f"Remember {XSS}", strength=3.0, user_id=visit.user_id)])
    answer = say(page, f"Note this: {XSS}")
    sync_api.expect(page.locator("#messages li.msg.user").last).to_have_text(f"Note this: {XSS}")
    answer.get_by_role("button", name="How I got this").click()
    sync_api.expect(page.locator("#trace-panel .impulse")).to_have_text(f"Note this: {XSS}")
    page.click("#tab-insights")
    row = page.locator("tr.insight").first
    sync_api.expect(row.locator("td.content")).to_have_text(f"Remember {XSS}")
    row.click()
    sync_api.expect(page.locator("#insight-detail .insight-text")).to_have_text(f"Remember {XSS}")
    assert page.locator("#messages script, #trace-panel script, #insights-table img").count() == 0
    assert page.evaluate("() => typeof window.__pwned") == "undefined"


def test_stored_control_and_bidi_characters_are_shown_as_visible_escapes(
    visit: Visit, runtime: Runtime
) -> None:
    """Text stored before control and bidi characters were refused or removed on store: the page
    shows them as escapes; a U+202E never turns the text after it around."""
    page = visit.page
    stored = "Pay \u202egnp.exe\u202c now \x1b[31mred\x07 \u2066x\u2069"
    runtime.memory.record([KnowledgeCrystal(content=stored, strength=3.0, user_id=visit.user_id)])
    page.click("#tab-insights")
    row = page.locator("tr.insight").first
    shown = "Pay \\u202egnp.exe\\u202c now \\x1b[31mred\\x07 \\u2066x\\u2069"
    sync_api.expect(row.locator("td.content")).to_have_text(shown)
    row.click()
    sync_api.expect(page.locator("#insight-detail .insight-text")).to_have_text(shown)
    text = page.evaluate("() => document.body.innerText")
    assert not set(text) & set("\u202e\u202c\u2066\u2069\x1b\x07")


def test_a_chat_line_carries_one_idempotency_key(visit: Visit) -> None:
    keys: list[str] = []
    visit.page.on(
        "request",
        lambda request: (
            keys.append(request.headers.get("idempotency-key", ""))
            if request.url.endswith("/api/v1/chat")
            else None
        ),
    )
    say(visit.page, "Hello there")
    say(visit.page, "Hello again")
    assert len(keys) == 2
    assert all(re.fullmatch(r"[0-9a-f]{32}", key) for key in keys)
    assert keys[0] != keys[1]  # one key per message


def test_a_token_protected_server_refuses_without_the_token(browser: Any, server: LiveServer) -> None:
    context = browser.new_context()
    try:
        page = context.new_page()
        page.set_default_timeout(10_000)
        page.goto(server.url)
        sync_api.expect(page.locator("#token-bar")).to_be_visible()
        sync_api.expect(page.locator("#status")).to_have_text("locked")
        status = page.evaluate("() => fetch('/api/v1/insights').then(r => r.status)")
        assert status == 401
        answer = say(page, "hello?")
        sync_api.expect(answer).to_have_class("msg error")
        sync_api.expect(answer).to_contain_text("needs an access token")

        page.fill("#token-input", "wrong")
        page.click("#token-save")
        sync_api.expect(page.locator("#token-bar")).to_be_visible()
        page.fill("#token-input", TOKEN)
        page.click("#token-save")
        sync_api.expect(page.locator("#token-bar")).to_be_hidden()
        sync_api.expect(say(page, "hello with the token").locator(".text")).to_have_text("Here is my answer.")
        # the token is in an HttpOnly, SameSite=Strict cookie: not in the address, not for scripts
        assert "token" not in page.url
        assert page.evaluate("() => document.cookie") == ""
        (cookie,) = context.cookies()
        assert cookie["value"] == TOKEN
        assert cookie["httpOnly"]
        assert cookie["sameSite"] == "Strict"
    finally:
        context.close()


def test_reflect_shows_a_report(visit: Visit, runtime: Runtime) -> None:
    page = visit.page
    if runtime.worker is None:  # as `thea serve` does: reflection jobs run in this process
        runtime.start_background_worker()
    seed_insights(runtime.memory, user_id=visit.user_id, concept="Sentinel")
    report = say(page, "!reflect")
    sync_api.expect(report).to_have_class("msg system")
    sync_api.expect(report.locator(".text")).to_contain_text("reflection:")
    sync_api.expect(report.locator("dl.report")).to_contain_text("merged")


def test_an_over_long_message_shows_a_readable_error(visit: Visit) -> None:
    page = visit.page
    # the text box stops typing at 200,000 characters; a script (or an old page) can still send more
    page.eval_on_selector(
        "#input", "el => { el.removeAttribute('maxlength'); el.value = 'a'.repeat(200001) }"
    )
    page.press("#input", "Enter")
    answer = page.locator("#messages li.msg").nth(1)
    sync_api.expect(answer).to_have_class("msg error")
    sync_api.expect(answer.locator(".text")).to_have_text(
        "invalid request: text is 200,001 characters long; the limit is 200,000"
    )
    # and the chat goes on
    sync_api.expect(say(page, "hello again").locator(".text")).to_have_text("Hello!")
