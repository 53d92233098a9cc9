// The reader's past rounds on one prompt, newest first, each with its date, the time it used, its
// verdict and the level given on every dimension of the rubric (round.js saves them at the end).
import { mmss } from "./clock.js";
import { el, shortDate } from "./dom.js";

export function pastRounds(round, past) {
  if (!past.length) return el("p", { class: "mock-round__past-none", text: "No past rounds in this browser yet." });
  const { dimensions, levels } = round.rubric;
  const items = past.slice().reverse().map((p) => el("li", {},
    el("span", { class: "mock-round__when", text: `${shortDate(p.date)} · ${mmss(p.elapsed_s)} used · ` }),
    el("strong", { class: "mock-round__verdict", text: p.verdict_title }),
    el("span", { class: "mock-round__levels" },
       dimensions.map((d, i) => el("span", { class: "mock-round__level-score", "data-dimension": d.key },
                                   `${d.title}: ${levels[p.levels[i]] || "—"}`)))));
  return el("div", { class: "mock-round__past" },
    el("p", { class: "mock-round__label", text: "Your past rounds on this prompt (kept in this browser only)" }),
    el("ol", { reversed: true }, items));
}
