"""The "Choose a replica shape" page: on six workloads, the napkin's shape (the cheapest by floor / efficiency,
the all-reduce beside the step, not in it) against the shape search under the fitted step model, why they
differ, and whether disaggregated pools would save GPUs."""

from __future__ import annotations

from types import SimpleNamespace

from ...engine.fleet.disaggregated import Disaggregated, disaggregate
from ...engine.fleet.planner import Infeasible, cheapest
from ...engine.fleet.shapes import Shape, ShapeSearch, decode_terms, for_workload, scenarios
from ...engine.fleet.workload_file import Workload
from ...engine.serving.profiles import engines
from ...text import fmt, shapes_report

ENGINE = "vllm"


def _napkin_shape(w: Workload, gpus: int) -> Shape:
    return Shape(gpus, w.layout, 1)


def why_they_differ(r: SimpleNamespace) -> str:
    """Why the napkin's shape and the search's differ, in words from the figures (or that they agree)."""
    if r.napkin is None:
        return f"The napkin has no answer: {r.napkin_message}."
    if r.chosen is None:
        return "Under the step model no shape in one node meets both targets at any load."
    if r.same:
        return f"Both choose {r.napkin_label}."
    words = (f"The napkin picks {r.napkin_label}, the step model {r.chosen.shape.label}. At {r.napkin_label} "
             f"the step model spends {fmt.pct(r.overhead_share)} of each decode step on all-reduces and fixed "
             "costs per step and per layer, which the floor ÷ η leaves out")
    if r.napkin_under_model is not None:
        words += (f", and reaches {fmt.tokens_per_s(r.napkin_under_model.output_tokens_per_s_per_gpu)} per GPU "
                  f"against {fmt.tokens_per_s(r.chosen.best.output_tokens_per_s_per_gpu)}")
    words += "."
    if r.chosen.shape.layout == "dp-attention":
        words += (" Attention data parallelism, which the napkin never tries, keeps one copy of each sequence's KV "
                  "cache and needs no all-reduce around attention.")
    return words


def split_words(r: SimpleNamespace) -> str:
    """Whether disaggregated pools would save GPUs here, in words from the figures."""
    s = r.split
    if s.gpus is None or s.colocated_gpus is None:
        return "No answer: one of the two pools has no shape that meets its target."
    if s.wins:
        return f"Saves {fmt.count(s.colocated_gpus - s.gpus)} GPUs."
    if s.gpus == s.colocated_gpus:
        return "The same number of GPUs: nothing to gain."
    return f"Costs {fmt.count(s.gpus - s.colocated_gpus)} GPUs more."


def _row(key: str, w: Workload) -> SimpleNamespace:
    napkin = cheapest(w)
    found = for_workload(w, ENGINE)
    chosen = found.chosen
    if isinstance(napkin, Infeasible):  # on changed specs no shape in a node may hold the model: a sentence
        return SimpleNamespace(key=key, workload=w, napkin=None, napkin_message=napkin.message, napkin_label=None,
                               napkin_per_gpu=None, search=found, chosen=chosen, same=False, napkin_under_model=None,
                               terms=None, overhead_share=None, communication_share=None,
                               lost_because=shapes_report.lost_because(found), split=_split(w, found))
    napkin_shape = _napkin_shape(w, napkin.gpus_per_replica)
    mine = next(r for r in found.results if r.shape == napkin_shape)
    # Where the napkin's shape spends its step under the step model, at its own best point (or one sequence).
    at = mine.best or mine.lightest
    terms = None if at is None else decode_terms(w.model, w.gpu, w.weights, w.kv, ENGINE, napkin_shape,
                                                 at.concurrency, w.prompt_tokens + w.output_tokens / 2)
    return SimpleNamespace(
        key=key, workload=w, napkin=napkin, napkin_message=None, napkin_label=napkin_shape.label,
        napkin_per_gpu=napkin.decode_tokens_per_s_per_replica / napkin.gpus_per_replica,
        search=found, chosen=chosen, same=chosen is not None and chosen.shape == napkin_shape,
        napkin_under_model=mine.best, terms=terms,
        overhead_share=None if terms is None else (terms.communication_s + terms.fixed_s) / terms.total_s,
        communication_share=None if terms is None else terms.communication_s / terms.total_s,
        lost_because=shapes_report.lost_because(found), split=_split(w, found),
    )


def _split(w: Workload, found: ShapeSearch) -> Disaggregated:
    uncached = max(1, round(w.prompt_tokens * (1 - w.prefix_hit_rate)))
    return disaggregate(w.model, w.gpu, w.weights, w.kv, ENGINE, uncached, w.prompt_tokens - uncached,
                        w.output_tokens, w.peak_requests_per_s, w.ttft_s, w.tpot_s, w.headroom, colocated=found)


def model() -> SimpleNamespace:
    rows = [_row(key, w) for key, w in scenarios().items()]
    for r in rows:
        r.why, r.split_words = why_they_differ(r), split_words(r)
    # The prose counts the workloads whose napkin per-GPU figure is well above (1.5x or more) the step model's
    # at the napkin's own shape, and gives the range.
    ratios = [r.napkin_per_gpu / r.napkin_under_model.output_tokens_per_s_per_gpu
              for r in rows if r.napkin_under_model is not None]
    return SimpleNamespace(rows=rows, engine=engines()[ENGINE]["name"], napkin_compared=len(ratios),
                           napkin_well_above=sum(x >= 1.5 for x in ratios), napkin_well_above_factor=1.5,
                           napkin_ratio_low=min(ratios, default=None), napkin_ratio_high=max(ratios, default=None))
