// The web channel's page: uploads, questions and the library, over the JSON routes
// of adapters/web/app.py. Plain JavaScript, no build step. Every text from the
// server is inserted as text (never as HTML).
"use strict";

const workspace = decodeURIComponent(location.pathname.split("/")[2] || "");
const base = `/w/${encodeURIComponent(workspace)}`;
const headers = { "X-PaperTrail": "1" };
let conversation = newConversation();

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

// Streams NDJSON lines: {"progress": "..."} while the bot works, then {"reply": {...}}.
async function streamed(url, options, onProgress) {
  const res = await fetch(url, options);
  if (!res.ok || !res.body) {
    let message = `${res.status} ${res.statusText}`;
    try { message = (await res.json()).error || message; } catch (e) { /* not JSON */ }
    return { kind: "error", text: message, sources: [], warnings: [], footer: "" };
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
  return reply || { kind: "error", text: "The connection closed before the reply.", sources: [], warnings: [], footer: "" };
}

// -- library -------------------------------------------------------------------

async function refreshLibrary() {
  const res = await fetch(`${base}/library`);
  const data = await res.json();
  const list = document.getElementById("library");
  list.replaceChildren();
  document.getElementById("library-empty").textContent = data.documents.length ? "" : data.text;
  for (const d of data.documents) {
    const facts = [d.kind, d.period, `${d.pages} pages`].filter(Boolean).join(" · ");
    const forget = el("button", { type: "button", title: `Forget ${d.name}` }, "Forget");
    forget.addEventListener("click", () => forgetDocument(d.name));
    const title = d.title && d.title !== d.name ? el("div", { class: "meta" }, d.title) : "";
    list.append(el("li", { "data-name": d.name }, forget, el("div", { class: "name" }, d.name), title,
                   el("div", { class: "meta" }, facts)));
  }
}

async function forgetDocument(name) {
  const res = await fetch(`${base}/forget`, {
    method: "POST", headers: { ...headers, "Content-Type": "application/json" },
    body: JSON.stringify({ name }),
  });
  const reply = await res.json();
  showReply(botMessage(), reply.error ? { kind: "error", text: reply.error } : reply);
  refreshLibrary();
}

async function upload(file) {
  const item = el("li", {}, `${file.name}: uploading…`);
  document.getElementById("uploads").prepend(item);
  const reply = await streamed(`${base}/upload`, {
    method: "POST", body: file,
    headers: { ...headers, "X-File-Name": encodeURIComponent(file.name),
               "Content-Type": file.type || "application/octet-stream" },
  }, (status) => { item.textContent = status; });
  item.className = reply.kind === "error" ? "error" : "done";
  item.textContent = reply.kind === "error" ? `${file.name}: ${reply.text}` : `✓ ${reply.text}`;
  if (window.ptExtras) window.ptExtras.after(item, reply);  // suggested questions: extras.js
  refreshLibrary();
}

function uploadAll(files) { for (const f of files) upload(f); }

// -- conversation ------------------------------------------------------------------

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

function showReply(node, reply) {
  const id = `r${Math.random().toString(36).slice(2, 8)}`;
  node.replaceChildren();
  node.classList.toggle("error", reply.kind === "error");
  node.dataset.kind = reply.kind;
  node.append(el("div", { class: "text" }, withMarkers(reply.text || "", id)));
  for (const w of reply.warnings || []) node.append(el("div", { class: "warning" }, w));
  for (const s of reply.sources || []) {
    const box = el("div", { class: "source", id: `${id}-s${s.n}` }, el("div", { class: "title" }, s.title));
    if (s.evidence) box.append(el("blockquote", {}, `“${s.evidence}”`));
    if (s.image) {
      const img = el("img", { src: s.image.url, alt: s.image.title, title: "Click to enlarge" });
      img.addEventListener("click", () => enlarge(s.image.url, s.image.title));
      box.append(img);
    }
    node.append(box);
  }
  if (reply.footer) node.append(el("div", { class: "footer" }, reply.footer));
  if (window.ptExtras) window.ptExtras.after(node, reply);  // 👍/👎, suggestions: extras.js
  node.scrollIntoView({ block: "end" });
}

async function ask(text) {
  document.getElementById("messages").append(el("div", { class: "msg you" }, text));
  const node = botMessage();
  const reply = await streamed(`${base}/ask`, {
    method: "POST", headers: { ...headers, "Content-Type": "application/json" },
    body: JSON.stringify({ text, conversation }),
  }, (status) => { node.querySelector(".progress").textContent = status; });
  showReply(node, reply);
}

function enlarge(url, title) {
  const box = document.getElementById("lightbox");
  const img = box.querySelector("img");
  img.src = url;
  img.alt = title;
  box.hidden = false;
}

// -- wiring ----------------------------------------------------------------------

document.addEventListener("DOMContentLoaded", () => {
  document.getElementById("workspace").textContent = workspace;
  const drop = document.getElementById("drop");
  const input = document.getElementById("file");
  input.addEventListener("change", () => { uploadAll(input.files); input.value = ""; });
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
    conversation = newConversation();
    document.getElementById("messages").replaceChildren();
  });
  document.getElementById("lightbox").addEventListener("click", (e) => { e.currentTarget.hidden = true; });
  refreshLibrary();
});
