// The reader's past rounds on one prompt, newest first, each with its date, the time it used, its
// verdict and the level given on every dimension of the rubric (round.js saves them at the end).
import { mmss } from "./clock.js";
import { el, shortDate } from "./dom.js";

// What the reader wrote in that round, folded: the notes, then each follow-up with its answer, as text.
function written(round, p) {
  const answers = p.answers || [];
  if (!p.notes && !answers.length) return null;
  return el("details", { class: "mock-round__written" }, el("summary", { text: "Your notes and answers" }),
    p.notes ? el("p", { class: "mock-round__answer", text: p.notes }) : null,
    answers.map((a, k) => el("div", {},
      el("p", { class: "mock-round__question", text: `Follow-up ${k + 1}: ${round.follow_ups[k]?.question || ""}` }),
      el("p", { class: "mock-round__answer", text: a }))));
}

export function pastRounds(round, past) {
  if (!past.length) return el("p", { class: "mock-round__past-none", text: "No past rounds in this browser yet." });
  const { dimensions, levels } = round.rubric;
  const items = past.slice().reverse().map((p) => el("li", {},
    el("span", { class: "mock-round__when", text: `${shortDate(p.date)} · ${mmss(p.elapsed_s)} used · ` }),
    el("strong", { class: "mock-round__verdict", text: p.verdict_title }),
    el("span", { class: "mock-round__levels" },
       dimensions.map((d, i) => el("span", { class: "mock-round__level-score", "data-dimension": d.key },
                                   `${d.title}: ${levels[p.levels[i]] || "—"}`))),
    written(round, p)));
  return el("div", { class: "mock-round__past" },
    el("p", { class: "mock-round__label", text: "Your past rounds on this prompt (kept in this browser only)" }),
    el("ol", { reversed: true }, items));
}
