"""The decode step and the roofline, a mixture of experts' weight reads, the chunked-prefill token budget,
and speculative decoding's break-even: problems on one step of a replica under tensor parallelism."""

from __future__ import annotations

import random

from .. import formulas as f
from ..lookup import dtype_bytes, get_gpu, get_model, peak_flops
from ..model.scenario import DEFAULT_EFFICIENCY, scenario
from ..specs import Gpu, Model
from .base import SIG, Draw, Given, Solution, Value, stated

DENSE_MODELS = ("llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b", "qwen2.5-72b")  # GQA, no sliding window
GPUS = ("a100", "h100", "h200", "b200", "mi300x", "l40s")
GPU_COUNTS = (1, 2, 4, 8)
WEIGHTS = ("bf16", "fp8")


def _replica(rng: random.Random, models: tuple[str, ...] = DENSE_MODELS) -> tuple[Model, Gpu, str, int]:
    """A model, a GPU, a weight format and a group size, drawn from the pools."""
    m, gpu, weights = get_model(rng.choice(models)), get_gpu(rng.choice(GPUS)), rng.choice(WEIGHTS)
    return m, gpu, weights, rng.choice(GPU_COUNTS)


# --- the decode step ------------------------------------------------------------------------------


def solve_decode(g: dict[str, Value]) -> Solution:
    """The decode-step floor, max(bytes / (g B), FLOPs / (g P)), with 2 N FLOPs per token (attention
    left out) and every sequence at full context; KV heads replicate past H_kv ranks."""
    weights = f.weight_bytes(g["params"], g["bytes_per_weight"])
    kv_token = f.kv_bytes_per_token_gqa(g["layers"], g["kv_heads"], g["head_dim"], g["bytes_per_kv"])
    kv_seq = f.kv_bytes_per_seq(kv_token, g["layers"], g["seq_len"])
    copies = f.kv_copies("tp", g["gpus"], g["kv_heads"], False)
    moved = f.decode_step_bytes(weights, g["batch"], copies * kv_seq)
    flops = f.decode_step_flops(g["params"], g["batch"])
    balance = f.machine_balance(g["peak_flops"], g["bandwidth"])
    memory_bound = bool(f.is_memory_bound(flops, moved, balance))
    return dict(answer=f.step_floor_s(moved, flops, g["gpus"], g["bandwidth"], g["peak_flops"]), unit="s",
                verdict="memory" if memory_bound else "compute", weights=weights, kv_per_token=kv_token,
                kv_per_seq=kv_seq, copies=copies, bytes=moved, flops=flops, balance=balance,
                intensity=f.intensity(flops, moved), memory_s=f.memory_time_s(moved, g["gpus"], g["bandwidth"]),
                compute_s=f.compute_time_s(flops, g["gpus"], g["peak_flops"]))


BATCHES = (1, 8, 32, 64, 128, 256, 512, 1024)
CONTEXTS = (512, 1024, 2048, 4096, 8192)


def draw_decode(n: int, rng: random.Random) -> Draw | None:
    m, gpu, weights, gpus = _replica(rng)
    kv, seq, batch = rng.choice(("bf16", "fp8")), rng.choice(CONTEXTS), rng.choice(BATCHES)
    if scenario(m.key, gpu.key, gpus=gpus, seq_len=seq, weights=weights, kv=kv).max_batch < batch:
        return None  # the batch must fit the replica the problem describes
    exact = (Given("params", float(m.params), "params"), Given("bytes_per_weight", dtype_bytes(weights), "bytes"),
             Given("layers", m.layers, "count"), Given("kv_heads", m.kv_heads, "count"),
             Given("head_dim", m.head_dim, "count"), Given("bytes_per_kv", dtype_bytes(kv), "bytes"),
             Given("seq_len", seq, "tokens"), Given("batch", batch, "count"), Given("gpus", gpus, "count"),
             Given("bandwidth", gpu.bandwidth_bytes_per_s, "B/s"), Given("peak_flops", peak_flops(gpu, weights),
                                                                          "FLOP/s"))
    want = ("memory", "compute")[n % 2]
    ok = solve_decode({x.name: x.value for x in exact})["verdict"] == want
    return Draw(want, exact, {"model": m.key, "gpu": gpu.key}, {"peak_flops": 4}) if ok else None


# --- the chunked-prefill token budget --------------------------------------------------------------


def solve_chunk(g: dict[str, Value]) -> Solution:
    """The largest chunk that rides with the decodes within the TPOT target (attention left out, as in 4.4);
    for the "steps" variant, how many steps a long prompt takes: its FLOPs, 2 N_a n plus its causal attention
    (each chunk attends over the prefix cached before it, so the chunks' attention adds up to the whole
    prompt's), over the FLOPs each step's floor leaves once the decodes have theirs."""
    chunk = f.largest_prefill_chunk(g["tpot"], g["efficiency"], g["gpus"], g["peak_flops"], g["active_params"],
                                    g["batch"])
    step_tokens = chunk + g["batch"]
    out = dict(answer=chunk, unit="tokens", chunk=chunk, step_tokens=step_tokens,
               floor_budget=g["tpot"] * g["efficiency"])
    if "prompt" in g:
        step_flops = g["tpot"] * g["efficiency"] * g["gpus"] * g["peak_flops"]
        decodes = f.decode_step_flops(g["active_params"], g["batch"])
        attention = f.attention_flops_causal(g["layers"], g["query_heads"], g["head_dim"], g["prompt"])
        prompt_flops = f.prefill_flops(g["active_params"], g["prompt"], attention)
        out.update(answer=f.whole_count(prompt_flops / (step_flops - decodes)), unit="steps", step_flops=step_flops,
                   decode_flops=decodes, prefill_flops_per_step=step_flops - decodes, linear=prompt_flops - attention,
                   attention=attention, prompt_flops=prompt_flops,
                   without_attention=f.blocks_needed(g["prompt"], chunk))
    return out


def whole_chunk_steps(g: dict[str, Value]) -> int | None:
    """The steps a prompt takes in whole-token chunks, each the largest whose FLOPs (2 N_a per token plus its
    attention over the prefix cached before it and over itself) fit what the step leaves for prefill: what
    solve_chunk's count of FLOPs over FLOPs per step stands for. None when a step fits no token at all."""
    s = solve_chunk(g)
    budget, n = s["prefill_flops_per_step"], int(g["prompt"])

    def cost(done: int, tokens: int) -> float:
        causal = f.attention_flops_causal(g["layers"], g["query_heads"], g["head_dim"], done + tokens) - \
            f.attention_flops_causal(g["layers"], g["query_heads"], g["head_dim"], done)
        return f.prefill_flops(g["active_params"], tokens, causal)

    done = steps = 0
    while done < n:
        low, high = 0, n - done  # the largest chunk that fits, by bisection
        while low < high:
            mid = (low + high + 1) // 2
            low, high = (mid, high) if cost(done, mid) <= budget else (low, mid - 1)
        if low == 0:
            return None
        done, steps = done + low, steps + 1
    return steps


CHUNK_MODELS = (*DENSE_MODELS, "mixtral-8x7b", "qwen3-235b-a22b")
TPOTS = (0.03, 0.05, 0.1)
DECODES = (16, 32, 64, 128)
PROMPTS = (8000, 16000, 32000, 64000, 128000)


def draw_chunk(n: int, rng: random.Random) -> Draw | None:
    m, gpu, weights, gpus = _replica(rng, CHUNK_MODELS)
    tpot, batch = rng.choice(TPOTS), rng.choice(DECODES)
    s = scenario(m.key, gpu.key, gpus=gpus, seq_len=4096, weights=weights)
    if s.max_batch < batch:
        return None
    reads = f.memory_time_s(scenario(m.key, gpu.key, gpus=gpus, seq_len=4096, weights=weights,
                                     batch=batch).decode_bytes, gpus, gpu.bandwidth_bytes_per_s)
    if reads >= tpot * DEFAULT_EFFICIENCY:
        return None  # the decodes alone fill the step: no chunk rides along, and the question would mislead
    exact = (Given("active_params", float(m.active), "params"), Given("gpus", gpus, "count"),
             Given("peak_flops", peak_flops(gpu, weights), "FLOP/s"),
             Given("efficiency", DEFAULT_EFFICIENCY, "fraction"), Given("tpot", tpot, "s"),
             Given("batch", batch, "count"))
    variant = ("chunk", "steps")[n % 2]
    if variant == "steps":
        exact += (Given("layers", m.layers, "count"), Given("query_heads", m.query_heads, "count"),
                  Given("head_dim", m.head_dim, "count"),
                  Given("prompt", rng.choice([p for p in PROMPTS if p <= m.max_context]), "tokens"))
    sig = {"peak_flops": 4}
    as_stated = {x.name: stated(x.value, sig.get(x.name, SIG)) for x in exact}
    s = solve_chunk(as_stated)
    if s["chunk"] < 64 or (variant == "steps" and s["answer"] < 3):
        return None  # a chunk too small to be worth it, or a prompt that needs no chunking
    if variant == "steps" and whole_chunk_steps(as_stated) != s["answer"]:
        return None  # the count of FLOPs over FLOPs a step must be the count of whole-token chunks too
    return Draw(variant, exact, {"model": m.key, "gpu": gpu.key}, sig)


# --- speculative decoding's break-even -------------------------------------------------------------


def solve_speculative(g: dict[str, Value]) -> Solution:
    """The batch at which a verify step turns compute-bound. A verify step runs k + 1 tokens per sequence
    through the model (the k draft tokens and the one after them, serving/speculative.py's verify_batch), over
    one read of the weights and of the sequence's KV cache: with the KV read counted (break-even), or with it
    ignored at BF16, where a plain step's intensity is about its batch (ceiling, P / B / (k + 1))."""
    balance = f.machine_balance(g["peak_flops"], g["bandwidth"])
    verified = g["draft_tokens"] + 1
    if "kv_per_seq" in g:
        flops_per_token = f.decode_step_flops(g["params"], 1)
        weights = f.weight_bytes(g["params"], g["bytes_per_weight"])
        answer = f.speculative_break_even_batch(weights, g["kv_per_seq"], flops_per_token, g["draft_tokens"],
                                                balance)
        return dict(answer=answer, unit="sequences", balance=balance, weights=weights,
                    flops_per_token=flops_per_token, verified=verified, verify_flops=verified * flops_per_token)
    return dict(answer=f.speculative_batch_ceiling(balance, g["draft_tokens"]), unit="sequences", balance=balance,
                verified=verified)


DRAFT_TOKENS = (2, 3, 4, 5, 7)


def draw_speculative(n: int, rng: random.Random) -> Draw | None:
    m, gpu, weights, gpus = _replica(rng)
    if n % 2:  # the ceiling's intensity of about the batch holds at 2 bytes a weight: BF16, on the BF16 peak
        base = (Given("peak_flops", peak_flops(gpu, "bf16"), "FLOP/s"),
                Given("bandwidth", gpu.bandwidth_bytes_per_s, "B/s"),
                Given("draft_tokens", rng.choice(DRAFT_TOKENS), "count"))
        return Draw("ceiling", base, {"gpu": gpu.key}, {"peak_flops": 4})
    seq = rng.choice(CONTEXTS)
    base = (Given("peak_flops", peak_flops(gpu, weights), "FLOP/s"), Given("bandwidth", gpu.bandwidth_bytes_per_s,
                                                                           "B/s"),
            Given("draft_tokens", rng.choice(DRAFT_TOKENS), "count"))
    s = scenario(m.key, gpu.key, gpus=gpus, seq_len=seq, weights=weights)
    exact = (Given("params", float(m.params), "params"), Given("bytes_per_weight", dtype_bytes(weights), "bytes"),
             Given("kv_per_seq", float(s.kv_bytes_per_seq), "B"), *base)
    answer = solve_speculative({x.name: x.value for x in exact})["answer"]
    if not answer < s.max_batch:  # a break-even the replica cannot reach teaches nothing here
        return None
    return Draw("break-even", exact, {"model": m.key, "gpu": gpu.key}, {"peak_flops": 4})


# --- a mixture of experts' weight reads -----------------------------------------------------------------


def solve_moe_reads(g: dict[str, Value]) -> Solution:
    """The weights a decode step of b tokens reads (the formula contract's MoE reads): each routed expert holds
    e = (N - N_a) / (E - k) parameters, every token reads a = N_a - k e, and b tokens touch
    u(b) = E (1 - (1 - k / E)^b) distinct experts on average, so the step reads (a + u(b) e) w bytes."""
    per_expert = f.moe_expert_params(g["params"], g["active_params"], g["experts"], g["experts_per_token"])
    read = f.moe_params_read(g["params"], g["active_params"], g["experts"], g["experts_per_token"], g["batch"])
    return dict(answer=f.weight_bytes(read, g["bytes_per_weight"]), unit="B", per_expert=per_expert,
                always=g["active_params"] - g["experts_per_token"] * per_expert,
                touched=f.experts_touched(g["experts"], g["experts_per_token"], g["batch"]), params_read=read,
                active_bytes=f.weight_bytes(g["active_params"], g["bytes_per_weight"]),
                all_bytes=f.weight_bytes(g["params"], g["bytes_per_weight"]))


MOE_MODELS = ("mixtral-8x7b", "mixtral-8x22b", "qwen3-235b-a22b", "deepseek-v3")
FEW_TOKENS = (2, 4, 8, 16)  # a step that touches a few of the experts
MANY_TOKENS = (32, 64, 128, 256, 512)  # one that touches most or all of them


def draw_moe_reads(n: int, rng: random.Random) -> Draw | None:
    m, weights = get_model(rng.choice(MOE_MODELS)), rng.choice(WEIGHTS)
    variant = ("few-tokens", "many-tokens")[n % 2]
    exact = (Given("params", float(m.params), "params"), Given("active_params", float(m.active), "params"),
             Given("experts", m.experts, "count"), Given("experts_per_token", m.experts_per_token, "count"),
             Given("bytes_per_weight", dtype_bytes(weights), "bytes"),
             Given("batch", rng.choice(FEW_TOKENS if variant == "few-tokens" else MANY_TOKENS), "count"))
    return Draw(variant, exact, {"model": m.key})
