"""Each kind's question and worked solution, in words (macros/site/practice.py prints the stated inputs, `v`,
and puts these together). A question states every number its answer uses and the layout it assumes; a
solution shows each step with the stated values substituted, from the problem's own solution (the engine's
figures from the stated inputs, never recomputed here)."""

from __future__ import annotations

from collections.abc import Callable

from ..engine.problems import Problem
from ..text import fmt

Steps = list[tuple[str, str]]


def _n(v: dict[str, str], p: Problem, name: str, word: str) -> str:
    """A stated count with its noun, singular for one: "1 sequence", "64 sequences"."""
    return f"{v[name]} {word}{'' if p.inputs[name] == 1 else 's'}"


def _spread(n: int) -> str:
    """"on 1 GPU" or "tensor-parallel over 4 GPUs"."""
    return "on 1 GPU" if n == 1 else f"tensor-parallel over {n} GPUs"


def _tp(p: Problem, v: dict[str, str]) -> str:
    """The tensor-parallel layout in words, with the replication rule its KV copies follow."""
    n = p.inputs["gpus"]
    if n == 1:
        return "on 1 GPU"
    return (f"tensor-parallel over {n} GPUs (a rank holds whole KV heads, so past {v['kv_heads']} ranks the heads "
            "are replicated)")


def _gqa(v: dict[str, str]) -> str:
    return (f"{v['layers']} layers, {v['kv_heads']} KV heads of dimension {v['head_dim']}, a KV cache of "
            f"{v['bytes_per_kv']} per element")


def _model(v: dict[str, str]) -> str:
    return f"a model of {v['params']} parameters stored at {v['bytes_per_weight']} per weight"


# --- memory and fit, MoE placement ------------------------------------------------------------------


def memory_q(p: Problem, v: dict[str, str]) -> str:
    return (f"Take {_model(v)}, with {_gqa(v)}. It runs {_tp(p, v)}, with {v['memory']} of memory per GPU, "
            f"keeping {v['reserve']} per GPU for activations and overhead. How many sequences of {v['seq_len']} "
            "fit at once (none, if not even one does)?")


def _budget_steps(s: dict, v: dict[str, str], p: Problem, held: Steps) -> Steps:
    i = p.inputs
    return [("memory", f"{i['gpus']} × {v['memory']} = {fmt.bytes_(s['total_memory'])}"),
            ("weights", f"{v['params']} × {v['bytes_per_weight']} = {fmt.bytes_(s['weights'])}"), *held,
            ("reserve", f"{i['gpus']} × {v['reserve']} = {fmt.bytes_(s['reserve_total'])}")]


def memory_s(p: Problem, v: dict[str, str]) -> Steps:
    s, i = p.solution, p.inputs
    out = _budget_steps(s, v, p, [])
    out += [("KV budget", f"{fmt.bytes_(s['total_memory'])} − {fmt.bytes_(s['weights'])} − "
                          f"{fmt.bytes_(s['reserve_total'])} = {fmt.bytes_(s['budget'])}"),
            ("KV per token", f"2 × {i['layers']} × {i['kv_heads']} × {i['head_dim']} × {v['bytes_per_kv']} = "
                             f"{fmt.count(s['kv_per_token'])} B"),
            ("KV per sequence", f"{fmt.count(s['kv_per_token'])} B × {fmt.count(i['seq_len'])} = "
                                f"{fmt.bytes_(s['kv_per_seq'])}"),
            ("KV copies", f"max(1, {i['gpus']} / {i['kv_heads']}) = {fmt.num(s['copies'])}")]
    if p.answer == 0:
        return [*out, ("one sequence needs", f"{fmt.bytes_(s['weights'])} + {fmt.bytes_(s['reserve_total'])} + "
                                             f"{fmt.num(s['copies'])} × {fmt.bytes_(s['kv_per_seq'])} = "
                                             f"{fmt.bytes_(s['need_one'])}"),
                ("verdict", f"{fmt.pct(s['over'])} more than the {fmt.bytes_(s['total_memory'])} there is "
                            f"(a KV budget of {fmt.bytes_(s['budget'])}): not even one sequence fits")]
    return [*out, ("max batch", f"floor({fmt.bytes_(s['budget'])} / ({fmt.num(s['copies'])} × "
                                f"{fmt.bytes_(s['kv_per_seq'])})) = {p.answer:,} sequences")]


def placement_q(p: Problem, v: dict[str, str]) -> str:
    i = p.inputs
    attention = ("MLA: one latent per layer, shared by every head" if i["attention"] == "MLA"
                 else f"GQA with {v['kv_heads']} KV heads")
    copies = ("the latent is held whole on every rank" if i["attention"] == "MLA" else
              f"a rank holds whole KV heads, replicated past {v['kv_heads']} ranks")
    layout = (f"tp, tensor parallelism over all of them ({copies})" if i["layout"] == "tp" else
              "dp-attention: every rank holds the attention weights whole and runs attention for its own "
              "sequences, whose KV cache it holds once; the experts are split across the ranks")
    return (f"A mixture of experts of {v['params']} parameters at {v['bytes_per_weight']} per weight, "
            f"{v['attention_params']} of them in attention ({attention}); {v['layers']} layers, "
            f"{v['kv_per_token']} of KV cache per token. The replica is {i['gpus']} GPUs of {v['memory']}, "
            f"each keeping {v['reserve']} in reserve, laid out as {layout}. How many sequences of {v['seq_len']} "
            "fit?")


def placement_s(p: Problem, v: dict[str, str]) -> Steps:
    s, i = p.solution, p.inputs
    g = i["gpus"]
    kv = [("KV per sequence", f"{v['kv_per_token']} × {fmt.count(i['seq_len'])} = {fmt.bytes_(s['kv_per_seq'])}")]
    if i["layout"] == "tp":
        rule = f"{g} (every rank)" if i["attention"] == "MLA" else f"max(1, {g} / {i['kv_heads']})"
        return [*_budget_steps(s, v, p, []), *kv,
                ("KV budget", f"{fmt.bytes_(s['total_memory'])} − {fmt.bytes_(s['weights'])} − "
                              f"{fmt.bytes_(s['reserve_total'])} = {fmt.bytes_(s['tp_budget'])}"),
                ("KV copies", f"{rule} = {fmt.num(s['copies'])}"),
                ("max batch", f"floor({fmt.bytes_(s['tp_budget'])} / ({fmt.num(s['copies'])} × "
                              f"{fmt.bytes_(s['kv_per_seq'])})) = {p.answer:,} sequences"),
                ("beside it", f"dp-attention would hold {s['dp_batch']:,}")]
    held = [("weights held", f"{fmt.bytes_(s['weights'])} + ({g} − 1) × {fmt.bytes_(s['attention'])} of attention "
                             f"= {fmt.bytes_(s['dp_held'])}")]
    return [*_budget_steps(s, v, p, held), *kv,
            ("KV budget", f"{fmt.bytes_(s['total_memory'])} − {fmt.bytes_(s['dp_held'])} − "
                          f"{fmt.bytes_(s['reserve_total'])} = {fmt.bytes_(s['dp_budget'])}, "
                          f"{fmt.bytes_(s['dp_rank_budget'])} per rank"),
            ("max batch", f"{g} × floor({fmt.bytes_(s['dp_rank_budget'])} / {fmt.bytes_(s['kv_per_seq'])}) = "
                          f"{p.answer:,} sequences"),
            ("beside it", f"tp would hold {s['tp_batch']:,}")]


# --- the decode step, the chunk budget, speculative decoding ------------------------------------------


def decode_q(p: Problem, v: dict[str, str]) -> str:
    return (f"Take {_model(v)}, with {_gqa(v)}, {_tp(p, v)}. Each GPU streams {v['bandwidth']} and computes "
            f"{v['peak_flops']} (dense, in the compute dtype). A batch of {_n(v, p, 'batch', 'sequence')} "
            f"decodes, each at {v['seq_len']} of context. Count 2 FLOPs per parameter per token and leave "
            "attention's FLOPs out. What is the decode step's floor, and which roof sets it?")


def decode_s(p: Problem, v: dict[str, str]) -> Steps:
    s, i = p.solution, p.inputs
    g = i["gpus"]
    return [("KV per sequence", f"2 × {i['layers']} × {i['kv_heads']} × {i['head_dim']} × {v['bytes_per_kv']} × "
                                f"{fmt.count(i['seq_len'])} = {fmt.bytes_(s['kv_per_seq'])}, "
                                f"{fmt.num(s['copies'])} cop{'y' if s['copies'] == 1 else 'ies'}"),
            ("bytes per step", f"{fmt.bytes_(s['weights'])} + {i['batch']:,} × {fmt.num(s['copies'])} × "
                               f"{fmt.bytes_(s['kv_per_seq'])} = {fmt.bytes_(s['bytes'])}"),
            ("memory time", f"{fmt.bytes_(s['bytes'])} / ({g} × {v['bandwidth']}) = {fmt.ms(s['memory_s'])}"),
            ("FLOPs per step", f"2 × {v['params']} × {i['batch']:,} = {fmt.flops(s['flops'])}"),
            ("compute time", f"{fmt.flops(s['flops'])} / ({g} × {v['peak_flops']}) = {fmt.ms(s['compute_s'])}"),
            ("floor", f"the larger, {fmt.ms(p.answer)}: intensity {fmt.num(s['intensity'])} FLOP/B against a "
                      f"balance of {fmt.num(s['balance'])}, {s['verdict']}-bound")]


def chunk_q(p: Problem, v: dict[str, str]) -> str:
    if p.variant == "chunk":
        return (f"A model with {v['active_params']} active parameters runs {_spread(p.inputs['gpus'])} of "
                f"{v['peak_flops']} dense peak each. {v['batch']} sequences are decoding, with a TPOT target of "
                f"{v['tpot']}, planned at {v['efficiency']} of the floor; prefill chunks ride in the same steps. The "
                "decodes' reads take less than the step may, so once a chunk joins the step is compute-bound, at 2 "
                "FLOPs per active parameter per token (attention left out). What is the largest chunk?")
    return (f"A model with {v['active_params']} active parameters, {v['layers']} layers and {v['query_heads']} query "
            f"heads of dimension {v['head_dim']} runs {_spread(p.inputs['gpus'])} of {v['peak_flops']} dense peak "
            f"each. {v['batch']} sequences are decoding, with a TPOT target of {v['tpot']}, planned at "
            f"{v['efficiency']} of the floor. A prompt of {v['prompt']} is prefilled in chunks that ride in the same "
            "steps, each as large as the step's floor allows: once a chunk joins, the step is compute-bound. Count 2 "
            "FLOPs per active parameter per token, for the decodes and the prompt alike, and the prompt's causal "
            "attention, 2 × layers × query heads × head dimension × n × (n + 1) FLOPs for n tokens: each chunk "
            "attends over the tokens cached before it, so the chunks' attention adds up to the whole prompt's (the "
            "decodes' own attention left out). How many steps does the prompt take to prefill?")


def chunk_s(p: Problem, v: dict[str, str]) -> Steps:
    s, i = p.solution, p.inputs
    budget = ("the step's floor may take", f"{v['tpot']} × {v['efficiency']} = {fmt.ms(s['floor_budget'])}")
    if p.variant == "chunk":
        return [budget,
                ("tokens it carries", f"floor({fmt.ms(s['floor_budget'])} × {i['gpus']} × {v['peak_flops']} / "
                                      f"(2 × {v['active_params']})) = {fmt.count(s['step_tokens'])}"),
                ("largest chunk", f"{fmt.count(s['step_tokens'])} − {i['batch']} decodes = {fmt.tokens(s['chunk'])}")]
    n = i["prompt"]
    return [budget,
            ("FLOPs a step carries", f"{fmt.ms(s['floor_budget'])} × {i['gpus']} × {v['peak_flops']} = "
                                     f"{fmt.flops(s['step_flops'])}"),
            ("the decodes'", f"2 × {v['active_params']} × {i['batch']} = {fmt.flops(s['decode_flops'])}"),
            ("left for the prompt", f"{fmt.flops(s['step_flops'])} − {fmt.flops(s['decode_flops'])} = "
                                    f"{fmt.flops(s['prefill_flops_per_step'])} a step"),
            ("the prompt's FLOPs", f"2 × {v['active_params']} × {fmt.count(n)} + 2 × {i['layers']} × "
                                   f"{i['query_heads']} × {i['head_dim']} × {fmt.count(n)} × {fmt.count(n + 1)} = "
                                   f"{fmt.flops(s['linear'])} + {fmt.flops(s['attention'])} of attention = "
                                   f"{fmt.flops(s['prompt_flops'])}"),
            ("steps", f"ceil({fmt.flops(s['prompt_flops'])} / {fmt.flops(s['prefill_flops_per_step'])}) = "
                      f"{p.answer} steps"),
            ("beside it", f"attention is {fmt.pct(s['attention'] / s['prompt_flops'])} of the prompt's FLOPs: left "
                          f"out, chunks of {fmt.tokens(s['chunk'])} would take ceil({fmt.count(n)} / "
                          f"{fmt.count(s['chunk'])}) = {s['without_attention']} steps, and the last chunks, which "
                          "attend over the longest prefix, would overrun the TPOT")]


def _verify(p: Problem, v: dict[str, str]) -> str:
    k = v["draft_tokens"]
    return (f"Speculative decoding drafts {k} tokens per sequence, and each verify step runs {p.solution['verified']} "
            f"tokens per sequence through the model (k + 1: the {k} drafts and the token after the last of them)")


def speculative_q(p: Problem, v: dict[str, str]) -> str:
    if p.variant == "ceiling":
        return (f"A GPU computes {v['peak_flops']} (dense, BF16) and streams {v['bandwidth']}. The model's weights "
                "are BF16, 2 bytes for 2 FLOPs per token, so a plain decode step's intensity is about its batch (KV "
                f"reads ignored). {_verify(p, v)}, over the same read of the weights. Below what batch does "
                "verification stay nearly free, the step still memory-bound?")
    return (f"Take a dense model of {v['params']} parameters at {v['bytes_per_weight']} per weight; each sequence's "
            f"KV cache is {v['kv_per_seq']}. Its GPUs compute {v['peak_flops']} (dense) and stream "
            f"{v['bandwidth']} each. {_verify(p, v)}: they go through it together and read their sequence's KV "
            "cache once. Count 2 FLOPs per parameter per token (attention left out). At what batch does the verify "
            "step turn compute-bound, where speculation stops being nearly free?")


def speculative_s(p: Problem, v: dict[str, str]) -> Steps:
    s, i = p.solution, p.inputs
    balance = ("machine balance", f"{v['peak_flops']} / {v['bandwidth']} = {fmt.num(s['balance'])} FLOP/B")
    verified = ("tokens a verify step runs", f"k + 1 = {i['draft_tokens']} + 1 = {s['verified']} per sequence")
    if p.variant == "ceiling":
        return [balance, verified, ("ceiling", f"{fmt.num(s['balance'])} / {s['verified']} = {fmt.num(p.answer)}")]
    return [balance, verified, ("weights", f"{v['params']} × {v['bytes_per_weight']} = {fmt.bytes_(s['weights'])}"),
            ("FLOPs per token", f"2 × {v['params']} = {fmt.flops(s['flops_per_token'])}, "
                                f"{fmt.flops(s['verify_flops'])} for the {s['verified']} verified tokens"),
            ("break-even", f"W / ((k + 1) F / balance − KV) = {fmt.bytes_(s['weights'])} / ({s['verified']} × "
                           f"{fmt.flops(s['flops_per_token'])} / {fmt.num(s['balance'])} − {v['kv_per_seq']}) = "
                           f"{fmt.num(p.answer)} sequences")]


# --- a mixture of experts' weight reads ----------------------------------------------------------------


def moe_reads_q(p: Problem, v: dict[str, str]) -> str:
    return (f"A mixture of experts has {v['params']} parameters, {v['active_params']} of them active per token: "
            f"each MoE layer sends each token to {v['experts_per_token']} of its {v['experts']} routed experts, and "
            "every parameter a token skips sits in an expert it does not choose. A decode step carries "
            f"{_n(v, p, 'batch', 'token')}, each routed on its own, uniformly at random. At {v['bytes_per_weight']} "
            "per weight, how many bytes of weights does the step read, on average?")


def moe_reads_s(p: Problem, v: dict[str, str]) -> Steps:
    s, i = p.solution, p.inputs
    e, k, b = i["experts"], i["experts_per_token"], i["batch"]
    return [("one routed expert", f"e = ({v['params']} − {v['active_params']}) / ({e} − {k}) = "
                                  f"{fmt.billion(s['per_expert'])}"),
            ("read by every token", f"a = {v['active_params']} − {k} × {fmt.billion(s['per_expert'])} = "
                                    f"{fmt.billion(s['always'])}"),
            ("experts touched", f"u = {e} × (1 − (1 − {k}/{e})^{b}) = {fmt.num(s['touched'])}"),
            ("weights read", f"({fmt.billion(s['always'])} + {fmt.num(s['touched'])} × "
                             f"{fmt.billion(s['per_expert'])}) × {v['bytes_per_weight']} = {fmt.bytes_(p.answer)}"),
            ("beside it", f"one token reads {v['active_params']} × {v['bytes_per_weight']} = "
                          f"{fmt.bytes_(s['active_bytes'])}; all the weights are {fmt.bytes_(s['all_bytes'])}")]


QUESTIONS: dict[str, Callable[[Problem, dict[str, str]], str]] = {
    "memory": memory_q, "moe-placement": placement_q, "decode": decode_q, "moe-reads": moe_reads_q,
    "chunked-prefill": chunk_q, "speculative": speculative_q}
STEPS: dict[str, Callable[[Problem, dict[str, str]], Steps]] = {
    "memory": memory_s, "moe-placement": placement_s, "decode": decode_s, "moe-reads": moe_reads_s,
    "chunked-prefill": chunk_s, "speculative": speculative_s}
