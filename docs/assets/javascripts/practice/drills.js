// The drills page (docs/practice/drills.md): a timer per drill against its target, the model answer
// kept folded until the reader asks for it, and drill 5's follow-ups one at a time, each timed, the
// next question shown only once the last is answered. Times are kept in local storage only.
// A drill's element carries its key, its target in seconds and its storage key
// (macros/site/pages/drills.py); drill 5's also names the container of its folded answers.
import { mmss } from "./clock.js";
import { el, shortDate } from "./dom.js";
import { loadJson, saveJson } from "./store.js";

const SHOWN_RESULTS = 5;

// A stopwatch: start, stop, and the seconds it read when stopped.
function stopwatch(onTick) {
  let since = null;
  let timer = null;
  return {
    running: () => since !== null,
    start() { since = Date.now(); timer = setInterval(() => onTick((Date.now() - since) / 1000), 250); onTick(0); },
    stop() {
      const seconds = (Date.now() - since) / 1000;
      clearInterval(timer);
      since = null;
      onTick(seconds);
      return seconds;
    },
  };
}

function verdictText(seconds, target) {
  return seconds <= target ? `${mmss(seconds)}: inside the ${mmss(target)} target.`
    : `${mmss(seconds)}: ${mmss(seconds - target)} over the ${mmss(target)} target.`;
}

// The folded answers that belong to a drill: the <details> after its element, up to the next heading.
function answersAfter(root) {
  const out = [];
  for (let n = root.nextElementSibling; n && !/^H[12]$/.test(n.tagName); n = n.nextElementSibling) {
    if (n.tagName === "DETAILS") out.push(n);
    else out.push(...n.querySelectorAll("details"));
  }
  return out;
}

function resultsList(storage, target, label) {
  const past = loadJson(storage, []);
  if (!past.length) return el("p", { class: "drill__results", text: "No times recorded in this browser yet." });
  const best = Math.min(...past.map((r) => r.seconds));
  const recent = past.slice(-SHOWN_RESULTS).reverse().map((r) => el("li", {},
    `${shortDate(r.date)}: ${label ? `${r.label}, ` : ""}${mmss(r.seconds)}`
    + (r.seconds <= target ? " (inside the target)" : "")));
  return el("div", { class: "drill__results" },
    el("p", { text: `Your best: ${mmss(best)}, over ${past.length} ${past.length === 1 ? "run" : "runs"} `
      + "(kept in this browser only). Latest:" }),
    el("ul", {}, recent));
}

function button(label, onclick, action) {
  return el("button", { type: "button", class: "md-button", onclick, "data-action": action }, label);
}

function record(storage, seconds, label) {
  const past = loadJson(storage, []);
  past.push({ date: new Date().toISOString(), seconds: Math.round(seconds * 10) / 10, label });
  saveJson(storage, past);
}

function startSingle(root) {
  const target = Number(root.dataset.targetS);
  const storage = root.dataset.storage;
  const answers = answersAfter(root);
  const clock = el("span", { class: "drill__clock", role: "timer", text: "0:00" });
  const status = el("p", { class: "drill__status", "aria-live": "polite" });
  const results = el("div", {});
  const watch = stopwatch((s) => { clock.textContent = mmss(s); });
  const toggle = button("Start the clock", () => {
    if (!watch.running()) {
      watch.start();
      toggle.textContent = "Stop: I'm done";
      toggle.dataset.action = "stop";
      status.textContent = "Say it aloud now.";
      return;
    }
    const seconds = watch.stop();
    record(storage, seconds);
    toggle.textContent = "Start again";
    toggle.dataset.action = "start";
    status.textContent = verdictText(seconds, target);
    results.replaceChildren(resultsList(storage, target, false));
  }, "start");
  const show = button("Show the model answer", () => {
    for (const d of answers) d.open = true;
    answers[0]?.querySelector("summary")?.focus();
  }, "answer");
  results.replaceChildren(resultsList(storage, target, false));
  root.replaceChildren(el("div", { class: "drill__widget" },
    el("p", { class: "drill__clockline" }, clock, ` against a target of ${mmss(target)}`),
    el("div", { class: "mock-round__buttons" }, toggle, show), status, results));
}

// Drill 5: the follow-ups' folded answers are hidden; each question is shown, timed and answered in
// turn, then its model answer comes back (still folded) and the next question can be asked for.
function startSequence(root) {
  const target = Number(root.dataset.targetS);
  const storage = root.dataset.storage;
  const answers = answersAfter(root);
  const questions = answers.map((d) => d.querySelector("summary").textContent.trim());
  for (const d of answers) d.hidden = true;
  let k = -1;
  const clock = el("span", { class: "drill__clock", role: "timer", text: "0:00" });
  const question = el("p", { class: "drill__question", tabindex: "-1" });
  const status = el("p", { class: "drill__status", "aria-live": "polite" });
  const results = el("div", {});
  const watch = stopwatch((s) => { clock.textContent = mmss(s); });
  const buttons = el("div", { class: "mock-round__buttons" });

  function ask() {
    k += 1;
    question.replaceChildren(el("strong", { text: `Follow-up ${k + 1} of ${questions.length}: ` }), questions[k]);
    watch.start();
    status.textContent = "Answer aloud now.";
    buttons.replaceChildren(button("Stop: I've answered", answered, "stop"));
    question.focus();
  }

  function answered() {
    const seconds = watch.stop();
    record(storage, seconds, `follow-up ${k + 1}`);
    answers[k].hidden = false;  // its model answer, folded: open it to compare
    status.textContent = `${verdictText(seconds, target)} The model answer is below, folded.`;
    results.replaceChildren(resultsList(storage, target, true));
    buttons.replaceChildren(k + 1 < questions.length ? button("Next follow-up", ask, "next")
      : el("span", { text: "That was the last follow-up." }));
  }

  buttons.replaceChildren(button("Ask me the first follow-up", ask, "next"));
  results.replaceChildren(resultsList(storage, target, true));
  root.replaceChildren(el("div", { class: "drill__widget" },
    el("p", { class: "drill__clockline" }, clock, ` against ${mmss(target)} each`),
    question, buttons, status, results));
}

export function startDrills(doc) {
  for (const root of doc.querySelectorAll(".drill[data-drill]")) {
    if (root.dataset.started) continue;
    root.dataset.started = "1";
    if (root.dataset.sequence) startSequence(root); else startSingle(root);
  }
}
