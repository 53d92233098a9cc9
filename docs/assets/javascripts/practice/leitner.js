// Leitner boxes for the flashcards (the review on docs/practice/flashcards.md): a card you knew moves up
// a box and comes back after that box's interval; a card you missed goes back to box 1, due tomorrow.
// New cards enter a few a day. Days are whole local days; state is plain data kept in local storage,
// keyed by each card's stable key (the same key the Anki deck's note ids come from).

export const BOX_DAYS = [1, 2, 4, 8, 16];  // the interval of boxes 1 to 5, in days
export const NEW_PER_DAY = 20;

export function dayNumber(date) {
  return Math.floor((date.getTime() - date.getTimezoneOffset() * 60000) / 86400000);
}

export function emptyState() { return { cards: {}, introduced: {}, tag: "all" }; }

// The state after one answer to the card `key` on day `today`.
export function answered(state, key, knew, today) {
  const old = state.cards[key];
  const box = knew ? Math.min((old ? old.box : 1) + 1, BOX_DAYS.length) : 1;  // a new card starts in box 1
  const introduced = Object.assign({}, state.introduced);
  if (!old) introduced[today] = (introduced[today] || 0) + 1;
  return Object.assign({}, state, { introduced,
    cards: Object.assign({}, state.cards, { [key]: { box, due: today + BOX_DAYS[box - 1] } }) });
}

// Today's queue: the cards due (lowest box first), then new cards in deck order up to the day's allowance.
export function queue(cards, state, today) {
  const mine = cards.filter((c) => state.tag === "all" || c.tag === state.tag || c.kind === state.tag);
  const due = mine.filter((c) => state.cards[c.key] && state.cards[c.key].due <= today)
    .sort((a, b) => state.cards[a.key].box - state.cards[b.key].box);
  const allowance = Math.max(0, NEW_PER_DAY - (state.introduced[today] || 0));
  const fresh = mine.filter((c) => !state.cards[c.key]).slice(0, allowance);
  return { due, fresh, next: [...due, ...fresh] };
}

// How many of the cards sit in each box (index 0: not yet seen).
export function boxCounts(cards, state) {
  const counts = new Array(BOX_DAYS.length + 1).fill(0);
  for (const c of cards) counts[state.cards[c.key] ? state.cards[c.key].box : 0] += 1;
  return counts;
}
