"""How long an open-loop run must be to read a replica at its steady state, not while it fills.

A run's first tenth is its warm-up (run.py): an empty replica filling. Where a request lives longer than that
warm-up lasts, the requests measured after it still meet a batch smaller than the steady state's, and the run's
percentiles flatter the replica. Little's law says how many requests are in the system at once, L = rate x mean
time in the system; a warm-up that spans two lives of a request holds 2 L requests, so the run holds 20 L. A
search that asks whether a rate meets a target runs it again, longer, while it meets and is shorter than that (a
run that misses is not lengthened: a longer one would miss by more). Not imported by the run itself, so the
simulations' keys do not depend on it.
"""

from __future__ import annotations

import math
from typing import Any

WARMUP_LIVES = 2  # the lives of a request the warm-up spans ...
WARMUP_SHARE = 10  # ... the warm-up being a run's first tenth (run.py's open loop)
STEADY_LIVES = WARMUP_LIVES * WARMUP_SHARE  # requests in all per request in the system
STEADY_STEP = 1000  # the lengthened run, in whole thousands ...
MAX_REQUESTS = 50_000  # ... up to this many


def steady_requests(stats: dict[str, Any], rate_per_s: float) -> int | None:
    """How many requests a run at `rate_per_s` with these statistics needs to read the steady state, or None when
    it has them (or MAX_REQUESTS already)."""
    ran = stats["requests"] + stats["warmup_requests"]
    mean = stats["e2e_s"]["mean"]
    needed = math.ceil(STEADY_LIVES * rate_per_s * mean / STEADY_STEP) * STEADY_STEP if mean is not None else 0
    return min(needed, MAX_REQUESTS) if needed > ran and ran < MAX_REQUESTS else None
