// The end of a mock round (round.js): the reader's key numbers checked against the page's, the rubric to
// score oneself on with the hire-bar verdict, the worked answer revealed, and each follow-up asked with
// what the reader answered and the model answer (or the page's section that gives it). Saving keeps the
// score, the notes, the answers, the questions drawn and the numbers in the past rounds' list.
import { mmss } from "./clock.js";
import { el, uid } from "./dom.js";
import { followUpLead } from "./draw.js";
import { numbersBlock, numberVerdict } from "./number_view.js";
import { verdictFor } from "./rubric.js";
import { loadJson, removeKey, saveJson } from "./store.js";

function scoreButton(label, onclick, action) {
  return el("button", { type: "button", class: "md-button", onclick, "data-action": action }, label);
}

// Opens a design's folded worked answer (chapter 7's sections are simply shown again).
function revealFold(round) {
  const fold = round.fold ? document.querySelector(round.fold) : null;
  if (fold) fold.open = true;
}

function rubricFieldsets(round, state, save, update) {
  return round.rubric.dimensions.map((d, i) => {
    const name = uid(`mock-${d.key}`);
    return el("fieldset", { class: "mock-round__dimension", "data-dimension": d.key },
      el("legend", { text: d.title }),
      round.rubric.levels.map((level, j) => {
        const id = `${name}-${j}`;
        const input = el("input", { type: "radio", name, id, value: String(j), "data-level": String(j),
          onchange: () => { state.levels[i] = j; save(); update(); } });
        input.checked = state.levels[i] === j;
        return el("div", { class: "mock-round__level" }, input,
          el("label", { for: id }, el("strong", { text: level }), ` ${d.words[j]}`));
      }));
  });
}

// A follow-up as asked, what the reader answered, and the answer to compare with.
function askedAndAnswered(round, f, k, answer) {
  const reveal = () => revealFold(round);
  const compare = f.href
    ? el("p", {}, "Compare: ", el("a", { href: f.href, onclick: reveal, text: f.answer }))
    : el("p", { class: "mock-round__model-answer" }, el("strong", { text: "A short answer: " }), f.answer);
  return el("li", {},
    el("p", { class: "mock-round__question" + (f.kind === "interruption" ? " is-interruption" : "") },
       el("strong", { text: followUpLead(f, k) }),
       f.question),
    el("p", { class: "mock-round__answer", text: answer === undefined ? "(not reached)" : answer }),
    compare);
}

// The scoring phase's content: `ended(message)` starts afresh once the round is saved or discarded.
export function scoringView({ round, state, drawn, elapsedS, save, keepNumber, ended }) {
  revealFold(round);
  const verdictOut = el("output", { class: "mock-round__verdict-line", "aria-live": "polite" });
  const saveButton = scoreButton("Save this score", saveScore, "save");
  function update() {
    const v = verdictFor(round.rubric, state.levels);
    const left = state.levels.filter((x) => x === null).length;
    verdictOut.replaceChildren(v
      ? el("span", {}, el("strong", { text: `Verdict: ${v.title}. ` }), v.pattern)
      : el("span", { text: `Score every dimension for a verdict (${left} left).` }));
    saveButton.disabled = !v;
  }

  function saveScore() {
    const v = verdictFor(round.rubric, state.levels);
    if (!v) return;
    const past = loadJson(round.history, []);
    const numbers = (round.numbers || []).map((n) => ({
      key: n.key, label: n.label, text: state.numbers[n.key] || "",
      verdict: numberVerdict(n, state.numbers[n.key], true).verdict }));
    past.push({ date: new Date().toISOString(), elapsed_s: Math.round(elapsedS), levels: state.levels.slice(),
                verdict: v.key, verdict_title: v.title, answered: state.answers.length,
                notes: state.notes, answers: state.answers.slice(), questions: drawn.map((f) => f.question), numbers });
    saveJson(round.history, past);
    removeKey(round.storage);
    ended(`Saved: ${v.title}.`);
    const listed = document.querySelector(`.mock-round[data-round="${round.slug}"] .mock-round__past`);
    if (listed) listed.scrollIntoView({ block: "nearest" });
  }

  function discard() {
    removeKey(round.storage);
    ended("Discarded.");
  }

  const reveal = () => revealFold(round);
  const nodes = [
    el("p", { text: `You used ${mmss(elapsedS)} of ${mmss(round.round_s)} and answered `
      + `${state.answers.length} of ${drawn.length} follow-ups. First your numbers against the page's, then `
      + "score what you said, not what you meant: each level is written as what the interviewer hears." }),
    numbersBlock(round, state.numbers, keepNumber, true),
    ...rubricFieldsets(round, state, save, update), verdictOut,
    el("div", { class: "mock-round__buttons" }, saveButton, scoreButton("Discard this round", discard, "discard")),
    el("p", {}, "Now compare: ",
       el("a", { href: round.worked_href, onclick: reveal, text: "the worked answer" }), " and ",
       el("a", { href: round.critiques_href, onclick: reveal, text: "the critiques" }),
       round.fold ? " (opened below)." : "."),
    el("ol", { class: "mock-round__list" }, drawn.map((f, k) => askedAndAnswered(round, f, k, state.answers[k]))),
  ];
  update();
  return nodes.filter(Boolean);
}
