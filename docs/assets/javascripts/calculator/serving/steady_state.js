// How long an open-loop run must be to read a replica at its steady state (macros/engine/serving/steady_state.py,
// whose docstring says why): 20 x the requests in the system (Little's law), in whole thousands, up to 50,000.

export const WARMUP_LIVES = 2;
export const WARMUP_SHARE = 10;
export const STEADY_LIVES = WARMUP_LIVES * WARMUP_SHARE;
export const STEADY_STEP = 1000;
export const MAX_REQUESTS = 50_000;

// steady_requests: the requests a run at `rate` needs (null: it has them, or MAX_REQUESTS already).
export function steadyRequests(stats, rate) {
  const ran = stats.requests + stats.warmup_requests;
  const mean = stats.e2e_s.mean;
  const needed = mean === null ? 0 : Math.ceil(STEADY_LIVES * rate * mean / STEADY_STEP) * STEADY_STEP;
  return needed > ran && ran < MAX_REQUESTS ? Math.min(needed, MAX_REQUESTS) : null;
}
