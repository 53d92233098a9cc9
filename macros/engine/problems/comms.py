"""Tensor parallelism's all-reduces, and the widest useful split: the widest group whose all-reduces
stay within a stated share of its decode floor (past H_kv ranks the KV heads replicate instead of
splitting, so the floor stops shrinking as fast while the all-reduces do not)."""

from __future__ import annotations

import random

from .. import formulas as f
from ..lookup import dtype_bytes, get_gpu, get_model
from ..model.scenario import ALLREDUCE_LATENCY_CLAIM
from ..specs import catalog
from .base import Draw, Given, Solution, Value

WIDTHS = (1, 2, 4, 8)  # one NVLink node of an HGX system, the widest TP runs without crossing the network
MODELS = ("llama-3.1-8b", "llama-3.1-70b", "qwen2.5-72b", "qwen3-235b-a22b", "mixtral-8x7b")
GPUS = ("a100", "h100", "h200", "b200", "mi300x", "l40s")
BATCHES = (1, 16, 64, 256)
SHARES = (0.1, 0.2, 0.3)


def _allreduce(g: dict[str, Value], gpus: int) -> float:
    return f.tp_allreduce_s(g["layers"], gpus, g["batch"], g["hidden"], g["link"], g["latency"])


def solve_allreduce(g: dict[str, Value]) -> Solution:
    """2 L all-reduces per step, each a ring moving 2 (g - 1) / g of b d 2 B over one link direction, plus
    the fixed latency of each collective."""
    total = _allreduce(g, g["gpus"])
    count = f.tp_allreduces_per_step(g["layers"])
    return dict(answer=total, unit="s", count=count, each=total / count)


def solve_split(g: dict[str, Value]) -> Solution:
    """The widest of WIDTHS whose all-reduces take at most `share` of its memory-bound decode floor
    (weights plus each sequence's KV cache times its copies, over g B)."""
    weights = f.weight_bytes(g["params"], g["bytes_per_weight"])
    rows = []
    for width in WIDTHS:
        copies = f.kv_copies("tp", width, g["kv_heads"], False)
        floor = f.memory_time_s(f.decode_step_bytes(weights, g["batch"], copies * g["kv_per_seq"]), width,
                                g["bandwidth"])
        rows.append(dict(gpus=width, copies=copies, floor=floor, allreduce=_allreduce(g, width)))
    useful = [r["gpus"] for r in rows if r["allreduce"] <= g["share"] * r["floor"]]
    return dict(answer=max(useful), unit="GPUs", rows=rows, weights=weights)


def solve_comms(g: dict[str, Value]) -> Solution:
    """An all-reduce problem: with a share of the floor, the widest split; without, one step's all-reduces."""
    return solve_split(g) if "share" in g else solve_allreduce(g)


def draw_comms(n: int, rng: random.Random) -> Draw | None:
    m, gpu = get_model(rng.choice(MODELS)), get_gpu(rng.choice(GPUS))
    link = (Given("link", gpu.interconnect_bytes_per_s, "B/s"),
            Given("latency", catalog().claims[ALLREDUCE_LATENCY_CLAIM].low, "s"))
    batch = rng.choice(BATCHES)
    if n % 2 == 0:
        exact = (Given("layers", m.layers, "count"), Given("hidden", m.hidden_size, "count"),
                 Given("gpus", rng.choice(WIDTHS[1:]), "count"), Given("batch", batch, "count"), *link)
        return Draw("allreduce", exact, {"model": m.key, "gpu": gpu.key})
    weights = rng.choice(("bf16", "fp8"))
    kv_per_seq = f.kv_bytes_per_seq(f.kv_bytes_per_token_gqa(m.layers, m.kv_heads, m.head_dim, 2), m.layers, 4096)
    exact = (Given("params", float(m.params), "params"), Given("bytes_per_weight", dtype_bytes(weights), "bytes"),
             Given("kv_per_seq", float(kv_per_seq), "B"), Given("kv_heads", m.kv_heads, "count"),
             Given("layers", m.layers, "count"), Given("hidden", m.hidden_size, "count"),
             Given("batch", batch, "count"), Given("bandwidth", gpu.bandwidth_bytes_per_s, "B/s"), *link,
             Given("share", rng.choice(SHARES), "fraction"))
    s = solve_split({x.name: x.value for x in exact})
    if s["answer"] == 1 and n % 4 == 1:
        return None  # keep most answers above one GPU: the question is how wide, not whether
    return Draw("split", exact, {"model": m.key, "gpu": gpu.key})
