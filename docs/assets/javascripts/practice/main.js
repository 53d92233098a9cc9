// Starts every practice widget on the page: the mock round (round.js) and the drill timers (drills.js).
// Called by practice.js, the loader, on every page Material shows (instant navigation included).
import { startDrills } from "./drills.js";
import { startRound } from "./round.js";

export function startPractice(doc) {
  for (const root of doc.querySelectorAll(".mock-round")) startRound(root);
  startDrills(doc);
}
