// The mock round (chapter 7 and every worked design): the prompt and a 45-minute clock with the time
// plan's checkpoints; the reader's notes; the interviewer's follow-ups, one at a time, each only once
// its checkpoint has passed and the last one's answer is committed; then self-scoring on the rubric,
// the hire-bar verdict, the worked answer and critiques revealed, and past rounds with their scores.
// Its content is the JSON the build embeds in the page (macros/site/pages/mock_round.py). Everything
// the reader writes stays in local storage.
import { elapsedMs, followUpsShown, jumped, mmss, newClock, nextCheckpoint, paused, planIndex, resumed } from "./clock.js";
import { el, uid } from "./dom.js";
import { pastRounds } from "./history.js";
import { verdictFor } from "./rubric.js";
import { loadJson, removeKey, saveJson } from "./store.js";

const TICK_MS = 500;
const RUNNING_CLASS = "mock-round-running";  // on <body> while a round runs: the worked answer stays hidden

function freshState(round) {
  return { phase: "idle", clock: newClock(), notes: "", answers: [], draft: "",
           levels: round.rubric.dimensions.map(() => null) };
}

export function startRound(root) {
  if (root.dataset.started) return;
  root.dataset.started = "1";
  const round = JSON.parse(root.querySelector(".mock-round__data").textContent);
  let state = Object.assign(freshState(round), loadJson(round.storage, {}));
  let timer = null;
  let lastPlan = -1;
  let lastShown = -1;
  let lastWaiting = null;

  const save = () => saveJson(round.storage, state);
  const history = () => loadJson(round.history, []);
  const elapsedS = () => elapsedMs(state.clock, Date.now()) / 1000;
  const fold = () => (round.fold ? document.querySelector(round.fold) : null);

  // --- the parts every phase shows ------------------------------------------------------------------
  const live = el("p", { class: "mock-round__live", "aria-live": "polite" });
  const body = el("div", { class: "mock-round__body" });
  for (const old of root.querySelectorAll(".mock-round__fallback")) old.remove();
  root.append(
    el("p", { class: "mock-round__title" }, el("strong", { text: "Mock round" }),
       ` · ${round.round_s / 60} minutes · ${round.title}`),
    el("blockquote", { class: "mock-round__prompt" }, el("p", { text: `“${round.prompt}”` })),
    body, live);

  function say(text) { live.textContent = text; }

  function button(label, onclick, extra) {
    return el("button", Object.assign({ type: "button", class: "md-button", onclick }, extra || {}), label);
  }

  // --- idle: the start button and the past rounds ----------------------------------------------------
  function showIdle() {
    document.body.classList.remove(RUNNING_CLASS);
    body.replaceChildren(
      el("p", { text: `Run it as the interview runs: ${round.round_s / 60} minutes on the clock, the time plan's `
        + "checkpoints as marks, notes in the page, and the interviewer's follow-ups one at a time as the "
        + "clock reaches them. Then score yourself on the rubric. "
        + (round.fold ? "The worked answer below stays hidden while the round runs." : "") }),
      el("div", { class: "mock-round__buttons" }, button("Start the round", start, { "data-action": "start" })),
      pastRounds(round, history()));
  }

  function start() {
    state = Object.assign(freshState(round), { phase: "running", clock: resumed(newClock(), Date.now()) });
    save();
    render();
    body.querySelector("textarea")?.focus();
    say(`The clock is running: ${round.round_s / 60} minutes.`);
  }

  // --- running: clock, plan, notes, follow-ups -------------------------------------------------------
  const clockText = el("span", { class: "mock-round__clock", role: "timer" });
  const bar = el("div", { class: "mock-round__bar", "aria-hidden": "true" });
  const barFill = el("span", { class: "mock-round__fill" });
  const planList = el("ol", { class: "mock-round__plan" });
  const nowLine = el("p", { class: "mock-round__now" });
  const followUps = el("div", { class: "mock-round__follow-ups" });
  const pauseButton = button("Pause", togglePause, { "data-action": "pause" });

  function showRunning() {
    if (round.fold) document.body.classList.add(RUNNING_CLASS);
    bar.replaceChildren(barFill, ...round.checkpoints_s.map((s) => el("span", {
      class: "mock-round__mark", style: `left: ${(100 * s) / round.round_s}%` })));
    let start = 0;
    planList.replaceChildren(...round.plan.map((item) => {
      const li = el("li", {}, el("span", { class: "mock-round__minute", text: `${start}–${start + item.minutes}` }),
                    ` ${item.what}`);
      start += item.minutes;
      return li;
    }));
    const notesId = uid("mock-notes");
    const notes = el("textarea", { id: notesId, rows: 10, class: "mock-round__notes", spellcheck: "false",
      oninput: (e) => { state.notes = e.target.value; save(); } });
    notes.value = state.notes;
    body.replaceChildren(
      el("div", { class: "mock-round__clockline" }, clockText, ` of ${mmss(round.round_s)}`),
      bar,
      nowLine,
      el("div", { class: "mock-round__buttons" }, pauseButton,
         button("Skip to the next checkpoint", skip, { "data-action": "skip" }),
         button("End the round and score it", finish, { "data-action": "finish" })),
      el("details", { class: "mock-round__plan-box" }, el("summary", { text: "The time plan" }), planList),
      el("label", { for: notesId, class: "mock-round__label" },
         "Your notes and sketches (kept in this browser only, never sent anywhere)"),
      notes,
      followUps);
    lastPlan = lastShown = -1;
    lastWaiting = null;
    tick();
  }

  function togglePause() {
    const now = Date.now();
    state.clock = state.clock.since === null ? resumed(state.clock, now) : paused(state.clock, now);
    save();
    say(state.clock.since === null ? "Paused." : "Resumed.");
    tick();
  }

  function skip() {
    const next = nextCheckpoint(round, elapsedS());
    if (next === null) { say("No checkpoint left: end the round when you are done."); return; }
    state.clock = jumped(state.clock, next, Date.now());
    save();
    tick();
  }

  function commit(textarea) {
    const text = textarea.value.trim();
    if (!text) { say("Write an answer first, even a short one."); textarea.focus(); return; }
    state.answers.push(text);
    state.draft = "";
    save();
    lastShown = -1;  // redraw the follow-ups
    tick();
    const next = followUps.querySelector("textarea");
    if (next) next.focus();
    else followUps.querySelector(".mock-round__status")?.focus();
  }

  function drawFollowUps(shown) {
    const items = [];
    for (let k = 0; k < shown; k++) {
      const f = round.follow_ups[k];
      const q = el("p", { class: "mock-round__question" }, el("strong", { text: `Follow-up ${k + 1}: ` }), f.question);
      if (k < state.answers.length) {
        items.push(el("li", { class: "is-committed" }, q, el("p", { class: "mock-round__answer", text: state.answers[k] })));
      } else {
        const id = uid("mock-answer");
        const area = el("textarea", { id, rows: 4, oninput: (e) => { state.draft = e.target.value; save(); } });
        area.value = state.draft;
        items.push(el("li", { class: "is-open" }, q,
          el("label", { for: id, class: "mock-round__label", text: "Your answer" }), area,
          el("div", { class: "mock-round__buttons" }, button("Commit this answer", () => commit(area),
                                                             { "data-action": "commit" }))));
      }
    }
    followUps.replaceChildren(
      el("p", { class: "mock-round__label", text: `The interviewer's follow-ups (${shown} of ${round.follow_ups.length})` }),
      items.length ? el("ol", { class: "mock-round__list" }, items) : null,
      el("p", { class: "mock-round__status", tabindex: "-1" }));
  }

  // Only the status line changes while the reader types, so the answer box keeps its focus.
  function drawStatus(shown, waiting) {
    const next = round.follow_ups[shown];
    let status;
    if (!next) status = shown ? "That was the last follow-up." : "";
    else if (waiting) status = "The interviewer has the next follow-up ready: commit your answer to hear it.";
    else status = `The next follow-up comes at minute ${next.due_s / 60}.`;
    followUps.querySelector(".mock-round__status").textContent = status;
  }

  function tick() {
    if (!root.isConnected) { clearInterval(timer); timer = null; return; }
    if (state.phase !== "running") return;
    const t = elapsedS();
    clockText.textContent = mmss(t);
    barFill.style.width = `${Math.min(100, (100 * t) / round.round_s)}%`;
    pauseButton.textContent = state.clock.since === null ? "Resume" : "Pause";
    pauseButton.dataset.action = state.clock.since === null ? "resume" : "pause";
    root.classList.toggle("is-paused", state.clock.since === null);
    root.classList.toggle("is-over", t >= round.round_s);
    const current = planIndex(round, t);
    if (current !== lastPlan) {
      planList.querySelectorAll("li").forEach((li, i) => {
        li.classList.toggle("is-done", i < current);
        li.classList.toggle("is-current", i === current);
        if (i === current) li.setAttribute("aria-current", "step"); else li.removeAttribute("aria-current");
      });
      const until = current < round.checkpoints_s.length ? round.checkpoints_s[current] : round.round_s;
      nowLine.replaceChildren(el("strong", { text: "Now: " }), `${round.plan[current].what} (to minute ${until / 60})`);
      if (lastPlan !== -1) {  // a checkpoint passed: a gentle mark, said and shown, never a stop
        say(`Minute ${Math.floor(t / 60)}: time for ${round.plan[current].what}.`);
        nowLine.classList.remove("is-new");
        void nowLine.offsetWidth;  // restart the highlight's animation
        nowLine.classList.add("is-new");
      }
      lastPlan = current;
    }
    const { shown, waiting } = followUpsShown(round, t, state.answers.length);
    if (shown !== lastShown) {
      if (shown > lastShown && lastShown !== -1) say(`The interviewer asks: ${round.follow_ups[shown - 1].question}`);
      drawFollowUps(shown);
    }
    if (shown !== lastShown || waiting !== lastWaiting) drawStatus(shown, waiting);
    lastShown = shown;
    lastWaiting = waiting;
  }

  // --- scoring: the rubric, the verdict, the reveal ---------------------------------------------------
  function finish() {
    state.clock = paused(state.clock, Date.now());
    state.phase = "scoring";
    save();
    render();
    body.querySelector("input")?.focus();
  }

  function reveal() {
    const d = fold();
    if (d) d.open = true;
  }

  function showScoring() {
    document.body.classList.remove(RUNNING_CLASS);
    reveal();
    const rubric = round.rubric;
    const verdictOut = el("output", { class: "mock-round__verdict-line", "aria-live": "polite" });
    const saveButton = button("Save this score", saveScore, { "data-action": "save" });
    function update() {
      const v = verdictFor(rubric, state.levels);
      const left = state.levels.filter((x) => x === null).length;
      verdictOut.replaceChildren(v
        ? el("span", {}, el("strong", { text: `Verdict: ${v.title}. ` }), v.pattern)
        : el("span", { text: `Score every dimension for a verdict (${left} left).` }));
      saveButton.disabled = !v;
    }
    const fieldsets = rubric.dimensions.map((d, i) => {
      const name = uid(`mock-${d.key}`);
      return el("fieldset", { class: "mock-round__dimension", "data-dimension": d.key },
        el("legend", { text: d.title }),
        rubric.levels.map((level, j) => {
          const id = `${name}-${j}`;
          const input = el("input", { type: "radio", name, id, value: String(j), "data-level": String(j),
            onchange: () => { state.levels[i] = j; save(); update(); } });
          input.checked = state.levels[i] === j;
          return el("div", { class: "mock-round__level" }, input,
            el("label", { for: id }, el("strong", { text: level }), ` ${d.words[j]}`));
        }));
    });
    const answered = round.follow_ups.map((f, k) => el("li", {},
      el("p", { class: "mock-round__question" }, el("strong", { text: `Follow-up ${k + 1}: ` }), f.question),
      el("p", { class: "mock-round__answer", text: k < state.answers.length ? state.answers[k] : "(not reached)" }),
      el("p", {}, "Compare: ", el("a", { href: f.href, onclick: reveal, text: f.answer }))));
    body.replaceChildren(
      el("p", { text: `You used ${mmss(elapsedS())} of ${mmss(round.round_s)} and answered `
        + `${state.answers.length} of ${round.follow_ups.length} follow-ups. Score what you said, not what you `
        + "meant: each level is written as what the interviewer hears." }),
      ...fieldsets, verdictOut,
      el("div", { class: "mock-round__buttons" }, saveButton,
         button("Discard this round", discard, { "data-action": "discard" })),
      el("p", {}, "Now compare: ",
         el("a", { href: round.worked_href, onclick: reveal, text: "the worked answer" }), " and ",
         el("a", { href: round.critiques_href, onclick: reveal, text: "the critiques" }),
         round.fold ? " (opened below)." : "."),
      el("ol", { class: "mock-round__list" }, answered));
    update();
  }

  function saveScore() {
    const v = verdictFor(round.rubric, state.levels);
    if (!v) return;
    const past = history();
    past.push({ date: new Date().toISOString(), elapsed_s: Math.round(elapsedS()), levels: state.levels.slice(),
                verdict: v.key, verdict_title: v.title, answered: state.answers.length,
                notes: state.notes, answers: state.answers.slice() });
    saveJson(round.history, past);
    removeKey(round.storage);
    state = freshState(round);
    render();
    say(`Saved: ${v.title}.`);
    body.querySelector(".mock-round__past")?.scrollIntoView({ block: "nearest" });
  }

  function discard() {
    removeKey(round.storage);
    state = freshState(round);
    render();
    say("Discarded.");
  }

  function render() {
    root.dataset.phase = state.phase;
    if (state.phase === "running") {
      showRunning();
      if (!timer) timer = setInterval(tick, TICK_MS);
    } else {
      clearInterval(timer);
      timer = null;
      if (state.phase === "scoring") showScoring(); else showIdle();
    }
  }

  render();
}
