"""The planner's derivation as text: what you would say at the whiteboard, step by step, each
formula with its values substituted (`gpu_math.py plan FILE`, and the "Plan a fleet" page)."""

from __future__ import annotations

from typing import Any

from ..engine.fleet import planner_simulated as ps
from ..engine.fleet.planner import MEMORY, TPOT, Infeasible, Plan, Shortfall
from ..engine.fleet.workload_file import Target, Workload
from ..engine.lookup import get_gpu, get_model
from ..engine.serving.profiles import engines
from . import fmt

BINDING = {"kv": "KV budget", "tpot": "TPOT target"}  # what caps a plan's batch, by Plan.binding


def _apart(planned: float, target: float) -> tuple[str, str]:
    """Two times in ms, with enough figures to tell them apart (2.57 ms against 2.55 ms, not 2.55 against 2.55)."""
    sig = 3
    while fmt.ms(planned, sig) == fmt.ms(target, sig) and sig < 6:
        sig += 1
    return fmt.ms(planned, sig), fmt.ms(target, sig)


def shortfall(w: Workload, short: Shortfall) -> str:
    """What a replica shape cannot do, in words: "4 × H100 SXM cannot meet the 2.55 ms TPOT, planning
    2.57 ms per token for one sequence"."""
    shape = f"{short.gpus_per_replica} × {get_gpu(w.gpu).name}"
    if short.constraint == MEMORY:
        return f"{shape} cannot hold the weights, the reserve and one {fmt.count(w.seq_len)}-token sequence"
    assert short.planned_s is not None and short.target_s is not None
    planned, target = _apart(short.planned_s, short.target_s)
    if short.constraint == TPOT:
        return f"{shape} cannot meet the {target} TPOT, planning {planned} per token for one sequence"
    return f"{shape} cannot meet the {target} TTFT, planning {planned} to prefill one request"


def widened(p: Plan) -> str:
    """How the planner changed a pinned shape, in words ("" when it did not): "pinned at 4; on this data
    4 × H100 SXM cannot meet the 2.55 ms TPOT, planning …, so the planner widened it to 8"."""
    if p.widened_from is None:
        return ""
    return (f"pinned at {p.widened_from.gpus_per_replica}; on this data {shortfall(p.workload, p.widened_from)}, "
            f"so the planner widened it to {p.gpus_per_replica}")


def replica(p: Plan) -> str:
    """The plan's replica shape, with how the planner widened it when it did: "4 × H100 SXM", or
    "8 × H100 SXM (pinned at 4; on this data …, so the planner widened it to 8)"."""
    shape = f"{p.gpus_per_replica} × {p.at_slo.gpu_spec.name}"
    return f"{shape} ({widened(p)})" if p.widened else shape


def infeasible(r: Infeasible) -> str:
    """Why no shape serves the workload, in words."""
    w, short = r.workload, r.widest
    pinned = "" if r.pinned is None else f"pinned at {r.pinned.gpus_per_replica}; "
    return (f"{pinned}no replica of up to {short.gpus_per_replica} GPUs meets the targets: on this data "
            f"{shortfall(w, short)}")


def steps(p: Plan) -> list[tuple[str, str]]:
    """(what, the formula with values and result) for each step of the first-order planner."""
    w, s = p.workload, p.at_slo
    # The peak rate is an operand of the next lines' products: to four figures, so that each product, to three, is
    # what a reader gets multiplying what is printed (2,315 x 400 = 926,000, where 2,310 x 400 would not be)
    peak = fmt.num(p.peak_requests_per_s, 4)
    traffic = (f"{fmt.count(w.requests_per_day)} requests a day / 86,400 s × {fmt.num(w.peak_to_mean)} peak-to-mean"
               f" = {peak} requests/s" if w.requests_per_day else f"{peak} requests/s, given")
    chosen = (" (the smallest power of two that meets both targets)" if p.gpus_per_replica_chosen
              else f" ({widened(p)})" if p.widened else "")
    prefill = ("0: every prompt token comes from the prefix cache" if p.planned_prefill_s == 0 else
               f"{fmt.count(w.prompt_tokens)} × (1 − {fmt.pct(p.prefix_hit_rate)}) = "
               f"{fmt.count(p.uncached_prompt_tokens)} uncached tokens, prefill floor / {fmt.pct(p.efficiency)} = "
               f"{fmt.ms(p.planned_prefill_s)}")
    cost = ("no price on record: give [fleet] price_per_gpu_hour" if p.price_per_gpu_hour is None else
            f"{fmt.count(p.gpus)} × {fmt.usd(p.price_per_gpu_hour)} × 24 = {fmt.usd(p.cost_per_day)} a day; "
            f"{fmt.count(p.gpus)} × {fmt.usd(p.price_per_gpu_hour)} / 3,600 / "
            f"{fmt.tokens_per_s(p.peak_output_tokens_per_s)} × 10⁶ = {fmt.usd(p.cost_per_million_output_tokens)} "
            "per million output tokens")
    return [
        ("peak traffic", traffic),
        ("peak tokens", f"{peak} × {fmt.count(w.output_tokens)} = "
                        f"{fmt.tokens_per_s(p.peak_output_tokens_per_s)} out; {peak} × {fmt.count(w.prompt_tokens)} = "
                        f"{fmt.tokens_per_s(p.peak_input_tokens_per_s)} in"),
        ("context", f"{fmt.count(w.prompt_tokens)} + {fmt.count(w.output_tokens)} = {fmt.tokens(p.seq_len)} per "
                    "sequence at the end of generation (the worst case)"),
        ("replica", f"{p.gpus_per_replica} × {s.gpu_spec.name}, {p.layout}{chosen}: max batch {p.max_batch}"),
        ("SLO batch", f"the largest b with floor(b) / {fmt.pct(p.efficiency)} ≤ {fmt.ms(w.tpot_s)}: b = {p.slo_batch}, "
                      f"floor {fmt.ms(p.step_s)}, planned {fmt.ms(p.planned_step_s)} "
                      f"(the {BINDING[p.binding]} caps the batch)"),
        ("decode capacity", f"{p.slo_batch} / {fmt.ms(p.planned_step_s)} = "
                            f"{fmt.tokens_per_s(p.decode_tokens_per_s_per_replica)} per replica"),
        ("prefill", prefill + f" against a TTFT target of {fmt.ms(w.ttft_s)} "
                              f"({'met' if p.ttft_ok else 'MISSED'}; queueing ignored)"),
        ("replica time", f"{fmt.tokens_per_s(p.peak_output_tokens_per_s)} / "
                         f"{fmt.tokens_per_s(p.decode_tokens_per_s_per_replica)} + {peak} "
                         f"× {fmt.ms(p.planned_prefill_s)} = {fmt.num(p.replica_seconds_per_s)} replicas busy "
                         f"({fmt.pct(p.prefill_share)} of it prefill)"),
        ("replicas", f"⌈{fmt.num(p.replica_seconds_per_s)} × (1 + {fmt.pct(p.headroom)})⌉ = {p.replicas}; "
                     f"× {p.gpus_per_replica} = {fmt.count(p.gpus)} GPUs"),
        ("cost", cost),
    ]


NAPKIN_LEAVES_OUT = ("The napkin leaves out queueing (a request waits for a step, and behind other prompts), bursts "
                     "within the peak (the headroom stands in for them), prefill inside the decode steps (it is "
                     "counted as separate replica time), sequences shorter than full context, and the engine's "
                     "own overheads (one flat efficiency instead); its targets are means.")
SIMULATION_LEAVES_OUT = ("The simulation leaves out lengths that vary (every request has the mean prompt and "
                         "output), a prefix cache shared between sequences (each holds its own cached blocks) and "
                         "hit rates that vary by request, load imbalance between replicas (each sees exactly 1/n "
                         "of the stream), failures, cold starts and scaling, and the fitted step model's own error "
                         "(its band); it adds no headroom, and a percentile of one finite run is itself a sample.")


def _cell(stats: dict, t: Target) -> str:
    v = ps.value(stats, t)
    return "none (one output token)" if v is None else fmt.seconds(v)


def simulated_infeasible(s: ps.SimulatedPlan) -> str:
    """Why the simulation gives no count, in words."""
    if s.infeasible_because == ps.NO_SHAPE:
        return "the napkin found no replica shape to simulate"
    if s.infeasible_because == ps.REFUSED:
        return f"the engine cannot serve it on this shape: {s.detail}"
    if s.infeasible_because == ps.ONE_AT_A_TIME:
        assert s.evidence is not None
        misses = "; ".join(f"{t.words} {_cell(s.evidence.stats, t)} against {fmt.seconds(t.seconds)}"
                           for t in s.evidence.misses)
        return ("no replica count meets the targets: one replica serving one request at a time already misses "
                f"({misses})")
    if s.infeasible_because == ps.NOT_FEWER:
        return "no count meets the targets with fewer GPUs than another option the planner found"
    return (f"even {fmt.count(ps.SEARCH_LIMIT * (s.napkin_replicas or 0))} replicas, {ps.SEARCH_LIMIT}× the "
            "napkin's count, miss the targets at peak")


def simulate_command(w: Workload, gpus: int, rate_per_s: float, width: int | None = None) -> str:
    """The `gpu_math.py simulate` command that re-runs one replica of the plan at `rate_per_s` (exact: the
    rate as Python prints a float, which reads back to the same number); with `width`, broken into lines of
    at most about that many characters with a shell's backslashes, for a page's column."""
    q = ps.run_request(w, gpus, rate_per_s)
    flags = [f"--model {q.model}", f"--gpu {q.gpu}", f"--gpus {q.gpus}", f"--weights {q.weights}", f"--kv {q.kv}",
             f"--engine {q.engine}", f"--input-tokens {q.input_tokens}", f"--output-tokens {q.output_tokens}",
             f"--rate {rate_per_s!r}"]
    flags += [f"--layout {q.layout}"] if q.layout != "tp" else []
    flags += [f"--burstiness {q.burstiness!r}"] if q.burstiness not in (None, 1.0) else []
    flags += [f"--prefix-hit-rate {q.prefix_hit_rate!r}"] if q.prefix_hit_rate else []
    flags += [f"--requests {q.requests}"] if q.requests is not None else []
    flags += [f"--token-budget {q.token_budget}"] if q.token_budget is not None else []
    if width is None:
        return "python3 gpu_math.py simulate " + " ".join(flags)
    lines = ["python3 gpu_math.py simulate"]
    for flag in flags:
        if len(lines[-1]) + 1 + len(flag) > width:
            lines[-1] += " \\"
            lines.append("    " + flag)
        else:
            lines[-1] += " " + flag
    return "\n".join(lines)


def side_by_side(p: Plan, s: ps.SimulatedPlan) -> list[tuple[str, str, str]]:
    """(what, the napkin's figure, the simulation's) for a plan the simulation found a count for."""
    c, w, bind = s.chosen, p.workload, s.binding
    assert c is not None and bind is not None and c.rate_per_s is not None
    draw = "" if s.below is None or s.below.seed == ps.SEED else f" on seed {s.below.seed}"
    below = ("" if s.below is None else
             f" (at {fmt.count(s.below.replicas)}, {bind.words} {_cell(s.below.stats, bind)}{draw})")
    live = s.live_concurrency_per_replica
    assert live is not None
    rows = [("replica", f"{p.gpus_per_replica} × {p.at_slo.gpu_spec.name}",
             f"{s.gpus_per_replica} × {p.at_slo.gpu_spec.name}"),
            ("replicas", fmt.count(p.replicas), fmt.count(c.replicas) + below),
            ("GPUs", fmt.count(p.gpus), fmt.count(s.gpus or 0))]
    for t in w.targets:
        napkin = (f"{fmt.seconds(p.planned_prefill_s)} prefill" if t.metric == "ttft"
                  else f"{fmt.seconds(p.planned_step_s)} step")
        rows.append((f"{t.words} (≤ {fmt.seconds(t.seconds)})", napkin, _cell(c.stats, t)))
    rows += [("live per replica", f"{p.slo_batch} (the SLO batch)",
              f"{fmt.num(live)} = {fmt.num(c.rate_per_s)}/s × {fmt.seconds(c.stats['e2e_s']['mean'])} E2E"),
             ("binds", BINDING[p.binding], bind.words)]
    return rows


def simulated_section(p: Plan, s: ps.SimulatedPlan) -> list[str]:
    """The simulated answer beside the napkin's, and what each leaves out."""
    w = p.workload
    arrivals = "Poisson" if w.burstiness == 1 else f"gamma gaps, coefficient of variation {fmt.num(w.burstiness)}"
    head = [f"Simulated at peak: {engines()[w.engine]['name']} on {s.gpus_per_replica} × {p.at_slo.gpu_spec.name}, "
            f"each replica an open loop of peak / n requests a second ({arrivals}), {fmt.count(w.prompt_tokens)}-token "
            f"prompts ({fmt.pct(w.prefix_hit_rate)} cached) and {fmt.count(w.output_tokens)}-token outputs; "
            f"{s.simulations} run{'' if s.simulations == 1 else 's'}."] if s.simulations else []
    if not s.feasible:
        body = [f"  no simulated count: {simulated_infeasible(s)}."]
    else:
        rows = side_by_side(p, s)
        a = max(len(r[0]) for r in rows)
        b = max(len(r[1]) for r in rows + [("", "napkin", "")])
        body = [f"  {'':{a}}  {'napkin':{b}}  the answer (serving model)"]
        body += [f"  {what:{a}}  {napkin:{b}}  {sim}" for what, napkin, sim in rows]
        assert s.chosen is not None and s.chosen.rate_per_s is not None
        body += ["  one replica, again: " + simulate_command(w, s.gpus_per_replica or 0, s.chosen.rate_per_s)]
    return ["", *head, *body, "", NAPKIN_LEAVES_OUT, SIMULATION_LEAVES_OUT]


def answer(p: Plan | Infeasible, joined: dict[str, Any]) -> str:
    """The planner's answer in one paragraph (answer.joined's figures): the fleet, its cost, and its p95s."""
    w = p.workload
    if not joined["feasible"]:
        return "Answer: no fleet meets the targets (below, why)."
    gpu = get_gpu(w.gpu).name
    if joined["answer_from"] == "disaggregated-pools":
        fleet = (f"a prefill pool of {fmt.count(joined['prefill_pool_replicas'])} × "
                 f"{joined['prefill_gpus_per_replica']} {gpu} and a decode pool of "
                 f"{fmt.count(joined['decode_pool_replicas'])} × {joined['decode_gpus_per_replica']}, "
                 f"{fmt.count(joined['gpus'])} GPUs (the pools' model, queue as M/D/1)")
    else:
        fleet = (f"{fmt.count(joined['replicas'])} replicas of {joined['gpus_per_replica']} × {gpu}, "
                 f"{fmt.count(joined['gpus'])} GPUs (the serving model, simulated at peak)")
    cost = ("" if joined["cost_per_day"] is None else
            f", {fmt.usd(joined['cost_per_day'])} a day held at that size, "
            f"{fmt.usd(joined['cost_per_million_output_tokens'])} per million output tokens at the peak's rate")
    napkin = ("" if joined["napkin_gpus"] is None else
              f" The napkin's first-order fleet below is {fmt.count(joined['napkin_gpus'])} GPUs: the derivation, "
              "not the answer.")
    return f"Answer: {fleet}{cost}.{napkin}"


def render(p: Plan | Infeasible, simulated: ps.SimulatedPlan, joined: dict[str, Any]) -> str:
    """The answer, then the napkin's derivation (or why there is none), then the simulated check beside it."""
    w = p.workload
    head = [f"{w.name}: {get_model(w.model).name} on {get_gpu(w.gpu).name}, {w.weights.upper()} weights, "
            f"{w.kv.upper()} KV cache", "", answer(p, joined), ""]
    if isinstance(p, Infeasible):
        return "\n".join(head + [f"  napkin: infeasible: {infeasible(p)}."]) + "\n"
    rows = steps(p)
    width = max(len(label) for label, _ in rows)
    napkin = ["The napkin (first order, the whiteboard's derivation; it chooses the replica shape):"]
    return "\n".join(head + napkin + [f"  {label.ljust(width)}  {text}" for label, text in rows]
                     + simulated_section(p, simulated)) + "\n"
