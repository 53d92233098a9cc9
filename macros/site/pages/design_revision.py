"""A worked design's revision priced against its answer (docs/designs/, each revision's table): both the serving
model's answers side by side, the napkin's GPUs last; a sentence instead when they are the same, a tie when the
revised count lies inside the band the calibration gives the original, and a note when a revision changes only
what the napkin reads."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ...engine.fleet.answer import Answer
from ...engine.fleet.workload_file import Workload
from ...text import fmt
from ..markdown import table
from .design_answer import METRIC_KEYS, METRIC_NAMES, fleet, gpu_name, why_none
from .design_noise import NONE, span, tie

SAME_KEYS = ("feasible", "replicas", "gpus_per_replica", "token_budget", "gpus", "cost_per_day",
             *METRIC_KEYS.values(), "napkin_gpus")


# Whether a revision takes the fleet its table prices, as its design file says ([[design.critiques]] verdict):
# the table's last row. Two follow the prices, so that a what-if build stays true: "by-price" takes the fleet
# when it costs less per token than the answer, and "later" once its condition holds (an evaluation, a
# measurement, a stage: the prose says which) when it does too; either says no when it costs more, or when no
# fleet meets the targets.
VERDICTS = {
    "adopted": "Yes",
    "scenario": "No: the critique's what-if, which the answer is not sized for",
    "option": "Offered at its own price, not the default",  # a tier a customer may buy
    "mode": "Yes, as a mode the same replicas run in, not a fleet of its own",  # lent replicas' batch mode
    "by-price": "Yes: it costs less per token",
    "later": "Later: cheaper, once its condition holds (below)",
    # a what-if whose prompts, once measured, get a lane of their own beside the answer (the prose sizes it)
    "lane": "A lane of its own, once measured",
}


def same(before: Answer, after: Answer, keys: Sequence[str]) -> bool:
    """The two answers agree on every figure in `keys` (plan --json's names)."""
    return all(before.json.get(k) == after.json.get(k) for k in keys)


def verdict_words(verdict: str, before: Answer, after: Answer, sizing: bool) -> str:
    """The verdict's cell: as the file says, or for the two that follow the prices, what the prices say."""
    if verdict not in ("by-price", "later"):
        return VERDICTS[verdict]
    if not after.feasible:
        return "No: no fleet meets it"
    if same(before, after, [k for k in SAME_KEYS if k != "napkin_gpus"]):
        return "The answer already runs it"  # the same fleet, whatever the napkins' shapes
    cost = cost_per_million(after, before if sizing else after)
    if cost is None or cost >= cost_per_million(before, before):
        return "No: it costs more per token"
    return VERDICTS[verdict]


def comparison(before: Answer, after: Answer, label: str = "Revised", verdict: str = "scenario",
               sizing: bool = False) -> str:
    """A revision's answer against the original's, one row per figure, with the napkin's GPUs last and whether the
    revision takes it (`verdict`, a key of VERDICTS) below; when every one of those figures is the same, a sentence
    that says so instead of a table of two equal columns. `sizing`: the revision's traffic is a sizing device (a
    lost region's share at the peak, every region at its own peak) or work no one reads (stale requests), not
    traffic it serves, so its cost per token is priced at the original's peak output."""
    if same(before, after, SAME_KEYS):
        return f"The serving model's answer is the same, figure for figure, in both cases: {fleet(after)}."
    pair = (before, after)

    def each(figure: Callable[[Answer], str]) -> tuple[str, str]:
        return tuple(figure(a) if a.feasible else NONE for a in pair)

    rows = [
        ("Replica", *each(lambda a: f"{a.gpus_per_replica} × {gpu_name(a.simulated.workload)}")),
        ("Token budget per step", *each(lambda a: budget_cell(a, before))),
        ("Replicas at peak", *each(lambda a: fmt.count(a.replicas))),
        ("GPUs", *each(lambda a: fmt.count(a.gpus))),
        *((f"p95 {METRIC_NAMES[m]}, simulated", *each(lambda a, k=k: NONE if getattr(a, k) is None
                                                      else fmt.seconds(getattr(a, k))))
          for m, k in METRIC_KEYS.items()),
        ("Cost per day", *each(lambda a: fmt.usd(a.cost_per_day) if a.cost_per_day is not None else NONE)),
        ("Per million output tokens, at the design's peak" if sizing else "Per million output tokens, at peak",
         *each(lambda a: per_million(a, before if sizing else a))),
        ("The napkin's GPUs (first order)", *(fmt.count(a.napkin_gpus) for a in pair)),
        ("Does the revision take it?", "", verdict_words(verdict, before, after, sizing)),
    ]
    out = table(["", "Original", label], rows, align="lrr")
    notes = [f'The serving model finds no fleet for the "{name}" column: {why_none(a)}.'
             for name, a in (("Original", before), (label, after)) if not a.feasible]
    if tie(before, after):
        fewest, most = span(before)
        notes.append(f"Both counts lie inside the span the calibrated band gives the original, "
                     f"{fmt.count(fewest)} to {fmt.count(most)} replicas: on this model the two fleets are a tie.")
    knobs = napkin_only(before.napkin.workload, after.napkin.workload)
    if knobs:
        notes.append(f"The revision changes only the napkin's {' and '.join(knobs)}, which the serving model does "
                     "not read (it simulates the step and the queue instead): only the napkin's row moves, and the "
                     "page prices it there.")
    return "\n\n".join([out, *notes])


def cost_per_million(a: Answer, served: Answer) -> float | None:
    """a's cost per million output tokens at `served`'s peak rate (its own, or the traffic a sizing revision
    really serves): the cost per token at a's peak scales by a's peak output tokens/s over served's (a revision
    whose requests decode tokens no one reads, as lost cancels do, is priced per token someone reads)."""
    if a.cost_per_million_output_tokens is None:
        return None
    return a.cost_per_million_output_tokens * a.peak_output_tokens_per_s / served.peak_output_tokens_per_s


def per_million(a: Answer, served: Answer) -> str:
    cost = cost_per_million(a, served)
    return NONE if cost is None else fmt.usd(cost)


def budget_cell(a: Answer, original: Answer) -> str:
    """A column's token budget; where a revision's differs from the original's, where it comes from: the file's
    variant sets it, or the planner's search picks it for the revised workload."""
    if a is original or a.token_budget is None or a.token_budget == original.token_budget:
        return NONE if a.token_budget is None else fmt.count(a.token_budget)
    why = "as the file sets" if a.napkin.workload.token_budget is not None else "the search's pick"
    return f"{fmt.count(a.token_budget)} ({why})"


NAPKIN_KNOBS = ("efficiency", "headroom")  # inputs only the napkin reads


def napkin_only(before: Workload, after: Workload) -> list[str]:
    """The napkin-only inputs a variant changes, when it changes nothing else the serving model reads."""
    changed = [k for k in before.__dataclass_fields__ if k != "name" and getattr(before, k) != getattr(after, k)]
    return changed if changed and set(changed) <= set(NAPKIN_KNOBS) else []
