// Suggested questions (chips after an upload) and 👍/👎 under each answer. Loaded after
// page.js, whose el(), ask(), base and headers it uses; page.js calls ptExtras.after(node,
// reply) once a reply is shown. Every server text is inserted as text, never as HTML.
"use strict";

(function () {
  const style = document.createElement("style");
  style.textContent = `
    .suggestions { margin-top: .4rem; display: flex; flex-wrap: wrap; gap: .3rem; align-items: center; }
    .suggestions .chip { border: 1px solid currentColor; border-radius: 1rem; padding: .15rem .6rem;
      background: transparent; color: inherit; cursor: pointer; font: inherit; font-size: .9em; }
    .feedback { margin-top: .3rem; display: flex; gap: .3rem; align-items: center; font-size: .9em; }
    .feedback button { background: transparent; border: 1px solid #8888; border-radius: .3rem;
      cursor: pointer; font: inherit; }
    .feedback button[aria-pressed="true"] { border-color: currentColor; }`;
  document.head.append(style);
})();

function suggestionChips(node, reply) {
  const questions = reply.suggestions || [];
  if (!questions.length) return;
  const row = el("div", { class: "suggestions" }, "Try:");
  for (const q of questions) {
    const chip = el("button", { type: "button", class: "chip" }, q);
    chip.addEventListener("click", () => ask(q));
    row.append(chip);
  }
  node.append(row);
}

function feedbackButtons(node, reply) {
  if (!reply.answer_id) return;
  const row = el("div", { class: "feedback" });
  const note = el("span", { class: "note", role: "status" });
  const choices = [["up", "👍 Right", "This answer is right"], ["down", "👎 Wrong", "This answer is wrong"]];
  for (const [verdict, label, aria] of choices) {
    const button = el("button", { type: "button", "aria-label": aria, "data-verdict": verdict }, label);
    button.addEventListener("click", async () => {
      const res = await fetch(`${base}/feedback`, {
        method: "POST", headers: { ...headers, "Content-Type": "application/json" },
        body: JSON.stringify({ answer_id: reply.answer_id, verdict }),
      });
      let body = {};
      try { body = await res.json(); } catch (e) { /* not JSON */ }
      note.textContent = body.note || body.error || `${res.status} ${res.statusText}`;
      for (const b of row.querySelectorAll("button")) b.setAttribute("aria-pressed", String(b === button));
    });
    row.append(button);
  }
  row.append(note);
  node.append(row);
}

window.ptExtras = {
  after(node, reply) {
    suggestionChips(node, reply);
    feedbackButtons(node, reply);
  },
};
