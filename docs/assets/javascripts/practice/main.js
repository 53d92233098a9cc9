// Starts every practice widget on the page: the mock round (round.js), the drill timers (drills.js) and
// the flashcard review (review.js, with the cards practice.js loads from cards.js).
// Called by practice.js, the loader, on every page Material shows (instant navigation included).
import { startDrills } from "./drills.js";
import { startReview } from "./review.js";
import { startRound } from "./round.js";

export function startPractice(doc) {
  for (const root of doc.querySelectorAll(".mock-round")) startRound(root);
  startDrills(doc);
  for (const root of doc.querySelectorAll(".review")) if (window.IfgCards) startReview(root, window.IfgCards);
}
