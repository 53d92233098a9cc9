"""Chapter 10 (docs/guide/moe-at-scale.md): the expert-parallel all-to-all and the disaggregated pools, as two
kinds of practice problem, and the chapter's published figures (data/topics/moe_at_scale.toml), read and
checked here so the page model and the problems read one copy.

- "ep-alltoall": a decode step's all-to-all (formulas.ep_layer_alltoall_s over the MoE layers), or a layer
  with and without two-batch overlap (formulas.two_batch_overlap_s), its compute and weight-read floors taken
  from the scenario (dp-attention, every sequence at 4,096 tokens).
- "pool-sizing": the prefill-to-decode GPU ratio of a workload (formulas.prefill_pool_gpus over
  md1_max_utilisation, decode_pool_gpus over tpot_bound_batch, each rounded up to whole replicas), or the KV
  handoff a request still waits for when its KV is sent layer by layer (formulas.layerwise_exposed_s).
"""

from __future__ import annotations

import functools
import math
import random
import re
from pathlib import Path
from typing import Any

from .. import formulas as f
from ..formulas import moe_comms as mc
from ..lookup import InputError, get_gpu, get_model, peak_flops
from ..model.geometry import kv_bytes_per_token, model_kv_bytes_per_seq, model_weight_bytes
from ..model.scenario import ALLREDUCE_LATENCY_CLAIM, DEFAULT_EFFICIENCY, scenario
from ..specs import DATA_DIR, SpecError, catalog, display_path, read_toml
from .base import Draw, Given, Solution, Value

PATH = DATA_DIR / "topics" / "moe_at_scale.toml"
DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
# Each entry's numeric fields and the band a plausible value lies in (a list: every element).
BANDS: dict[str, dict[str, tuple[float, float]]] = {
    "decode_batch": {"tokens_per_gpu": (1, 4096)},
    "deepep_low_latency": {"ep": (2, 4096), "dispatch_s": (1e-6, 1e-2), "combine_s": (1e-6, 1e-2),
                           "tokens_per_gpu": (1, 4096)},
    "deepseek_service": {"input_tokens_per_day": (1e9, 1e14), "output_tokens_per_day": (1e9, 1e14),
                         "prefill_tokens_per_s_per_node": (1e3, 1e7), "decode_tokens_per_s_per_node": (1e2, 1e6),
                         "average_nodes": (1, 1e5), "peak_nodes": (1, 1e5), "gpus_per_node": (1, 72),
                         "prefill_ep": (2, 4096), "decode_ep": (2, 4096), "redundant_experts": (0, 4096),
                         "mean_kv_tokens": (1, 1e7)},
    "sglang_large_ep": {"nodes": (1, 1e4), "decode_ep": (2, 4096), "decode_tokens_per_s_per_node": (1e2, 1e6),
                        "tbo_decode_gain_256": (-1, 2), "tbo_decode_gain_32": (-1, 2), "eplb_gain_prefill": (0.5, 10),
                        "eplb_gain_decode": (0.5, 10), "dispatch_s_per_layer": (1e-6, 1e-2)},
    "sglang_gb200": {"decode_tokens_per_s_per_gpu": (1, 1e6), "speedup_over_h100": (0.5, 20)},
    "tcp_path": {"bytes_per_s": (1e8, 1e12)},
    "deepseek_v3_routing": {"max_nodes_per_token": (1, 64), "scale_block_elements": (1, 1e5), "scale_bytes": (1, 8)},
    "vllm_defaults": {"dbo_decode_token_threshold": (0, 1e5), "eplb_window_steps": (1, 1e7),
                      "eplb_step_interval": (1, 1e7), "redundant_expert_bytes": (1e6, 1e12)},
    "sglang_layer_pipeline": {"group_layers": (1, 1000), "min_prompt_tokens": (0, 1e7)},
}


def _number_ok(value: Any, low: float, high: float) -> bool:
    return (not isinstance(value, bool) and isinstance(value, int | float) and math.isfinite(value)
            and low <= value <= high)


@functools.cache
def moe_at_scale_data(path: Path = PATH) -> dict[str, dict[str, Any]]:
    """The chapter's figures, each entry checked: every field of BANDS present and inside its band (a list
    non-empty and every element inside it), a source, and dates written YYYY-MM-DD. A bad value is one
    SpecError line naming the file, the entry and what is wrong."""
    raw, where = read_toml(path), display_path(path)
    for entry, fields in BANDS.items():
        table = raw.get(entry)
        if not isinstance(table, dict):
            raise SpecError(f"{where}: [{entry}] is missing")
        for name, (low, high) in fields.items():
            value = table.get(name)
            items = value if isinstance(value, list) else [value]
            if not items or not all(_number_ok(v, low, high) for v in items):
                raise SpecError(f"{where}: [{entry}] {name}: must be a finite number from {low:g} to {high:g}"
                                f"{' (every element)' if isinstance(value, list) else ''}, got {value!r}")
        if not isinstance(table.get("source"), str) or not table["source"].strip():
            raise SpecError(f"{where}: [{entry}] source: every figure needs its source")
        for name in ("date", "checked"):
            if not isinstance(table.get(name), str) or not DATE.fullmatch(table[name]):
                raise SpecError(f"{where}: [{entry}] {name}: must be a date written YYYY-MM-DD, got "
                                f"{table.get(name)!r}")
    lengths = {len(raw["deepep_low_latency"][k]) for k in ("ep", "dispatch_s", "combine_s")}
    if len(lengths) != 1:
        raise SpecError(f"{where}: [deepep_low_latency] ep, dispatch_s and combine_s must have one value each per "
                        "EP width")
    return raw


def domain_gpus(gpu: str) -> int:
    """GPUs in one NVLink (or xGMI) domain: a whole NVL72 rack for a GB200 or GB300, an 8-GPU node otherwise
    (claims.toml nvlink-domain)."""
    claim = catalog().claims["nvlink-domain"]
    return int(claim.high if gpu.startswith("gb") else claim.low)


# --- ep-alltoall ---------------------------------------------------------------------------------------------


def _link(g: dict[str, Value]) -> tuple:
    return g["gpus"], g["domain_gpus"], g["nvlink"], g["network"], g["latency"]


def solve_ep_alltoall(g: dict[str, Value]) -> Solution:
    """Without the layer's own times: a decode step's all-to-all, the MoE layers' dispatch and combine. With
    them: one layer with and without two-batch overlap, and whether the overlap pays."""
    t, k, d = g["tokens"], g["experts_per_token"], g["hidden"]
    dispatch = mc.ep_exchange_s(t, k, d, g["dispatch_bytes"], *_link(g))
    combine = mc.ep_exchange_s(t, k, d, g["combine_bytes"], *_link(g))
    layer_a2a = dispatch + combine
    parts = dict(dispatch=dispatch, combine=combine, alltoall=layer_a2a, inside=min(g["gpus"], g["domain_gpus"]),
                 dispatch_payload=mc.ep_payload_bytes(t, k, d, g["dispatch_bytes"]),
                 combine_payload=mc.ep_payload_bytes(t, k, d, g["combine_bytes"]))
    if "layer" not in g:
        return dict(answer=g["moe_layers"] * layer_a2a, unit="s", **parts)
    plain = g["layer"] + layer_a2a
    overlapped = mc.two_batch_overlap_s(g["layer"], g["weight_read"], layer_a2a, g["latency"])
    return dict(answer=overlapped, unit="s", verdict="pays" if overlapped < plain else "loses", plain=plain,
                compute_side=g["layer"] + g["weight_read"], comm_side=layer_a2a + 2 * g["latency"], **parts)


EP_MODELS = ("deepseek-v3", "qwen3-235b-a22b", "gpt-oss-120b", "mixtral-8x22b")
EP_GPUS = ("h100", "h200", "b200", "gb200", "mi300x")
EP_WIDTHS = (8, 16, 32, 64)
EP_TOKENS = (32, 64, 128, 256)
EP_CONTEXT = 4096  # every sequence at this context for the layer's floor


def _layer_floors(model: str, gpu: str, gpus: int, tokens: int) -> tuple[float, float]:
    """(a layer's decode floor, its weight-read share) on one GPU: the dp-attention scenario at tokens per GPU."""
    s = scenario(model, gpu, gpus=gpus, layout="dp-attention", seq_len=EP_CONTEXT, batch=tokens * gpus)
    if not s.fits:
        raise InputError(f"{model} leaves no KV budget on {gpus} x {gpu}")
    weights_read = s.decode_bytes - s.batch * s.kv_bytes_per_seq_group
    layers = s.model_spec.layers
    return s.decode_step_s / layers, f.memory_time_s(weights_read, gpus, s.gpu_spec.bandwidth_bytes_per_s) / layers


def draw_ep_alltoall(n: int, rng: random.Random) -> Draw | None:
    m, gpu = get_model(rng.choice(EP_MODELS)), get_gpu(rng.choice(EP_GPUS))
    widths = [w for w in EP_WIDTHS if w <= m.experts]
    gpus, tokens = rng.choice(widths), rng.choice(EP_TOKENS)
    claims = catalog().claims
    exact = (Given("tokens", tokens, "tokens"), Given("experts_per_token", m.experts_per_token, "count"),
             Given("hidden", m.hidden_size, "count"), Given("dispatch_bytes", rng.choice((1, 2)), "bytes"),
             Given("combine_bytes", 2, "bytes"), Given("gpus", gpus, "count"),
             Given("domain_gpus", domain_gpus(gpu.key), "count"), Given("nvlink", gpu.interconnect_bytes_per_s, "B/s"),
             Given("network", claims["nic-bandwidth"].low, "B/s"),
             Given("latency", claims[ALLREDUCE_LATENCY_CLAIM].low, "s"))
    source = {"model": m.key, "gpu": gpu.key}
    if n % 2 == 0:
        return Draw("step", (*exact, Given("moe_layers", m.layers - (m.dense_layers or 0), "count")), source)
    try:
        layer, weight_read = _layer_floors(m.key, gpu.key, gpus, tokens)
    except InputError:
        return None  # the model and a full batch do not fit this many GPUs
    exact = (*exact, Given("layer", layer, "s"), Given("weight_read", weight_read, "s"))
    verdict = solve_ep_alltoall({x.name: x.value for x in exact})["verdict"]
    if (verdict == "pays") != (n % 4 == 1):
        return None  # half the overlap problems pay, half lose
    return Draw(f"overlap-{verdict}", exact, source)


# --- pool-sizing ---------------------------------------------------------------------------------------------


def solve_pool_sizing(g: dict[str, Value]) -> Solution:
    """With a workload: each pool's GPUs in whole replicas and the prefill-to-decode ratio. With a prompt's KV
    and a link: the handoff, sent whole after prefill or layer by layer."""
    if "kv_per_token" in g:
        transfer = f.transfer_time_s(g["kv_per_token"] * g["prompt"], g["paths"] * g["link"])
        exposed = mc.layerwise_exposed_s(transfer, g["prefill"], g["layers"])
        return dict(answer=exposed, unit="s", verdict="hidden" if transfer <= g["prefill"] else "exposed",
                    kv=g["kv_per_token"] * g["prompt"], transfer=transfer)
    service = f.prefill_time_s(g["active_params"], g["prompt"], g["weights"], g["prefill_gpus"], g["peak_flops"],
                               g["bandwidth"]) / g["efficiency"]
    rho = mc.md1_max_utilisation(service, g["ttft"])
    prefill_replicas = f.whole_count(mc.prefill_pool_gpus(g["rate"], service, g["prefill_gpus"], rho)
                                     / g["prefill_gpus"]) if rho > 0 else 0
    batch = min(int(mc.tpot_bound_batch(g["tpot"], g["efficiency"], g["decode_gpus"], g["bandwidth"], g["weights"],
                                        g["kv_per_seq"])), g["max_batch"])
    decode_replicas = f.whole_count(mc.decode_pool_gpus(g["rate"], g["output"], g["tpot"], batch, g["decode_gpus"])
                                    / g["decode_gpus"]) if batch >= 1 else 0
    prefill_total, decode_total = prefill_replicas * g["prefill_gpus"], decode_replicas * g["decode_gpus"]
    return dict(answer=prefill_total / decode_total if decode_total else math.inf, unit="ratio", service=service,
                utilisation=rho, prefill_replicas=prefill_replicas, prefill_gpus_total=prefill_total, batch=batch,
                decode_replicas=decode_replicas, decode_gpus_total=decode_total)


POOL_MODELS = ("llama-3.1-8b", "llama-3.1-70b", "qwen2.5-72b", "mistral-7b")
POOL_GPUS = ("a100", "h100", "h200", "b200", "mi300x")
PROMPTS = (500, 1000, 2000, 4000, 8000)
OUTPUTS = (100, 200, 400, 800)
TTFTS = (0.5, 1.0, 2.0)
TPOTS = (0.03, 0.05, 0.1)
RATES = (5.0, 10.0, 20.0, 50.0)
HANDOFF_PROMPTS = (2000, 8000, 32768)


def _links(gpu: str, gpus: int) -> dict[str, tuple[float, int]]:
    """Where the prefill replica's KV can go: each GPU over its NVLink or its NIC, or all through one TCP path."""
    return {"NVLink": (get_gpu(gpu).interconnect_bytes_per_s, gpus),
            "RDMA": (catalog().claims["nic-bandwidth"].low, gpus),
            "TCP": (moe_at_scale_data()["tcp_path"]["bytes_per_s"], 1)}


def _draw_handoff(rng: random.Random, m, gpu) -> Draw:
    weights = rng.choice(("bf16", "fp8"))
    gpus = min(8, 2 * scenario(m.key, gpu.key, weights=weights).gpus)  # a prefill replica: twice the fewest
    prompt = rng.choice([p for p in HANDOFF_PROMPTS if p <= m.max_context])
    how = rng.choice(sorted(_links(gpu.key, gpus)))
    link, paths = _links(gpu.key, gpus)[how]
    prefill = f.prefill_time_s(m.active, prompt, model_weight_bytes(m, weights), gpus, peak_flops(gpu, weights),
                               gpu.bandwidth_bytes_per_s)
    exact = (Given("kv_per_token", int(kv_bytes_per_token(m)), "bytes"), Given("prompt", prompt, "tokens"),
             Given("paths", paths, "count"), Given("link", link, "B/s"), Given("prefill", prefill, "s"),
             Given("layers", m.layers, "count"))
    return Draw("handoff", exact, {"model": m.key, "gpu": gpu.key, "link": how, "gpus": str(gpus)})


def draw_pool_sizing(n: int, rng: random.Random) -> Draw | None:
    m, gpu = get_model(rng.choice(POOL_MODELS)), get_gpu(rng.choice(POOL_GPUS))
    if n % 2 == 1:
        d = _draw_handoff(rng, m, gpu)
        exposed = solve_pool_sizing({x.name: x.value for x in d.exact})["verdict"] == "exposed"
        return d if exposed == (n % 4 == 3) else None  # half the handoffs outrun their prefill, half do not
    weights = rng.choice(("bf16", "fp8"))
    fewest = scenario(m.key, gpu.key, weights=weights).gpus
    prefill_gpus, decode_gpus = min(8, 2 * fewest), fewest
    prompt, output = rng.choice(PROMPTS), rng.choice(OUTPUTS)
    if prompt + output > m.max_context:
        return None
    full = scenario(m.key, gpu.key, gpus=decode_gpus, weights=weights, seq_len=prompt + output)
    exact = (Given("rate", rng.choice(RATES), "1/s"), Given("prompt", prompt, "tokens"),
             Given("output", output, "tokens"), Given("active_params", float(m.active), "params"),
             Given("weights", float(model_weight_bytes(m, weights)), "B"),
             Given("peak_flops", peak_flops(gpu, weights), "FLOP/s"),
             Given("bandwidth", gpu.bandwidth_bytes_per_s, "B/s"), Given("efficiency", DEFAULT_EFFICIENCY, "fraction"),
             Given("prefill_gpus", prefill_gpus, "count"), Given("ttft", rng.choice(TTFTS), "s"),
             Given("decode_gpus", decode_gpus, "count"), Given("tpot", rng.choice(TPOTS), "s"),
             Given("kv_per_seq", float(model_kv_bytes_per_seq(m, prompt + output // 2)), "B"),
             Given("max_batch", full.max_batch, "count"))
    s = solve_pool_sizing({x.name: x.value for x in exact})
    if not (s["prefill_replicas"] and s["decode_replicas"]):
        return None  # a target no replica of these meets
    return Draw("ratio", exact, {"model": m.key, "gpu": gpu.key, "weights": weights})
