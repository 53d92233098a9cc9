"""The token budget as a trade-off (chapter 4.4 and its drawing `budget_tradeoff`): the consumer-chat design's
answer (its replica shape and count, so each replica's share of the peak) run at each token budget the planner
tries, and what each budget gives the two targets it trades: the p95 gap between tokens (a step that carries a
longer prefill chunk is a longer gap for every stream in it) against the p95 time to first token (a prompt in
smaller chunks waits more steps). The runs are `gpu_math.py simulate`'s, as the planner makes them."""

from __future__ import annotations

import dataclasses
import functools
from types import SimpleNamespace

from ...engine.fleet.answer import TOKEN_BUDGETS, answer, default_budget
from ...engine.fleet.planner import plan
from ...engine.fleet.planner_simulated import run_request
from ...engine.fleet.workload_file import design
from ...engine.serving.cache import cached_run
from ...text import fmt

DESIGN = "consumer-chat"
P95 = "p95"


@functools.cache
def budgets() -> SimpleNamespace:
    """Each budget (largest first) at the answer's replicas: its p95 gap and TTFT, and the GPUs the planner's
    search found it needs on that shape (None where the search stopped at one run: not fewer than the best)."""
    w, _ = design(DESIGN)
    a = answer(plan(w))
    g, n = a.gpus_per_replica, a.replicas
    own = default_budget(w)
    rows = []
    for budget in sorted({own, *TOKEN_BUDGETS}, reverse=True):
        run = cached_run(run_request(dataclasses.replace(w, token_budget=budget), g, w.peak_requests_per_s / n))
        tried = next((t["gpus"] for t in a.answer_tried
                      if t["gpus_per_replica"] == g and t["token_budget"] == budget), None)
        rows.append(SimpleNamespace(budget=budget, itl_p95_s=run["itl_s"][P95], ttft_p95_s=run["ttft_s"][P95],
                                    tpot_p95_s=run["tpot_s"][P95], gpus=tried, default=budget == own, run=run))
    targets = {t.key: t.seconds for t in w.targets}
    chosen = next(r for r in rows if r.budget == a.token_budget)
    largest, smallest = rows[0], rows[-1]
    return SimpleNamespace(
        design=DESIGN, workload=w, answer=a, rows=rows, default=next(r for r in rows if r.default), chosen=chosen,
        largest=largest,
        smallest=smallest, itl_target_s=targets.get("itl_p95_s"), ttft_target_s=targets.get("ttft_p95_s"),
        words=_words(rows, chosen, {t.key: (f"{t.metric}_s", t.stat, t.seconds) for t in w.targets}),
    )


def _words(rows: list[SimpleNamespace], chosen: SimpleNamespace, targets: dict[str, tuple[str, str, float]]) -> str:
    """Which budgets meet every target of the workload at the answer's count, in words that follow the runs."""
    def meets(r: SimpleNamespace) -> bool:
        return all(r.run[metric][stat] <= limit for metric, stat, limit in targets.values())
    keep = [r for r in rows if meets(r)]
    if not keep:
        return "at this count no budget meets every target"
    listed = ", ".join(fmt.count(r.budget) for r in keep)
    return (f"at this count {'only ' if len(keep) == 1 else ''}{listed} tokens a step "
            f"{'meets' if len(keep) == 1 else 'meet'} every target, and the answer runs "
            f"{fmt.count(chosen.budget)}, the budget whose fleet is smallest")
