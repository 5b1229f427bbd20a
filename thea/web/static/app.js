// thea web chat. All stored text is inserted with textContent, never innerHTML.
"use strict";

const state = { token: sessionStorage.getItem("thea-token") || "", cy: null };

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

async function api(path, options = {}) {
  const headers = Object.assign({}, options.headers || {});
  if (state.token) headers["Authorization"] = "Bearer " + state.token;
  const response = await fetch(path, Object.assign({}, options, { headers }));
  if (response.status === 401) {
    const token = window.prompt("This thea server needs an access token:");
    if (token) {
      state.token = token;
      sessionStorage.setItem("thea-token", token);
      return api(path, options);
    }
  }
  return response;
}

function setStatus(text) { document.getElementById("status").textContent = text; }

// ---------------------------------------------------------------- chat
const messages = document.getElementById("messages");

function addMessage(kind, text) {
  const item = el("li", { class: "msg " + kind, text });
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
    let event = "message", data = "";
    for (const line of block.split("\n")) {
      if (line.startsWith("event: ")) event = line.slice(7);
      else if (line.startsWith("data: ")) data += line.slice(6);
    }
    events.push({ event, data: data ? JSON.parse(data) : null });
  }
  return { events, rest: buffer };
}

async function send(text) {
  addMessage("user", text);
  const isCommand = text.trim().startsWith("!");
  const answer = addMessage(isCommand ? "system" : "thea", "");
  answer.classList.add("streaming");
  setStatus("thinking…");
  let response;
  try {
    response = await api("/api/chat", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ text }),
    });
  } catch (err) {
    answer.className = "msg error";
    answer.textContent = "cannot reach the server: " + err;
    setStatus("");
    return;
  }
  if (!response.ok) {
    answer.className = "msg error";
    const body = await response.json().catch(() => ({}));
    answer.textContent = body.error || body.detail || ("request failed: " + response.status);
    setStatus("");
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
  answer.classList.remove("streaming");
  setStatus("");
}

function handleEvent(answer, event, data) {
  if (event === "token") {
    answer.textContent += data;
    messages.scrollTop = messages.scrollHeight;
  } else if (event === "done") {
    answer.dataset.impulse = data.impulse_id;
    const meta = el("span", { class: "meta" });
    if (data.failed_steps.length) meta.textContent = "failed steps: " + data.failed_steps.join(", ") + " ";
    meta.append(el("button", { class: "trace-link", text: "How I got this", onclick: () => showTrace(data.impulse_id) }));
    answer.append(meta);
  } else if (event === "command") {
    answer.textContent = data.text;
    if (data.data && Object.keys(data.data).length) answer.textContent += "\n" + JSON.stringify(data.data, null, 2);
    if (data.trace) renderTrace(data.trace);
  } else if (event === "error") {
    answer.className = "msg error";
    answer.textContent = data.message;
  }
}

document.getElementById("composer").addEventListener("submit", (event) => {
  event.preventDefault();
  const input = document.getElementById("input");
  const text = input.value;
  if (!text.trim()) return;
  input.value = "";
  send(text);
});
document.getElementById("input").addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey) {
    event.preventDefault();
    document.getElementById("composer").requestSubmit();
  }
});

// ---------------------------------------------------------------- trace panel
async function showTrace(impulseId) {
  const response = await api("/api/trace/" + encodeURIComponent(impulseId));
  if (!response.ok) return;
  renderTrace(await response.json());
}

function renderTrace(trace) {
  const panel = document.getElementById("trace-panel");
  const body = document.getElementById("trace-body");
  body.replaceChildren();
  body.append(el("p", { class: "impulse", text: "Impulse " + trace.impulse.id.slice(0, 8) + ": " + trace.impulse.content }));
  if (!trace.complete) body.append(el("p", { class: "err", text: "cycle incomplete" }));
  for (const step of trace.steps) {
    const report = step.report || {};
    const status = report.status || "PENDING";
    const box = el("div", { class: "step " + status });
    let head = step.task.step + " — " + status;
    if (report.duration_ms !== undefined) head += " — " + Math.round(report.duration_ms) + " ms";
    if (report.llm_calls) head += " — " + report.tokens_in + "→" + report.tokens_out + " tokens";
    box.append(el("h3", { text: head }));
    if (report.error) box.append(el("div", { class: "err", text: report.error }));
    const output = report.output || {};
    const list = el("ul");
    if (step.task.step === "plan") {
      list.append(el("li", { text: "queries: " + JSON.stringify(output.queries || []) }));
      list.append(el("li", { text: "concepts: " + JSON.stringify(output.concepts || []) }));
    }
    if (step.task.step === "recall") {
      for (const hit of output.hits || []) {
        list.append(el("li", { class: "hit", text: hit.type + " " + hit.id.slice(0, 8) + " (score " + hit.score + ", via " + hit.stages.join(", ") + ")" }));
      }
      if (!(output.hits || []).length) list.append(el("li", { text: "no memories recalled" }));
    }
    for (const node of step.outputs) list.append(el("li", { text: node.type + ": " + node.content }));
    box.append(list);
    body.append(box);
  }
  for (const node of trace.related) body.append(el("p", { text: node.type + " " + node.id.slice(0, 8) + ": " + node.content }));
  panel.classList.remove("hidden");
}
document.getElementById("close-trace").addEventListener("click", () => document.getElementById("trace-panel").classList.add("hidden"));

// ---------------------------------------------------------------- tabs
for (const tab of document.querySelectorAll(".tab")) {
  tab.addEventListener("click", () => {
    for (const other of document.querySelectorAll(".tab")) other.classList.toggle("active", other === tab);
    for (const view of document.querySelectorAll(".view")) view.classList.toggle("active", view.id === "view-" + tab.dataset.tab);
    if (tab.dataset.tab === "insights") loadInsights();
  });
}

// ---------------------------------------------------------------- insights
async function loadInsights() {
  const params = new URLSearchParams({ state: document.getElementById("insight-state").value });
  const concept = document.getElementById("insight-concept").value.trim();
  if (concept) params.set("concept", concept);
  const response = await api("/api/insights?" + params);
  if (!response.ok) return;
  const data = await response.json();
  const tbody = document.querySelector("#insights-table tbody");
  tbody.replaceChildren();
  for (const item of data.insights) {
    const row = el("tr", { class: item.active ? "active" : "archived", onclick: () => loadInsight(item.id) },
      el("td", { text: String(item.strength) }),
      el("td", { text: item.content }),
      el("td", { text: item.concepts.join(", ") }),
      el("td", { text: item.active ? "active" : "archived" }),
      el("td", { text: item.id.slice(0, 8) }));
    tbody.append(row);
  }
  if (!data.insights.length) tbody.append(el("tr", {}, el("td", { colspan: "5", text: "no insights yet" })));
}

async function loadInsight(id) {
  const response = await api("/api/insights/" + encodeURIComponent(id));
  if (!response.ok) return;
  const data = await response.json();
  const lines = [
    data.content, "", "strength " + data.strength + ", " + (data.active ? "active" : "archived"),
    "concepts: " + data.concepts.join(", "),
    "merged from: " + (data.merged_from.join(", ") || "-"),
    "merged into: " + (data.merged_into.join(", ") || "-"),
    "source impulses: " + (data.source_impulses.join(", ") || "-"),
  ];
  for (const rel of data.relations) lines.push(rel.subject + " " + rel.relation + " " + rel.object + " (" + rel.confidence + ")");
  document.getElementById("insight-detail").textContent = lines.join("\n");
}
document.getElementById("insight-refresh").addEventListener("click", loadInsights);

// ---------------------------------------------------------------- graph view
const COLORS = { Concept: "#3b5bdb", KnowledgeCrystal: "#e67700", UserImpulse: "#2b8a3e", FinalResponse: "#862e9c", Fact: "#c92a2a" };

async function showGraph() {
  const params = new URLSearchParams({ depth: document.getElementById("graph-depth").value });
  const concept = document.getElementById("graph-concept").value.trim();
  const node = document.getElementById("graph-node").value.trim();
  if (concept) params.set("concept", concept); else if (node) params.set("node", node);
  const info = document.getElementById("graph-info");
  const response = await api("/api/graph?" + params);
  if (!response.ok) {
    const body = await response.json().catch(() => ({}));
    info.textContent = body.detail || "not found";
    return;
  }
  const data = await response.json();
  info.textContent = data.nodes.length + " nodes, " + data.edges.length + " edges";
  if (state.cy) state.cy.destroy();
  state.cy = cytoscape({
    container: document.getElementById("graph"),
    elements: [...data.nodes, ...data.edges],
    style: [
      { selector: "node", style: { label: "data(label)", "font-size": 9, "background-color": (n) => COLORS[n.data("type")] || "#868e96", "text-wrap": "ellipsis", "text-max-width": 120 } },
      { selector: "node[?start]", style: { "border-width": 3, "border-color": "#000" } },
      { selector: "edge", style: { label: "data(label)", "font-size": 7, width: 1.5, "curve-style": "bezier", "target-arrow-shape": "triangle", color: "#555" } },
    ],
    layout: { name: "cose", animate: false },
  });
  state.cy.on("tap", "node", (event) => { info.textContent = event.target.data("type") + ": " + event.target.data("text"); });
}
document.getElementById("graph-show").addEventListener("click", showGraph);

api("/api/health").then((r) => r.json()).then((h) => setStatus("profile " + h.profile)).catch(() => setStatus("offline"));
