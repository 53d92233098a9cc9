"""A variant's fleet against the original's: the GPUs and the daily cost it adds (negative: it saves) and the
ratio of the two fleets. The worked designs price every revision and critique with it, so a difference
between two fleets is taken in one place: two answers (answer.Answer, the serving model's) or two napkin
plans, anything with gpus and cost_per_day."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Change:
    before: Any  # a Plan or an Answer
    after: Any

    @property
    def extra_gpus(self) -> int:
        """The GPUs the change adds; negative when it saves some."""
        return self.after.gpus - self.before.gpus

    @property
    def extra_cost_per_day(self) -> float | None:
        """The daily cost it adds, in USD; None when either plan has no price."""
        before, after = self.before.cost_per_day, self.after.cost_per_day
        return None if before is None or after is None else after - before

    @property
    def gpu_ratio(self) -> float:
        """The changed fleet's GPUs over the original's."""
        return self.after.gpus / self.before.gpus
