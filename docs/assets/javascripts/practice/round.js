// The mock round (chapter 7 and every worked design): the prompt and a 45-minute clock with the time
// plan's checkpoints; the reader's notes and key numbers; the interviewer's follow-ups, drawn at random
// from the round's pool with a seed kept with the round (draw.js), one at a time, each only once its
// checkpoint has passed and the last one's answer is committed; while the clock runs the page's worked
// answers are hidden (hiding.js); then self-scoring (score_view.js). Its content is the JSON the build
// embeds in the page (macros/site/pages/mock_round.py). Everything the reader writes stays in local storage.
import { elapsedMs, followUpsShown, jumped, mmss, newClock, nextCheckpoint, paused, planIndex, resumed } from "./clock.js";
import { el, uid } from "./dom.js";
import { drawFollowUps, followUpLead, followUpsOf, newSeed } from "./draw.js";
import { hideAnswers, RUNNING_CLASS, showAnswers } from "./hiding.js";
import { pastRounds } from "./history.js";
import { numbersBlock } from "./number_view.js";
import { scoringView } from "./score_view.js";
import { loadJson, saveJson } from "./store.js";

const TICK_MS = 500;

function freshState(round) {
  return { phase: "idle", clock: newClock(), notes: "", answers: [], draft: "", numbers: {}, seed: null, draw: null,
           levels: round.rubric.dimensions.map(() => null) };
}

// A round-control button (the drill timers have their own).
function roundButton(label, onclick, extra) {
  return el("button", Object.assign({ type: "button", class: "md-button", onclick }, extra || {}), label);
}

export function startRound(root) {
  if (root.dataset.started) return;
  root.dataset.started = "1";
  const round = JSON.parse(root.querySelector(".mock-round__data").textContent);
  let state = Object.assign(freshState(round), loadJson(round.storage, {}));
  let drawn = [];  // this round's follow-ups, in the order asked
  let timer = null;
  let lastPlan = -1;
  let lastShown = -1;
  let lastWaiting = null;

  const save = () => saveJson(round.storage, state);
  const elapsedS = () => elapsedMs(state.clock, Date.now()) / 1000;
  const keepNumber = (key, text) => { state.numbers[key] = text; save(); };

  // A round stored before it drew, or with a seed only, draws now; the draw is kept with the round.
  function ensureDraw() {
    if (state.seed === null || state.seed === undefined) state.seed = newSeed();
    drawn = followUpsOf(round, state.seed, state.draw);
    state.draw = drawn.map((f) => f.id);
  }

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

  // --- idle: the start button and the past rounds ----------------------------------------------------
  function showIdle() {
    showAnswers(document);
    body.replaceChildren(
      el("p", { text: `Run it as the interview runs: ${round.round_s / 60} minutes on the clock, your notes, and `
        + `${round.due_s.length} follow-ups drawn from ${round.pool.length} (one an interruption) as the clock `
        + "reaches them. Your key numbers are checked when the round ends, then you score yourself. The worked "
        + "answer on this page stays hidden while the clock runs." }),
      el("div", { class: "mock-round__buttons" }, roundButton("Start the round", start, { "data-action": "start" })),
      pastRounds(round, loadJson(round.history, [])));
  }

  function start() {
    state = Object.assign(freshState(round), { phase: "running", clock: resumed(newClock(), Date.now()),
                                               seed: newSeed() });
    state.draw = drawFollowUps(round, state.seed).map((f) => f.id);
    save();
    render();
    body.querySelector("textarea")?.focus();
    say(`The clock is running: ${round.round_s / 60} minutes.`);
  }

  // --- running: clock, plan, notes, follow-ups, numbers ----------------------------------------------
  const clockText = el("span", { class: "mock-round__clock", role: "timer" });
  const bar = el("div", { class: "mock-round__bar", "aria-hidden": "true" });
  const barFill = el("span", { class: "mock-round__fill" });
  const planList = el("ol", { class: "mock-round__plan" });
  const nowLine = el("p", { class: "mock-round__now" });
  const followUps = el("div", { class: "mock-round__follow-ups" });
  const pauseButton = roundButton("Pause", togglePause, { "data-action": "pause" });

  function showRunning() {
    hideAnswers(round, document);
    bar.replaceChildren(barFill, ...round.checkpoints_s.map((s) => el("span", {
      class: "mock-round__mark", style: `left: ${(100 * s) / round.round_s}%` })));
    let from = 0;
    planList.replaceChildren(...round.plan.map((item) => {
      const li = el("li", {}, el("span", { class: "mock-round__minute", text: `${from}–${from + item.minutes}` }),
                    ` ${item.what}`);
      from += item.minutes;
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
         roundButton("Skip to the next checkpoint", skip, { "data-action": "skip" }),
         roundButton("End the round and score it", finish, { "data-action": "finish" })),
      el("details", { class: "mock-round__plan-box" }, el("summary", { text: "The time plan" }), planList),
      el("label", { for: notesId, class: "mock-round__label" },
         "Your notes and sketches (kept in this browser only, never sent anywhere)"),
      notes,
      followUps,
      numbersBlock(round, state.numbers, keepNumber, false));
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

  function question(f, k) {
    return el("p", { class: "mock-round__question" + (f.kind === "interruption" ? " is-interruption" : "") },
              el("strong", { text: followUpLead(f, k) }), f.question);
  }

  function drawFollowUpList(shown) {
    const items = [];
    for (let k = 0; k < shown; k++) {
      const q = question(drawn[k], k);
      if (k < state.answers.length) {
        items.push(el("li", { class: "is-committed" }, q, el("p", { class: "mock-round__answer", text: state.answers[k] })));
      } else {
        const id = uid("mock-answer");
        const area = el("textarea", { id, rows: 4, oninput: (e) => { state.draft = e.target.value; save(); } });
        area.value = state.draft;
        items.push(el("li", { class: "is-open" }, q,
          el("label", { for: id, class: "mock-round__label", text: "Your answer" }), area,
          el("div", { class: "mock-round__buttons" }, roundButton("Commit this answer", () => commit(area),
                                                                  { "data-action": "commit" }))));
      }
    }
    followUps.replaceChildren(
      el("p", { class: "mock-round__label", text: `The interviewer's follow-ups (${shown} of ${drawn.length})` }),
      items.length ? el("ol", { class: "mock-round__list" }, items) : null,
      el("p", { class: "mock-round__status", tabindex: "-1" }));
  }

  // Only the status line changes while the reader types, so the answer box keeps its focus.
  function drawStatus(shown, waiting) {
    const next = drawn[shown];
    let status;
    if (!next) status = shown ? "That was the last follow-up." : "";
    else if (waiting) status = "The interviewer has the next follow-up ready: commit your answer to hear it.";
    else status = `The next follow-up comes at minute ${next.due_s / 60}.`;
    followUps.querySelector(".mock-round__status").textContent = status;
  }

  function tick() {
    if (!root.isConnected) {  // the reader navigated away (instant navigation): stop, and unhide unless a round runs
      clearInterval(timer);
      timer = null;
      if (!document.querySelector(".mock-round[data-phase=running]")) document.body.classList.remove(RUNNING_CLASS);
      return;
    }
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
    const { shown, waiting } = followUpsShown(drawn, t, state.answers.length);
    if (shown !== lastShown) {
      if (shown > lastShown && lastShown !== -1) say(`The interviewer asks: ${drawn[shown - 1].question}`);
      drawFollowUpList(shown);
    }
    if (shown !== lastShown || waiting !== lastWaiting) drawStatus(shown, waiting);
    lastShown = shown;
    lastWaiting = waiting;
  }

  // --- scoring: the numbers checked, the rubric, the verdict, the reveal ------------------------------
  function finish() {
    state.clock = paused(state.clock, Date.now());
    state.phase = "scoring";
    save();
    render();
    body.querySelector("input[type=radio]")?.focus();
  }

  function ended(message) {
    state = freshState(round);
    render();
    say(message);
  }

  function render() {
    root.dataset.phase = state.phase;
    if (state.phase !== "idle") ensureDraw();
    if (state.phase === "running") {
      showRunning();
      if (!timer) timer = setInterval(tick, TICK_MS);
      return;
    }
    clearInterval(timer);
    timer = null;
    if (state.phase !== "scoring") { showIdle(); return; }
    showAnswers(document);
    body.replaceChildren(...scoringView({ round, state, drawn, elapsedS: elapsedS(), save, keepNumber, ended }));
  }

  render();
}
