"""The practice problems of chapters 10 and 11 as text (macros/site/practice.py joins every chapter's): each
kind's question from its stated inputs, its worked steps, and the answers that need more than a unit."""

from __future__ import annotations

from ..engine.problems import Problem
from ..text import fmt
from .practice_later import Question, Steps, plural

# --- chapter 10: the expert-parallel all-to-all, the prefill-to-decode ratio and the KV handoff -----------


def _ep_alltoall_q(p: Problem, v: dict[str, str]) -> str:
    setup = (f"A mixture-of-experts model of hidden size {v['hidden']} routes each token to {v['experts_per_token']} "
             f"experts, spread evenly over {v['gpus']} GPUs by expert parallelism. Each GPU brings {v['tokens']} to "
             f"every MoE layer of a decode step. The dispatch sends each token's activation once for every expert it "
             f"chose, at {v['dispatch_bytes']} an element; the combine brings the outputs back at "
             f"{v['combine_bytes']} an element. A GPU reaches the other GPUs of its NVLink (or xGMI) domain of "
             f"{v['domain_gpus']} GPUs at {v['nvlink']} a direction, and every GPU beyond it over its own network "
             f"link at {v['network']}; the two paths run side by side, and each exchange costs {v['latency']} of "
             "fixed latency. ")
    if p.variant == "step":
        return setup + f"The model has {v['moe_layers']} MoE layers. On these floors, how long do a decode step's " \
                       "all-to-alls take?"
    return setup + (f"One layer's compute and memory floor for the whole batch is {v['layer']}, of which reading the "
                    f"layer's weights is {v['weight_read']}. Split the batch into two micro-batches, one computing "
                    "while the other's exchanges are in flight: each micro-batch reads the weights itself and pays "
                    "its own latencies. How long does the layer take with the overlap, and does it pay against "
                    "running the exchanges after the compute?")


def _exchange_step(s: dict, v: dict[str, str], i: dict, which: str) -> tuple[str, str]:
    g, inside, payload = i["gpus"], s["inside"], fmt.bytes_(s[f"{which}_payload"])
    return (which, f"{v['tokens']} × {i['experts_per_token']} × {fmt.count(i['hidden'])} × {v[which + '_bytes']} = "
                   f"{payload}; {v['latency']} + max({payload} × ({inside} − 1) / {g} / {v['nvlink']}, {payload} × "
                   f"({g} − {inside}) / {g} / {v['network']}) = {fmt.seconds(s[which])}")


def _ep_alltoall_s(p: Problem, v: dict[str, str]) -> list[tuple[str, str]]:
    s, i = p.solution, p.inputs
    out = [_exchange_step(s, v, i, "dispatch"), _exchange_step(s, v, i, "combine")]
    if p.variant == "step":
        return out + [("per step", f"{v['moe_layers']} × ({fmt.seconds(s['dispatch'])} + "
                                   f"{fmt.seconds(s['combine'])}) = {fmt.seconds(p.answer)}")]
    return out + [("without overlap", f"{v['layer']} + {fmt.seconds(s['alltoall'])} = {fmt.seconds(s['plain'])}"),
                  ("with overlap", f"max({v['layer']} + {v['weight_read']}, {fmt.seconds(s['alltoall'])} + 2 × "
                                   f"{v['latency']}) = {fmt.seconds(p.answer)}: the overlap {s['verdict']}")]


_HANDOFF_PATHS = {"NVLink": "each GPU of the prefill replica sends its share over its own NVLink",
                  "RDMA": "each GPU of the prefill replica sends its share over its own RDMA network card",
                  "TCP": "the whole cache goes through the node's one TCP path"}


def _pool_sizing_q(p: Problem, v: dict[str, str]) -> str:
    i = p.inputs
    if p.variant == "handoff":
        return (f"A prompt of {v['prompt']} leaves a prefill replica as KV cache, {v['kv_per_token']} a token, for a "
                f"decode replica: {_HANDOFF_PATHS[p.source['link']]} ({v['paths']} in parallel, {v['link']} each "
                f"a direction). Its prefill takes {v['prefill']} over {v['layers']} layers of equal time. If the KV "
                "is sent whole when the prefill ends, how long does the request wait for it? And if each layer's KV "
                "is sent as soon as that layer is done?")
    return (f"A dense model of {v['active_params']} parameters, {v['weights']} of weights, is served from "
            f"disaggregated pools of GPUs with {v['peak_flops']} of dense peak and {v['bandwidth']} each, realising "
            f"{v['efficiency']} of every floor. Requests arrive at {v['rate']} (Poisson), each with {v['prompt']} of "
            f"prompt that no cache holds and {v['output']} of output. A prefill replica of "
            f"{plural(i['prefill_gpus'], 'GPU')} serves one prompt at a time, in max(2 × parameters × prompt / "
            "(GPUs × peak), weights / (GPUs × bandwidth)) over the efficiency (attention left out); the pool runs as "
            f"busy as an M/D/1 queue allows with the mean wait plus one prefill within the {v['ttft']} TTFT target. "
            f"A decode replica of {plural(i['decode_gpus'], 'GPU')} reads the weights and each sequence's "
            f"{v['kv_per_seq']} of KV every step, memory-bound, over the same efficiency; its step must stay within "
            f"{v['tpot']}, and its KV budget holds at most {plural(i['max_batch'], 'sequence')}. With each pool "
            "rounded up to whole replicas, how many prefill GPUs for each decode GPU?")


def _pool_sizing_s(p: Problem, v: dict[str, str]) -> list[tuple[str, str]]:
    s, i = p.solution, p.inputs
    if p.variant == "handoff":
        return [("KV", f"{v['kv_per_token']} × {v['prompt']} = {fmt.bytes_(s['kv'])}"),
                ("sent whole", f"{fmt.bytes_(s['kv'])} / ({i['paths']} × {v['link']}) = {fmt.seconds(s['transfer'])}"),
                ("layer by layer", f"max({fmt.seconds(s['transfer'])} / {i['layers']}, {fmt.seconds(s['transfer'])} − "
                                   f"{v['prefill']} × ({i['layers']} − 1) / {i['layers']}) = {fmt.seconds(p.answer)}")]
    gp, gd = i["prefill_gpus"], i["decode_gpus"]
    return [("one prefill", f"max(2 × {v['active_params']} × {v['prompt']} / ({gp} × {v['peak_flops']}), "
                            f"{v['weights']} / ({gp} × {v['bandwidth']})) / {v['efficiency']} = "
                            f"{fmt.seconds(s['service'])}"),
            ("prefill utilisation", f"x = ({v['ttft']} − {fmt.seconds(s['service'])}) / {fmt.seconds(s['service'])}; "
                                    f"2x / (1 + 2x) = {fmt.pct(s['utilisation'])}"),
            ("prefill pool", f"ceil({v['rate']} × {fmt.seconds(s['service'])} / {fmt.pct(s['utilisation'])}) = "
                             f"{plural(s['prefill_replicas'], 'replica')}, {plural(s['prefill_gpus_total'], 'GPU')}"),
            ("decode batch", f"min(floor(({v['tpot']} × {v['efficiency']} × {gd} × {v['bandwidth']} − {v['weights']}) "
                             f"/ {v['kv_per_seq']}), {fmt.count(i['max_batch'])}) = {s['batch']:,}"),
            ("decode pool", f"ceil({v['rate']} × ({fmt.count(i['output'])} − 1) × {v['tpot']} / {s['batch']:,}) = "
                            f"{plural(s['decode_replicas'], 'replica')}, {plural(s['decode_gpus_total'], 'GPU')}"),
            ("ratio", f"{s['prefill_gpus_total']:,} / {s['decode_gpus_total']:,} = {fmt.num(p.answer)}")]


def moe_at_scale_answer(p: Problem) -> str:
    """The answer to a chapter 10 problem, with what decides it."""
    a, s = p.answer, p.solution
    if p.kind == "ep-alltoall" and p.variant == "step":
        return f"{fmt.ms(a)} a step ({fmt.seconds(s['alltoall'])} a MoE layer)"
    if p.kind == "ep-alltoall":
        return f"{fmt.seconds(a)} a layer against {fmt.seconds(s['plain'])} without the overlap: it {s['verdict']}"
    if p.variant == "handoff":
        return f"{fmt.seconds(s['transfer'])} sent whole; {fmt.seconds(a)} sent layer by layer"
    return (f"{fmt.num(a)} prefill GPUs to each decode GPU ({plural(s['prefill_gpus_total'], 'GPU')} to "
            f"{s['decode_gpus_total']:,})")


QUESTIONS: dict[str, Question] = {"ep-alltoall": _ep_alltoall_q, "pool-sizing": _pool_sizing_q}
STEPS: dict[str, Steps] = {"ep-alltoall": _ep_alltoall_s, "pool-sizing": _pool_sizing_s}


# --- chapter 11: reload a cached prefix or recompute it, a long prompt's prefill ---------------------------


def _kv_reload_q(p: Problem, v: dict[str, str]) -> str:
    i = p.inputs
    group = (f"on 1 GPU computing {v['peak_flops']} (dense)" if i["gpus"] == 1 else
             f"tensor-parallel over {i['gpus']} GPUs, each computing {v['peak_flops']} (dense) and holding "
             f"1/{i['gpus']} of the KV heads")
    return (f"A model with {v['active_params']} active parameters has {v['layers']} layers, {v['query_heads']} query "
            f"heads and {v['kv_heads']} KV heads of dimension {v['head_dim']}, and a KV cache of {v['bytes_per_kv']} "
            f"per element. It runs {group}, and prefill reaches {v['efficiency']} of "
            f"that peak. A conversation's prefix is cached in {p.source['tier']}: {v['bandwidth']} per GPU in one "
            f"direction and {v['latency']} per transfer, each GPU reloading its own share of the KV over its own "
            "link. Recomputing the prefix costs 2 FLOPs per active parameter per token plus causal attention, "
            "2 × layers × query heads × head dimension × s × (s + 1) FLOPs for s tokens; the weights are read for "
            "the prompt's new tokens either way. Past what prefix length does reloading beat recomputing, and "
            "what sets that length?")


def _kv_reload_s(p: Problem, v: dict[str, str]) -> list[tuple[str, str]]:
    s, i = p.solution, p.inputs
    g = i["gpus"]
    why = (f"{v['bandwidth']} is above it: reloading wins from the first tokens, and only the latency sets the "
           "length" if s["verdict"] == "latency" else
           f"{v['bandwidth']} is below it: recomputing wins on short prefixes, until attention's quadratic term "
           "makes it dearer than the reload")
    return [("KV per token", f"2 × {i['layers']} × {i['kv_heads']} × {i['head_dim']} × {v['bytes_per_kv']} = "
                             f"{fmt.count(s['kv_per_token'])} B"),
            ("reload, per token", f"{fmt.count(s['kv_per_token'])} B / {g} / {v['bandwidth']} = "
                                  f"{fmt.seconds(s['reload_s_per_token'])}"),
            ("recompute, per token", f"2 × {v['active_params']} / ({g} × {v['efficiency']} × {v['peak_flops']}) = "
                                     f"{fmt.seconds(s['linear_s_per_token'])}"),
            ("recompute, per causal pair", f"4 × {i['query_heads']} × {i['head_dim']} × {i['layers']} / ({g} × "
                                           f"{v['efficiency']} × {v['peak_flops']}) = {fmt.seconds(s['pair_s'])}"),
            ("break-even bandwidth", f"the tier at which the two per-token costs match: "
                                     f"{fmt.bandwidth(s['break_even'])}; {why}"),
            ("crossover", f"{v['latency']} + s × {fmt.seconds(s['reload_s_per_token'])} = s × "
                          f"{fmt.seconds(s['linear_s_per_token'])} + s (s + 1) / 2 × {fmt.seconds(s['pair_s'])} at "
                          f"s = {fmt.num(p.answer)} tokens")]


def _long_prefill_q(p: Problem, v: dict[str, str]) -> str:
    ask = (f"On {p.inputs['gpus']} GPUs, how long does the prefill take, and which term dominates its FLOPs?"
           if p.variant == "ttft" else
           f"How many GPUs bring the prefill within {v['target']}, and which term dominates its FLOPs?")
    return (f"A model with {v['active_params']} active parameters has {v['layers']} layers of {v['query_heads']} query "
            f"heads of dimension {v['head_dim']}. A prompt of {v['prompt']} is prefilled by a context-parallel group: "
            f"compute-bound, its work split evenly across the GPUs, each reaching {v['efficiency']} of its dense "
            f"peak of {v['peak_flops']}. Prefill costs 2 FLOPs per active parameter per token plus causal "
            "attention, 2 × layers × query heads × head dimension × s × (s + 1) FLOPs for s tokens. " + ask)


def _long_prefill_s(p: Problem, v: dict[str, str]) -> list[tuple[str, str]]:
    s, i = p.solution, p.inputs
    n = fmt.count(i["prompt"])
    last = (("time", f"{fmt.flops(s['flops'])} / ({i['gpus']} × {v['efficiency']} × {v['peak_flops']}) = "
                     f"{fmt.seconds(p.answer)}") if p.variant == "ttft" else
            ("GPUs", f"ceil({fmt.flops(s['flops'])} / ({v['target']} × {v['efficiency']} × {v['peak_flops']})) = "
                     f"{p.answer:,}"))
    return [("weights", f"2 × {v['active_params']} × {n} = {fmt.flops(s['linear'])}"),
            ("attention", f"2 × {i['layers']} × {i['query_heads']} × {i['head_dim']} × {n} × "
                          f"{fmt.count(i['prompt'] + 1)} = {fmt.flops(s['attention'])}"),
            ("total", f"{fmt.flops(s['flops'])}, {fmt.pct(s['attention_share'])} of it attention: attention "
                      f"overtakes the weights past {v['active_params']} / ({i['layers']} × {i['query_heads']} × "
                      f"{i['head_dim']}) − 1 = {fmt.count(s['overtakes'])} tokens"), last]


def kv_tiers_answer(p: Problem) -> str:
    """The answer to a chapter 11 problem, with what decides it."""
    a, s = p.answer, p.solution
    if p.kind == "kv-reload":
        sets = "the latency" if s["verdict"] == "latency" else "attention's quadratic term"
        return f"Past about {fmt.num(a)} tokens: {sets} sets it"
    term = "attention" if s["verdict"] == "attention" else "the weights"
    done = fmt.seconds(a) if p.variant == "ttft" else f"{a:,} GPUs"
    return f"{done}; {term} dominate{'s' if term == 'attention' else ''} ({fmt.pct(s['attention_share'])} attention)"


QUESTIONS.update({"kv-reload": _kv_reload_q, "long-prefill": _long_prefill_q})
STEPS.update({"kv-reload": _kv_reload_s, "long-prefill": _long_prefill_s})
