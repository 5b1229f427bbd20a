// thea web chat: chat with streamed answers and its history, what thea knows about you (memory),
// trace panel, insights inspector, graph view.
// Safety rule: text from the server (memories, answers, errors) is only ever inserted with
// textContent / DOM nodes, never as HTML.
"use strict";

// The conversation of this tab survives a reload (sessionStorage); a new tab opens the
// browser's latest conversation (localStorage); "New chat" starts another.
const SESSION_KEY = "thea-session";
const LAST_SESSION_KEY = "thea-last-session";

function newSessionId() {
  return "web-" + Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, "0")).join("");
}

function rememberSession(id) {
  sessionStorage.setItem(SESSION_KEY, id);
  localStorage.setItem(LAST_SESSION_KEY, id);
  return id;
}

function tabSession() {
  return rememberSession(sessionStorage.getItem(SESSION_KEY) || localStorage.getItem(LAST_SESSION_KEY) || newSessionId());
}

const API = "/api/v1";
const state = {
  session: tabSession(),
  cy: null,
  traceImpulse: null,
  insightsLoaded: false,
  // the service answers (false while it cannot be reached; the page retries by itself)
  online: true,
  retryDelay: 0,
  retryTimer: null,
  // "send" is busy while an answer streams in; sends counts the messages sent
  busy: false,
  sends: 0,
};

const $ = (id) => document.getElementById(id);

// Control characters (C0 but tab and newline, DEL, C1), bidi controls (which can turn the
// text after them around, e.g. U+202E), zero-width characters and the invisible tag characters
// (U+E0000-E007F, used to hide instructions in text) in stored text are shown as visible
// escapes ("\u202e", "\u{e0041}"), never applied: every text from the server reaches the page
// through visible().
const HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff\u{e0000}-\u{e007f}]/gu;
function visible(text) {
  return String(text).replace(HIDDEN, (ch) => {
    const code = ch.codePointAt(0);
    if (code < 0x100) return "\\x" + code.toString(16).padStart(2, "0");
    if (code < 0x10000) return "\\u" + code.toString(16).padStart(4, "0");
    return "\\u{" + code.toString(16) + "}";
  });
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = visible(value);
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, typeof value === "string" ? visible(value) : value);
  }
  for (const child of children) {
    if (child !== null && child !== undefined) node.append(typeof child === "string" ? visible(child) : child);
  }
  return node;
}

const short = (id) => String(id || "").slice(0, 8);
const fmtMs = (ms) => (ms >= 1000 ? (ms / 1000).toFixed(1) + " s" : Math.round(ms) + " ms");
const fmtDate = (ms) => new Date(ms).toLocaleString([], { dateStyle: "medium", timeStyle: "short" });
function setStatus(text) { $("status").textContent = visible(text); }

// ---------------------------------------------------------------- API and access token
// The token reaches the page once, in its address (`thea serve` prints /?token=...); the
// server keeps it in an HttpOnly, SameSite=Strict cookie and redirects to "/", so the page
// never sees it and every request below carries it.
class AuthError extends Error {}
// the service cannot be reached (it is stopped, restarting or the network is down)
class OfflineError extends Error {}

// An older server, or a bookmark from before the cookie: never leave a token in the address bar.
if (new URLSearchParams(location.search).has("token")) history.replaceState(null, "", "/" + location.hash);

// One key per logical write (a chat line): its retries send the same key, so the server
// answers a retry with the first result instead of storing the message twice.
function requestKey() {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Every request of the page goes through here: the cookie carries the access token, a write
// carries its idempotency key and is sent again when the network lost its answer, and the
// page notices when the service cannot be reached.
async function api(path, options = {}) {
  const headers = Object.assign({}, options.headers || {});
  const write = (options.method || "GET") !== "GET";
  if (write) headers["Idempotency-Key"] = requestKey();
  const init = Object.assign({ credentials: "same-origin" }, options, { headers });
  let response;
  for (let attempt = 1; ; attempt++) {
    try {
      response = await fetch(path, init);
      break;
    } catch (err) {  // the network failed before an answer: send it again, same key
      if (write && attempt < 3) {
        await sleep(500 * attempt);
        continue;
      }
      connectionLost();
      throw new OfflineError("cannot reach thea (" + err.message + ")");
    }
  }
  if (response.status === 401) {
    showTokenBar();
    throw new AuthError("This server needs an access token: enter it above.");
  }
  if (response.status === 503) {
    const body = await response.clone().json().catch(() => ({}));
    if (body.kind === "stopping") {
      connectionLost();
      throw new OfflineError(errorText(body, 503));
    }
  }
  connectionBack();
  return response;
}

// A JSON request that changes something (PATCH, DELETE, POST): the answer's body, or an Error
// with the server's one-line message.
async function sendJSON(method, path, body) {
  const options = { method };
  if (body !== undefined) {
    options.headers = { "Content-Type": "application/json" };
    options.body = JSON.stringify(body);
  }
  const response = await api(path, options);
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(errorText(answer, response.status));
  return answer;
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

// ---------------------------------------------------------------- reconnecting
// When the service cannot be reached the page says so, and what to run, and tries again by
// itself, waiting longer each time (1 s, 2 s, 4 s ... at most 15 s). Once it answers, the page
// picks up where it was: the conversation and the list of conversations are read again.
const RETRY_MIN_MS = 1000;
const RETRY_MAX_MS = 15000;

function connectionLost() {
  if (!state.online) return;
  state.online = false;
  state.retryDelay = RETRY_MIN_MS;
  setStatus("offline");
  scheduleReconnect();
}

function connectionBack() {
  if (state.online) return;
  state.online = true;
  clearTimeout(state.retryTimer);
  state.retryTimer = null;
  $("offline-bar").classList.add("hidden");
  setStatus("reconnected");
  setTimeout(() => { if ($("status").textContent === "reconnected") setStatus(""); }, 3000);
  hello();
}

function scheduleReconnect() {
  clearTimeout(state.retryTimer);
  const seconds = Math.round(state.retryDelay / 1000);
  $("offline-text").replaceChildren(
    "thea cannot be reached at " + location.host + "; trying again in " + seconds + " s. ",
    "A service started with ", el("code", { text: "thea serve" }), " comes back by itself; if it does not, run ",
    el("code", { text: "thea serve" }), " in a terminal.");
  $("offline-bar").classList.remove("hidden");
  state.retryTimer = setTimeout(reconnect, state.retryDelay);
  state.retryDelay = Math.min(state.retryDelay * 2, RETRY_MAX_MS);
}

async function reconnect() {
  clearTimeout(state.retryTimer);
  state.retryTimer = null;
  try {
    await api(API + "/health");  // connectionBack() runs as soon as it answers
  } catch (err) {
    if (!state.online) scheduleReconnect();
  }
}
$("reconnect-now").addEventListener("click", () => { state.retryDelay = RETRY_MIN_MS; reconnect(); });

// ---------------------------------------------------------------- tabs (hash routing)
function route() {
  const [tab, query] = (location.hash.slice(1) || "chat").split("?");
  const name = ["chat", "memory", "insights", "graph"].includes(tab) ? tab : "chat";
  for (const link of document.querySelectorAll(".tab")) link.classList.toggle("active", link.dataset.tab === name);
  for (const view of document.querySelectorAll(".view")) view.classList.toggle("active", view.id === "view-" + name);
  const params = new URLSearchParams(query || "");
  if (name === "memory") loadMemory();  // what thea knows changes with every message: read it anew
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
    } else {
      showGraph();  // opened on the user's own graph, never blank
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
  item.querySelector(".text").textContent = visible(message);
}

async function send(text) {
  addMessage("user", text);
  const isCommand = text.trim().startsWith("!");
  const answer = addMessage(isCommand ? "system" : "thea", "");
  answer.classList.add("streaming");
  $("send").disabled = true;
  state.busy = true;
  state.sends += 1;
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
    if (err instanceof AuthError) fail(answer, err.message);
    else if (err instanceof OfflineError) fail(answer, "not answered: thea cannot be reached; send it again once it is back");
    else {
      if (err instanceof TypeError) connectionLost();  // the answer's stream broke off
      fail(answer, "the answer broke off (" + err.message + "): thea cannot be reached; send it again once it is back");
    }
  } finally {
    answer.classList.remove("streaming");
    $("send").disabled = false;
    state.busy = false;
    if (state.online && $("status").textContent === "thinking…") setStatus("");
  }
}

// The "How I got this" line under an answer (live, or read back with its conversation).
function answerMeta(impulseId, failedSteps) {
  const meta = el("div", { class: "meta" });
  if (failedSteps.length) meta.append(el("span", { class: "failed", text: "failed steps: " + failedSteps.join(", ") }));
  meta.append(el("button", { class: "trace-link", type: "button", text: "How I got this", onclick: () => showTrace(impulseId) }));
  return meta;
}

function handleEvent(answer, event, data) {
  const text = answer.querySelector(".text");
  if (event === "token") {
    text.textContent += visible(data.text);
    messages.scrollTop = messages.scrollHeight;
  } else if (event === "done") {
    answer.dataset.impulse = data.impulse_id;
    answer.append(answerMeta(data.impulse_id, data.failed_steps));
    loadSessions();  // this conversation is now (or still) the latest
  } else if (event === "command") {
    text.textContent = visible(data.text);
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

// ---------------------------------------------------------------- conversations (history)
// The conversation's messages and answers come from the service: shown on load, after a
// reload and after a reconnect; earlier conversations are listed to reopen. ! commands and
// their output are not part of the history.
async function loadConversation() {
  const id = state.session;
  const sends = state.sends;
  let data;
  try {
    data = await latestJSON("conversation", API + "/sessions/" + encodeURIComponent(id));
  } catch (err) {
    if (!(err instanceof OfflineError || err instanceof AuthError)) addMessage("error", err.message);
    return;
  }
  // a message sent meanwhile is newer than this answer; with nothing stored yet, what the page
  // shows (e.g. a message refused for want of a token) stays
  if (data === null || id !== state.session || state.busy || sends !== state.sends) return;
  if (!data.exchanges.length) {
    $("empty-chat").classList.toggle("hidden", messages.children.length > 0);
    return;
  }
  messages.replaceChildren();
  if (data.truncated) messages.append(el("li", { class: "msg system", text: "(earlier messages of this conversation are not shown)" }));
  for (const exchange of data.exchanges) {
    addMessage("user", exchange.text);
    if (exchange.answer === null) {
      addMessage("system", exchange.status === "cancelled" ? "(cancelled: no answer)" : "(no answer)");
      continue;
    }
    const answer = addMessage("thea", exchange.answer);
    answer.dataset.impulse = exchange.impulse_id;
    answer.append(answerMeta(exchange.impulse_id, []));
  }
  $("empty-chat").classList.add("hidden");
  messages.scrollTop = messages.scrollHeight;
}

async function loadSessions() {
  let data;
  try {
    data = await latestJSON("sessions", API + "/sessions?limit=50");
  } catch (err) {
    return;  // the page says elsewhere that thea cannot be reached
  }
  if (data === null) return;
  const list = $("sessions");
  list.replaceChildren();
  for (const item of data.sessions) {
    const when = fmtDate(item.last_at) + " · " + item.messages + (item.messages === 1 ? " message" : " messages");
    list.append(el("li", { class: "session", "data-session": item.session_id },
      el("button", { class: "session-link", type: "button", title: item.title, onclick: () => openSession(item.session_id) },
        el("span", { class: "session-title", text: item.title }),
        el("span", { class: "session-when", text: when }))));
  }
  if (!data.sessions.length) list.append(el("li", { class: "hint", text: "Your conversations will be listed here." }));
  markCurrentSession();
}

function markCurrentSession() {
  for (const item of document.querySelectorAll("#sessions li.session")) {
    const current = item.dataset.session === state.session;
    item.classList.toggle("current", current);
    if (current) item.querySelector("button").setAttribute("aria-current", "true");
    else item.querySelector("button").removeAttribute("aria-current");
  }
}

function switchSession(id) {
  state.session = rememberSession(id);
  messages.replaceChildren();
  $("trace-panel").classList.add("hidden");
  $("empty-chat").classList.remove("hidden");
  markCurrentSession();
  go("chat");
}

function openSession(id) {
  if (state.busy) { setStatus("wait for the answer first"); return; }
  switchSession(id);
  loadConversation();
}

$("new-chat").addEventListener("click", () => {
  if (state.busy) { setStatus("wait for the answer first"); return; }
  switchSession(newSessionId());
  $("input").focus();
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
      for (const fact of explained.facts) {
        facts.append(el("li", { class: "fact", text: (fact.text || "") + " (" + short(fact.id) + ")" + (fact.why ? " — " + fact.why : "") }));
      }
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

// ---------------------------------------------------------------- memory: what thea knows about you
// The user's current facts of record by subject (the user first), each with since when it
// holds, the message it came from and its earlier values; a summary on top. Per fact: Correct
// (what is true instead: the old value stays in its history), Outdated (it no longer holds) and
// Delete (for good, after a confirmation).
const fmtDay = (ms) => new Date(ms).toLocaleDateString([], { dateStyle: "medium" });
const factUrl = (id) => API + "/facts/" + encodeURIComponent(id);

// what the slow loop still has to do, under a list that may look empty or behind because of it
async function showSlowLoop(id) {
  let data;
  try {
    data = await latestJSON("slow-" + id, API + "/slow-loop");
  } catch (err) {
    return;  // the list is shown all the same
  }
  if (data === null) return;
  const line = $(id);
  line.textContent = visible(data.summary || "");
  line.classList.toggle("hidden", !data.summary);
}

async function loadMemory() {
  showSlowLoop("memory-slow");
  let data;
  try {
    data = await latestJSON("memory", API + "/facts");
  } catch (err) {
    $("memory-list").replaceChildren(el("p", { class: "err", text: err.message }));
    return;
  }
  if (data === null) return;
  $("memory-summary").textContent = visible(data.summary);
  $("memory-count").textContent = data.count + (data.count === 1 ? " fact" : " facts");
  const list = $("memory-list");
  list.replaceChildren();
  for (const group of data.subjects) {
    const facts = el("ul", { class: "fact-list" });
    for (const fact of group.facts) facts.append(factCard(fact));
    list.append(el("section", { class: "subject", "data-subject": group.key }, el("h3", { text: group.name }), facts));
  }
  if (!data.subjects.length) {
    list.append(el("p", { class: "hint", text: "thea knows nothing about you yet. Tell it about yourself in the chat, "
      + "e.g. \u201cI live in Leeds.\u201d or \u201cMy sister Mia is a nurse.\u201d" }));
  }
}

function factSource(source) {
  const line = el("div", { class: "fact-source" });
  if (source.kind === "message") {
    line.append(el("span", { class: "muted", text: "you said" + (source.at ? " on " + fmtDate(source.at) : "") + ": " }),
      el("q", { class: "source-text", text: source.text }));
  } else {
    line.append(el("span", { class: "muted", text: source.label }));
  }
  return line;
}

function factCard(fact) {
  const card = el("li", { class: "fact-card", "data-id": fact.id });
  card.append(
    el("div", { class: "fact-text", text: fact.text }),
    el("div", { class: "fact-since muted", text: (fact.planned ? "from " + fmtDay(fact.since) + " (planned)" : "since " + fmtDay(fact.since)) + " · " + fact.id.slice(0, 8) }),
    factSource(fact.source));
  if (fact.history.length) {
    const earlier = el("ul", { class: "fact-history" });
    for (const old of fact.history) {
      const span = fmtDay(old.since) + (old.until ? " – " + fmtDay(old.until) : "");
      earlier.append(el("li", {}, el("span", { class: "earlier-text", text: old.text }), el("span", { class: "muted", text: " (" + span + ")" })));
    }
    card.append(el("div", { class: "fact-earlier" }, el("span", { class: "muted", text: "Earlier:" }), earlier));
  }
  card.append(factActions(card, fact));
  return card;
}

function factActions(card, fact) {
  const bar = el("div", { class: "fact-actions" });
  bar.append(
    el("button", { class: "small", type: "button", text: "Correct", title: "say what is true instead (the old value stays in its history)",
      onclick: () => correctFact(card, fact, bar) }),
    el("button", { class: "small", type: "button", text: "Outdated", title: "it no longer holds; nothing replaces it",
      onclick: () => factChanged(card, sendJSON("PATCH", factUrl(fact.id), { action: "outdate" })) }),
    el("button", { class: "small danger", type: "button", text: "Delete", title: "forget it for good",
      onclick: () => confirmDelete(card, fact, bar) }));
  return bar;
}

function correctFact(card, fact, bar) {
  const input = el("input", { class: "fact-input", value: fact.text, maxlength: "2000", "aria-label": "what is true instead" });
  const form = el("form", { class: "fact-edit", autocomplete: "off" }, input,
    el("button", { class: "small primary", type: "submit", text: "Save" }),
    el("button", { class: "small", type: "button", text: "Cancel", onclick: () => form.replaceWith(bar) }));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (text) factChanged(card, sendJSON("PATCH", factUrl(fact.id), { action: "correct", text }));
  });
  bar.replaceWith(form);
  input.focus();
  input.select();
}

function confirmDelete(card, fact, bar) {
  const ask = el("div", { class: "fact-confirm", role: "group", "aria-label": "confirm deletion" },
    el("span", { text: "Delete this for good? thea will no longer know it." }),
    el("button", { class: "small danger", type: "button", text: "Delete for good",
      onclick: () => factChanged(card, sendJSON("DELETE", factUrl(fact.id))) }),
    el("button", { class: "small", type: "button", text: "Keep", onclick: () => ask.replaceWith(bar) }));
  bar.replaceWith(ask);
}

async function factChanged(card, request) {
  card.classList.add("busy");
  for (const button of card.querySelectorAll("button")) button.disabled = true;
  try {
    const result = await request;
    $("memory-notice").textContent = visible(result.summary);
    $("memory-notice").classList.remove("hidden");
    await loadMemory();
  } catch (err) {
    card.classList.remove("busy");
    for (const button of card.querySelectorAll("button")) button.disabled = false;
    card.append(el("p", { class: "err", text: err.message }));
  }
}
$("memory-refresh").addEventListener("click", () => { $("memory-notice").classList.add("hidden"); loadMemory(); });

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
      onclick: (event) => { event.stopPropagation(); $("insight-concept").value = name; filterInsights(); } }));
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

// A filter changed: an insight whose details are open stays open only while the list holds it
// (and a detail still on its way from before the filter is dropped).
function filterInsights() {
  latestTicket.insight = (latestTicket.insight || 0) + 1;
  loadInsights({ filtered: true });
}

function clearInsightDetail() {
  const panel = $("insight-detail");
  panel.classList.add("hidden");
  panel.replaceChildren();
  delete panel.dataset.id;
  for (const row of document.querySelectorAll("#insights-table tr.insight.selected")) row.classList.remove("selected");
}

async function loadInsights({ filtered = false } = {}) {
  state.insightsLoaded = true;
  showSlowLoop("insight-slow");
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
  const shown = $("insight-detail").dataset.id;
  if (filtered && shown && !data.insights.some((item) => item.id === shown)) clearInsightDetail();
  for (const row of tbody.querySelectorAll("tr.insight")) row.classList.toggle("selected", row.dataset.id === shown);
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
  panel.dataset.id = data.id;
  for (const row of document.querySelectorAll("#insights-table tr.insight")) row.classList.toggle("selected", row.dataset.id === data.id);
  const head = el("div", { class: "panel-head" }, el("h2", { text: "Insight " + short(data.id) }),
    el("button", { class: "small", type: "button", text: "Graph", onclick: () => go("graph", { node: data.id }) }),
    el("button", { class: "close", type: "button", text: "×", "aria-label": "close", onclick: clearInsightDetail }));
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

$("insight-filters").addEventListener("submit", (event) => { event.preventDefault(); filterInsights(); });
$("insight-state").addEventListener("change", filterInsights);

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
  info.textContent = "loading…";  // neither: your own graph, around what you told last
  let data;
  try {
    data = await latestJSON("graph", API + "/graph?" + params);
  } catch (err) {
    info.textContent = visible(err.message);
    return;
  }
  if (data === null) return;
  if (!data.nodes.length) {
    info.textContent = "Nothing to show yet: tell me about yourself in the chat.";
    return;
  }
  info.textContent = visible(data.nodes.length + " nodes, " + data.edges.length + " edges"
    + (concept || node ? "" : ", around what you told last"));
  if (state.cy) state.cy.destroy();
  state.cy = cytoscape({
    container: $("graph"),
    elements: [...data.nodes, ...data.edges].map((item) =>
      Object.assign({}, item, { data: Object.assign({}, item.data, { label: visible(item.data.label || "") }) })),
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
    if ($("status").textContent !== "reconnected") setStatus("");
    $("whoami").textContent = visible(me.user_id + " · " + health.profile + " profile");
    $("whoami").title = "your user on this thea service (the local user, or your token's) and its profile";
    $("token-bar").classList.add("hidden");
  } catch (err) {
    if (!(err instanceof AuthError || err instanceof OfflineError)) setStatus("offline");
    return;
  }
  loadConversation();
  loadSessions();
  if (document.querySelector("#view-memory.active")) loadMemory();
}

legend();
route();
hello();
$("input").focus();
