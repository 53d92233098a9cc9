// The reader's past rounds on one prompt, newest first, each with its date, the time it used, its
// verdict, how many of its key numbers fell within the page's bands, and the level given on every
// dimension of the rubric (score_view.js saves them at the end).
import { mmss } from "./clock.js";
import { el, shortDate } from "./dom.js";

const NUMBER_VERDICTS = { within: "within the page's band", outside: "outside the page's band",
                          unreadable: "unreadable", empty: "not entered" };

// What the reader wrote in that round, folded: the notes, each follow-up drawn with its answer, and the key
// numbers with their verdicts, as text.
function pastWritten(p) {
  const answers = p.answers || [];
  const numbers = (p.numbers || []).filter((n) => n.text);
  if (!p.notes && !answers.length && !numbers.length) return null;
  return el("details", { class: "mock-round__written" }, el("summary", { text: "Your notes, answers and numbers" }),
    p.notes ? el("p", { class: "mock-round__answer", text: p.notes }) : null,
    answers.map((a, k) => el("div", {},
      el("p", { class: "mock-round__question", text: `Follow-up ${k + 1}: ${(p.questions || [])[k] || ""}` }),
      el("p", { class: "mock-round__answer", text: a }))),
    numbers.length ? el("ul", { class: "mock-round__past-numbers" }, numbers.map((n) => el("li", {},
      `${n.label}: `, el("span", { class: "mock-round__past-number", text: n.text }),
      ` (${NUMBER_VERDICTS[n.verdict] || n.verdict})`))) : null);
}

// "3 of 5 numbers within the page's bands", or null for a round saved without numbers.
function numbersLine(p) {
  const numbers = p.numbers || [];
  if (!numbers.some((n) => n.text)) return null;
  const within = numbers.filter((n) => n.verdict === "within").length;
  return el("span", { class: "mock-round__past-count",
                      text: ` · ${within} of ${numbers.length} numbers within the page's bands` });
}

export function pastRounds(round, past) {
  if (!past.length) return el("p", { class: "mock-round__past-none", text: "No past rounds in this browser yet." });
  const { dimensions, levels } = round.rubric;
  const items = past.slice().reverse().map((p) => el("li", {},
    el("span", { class: "mock-round__when", text: `${shortDate(p.date)} · ${mmss(p.elapsed_s)} used · ` }),
    el("strong", { class: "mock-round__verdict", text: p.verdict_title }),
    numbersLine(p),
    el("span", { class: "mock-round__levels" },
       dimensions.map((d, i) => el("span", { class: "mock-round__level-score", "data-dimension": d.key },
                                   `${d.title}: ${levels[p.levels[i]] || "—"}`))),
    pastWritten(p)));
  return el("div", { class: "mock-round__past" },
    el("p", { class: "mock-round__label", text: "Your past rounds on this prompt (kept in this browser only)" }),
    el("ol", { reversed: true }, items));
}
