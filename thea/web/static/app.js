// thea web chat: chat with streamed answers, trace panel, insights inspector, graph view.
// Safety rule: text from the server (memories, answers, errors) is only ever inserted with
// textContent / DOM nodes, never as HTML.
"use strict";

// One conversation per tab: the session id travels with every chat line.
function tabSession() {
  let id = sessionStorage.getItem("thea-session");
  if (!id) {
    id = "web-" + Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, "0")).join("");
    sessionStorage.setItem("thea-session", id);
  }
  return id;
}

const API = "/api/v1";
const state = {
  session: tabSession(),
  cy: null,
  traceImpulse: null,
  insightsLoaded: false,
};

const $ = (id) => document.getElementById(id);

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

const short = (id) => String(id || "").slice(0, 8);
const fmtMs = (ms) => (ms >= 1000 ? (ms / 1000).toFixed(1) + " s" : Math.round(ms) + " ms");
const fmtDate = (ms) => new Date(ms).toLocaleString([], { dateStyle: "medium", timeStyle: "short" });
function setStatus(text) { $("status").textContent = text; }

// ---------------------------------------------------------------- API and access token
// The token reaches the page once, in its address (`thea serve` prints /?token=...); the
// server keeps it in an HttpOnly, SameSite=Strict cookie and redirects to "/", so the page
// never sees it and every request below carries it.
class AuthError extends Error {}

// An older server, or a bookmark from before the cookie: never leave a token in the address bar.
if (new URLSearchParams(location.search).has("token")) history.replaceState(null, "", "/" + location.hash);

async function api(path, options = {}) {
  const headers = Object.assign({}, options.headers || {});
  const response = await fetch(path, Object.assign({ credentials: "same-origin" }, options, { headers }));
  if (response.status === 401) {
    showTokenBar();
    throw new AuthError("This server needs an access token: enter it above.");
  }
  return response;
}

// The readable text of an error response: {"error": "..."} from thea, or whatever else a
// proxy or an older server sent (a string, a list of {msg}), never "[object Object]".
function errorText(body, status) {
  const pick = (value) => {
    if (typeof value === "string") return value;
    if (Array.isArray(value)) return value.map(pick).filter(Boolean).join("; ");
    if (value && typeof value === "object") return pick(value.msg || value.message || value.error || "");
    return "";
  };
  const text = pick(body && (body.error || body.detail || body.message));
  return (text || "request failed: " + status).slice(0, 500);
}

async function getJSON(path) {
  const response = await api(path);
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(errorText(body, response.status));
  return body;
}

// The latest request of each kind wins. When a filter changes, or another row is clicked, while
// an answer is on its way, the older answer arrives to nobody (null) instead of overwriting the
// newer one: e.g. the list of all insights landing after the list of unverified ones.
const latestTicket = {};
async function latestJSON(kind, path) {
  const ticket = (latestTicket[kind] = (latestTicket[kind] || 0) + 1);
  try {
    const body = await getJSON(path);
    return ticket === latestTicket[kind] ? body : null;
  } catch (err) {
    if (ticket === latestTicket[kind]) throw err;
    return null;
  }
}

function showTokenBar() {
  $("token-bar").classList.remove("hidden");
  setStatus("locked");
  $("token-input").focus();
}

$("token-bar").addEventListener("submit", (event) => {
  event.preventDefault();
  const token = $("token-input").value.trim();
  if (!token) return;
  // the server checks it, sets the cookie and comes back to this page without it in the address
  location.assign("/?token=" + encodeURIComponent(token) + location.hash);
});

// ---------------------------------------------------------------- tabs (hash routing)
function route() {
  const [tab, query] = (location.hash.slice(1) || "chat").split("?");
  const name = ["chat", "insights", "graph"].includes(tab) ? tab : "chat";
  for (const link of document.querySelectorAll(".tab")) link.classList.toggle("active", link.dataset.tab === name);
  for (const view of document.querySelectorAll(".view")) view.classList.toggle("active", view.id === "view-" + name);
  const params = new URLSearchParams(query || "");
  if (name === "insights" && (!state.insightsLoaded || params.has("concept"))) {
    if (params.has("concept")) $("insight-concept").value = params.get("concept");
    loadInsights();
  }
  if (name === "graph") {
    if (params.has("concept") || params.has("node")) {
      $("graph-concept").value = params.get("concept") || "";
      $("graph-node").value = params.get("node") || "";
      showGraph();
    } else if (state.cy) {
      state.cy.resize();
    }
  }
}
window.addEventListener("hashchange", route);

function go(tab, params) {
  const query = params ? "?" + new URLSearchParams(params) : "";
  const target = "#" + tab + query;
  if (location.hash === target) route(); else location.hash = target;
}

// ---------------------------------------------------------------- chat
const messages = $("messages");

function addMessage(kind, text) {
  $("empty-chat").classList.add("hidden");
  const body = el("div", { class: "text", text });
  const item = el("li", { class: "msg " + kind }, body);
  messages.append(item);
  messages.scrollTop = messages.scrollHeight;
  return item;
}

function parseEvents(buffer) {
  const events = [];
  let index;
  while ((index = buffer.indexOf("\n\n")) >= 0) {
    const block = buffer.slice(0, index);
    buffer = buffer.slice(index + 2);
    let event = "message";
    let data = "";
    for (const line of block.split("\n")) {
      if (line.startsWith("event: ")) event = line.slice(7);
      else if (line.startsWith("data: ")) data += line.slice(6);
    }
    events.push({ event, data: data ? JSON.parse(data) : null });
  }
  return { events, rest: buffer };
}

function fail(item, message) {
  item.className = "msg error";
  item.querySelector(".text").textContent = message;
}

async function send(text) {
  addMessage("user", text);
  const isCommand = text.trim().startsWith("!");
  const answer = addMessage(isCommand ? "system" : "thea", "");
  answer.classList.add("streaming");
  $("send").disabled = true;
  setStatus("thinking…");
  try {
    const response = await api(API + "/chat", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ text, session_id: state.session }),
    });
    if (!response.ok) {
      const body = await response.json().catch(() => ({}));
      fail(answer, errorText(body, response.status));
      return;
    }
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      const parsed = parseEvents(buffer);
      buffer = parsed.rest;
      for (const { event, data } of parsed.events) handleEvent(answer, event, data);
    }
  } catch (err) {
    fail(answer, err instanceof AuthError ? err.message : "cannot reach the server: " + err.message);
  } finally {
    answer.classList.remove("streaming");
    $("send").disabled = false;
    setStatus("");
  }
}

function handleEvent(answer, event, data) {
  const text = answer.querySelector(".text");
  if (event === "token") {
    text.textContent += data.text;
    messages.scrollTop = messages.scrollHeight;
  } else if (event === "done") {
    answer.dataset.impulse = data.impulse_id;
    const meta = el("div", { class: "meta" });
    if (data.failed_steps.length) {
      meta.append(el("span", { class: "failed", text: "failed steps: " + data.failed_steps.join(", ") }));
    }
    meta.append(el("button", { class: "trace-link", type: "button", text: "How I got this", onclick: () => showTrace(data.impulse_id) }));
    answer.append(meta);
  } else if (event === "command") {
    text.textContent = data.text;
    const entries = Object.entries(data.data || {});
    if (entries.length) {
      const table = el("dl", { class: "report" });
      for (const [key, value] of entries) {
        table.append(el("dt", { text: key }), el("dd", { text: typeof value === "string" ? value : JSON.stringify(value, null, 1) }));
      }
      answer.append(table);
    }
    if (data.trace) renderTrace(data.trace);
  } else if (event === "error") {
    fail(answer, errorText(data, "error"));
  }
}

$("composer").addEventListener("submit", (event) => {
  event.preventDefault();
  const input = $("input");
  const text = input.value;
  if (!text.trim() || $("send").disabled) return;
  input.value = "";
  send(text);
});
$("input").addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    $("composer").requestSubmit();
  }
});

// ---------------------------------------------------------------- trace panel
async function showTrace(impulseId) {
  go("chat");
  try {
    const trace = await latestJSON("trace", API + "/traces/" + encodeURIComponent(impulseId) + "?session_id=" + state.session);
    if (trace !== null) renderTrace(trace);
  } catch (err) {
    $("trace-body").replaceChildren(el("p", { class: "err", text: err.message }));
    $("trace-panel").classList.remove("hidden");
  }
}

// "vectors 0.61 · keywords 7.2": each recall stage's own score, short
const num = (value) => String(Number(Number(value).toFixed(2)));
const stageScores = (scores) => Object.entries(scores || {}).map(([stage, score]) => stage + " " + num(score)).join(" · ");

function recalledMemory(memory) {
  return el("li", { class: "hit" + (memory.in_prompt ? " in-prompt" : "") },
    el("div", { class: "hit-head" },
      el("span", { class: "badge " + (memory.in_prompt ? "PROMPT" : "RECALLED"),
        text: memory.in_prompt ? "in prompt" : "recalled only",
        title: memory.in_prompt ? "the answering model saw this memory" : "found, but below the relevance floor or over the prompt's budget" }),
      el("span", { class: "hit-type", text: memory.type }),
      el("span", { class: "hit-score", text: num(memory.score), title: "fused score" }),
      el("span", { class: "muted stage-scores", text: stageScores(memory.stage_scores) || (memory.stages || []).join(", ") }),
      el("span", { class: "muted", text: short(memory.id) })),
    el("div", { class: "hit-text", text: memory.text || "" }));
}

// The prompt the model got, fetched (it is large) the first time its section is opened.
function promptSection(impulseId, prompt) {
  const body = el("div", { class: "prompt-body" }, el("p", { class: "muted", text: "loading…" }));
  const section = el("details", { class: "prompt" },
    el("summary", { text: "Prompt sent to the model (" + prompt.id + (prompt.version ? " v" + prompt.version : "") + ", " + prompt.message_count + " messages)" }),
    body);
  let loaded = false;
  section.addEventListener("toggle", async () => {
    if (!section.open || loaded) return;
    loaded = true;
    try {
      const trace = await getJSON(API + "/traces/" + encodeURIComponent(impulseId) + "?prompts=true");
      const messages = (trace.explanation && trace.explanation.prompt && trace.explanation.prompt.messages) || [];
      body.replaceChildren(...messages.map((m) => el("div", { class: "prompt-message" },
        el("div", { class: "role", text: m.role }), el("pre", { text: m.content }))));
      if (!messages.length) body.replaceChildren(el("p", { class: "muted", text: "its messages were not recorded" }));
    } catch (err) {
      loaded = false;
      body.replaceChildren(el("p", { class: "err", text: err.message }));
    }
  });
  return section;
}

function stepDetails(step, report, trace) {
  const list = el("ul", { class: "details" });
  const output = report.output || {};
  const explained = trace.explanation;
  if (step.step === "plan" && report.status === "SUCCESS") {
    if (explained && explained.act) list.append(el("li", { text: "act: " + explained.act }));
    list.append(el("li", { text: "queries: " + ((output.queries || []).join(" · ") || "-") }));
    list.append(el("li", { text: "concepts: " + ((output.concepts || []).join(", ") || "-") }));
    if (output.time_from) list.append(el("li", { text: "time window: " + fmtDate(output.time_from) + " – " + fmtDate(output.time_to || Date.now()) }));
    if (output.triple_pattern) list.append(el("li", { text: "triple: " + output.triple_pattern.map((t) => t || "?").join(" ") }));
    for (const fact of (explained && explained.facts_recorded) || []) {
      const said = fact.attribute ? fact.subject + " · " + fact.attribute + " = " + fact.value : fact.text;
      list.append(el("li", { class: "fact" }, el("b", { text: "fact recorded: " }), said));
    }
    for (const old of (explained && explained.superseded) || []) {
      list.append(el("li", { class: "fact" }, el("b", { text: "superseded: " }), old.text + (old.by ? " (by " + short(old.by) + ")" : "") + (old.reason ? ": " + old.reason : "")));
    }
  }
  if (step.step === "recall" && report.status === "SUCCESS") {
    if (explained) {
      const memories = explained.recalled;
      const used = memories.filter((m) => m.in_prompt).length;
      list.append(el("li", { class: "muted", text: memories.length ? memories.length + " memories recalled, " + used + " in the prompt" : "no memories recalled" }));
      for (const memory of memories) list.append(recalledMemory(memory));
    } else {  // a service older than the explanation
      const hits = output.hits || [];
      list.append(el("li", { class: "muted", text: hits.length ? hits.length + " memories recalled" : "no memories recalled" }));
      for (const hit of hits.slice(0, 12)) {
        list.append(el("li", { class: "hit", text: hit.type + " " + short(hit.id) + " · score " + hit.score + " · via " + (hit.stages || []).join(", ") }));
      }
    }
  }
  if (step.step === "synthesis" && explained) {
    if (explained.mode && explained.mode !== "model") list.append(el("li", { class: "muted", text: "answer: " + explained.mode + " (no model call)" }));
    if (explained.facts.length) {
      const facts = el("ul", {});
      for (const fact of explained.facts) facts.append(el("li", { class: "fact", text: (fact.text || "") + " (" + short(fact.id) + ")" }));
      list.append(el("li", { text: "facts of record used:" }, facts));
    }
  }
  for (const node of step.outputs) list.append(el("li", { class: "output" }, el("b", { text: node.type + ": " }), node.content));
  const box = el("div", {}, list);
  const prompt = explained && explained.prompt;
  if (step.step === "synthesis" && prompt && prompt.message_count) box.append(promptSection(trace.impulse.id, prompt));
  return box;
}

function renderTrace(trace) {
  state.traceImpulse = trace.impulse.id;
  const body = $("trace-body");
  const total = trace.steps.reduce((sum, s) => sum + (s.duration_ms || 0), 0);
  const summary = el("p", { class: "summary" },
    el("span", { class: "badge " + (trace.failed_steps.length ? "FAILURE" : trace.complete ? "SUCCESS" : "PENDING"),
      text: trace.failed_steps.length ? trace.failed_steps.length + " failed" : trace.complete ? "complete" : "incomplete" }),
    " " + trace.steps.length + " steps · " + fmtMs(total) + " · impulse " + short(trace.impulse.id));
  const steps = el("ol", { class: "steps" });
  for (const step of trace.steps) {
    const report = step.report || {};
    const status = step.status || report.status || "PENDING";
    const head = el("div", { class: "step-head" },
      el("span", { class: "step-name", text: step.step }),
      el("span", { class: "badge " + status, text: status }),
      el("span", { class: "muted", text: step.duration_ms !== null && step.duration_ms !== undefined ? fmtMs(step.duration_ms) : "no report" }));
    if (report.llm_calls) head.append(el("span", { class: "muted", text: report.tokens_in + "→" + report.tokens_out + " tokens" }));
    if (report.model) head.append(el("span", { class: "muted", text: report.model + (report.prompt_name ? " · " + report.prompt_name + (report.prompt_version ? " v" + report.prompt_version : "") : "") }));
    const item = el("li", { class: "step " + status }, head);
    if (step.error) item.append(el("div", { class: "err", text: step.error }));
    item.append(stepDetails(step, report, trace));
    steps.append(item);
  }
  body.replaceChildren(el("blockquote", { class: "impulse", text: trace.impulse.content }), summary, steps);
  if (trace.related.length) {
    const after = el("ul", { class: "details" });
    for (const node of trace.related) after.append(el("li", { text: node.type + " " + short(node.id) + ": " + node.content }));
    body.append(el("h3", { text: "Afterwards" }), after);
  }
  $("trace-panel").classList.remove("hidden");
}
$("close-trace").addEventListener("click", () => $("trace-panel").classList.add("hidden"));
$("trace-graph").addEventListener("click", () => { if (state.traceImpulse) go("graph", { node: state.traceImpulse }); });

// ---------------------------------------------------------------- insights
function strengthCell(value, max) {
  const bar = el("span", { class: "bar" });
  bar.style.width = Math.max(4, Math.round((value / (max || 1)) * 60)) + "px";
  return el("td", { class: "strength" }, bar, el("span", { text: Number(value).toFixed(2) }));
}

function conceptChips(concepts) {
  const box = el("span", { class: "chips" });
  for (const name of concepts) {
    box.append(el("button", { class: "chip", type: "button", text: name, title: "only insights about " + name,
      onclick: (event) => { event.stopPropagation(); $("insight-concept").value = name; loadInsights(); } }));
  }
  return box;
}

// active, archived (merged into another), superseded (contradicted by later evidence) or
// unverified (its evidence does not support it)
function insightState(item) {
  if (item.valid_until) return "superseded";
  if (item.verification === "unverified") return "unverified";
  return item.active ? "active" : "archived";
}

async function loadInsights() {
  state.insightsLoaded = true;
  const params = new URLSearchParams({ state: $("insight-state").value });
  const concept = $("insight-concept").value.trim();
  if (concept) params.set("concept", concept);
  const min = parseFloat($("insight-min").value);
  if (min > 0) params.set("min_strength", String(min));
  const tbody = document.querySelector("#insights-table tbody");
  let data;
  try {
    data = await latestJSON("insights", API + "/insights?" + params);
  } catch (err) {
    tbody.replaceChildren(el("tr", {}, el("td", { colspan: "5", class: "err", text: err.message })));
    return;
  }
  if (data === null) return;
  const max = Math.max(1, ...data.insights.map((i) => i.strength));
  tbody.replaceChildren();
  for (const item of data.insights) {
    const life = insightState(item);
    tbody.append(el("tr", { class: "insight " + life, "data-id": item.id, tabindex: "0", title: item.verification_reason || "",
        onclick: () => loadInsight(item.id), onkeydown: (e) => { if (e.key === "Enter") loadInsight(item.id); } },
      strengthCell(item.strength, max),
      el("td", { class: "content", text: item.content }),
      el("td", {}, conceptChips(item.concepts)),
      el("td", {}, el("span", { class: "badge " + ({ active: "SUCCESS", archived: "ARCHIVED", superseded: "ARCHIVED", unverified: "UNVERIFIED" })[life], text: life })),
      el("td", { class: "muted", text: fmtDate(item.created_at) })));
  }
  if (!data.insights.length) tbody.append(el("tr", {}, el("td", { colspan: "5", class: "muted", text: "No insights match. They appear after conversations are reflected on." })));
  $("insight-count").textContent = data.insights.length + " shown";
}

function lineageList(title, items) {
  const box = el("div", { class: "lineage" }, el("h3", { text: title }));
  if (!items.length) { box.append(el("p", { class: "muted", text: "–" })); return box; }
  const list = el("ul", { class: "details" });
  for (const item of items) {
    const life = item.active === null ? "" : item.active ? " · active" : " · archived";
    list.append(el("li", {},
      el("button", { class: "link", type: "button", text: short(item.id), onclick: () => loadInsight(item.id) }),
      " " + item.content + (item.strength === null ? "" : " (strength " + Number(item.strength).toFixed(2) + life + ")")));
  }
  box.append(list);
  return box;
}

async function loadInsight(id) {
  const panel = $("insight-detail");
  panel.classList.remove("hidden");
  let data;
  try {
    data = await latestJSON("insight", API + "/insights/" + encodeURIComponent(id));
  } catch (err) {
    panel.replaceChildren(el("p", { class: "err", text: err.message }));
    return;
  }
  if (data === null) return;
  for (const row of document.querySelectorAll("#insights-table tr.insight")) row.classList.toggle("selected", row.dataset.id === data.id);
  const head = el("div", { class: "panel-head" }, el("h2", { text: "Insight " + short(data.id) }),
    el("button", { class: "small", type: "button", text: "Graph", onclick: () => go("graph", { node: data.id }) }),
    el("button", { class: "close", type: "button", text: "×", "aria-label": "close", onclick: () => panel.classList.add("hidden") }));
  const facts = el("dl", { class: "facts" },
    el("dt", { text: "strength" }), el("dd", { text: Number(data.strength).toFixed(2) }),
    el("dt", { text: "state" }), el("dd", { text: insightState(data) }),
    el("dt", { text: "groundedness" }), el("dd", { class: "groundedness", text: data.verification + ", support " + Number(data.support).toFixed(2) + ", " + data.proofs + " proof(s)" + (data.verification_reason ? " — " + data.verification_reason : "") }),
    el("dt", { text: "confidence" }), el("dd", { text: String(data.confidence) }),
    el("dt", { text: "created" }), el("dd", { text: fmtDate(data.created_at) }));
  if (data.seed && data.seed !== data.content) facts.append(el("dt", { text: "seed" }), el("dd", { text: data.seed }));
  if (data.tags.length) facts.append(el("dt", { text: "tags" }), el("dd", { text: data.tags.join(", ") }));
  facts.append(el("dt", { text: "concepts" }), el("dd", {}, conceptChips(data.concepts)));
  panel.replaceChildren(head, el("blockquote", { class: "insight-text", text: data.content }), facts);
  if (data.relations.length) {
    const rels = el("ul", { class: "details" });
    for (const r of data.relations) rels.append(el("li", { class: r.valid_until ? "muted" : "", text: r.subject + " " + r.relation + " " + r.object + " (" + r.confidence + ")" + (r.valid_until ? " superseded" : "") }));
    panel.append(el("h3", { text: "Relations asserted" }), rels);
  }
  const evidence = el("ul", { class: "details evidence" });
  for (const ev of data.evidence) {
    evidence.append(el("li", {}, el("span", { class: "muted", text: short(ev.source_id) + " " + ev.kind + ": " }), el("q", { text: ev.quote })));
  }
  if (!data.evidence.length) evidence.append(el("li", { class: "muted", text: "–" }));
  panel.append(el("h3", { text: "Evidence" }), evidence);
  if (data.claims && data.claims.length) {
    // each claim (sentence) with its own status, reason and evidence spans
    const claims = el("ul", { class: "details claims" });
    for (const c of data.claims) {
      const item = el("li", { class: "claim " + c.status },
        el("span", { class: "badge " + (c.status === "supported" ? "SUCCESS" : "UNVERIFIED"), text: c.status }),
        " " + Number(c.support).toFixed(2) + " ", el("q", { text: c.text }));
      if (c.reason) item.append(el("div", { class: "muted reason", text: c.reason }));
      const spans = el("ul", { class: "evidence" });
      for (const ev of c.evidence) spans.append(el("li", {}, el("span", { class: "muted", text: short(ev.source_id) + " " + ev.kind + ": " }), el("q", { text: ev.quote })));
      if (c.evidence.length) item.append(spans);
      claims.append(item);
    }
    panel.append(el("h3", { text: "Claims" }), claims);
  }
  if (data.revisions && data.revisions.length) {
    // promotions and contradictions by later evidence
    const history = el("ul", { class: "details revisions" });
    for (const r of data.revisions) {
      history.append(el("li", {}, el("span", { class: "muted", text: fmtDate(r.at) + " " + r.kind + " by " + (r.evidence.map(short).join(", ") || "–") + ": " }), r.reason));
    }
    panel.append(el("h3", { text: "Revisions" }), history);
  }
  panel.append(lineageList("Merged from", data.merged_from), lineageList("Merged into", data.merged_into));
  const sources = el("ul", { class: "details" });
  for (const imp of data.source_impulses) {
    sources.append(el("li", {}, el("button", { class: "link", type: "button", text: short(imp.id), title: "open its trace", onclick: () => showTrace(imp.id) }), " " + imp.content));
  }
  if (!data.source_impulses.length) sources.append(el("li", { class: "muted", text: "–" }));
  panel.append(el("h3", { text: "Source impulses" }), sources);
}

$("insight-filters").addEventListener("submit", (event) => { event.preventDefault(); loadInsights(); });
$("insight-state").addEventListener("change", loadInsights);

// ---------------------------------------------------------------- graph view
const COLORS = {
  Concept: "#3b5bdb", KnowledgeCrystal: "#e67700", UserImpulse: "#2b8a3e", FinalResponse: "#862e9c",
  Fact: "#c92a2a", Task: "#868e96", Report: "#adb5bd", DialogueTurn: "#0b7285", SearchPlan: "#5c940d",
  InstinctiveResponse: "#d6336c",
};

function legend() {
  const box = $("graph-legend");
  box.replaceChildren();
  for (const [type, color] of Object.entries(COLORS)) {
    const dot = el("span", { class: "dot" });
    dot.style.background = color;
    box.append(el("span", { class: "legend-item" }, dot, type));
  }
}

function selectNode(data) {
  const box = $("graph-selected");
  box.className = "";
  const actions = el("div", { class: "actions" },
    el("button", { class: "small", type: "button", text: "Centre here", onclick: () => { $("graph-concept").value = ""; $("graph-node").value = data.id; showGraph(); } }));
  if (data.type === "UserImpulse") actions.append(el("button", { class: "small", type: "button", text: "Trace", onclick: () => showTrace(data.id) }));
  if (data.type === "KnowledgeCrystal") actions.append(el("button", { class: "small", type: "button", text: "Insight", onclick: () => { go("insights"); loadInsight(data.id); } }));
  box.replaceChildren(
    el("h3", { text: data.type + (data.status ? " · " + data.status : "") + (data.archived ? " · archived" : "") }),
    el("p", { class: "node-text", text: data.text || data.label }),
    el("p", { class: "muted", text: data.id }),
    actions);
}

async function showGraph() {
  const params = new URLSearchParams({ depth: $("graph-depth").value });
  const concept = $("graph-concept").value.trim();
  const node = $("graph-node").value.trim();
  if (concept) params.set("concept", concept); else if (node) params.set("node", node);
  const info = $("graph-info");
  if (!concept && !node) { info.textContent = "Type a concept name or a memory id."; return; }
  info.textContent = "loading…";
  let data;
  try {
    data = await latestJSON("graph", API + "/graph?" + params);
  } catch (err) {
    info.textContent = err.message;
    return;
  }
  if (data === null) return;
  info.textContent = data.nodes.length + " nodes, " + data.edges.length + " edges";
  if (state.cy) state.cy.destroy();
  state.cy = cytoscape({
    container: $("graph"),
    elements: [...data.nodes, ...data.edges],
    style: [
      { selector: "node", style: { label: "data(label)", "font-size": 10, color: "#222", "text-valign": "bottom", "text-margin-y": 3,
        "background-color": (n) => COLORS[n.data("type")] || "#868e96", "text-wrap": "ellipsis", "text-max-width": 130,
        width: 18, height: 18, "text-background-color": "#fff", "text-background-opacity": 0.7 } },
      { selector: "node[type = 'Task'], node[type = 'Report'], node[type = 'SearchPlan'], node[type = 'InstinctiveResponse']",
        style: { width: 11, height: 11, "font-size": 8, color: "#666" } },
      { selector: "node[type = 'Concept']", style: { shape: "round-rectangle", width: 28, height: 28, "font-weight": "bold", "font-size": 12 } },
      { selector: "node[?start]", style: { "border-width": 4, "border-color": "#111" } },
      { selector: "node[?archived]", style: { opacity: 0.45 } },
      { selector: "node[status = 'FAILURE']", style: { "background-color": "#e03131", shape: "diamond", width: 16, height: 16 } },
      { selector: "node:selected", style: { "border-width": 3, "border-color": "#fab005" } },
      { selector: "edge", style: { width: 1.2, "curve-style": "bezier", "target-arrow-shape": "triangle", "arrow-scale": 0.8,
        "line-color": "#d0d4d9", "target-arrow-color": "#d0d4d9", "font-size": 8, color: "#555", "text-rotation": "autorotate",
        "text-background-color": "#fff", "text-background-opacity": 0.8 } },
      { selector: "edge.near", style: { label: "data(label)", "line-color": "#868e96", "target-arrow-color": "#868e96", width: 1.6 } },
    ],
    layout: { name: "preset" },
    wheelSensitivity: 0.3,
  });
  const start = state.cy.getElementById(data.start);
  state.cy.layout({ name: "cose", animate: false, randomize: true, padding: 30, nodeRepulsion: () => 24000,
    idealEdgeLength: () => 70, nodeOverlap: 30, gravity: 0.3, numIter: 1500, componentSpacing: 60 }).run();
  const highlight = (node) => {
    state.cy.edges().removeClass("near");
    node.connectedEdges().addClass("near");
  };
  state.cy.on("tap", "node", (event) => { highlight(event.target); selectNode(event.target.data()); });
  state.cy.on("dbltap", "node", (event) => { $("graph-concept").value = ""; $("graph-node").value = event.target.id(); showGraph(); });
  if (start.length) { start.select(); highlight(start); selectNode(start.data()); }
  window.theaGraph = state.cy; // for tests and the curious, from the console
}
$("graph-form").addEventListener("submit", (event) => { event.preventDefault(); showGraph(); });

// ---------------------------------------------------------------- start
async function hello() {
  try {
    const health = await getJSON(API + "/health");
    const me = await getJSON(API + "/whoami?session_id=" + state.session);
    setStatus("");
    $("whoami").textContent = me.user_id + " · " + health.profile + " profile";
    $("whoami").title = "your user on this thea service (the local user, or your token's) and its profile";
    $("token-bar").classList.add("hidden");
  } catch (err) {
    if (!(err instanceof AuthError)) setStatus("offline");
  }
}

legend();
route();
hello();
$("input").focus();
