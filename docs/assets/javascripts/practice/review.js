// The flashcards reviewed in the page, on Leitner boxes (leitner.js): the deck's cards come from
// cards.js, which the build writes from the same cards as the Anki deck (macros/site/flashcards.py).
// A card's front and back are the site's own HTML, built from the rendered pages; the reader types
// nothing here. Progress stays in this browser's local storage.
import { BOX_DAYS, NEW_PER_DAY, answered, boxCounts, dayNumber, emptyState, queue } from "./leitner.js";
import { el } from "./dom.js";
import { loadJson, saveJson } from "./store.js";

const STORAGE = "ifg-practice:leitner";
const TAGS = [["all", "All cards"], ["recall", "Recall: the questions, the numbers, the formulas and the terms"],
              ["question", "The thirty-five questions"], ["number", "Numbers to quote"],
              ["formula", "Formulas, one to a card"], ["term", "Terms to define"],
              ["derivation", "Derivations: the generated problems"]];

function cardHtml(markup, base) {
  const t = document.createElement("template");
  t.innerHTML = markup;  // the build's own HTML for the card (see above), never anything a reader typed
  for (const a of t.content.querySelectorAll("a[href]")) a.href = new URL(a.getAttribute("href"), base).href;
  // A card arrives after a11y.js gave the page's tooltips their Tab stops: its glossary terms and cited
  // figures take one each (a card holds a few), so a keyboard or a tap opens them too.
  for (const tip of t.content.querySelectorAll("abbr[title], .cite[title]")) tip.tabIndex = 0;
  return t.content;
}

export function startReview(root, cards) {
  if (root.dataset.started) return;
  root.dataset.started = "1";
  const link = root.querySelector("a[href]");
  const base = link ? link.href : location.href;  // the questions page: its cards' links are relative to it
  let state = Object.assign(emptyState(), loadJson(STORAGE, {}));
  const today = dayNumber(new Date());
  const status = el("p", { class: "review__status", "aria-live": "polite" });
  const counts = el("p", { class: "review__counts" });
  const stage = el("div", { class: "review__card" });
  const select = el("select", { id: "review-tag", onchange: (e) => { state.tag = e.target.value; save(); next(); } },
    TAGS.map(([value, label]) => el("option", { value }, label)));
  select.value = state.tag;

  function save() { saveJson(STORAGE, state); }

  function showCounts() {
    const q = queue(cards, state, today);
    const boxes = boxCounts(cards, state);
    counts.textContent = `${q.due.length} due and ${q.fresh.length} new today (up to ${NEW_PER_DAY} new a day). `
      + `Cards in boxes 1 to ${BOX_DAYS.length}: ${boxes.slice(1).join(", ")} (reviewed every `
      + `${BOX_DAYS.join(", ")} days); not seen yet: ${boxes[0]}.`;
    return q;
  }

  function next() {
    const q = showCounts();
    const card = q.next[0];
    if (!card) {
      const dues = Object.values(state.cards).map((c) => c.due).filter((d) => d > today);
      const days = dues.length ? Math.min(...dues) - today : null;
      stage.replaceChildren(el("p", { class: "review__done",
        text: days === null ? "Nothing to review." : `Nothing more today. The next card is due in ${days} `
          + `${days === 1 ? "day" : "days"}.` }));
      return;
    }
    const known = state.cards[card.key];
    const show = el("button", { type: "button", class: "md-button", "data-action": "show" }, "Show the answer");
    const front = el("div", { class: "review__front", "data-key": card.key }, cardHtml(card.front, base));
    stage.replaceChildren(
      el("p", { class: "review__where", text: known ? `Box ${known.box}` : "New card" }), front,
      el("div", { class: "mock-round__buttons" }, show));
    show.addEventListener("click", () => {
      const knew = el("button", { type: "button", class: "md-button", "data-action": "knew",
        onclick: () => grade(card, true) }, "I knew it");
      const missed = el("button", { type: "button", class: "md-button", "data-action": "missed",
        onclick: () => grade(card, false) }, "I didn't");
      stage.replaceChildren(stage.firstChild, front, el("div", { class: "review__back" }, cardHtml(card.back, base)),
        el("div", { class: "mock-round__buttons" }, knew, missed));
      knew.focus();
    });
  }

  function grade(card, knew) {
    state = answered(state, card.key, knew, today);
    save();
    const box = state.cards[card.key].box;
    status.textContent = `${knew ? "Moved to" : "Back to"} box ${box}: due again in ${BOX_DAYS[box - 1]} `
      + `${BOX_DAYS[box - 1] === 1 ? "day" : "days"}.`;
    next();
    stage.querySelector("button")?.focus();
  }

  root.replaceChildren(el("div", { class: "review__widget" },
    el("p", {}, el("label", { for: "review-tag", class: "mock-round__label", text: "Review" }), select),
    counts, stage, status));
  next();
}
