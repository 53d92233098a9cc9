// The round's clock and what it has reached, as plain data (no DOM): a clock is {before, since}, the
// milliseconds counted before the last start and the time it was started (null while paused), so it
// survives a reload. Times in the round's data are in seconds.

export function newClock() { return { before: 0, since: null }; }

export function elapsedMs(clock, now) { return clock.before + (clock.since === null ? 0 : now - clock.since); }

export function paused(clock, now) { return { before: elapsedMs(clock, now), since: null }; }

export function resumed(clock, now) { return clock.since === null ? { before: clock.before, since: now } : clock; }

// The clock set to `seconds`, running or paused as it was.
export function jumped(clock, seconds, now) { return { before: seconds * 1000, since: clock.since === null ? null : now }; }

// The first checkpoint after `elapsedS`, or null when none is left.
export function nextCheckpoint(round, elapsedS) {
  for (const s of round.checkpoints_s) if (s > elapsedS) return s;
  return null;
}

// Which time-plan item the clock is in (the last one once the round's time is up).
export function planIndex(round, elapsedS) {
  const i = round.checkpoints_s.findIndex((s) => elapsedS < s);
  return i === -1 ? round.plan.length - 1 : i;
}

// How many of the drawn follow-ups (each with its due_s) the reader can see: follow-up k once its
// checkpoint has passed and the answer to follow-up k-1 is committed. `waiting` is true when the next one
// is due but held for that answer.
export function followUpsShown(drawn, elapsedS, committed) {
  let shown = 0;
  while (shown < drawn.length && drawn[shown].due_s <= elapsedS && shown <= committed) shown += 1;
  const next = drawn[shown];
  return { shown, waiting: !!next && next.due_s <= elapsedS && shown > committed };
}

export function mmss(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}
