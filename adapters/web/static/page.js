// The web channel's page: uploads, questions and the library, over the JSON routes
// of adapters/web/app.py. Plain JavaScript, no build step, no inline code (the page
// runs under a Content-Security-Policy). Every text from the server is inserted as
// text (never as HTML). The conversation is kept in this browser's localStorage under
// the workspace's own key, so a reload keeps it and another workspace never sees it.
"use strict";

const workspace = decodeURIComponent(location.pathname.split("/")[2] || "");
const base = `/w/${encodeURIComponent(workspace)}`;
const headers = { "X-PaperTrail": "1" };
const HISTORY_KEY = `papertrail.history.${workspace}`;
const HISTORY_ITEMS = 60; // questions and replies kept per workspace, newest last
let chatLog = loadHistory();
let conversation = chatLog.conversation;

function newConversation() {
  return Array.from({ length: 16 }, () => Math.floor(Math.random() * 16).toString(16)).join("");
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
}

// -- history: this workspace's conversation, in this browser ------------------------

function loadHistory() {
  try {
    const saved = JSON.parse(localStorage.getItem(HISTORY_KEY) || "null");
    if (saved && saved.workspace === workspace && Array.isArray(saved.items)) return saved;
  } catch (e) { /* unreadable or unavailable storage: start afresh */ }
  return { workspace, conversation: newConversation(), items: [] };
}

function remember(item) {
  chatLog.items.push(item);
  chatLog.items = chatLog.items.slice(-HISTORY_ITEMS);
  saveHistory();
}

function saveHistory() {
  try {
    localStorage.setItem(HISTORY_KEY, JSON.stringify(chatLog));
  } catch (e) { /* storage full or disabled: the page still works, without memory */ }
}

function replayHistory() {
  for (const item of chatLog.items) {
    if (item.you !== undefined) showQuestion(item.you);
    else if (item.reply) showReply(botMessage(), item.reply, { scroll: false });
  }
  const messages = document.getElementById("messages");
  messages.scrollTop = messages.scrollHeight;
}

// -- the server's NDJSON streams -------------------------------------------------------

// Streams NDJSON lines: {"progress": "..."} while the bot works, then {"reply": {...}}.
async function streamed(url, options, onProgress) {
  let res;
  try {
    res = await fetch(url, options);
  } catch (e) {
    return failed("The server cannot be reached. Check that PaperTrail is still running.");
  }
  if (!res.ok || !res.body) {
    let message = `${res.status} ${res.statusText}`;
    try { message = (await res.json()).error || message; } catch (e) { /* not JSON */ }
    return failed(message);
  }
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "", reply = null;
  for (;;) {
    const { value, done } = await reader.read();
    if (value) buffer += decoder.decode(value, { stream: true });
    let cut;
    while ((cut = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, cut).trim();
      buffer = buffer.slice(cut + 1);
      if (!line) continue;
      const obj = JSON.parse(line);
      if (obj.progress) onProgress(obj.progress);
      if (obj.reply) reply = obj.reply;
    }
    if (done) break;
  }
  return reply || failed("The connection closed before the reply.");
}

function failed(text) {
  return { kind: "error", text, sources: [], warnings: [], footer: "" };
}

// "Indexing report.pdf — 12/40 pages", "Reading report.pdf — page 3 of 40": how far along
function fraction(status) {
  const m = status.match(/(\d+)\s*(?:\/|of)\s*(\d+)\s*pages?/) || status.match(/page (\d+) of (\d+)/);
  return m && Number(m[2]) > 0 ? [Number(m[1]), Number(m[2])] : null;
}

// -- library -------------------------------------------------------------------

async function refreshLibrary({ forgotten = false } = {}) {
  let data;
  try {
    data = await (await fetch(`${base}/library`)).json();
  } catch (e) {
    return;
  }
  const list = document.getElementById("library");
  // a document already listed keeps its element (and a confirmation open on it)
  const shown = new Map(Array.from(list.children, (li) => [li.dataset.name, li]));
  list.replaceChildren(...data.documents.map((d) => shown.get(d.name) || libraryItem(d)));
  document.getElementById("library-empty").textContent = data.documents.length ? "" : data.text;
  if (forgotten) {
    // a forgotten document's "✓ Indexed" line would now say something untrue
    const names = new Set(data.documents.map((d) => d.name));
    for (const line of document.querySelectorAll("#uploads li.done")) {
      if (!names.has(line.dataset.name)) line.remove();
    }
  }
}

function libraryItem(d) {
  const item = el("li", { "data-name": d.name });
  const forget = el("button", { type: "button", class: "forget", title: `Forget ${d.name}` }, "Forget");
  forget.addEventListener("click", () => confirmForget(item, d.name));
  item.append(forget, el("div", { class: "name" }, d.name));
  // what the bot read the document to be: "title · kind · period", as `list` says it
  if (d.about) item.append(el("div", { class: "about" }, d.about));
  const facts = [`${d.pages} page${d.pages === 1 ? "" : "s"}`];
  if (d.no_text_pages && d.no_text_pages.length) facts.push(`${d.no_text_pages.length} without text`);
  item.append(el("div", { class: "meta" }, facts.join(" · ")));
  return item;
}

function confirmForget(item, name) {
  if (item.querySelector(".confirm")) return;
  const yes = el("button", { type: "button", class: "danger" }, "Forget it");
  const no = el("button", { type: "button" }, "Cancel");
  const box = el("div", { class: "confirm", role: "alertdialog", "aria-label": `Forget ${name}?` },
                 el("span", {}, `Forget ${name}? Questions here will no longer see it.`), yes, no);
  yes.addEventListener("click", () => { box.remove(); forgetDocument(name); });
  no.addEventListener("click", () => { box.remove(); item.querySelector(".forget").focus(); });
  box.addEventListener("keydown", (e) => { if (e.key === "Escape") no.click(); });
  item.append(box);
  no.focus();
}

async function forgetDocument(name) {
  let reply;
  try {
    const res = await fetch(`${base}/forget`, {
      method: "POST", headers: { ...headers, "Content-Type": "application/json" },
      body: JSON.stringify({ name }),
    });
    reply = await res.json();
  } catch (e) {
    reply = { error: "The server cannot be reached. Check that PaperTrail is still running." };
  }
  reply = reply.error ? failed(reply.error) : reply;
  showReply(botMessage(), reply);
  remember({ reply });
  refreshLibrary({ forgotten: reply.kind === "forget" });
}

async function upload(file) {
  const label = el("span", {}, `${file.name}: uploading…`);
  const bar = el("progress", { max: "1", "aria-label": `${file.name} indexing progress` });
  bar.hidden = true;
  const item = el("li", { "data-name": file.name }, label, bar);
  document.getElementById("uploads").prepend(item);
  const reply = await streamed(`${base}/upload`, {
    method: "POST", body: file,
    headers: { ...headers, "X-File-Name": encodeURIComponent(file.name),
               "Content-Type": file.type || "application/octet-stream" },
  }, (status) => {
    label.textContent = status;
    const part = fraction(status);
    if (part) { bar.hidden = false; bar.max = part[1]; bar.value = part[0]; }
  });
  bar.remove();
  item.className = reply.kind === "error" ? "error" : "done";
  label.textContent = reply.kind === "error" ? `${file.name}: ${reply.text}` : `✓ ${reply.text}`;
  for (const w of reply.warnings || []) item.append(el("div", { class: "warning" }, w));
  if (window.ptExtras) window.ptExtras.after(item, reply);  // suggested questions: extras.js
  refreshLibrary();
}

function uploadAll(files) { for (const f of files) upload(f); }

// -- conversation ------------------------------------------------------------------

function showQuestion(text) {
  const node = el("div", { class: "msg you" }, text);
  document.getElementById("messages").append(node);
  return node;
}

function botMessage() {
  const node = el("div", { class: "msg bot" }, el("div", { class: "progress" }, "Working…"));
  document.getElementById("messages").append(node);
  return node;
}

function withMarkers(text, id) {
  // "[1]" becomes a link to source 1 of this reply; everything else stays text
  const out = document.createDocumentFragment();
  let last = 0;
  for (const m of text.matchAll(/\[(\d+)\]/g)) {
    out.append(text.slice(last, m.index));
    out.append(el("sup", {}, el("a", { href: `#${id}-s${m[1]}` }, m[0])));
    last = m.index + m[0].length;
  }
  out.append(text.slice(last));
  return out;
}

// The answer as plain text with its sources, for pasting into a mail or a document.
function citedText(reply) {
  const parts = [reply.text || ""];
  for (const w of reply.warnings || []) parts.push(w);
  if ((reply.sources || []).length) {
    const lines = reply.sources.map((s) => (s.evidence ? `${s.title}: “${s.evidence}”` : s.title));
    parts.push(`Sources:\n${lines.join("\n")}`);
  }
  if (reply.footer) parts.push(reply.footer);
  return parts.join("\n\n");
}

async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(text);
    return;
  }
  const area = el("textarea", { readonly: "", class: "offscreen" });
  area.value = text;
  document.body.append(area);
  area.select();
  const ok = document.execCommand("copy");
  area.remove();
  if (!ok) throw new Error("copy refused");
}

function copyButton(reply) {
  const button = el("button", { type: "button", class: "copy", title: "Copy the answer with its sources and quotes" },
                    "Copy answer with citations");
  button.addEventListener("click", async () => {
    try {
      await copyText(citedText(reply));
      button.textContent = "✓ Copied";
    } catch (e) {
      button.textContent = "Copy failed: select the text instead";
    }
    setTimeout(() => { button.textContent = "Copy answer with citations"; }, 2500);
  });
  return button;
}

function showReply(node, reply, { scroll = true } = {}) {
  const id = `r${Math.random().toString(36).slice(2, 8)}`;
  node.replaceChildren();
  node.classList.toggle("error", reply.kind === "error");
  node.dataset.kind = reply.kind;
  node.append(el("div", { class: "text" }, withMarkers(reply.text || "", id)));
  for (const w of reply.warnings || []) node.append(el("div", { class: "warning" }, w));
  for (const s of reply.sources || []) {
    const box = el("div", { class: "source", id: `${id}-s${s.n}` }, el("div", { class: "title" }, s.title));
    if (s.evidence) box.append(el("blockquote", {}, `“${s.evidence}”`));
    if (s.image) box.append(picture(s.image));
    node.append(box);
  }
  if (reply.footer) node.append(el("div", { class: "footer" }, reply.footer));
  if (reply.kind === "answer") node.append(el("div", { class: "actions" }, copyButton(reply)));
  if (window.ptExtras) window.ptExtras.after(node, reply);  // 👍/👎, suggestions: extras.js
  if (scroll) node.scrollIntoView({ block: "end" });
}

function picture(image) {
  const img = el("img", { src: image.url, alt: image.title, title: "Click to enlarge", tabindex: "0" });
  img.addEventListener("click", () => enlarge(image.url, image.title, img));
  img.addEventListener("keydown", (e) => {
    if (e.key === "Enter" || e.key === " ") { e.preventDefault(); enlarge(image.url, image.title, img); }
  });
  img.addEventListener("error", () => {
    // pictures are kept for the latest replies only; the text and quote above still hold
    img.replaceWith(el("div", { class: "muted expired" }, "This picture has expired: ask the question again to see it."));
  });
  return img;
}

async function ask(text) {
  showQuestion(text);
  remember({ you: text });
  const node = botMessage();
  node.scrollIntoView({ block: "end" });
  const reply = await streamed(`${base}/ask`, {
    method: "POST", headers: { ...headers, "Content-Type": "application/json" },
    body: JSON.stringify({ text, conversation }),
  }, (status) => { node.querySelector(".progress").textContent = status; });
  showReply(node, reply);
  remember({ reply });
  if (reply.kind === "forget") refreshLibrary({ forgotten: true }); // "forget x.pdf" typed
}

let returnFocus = null;

function enlarge(url, title, from) {
  const box = document.getElementById("lightbox");
  const img = box.querySelector("img");
  img.src = url;
  img.alt = title;
  returnFocus = from || null;
  box.hidden = false;
  box.tabIndex = -1;
  box.focus();
}

function closeLightbox() {
  const box = document.getElementById("lightbox");
  if (box.hidden) return;
  box.hidden = true;
  if (returnFocus) returnFocus.focus();
}

// -- wiring ----------------------------------------------------------------------

document.addEventListener("DOMContentLoaded", () => {
  document.getElementById("workspace").textContent = workspace;
  const drop = document.getElementById("drop");
  const input = document.getElementById("file");
  input.addEventListener("change", () => { uploadAll(input.files); input.value = ""; });
  drop.addEventListener("keydown", (e) => {
    if (e.key === "Enter" || e.key === " ") { e.preventDefault(); input.click(); }
  });
  for (const ev of ["dragenter", "dragover"]) {
    drop.addEventListener(ev, (e) => { e.preventDefault(); drop.classList.add("over"); });
  }
  for (const ev of ["dragleave", "drop"]) {
    drop.addEventListener(ev, (e) => { e.preventDefault(); drop.classList.remove("over"); });
  }
  drop.addEventListener("drop", (e) => uploadAll(e.dataTransfer.files));
  document.getElementById("ask").addEventListener("submit", (e) => {
    e.preventDefault();
    const q = document.getElementById("question");
    if (q.value.trim()) { ask(q.value.trim()); q.value = ""; }
  });
  document.getElementById("new-conversation").addEventListener("click", () => {
    chatLog = { workspace, conversation: newConversation(), items: [] };
    conversation = chatLog.conversation;
    saveHistory();
    document.getElementById("messages").replaceChildren();
  });
  document.getElementById("lightbox").addEventListener("click", closeLightbox);
  document.addEventListener("keydown", (e) => { if (e.key === "Escape") closeLightbox(); });
  replayHistory();
  refreshLibrary();
});
