// Which follow-ups a round asks: a draw from the round's pool (macros/site/pages/mock_round.py exports it),
// seeded, so the seed kept with the round in local storage gives the same draw after a reload, and a new
// round's new seed gives another. Plain data, no DOM. A draw is round.due_s.length follow-ups: all but one
// are questions, in the order drawn, and one is an interruption, placed neither first nor last, since it
// changes the problem mid-round.

// mulberry32: a small 32-bit generator, plenty for shuffling a pool of a few dozen; numbers in [0, 1).
export function seededRandom(seed) {
  let a = seed >>> 0;
  return function () {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// A fresh seed for a new round: from the browser's random source where it has one.
export function newSeed() {
  const c = globalThis.crypto;
  if (c && c.getRandomValues) return c.getRandomValues(new Uint32Array(1))[0];
  return Math.floor(Math.random() * 4294967296);
}

// The round's follow-ups for `seed`: pool entries, each with the minute it falls due (due_s).
export function drawFollowUps(round, seed) {
  const next = seededRandom(seed);
  const below = (n) => Math.floor(next() * n);
  const n = round.due_s.length;
  const questions = round.pool.filter((f) => f.kind !== "interruption");
  const interruptions = round.pool.filter((f) => f.kind === "interruption");
  for (let i = 0; i < n - 1; i++) {  // the first n - 1 places of a Fisher-Yates shuffle
    const j = i + below(questions.length - i);
    [questions[i], questions[j]] = [questions[j], questions[i]];
  }
  const drawn = questions.slice(0, n - 1);
  const interruption = interruptions[below(interruptions.length)];
  drawn.splice(n > 2 ? 1 + below(n - 2) : n - 1, 0, interruption);
  return drawn.map((f, k) => Object.assign({}, f, { due_s: round.due_s[k] }));
}

// How a follow-up is introduced: an interruption says so, since it changes the problem.
export function followUpLead(f, k) {
  return f.kind === "interruption" ? `Follow-up ${k + 1}, an interruption: ` : `Follow-up ${k + 1}: `;
}

// The follow-ups a stored round drew (its ids), or the seed's draw where the pool no longer holds them
// all (the site was rebuilt with another pool since).
export function followUpsOf(round, seed, ids) {
  const byId = new Map(round.pool.map((f) => [f.id, f]));
  if (Array.isArray(ids) && ids.length === round.due_s.length && ids.every((id) => byId.has(id))) {
    return ids.map((id, k) => Object.assign({}, byId.get(id), { due_s: round.due_s[k] }));
  }
  return drawFollowUps(round, seed);
}
