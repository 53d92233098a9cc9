"""One replica of g GPUs serving one model, as the plain numbers a step's time needs.

Everything a step reads or computes per token, per expert or per (query, key) pair is worked out
once here from the spec data (through geometry.py and formulas/, so each formula stays in one
place); the step then only multiplies these by its batch. The result is a frozen record of numbers,
which the JavaScript twin can build the same way or read from the catalog.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..formulas.memory import kv_copies, weight_bytes_held
from ..formulas.moe import moe_expert_params
from ..lookup import InputError, get_gpu, get_model, lookup, peak_flops
from ..model.geometry import (
    attention_params,
    decode_attention_flops_per_seq,
    kv_bytes_per_token,
    prefill_attention_flops,
)
from ..model.placement import check_layout
from ..specs import Gpu, Model, catalog
from .adapters import AdapterMix, adapter_bytes
from .families import families

FOUR_BIT = 4  # a 4-bit weight format on a MoE checkpoint quantises the routed experts only


@dataclass(frozen=True)
class Replica:
    model: str
    gpu: str
    gpus: int  # g: every GPU of the replica (the tensor-parallel group, or the attention-DP ranks)
    layout: str  # "tp" or "dp-attention"
    ep: int  # expert-parallel ranks (1: experts split by tensor parallelism)
    expert_weights: str  # precisions.toml key of the routed experts (of every weight for a dense model)
    other_weights: str  # ... of everything else: attention, shared and dense MLPs, embeddings, head
    kv: str
    layers: int
    moe_layers: int
    hidden: int
    attention: str  # "mla" or "gqa" (MHA and MQA count as GQA): the layer kind its fixed cost depends on
    experts: int  # routed experts per MoE layer (0: dense)
    experts_per_token: int
    expert_bytes: float  # one routed expert summed over the MoE layers, in its format
    always_bytes: float  # read by every step whatever its batch, every rank's copy included
    dense_flops_per_token: float  # 2 x the always-active parameters
    attention_flops_per_token: float  # of them, the attention projections' (under attention DP, on a token's own rank)
    moe_flops_per_token: float  # 2 x the k routed experts' parameters
    moe_tile_rows: int  # the fewest token rows one expert's GEMM computes (gpu_families.toml moe_rows)
    kv_bytes_per_token_layer: float  # one copy
    kv_copies: float  # copies of each sequence's KV the replica holds (and so reads)
    window_layers: int  # layers attending to a sliding window ...
    window: int  # ... of this many tokens (0: none)
    decode_pair_flops: float  # attention FLOPs per (query, key) pair per layer, decoding
    decode_tile_padding: float  # >= 1: the query heads one decode matmul takes, padded to the tensor-core tile
    prefill_pair_flops: float  # ... prefilling
    bandwidth_bytes_per_s: float  # one GPU's memory bandwidth
    dense_peak_flops: float  # one GPU's dense peak for the non-expert GEMMs' format
    moe_peak_flops: float  # ... for the experts' format
    attention_peak_flops: float  # ... for the KV cache's dtype
    link_bytes_per_s: float  # one GPU's interconnect, one direction
    memory_bytes: float  # one GPU, as the driver reports it where the data gives that (engines share out that)
    weight_bytes_held: float  # across the replica, replicated attention weights included (and the adapters' slice)
    # Unmerged LoRA adapters (serving/adapters.py; zero without): one adapter's bytes, the adapters the slice
    # holds, the catalogue requests draw from and its Zipf exponent
    adapter_bytes: float = 0.0
    adapter_slots: int = 0
    adapter_catalogue: int = 0
    adapter_popularity: float = 0.0

    @property
    def full_layers(self) -> int:
        return self.layers - self.window_layers

    @property
    def ranks(self) -> int:
        """Attention data-parallel ranks: every GPU under dp-attention, one group under tensor parallelism. Written
        without a branch, so it holds elementwise over a stack of replicas."""
        return 1 + (self.gpus - 1) * (self.layout == "dp-attention")


def weight_formats(model: Model, weights: str) -> tuple[str, str]:
    """(routed experts' format, everyone else's). The checkpoint's own format keeps its split (GPT-OSS:
    MXFP4 experts, BF16 rest). A 4-bit format asked of a MoE checkpoint quantises its routed experts
    and leaves the rest in the checkpoint's non-expert format, as the FP4 DeepSeek-R1 checkpoints do
    (an assumption where their cards do not say). Anything else applies to every weight."""
    precision = lookup("dtype", weights, catalog().precisions)
    if weights == model.native_weights:
        return weights, model.nonexpert_weights
    if model.is_moe and precision.element_bits == FOUR_BIT:
        return weights, model.nonexpert_weights
    return weights, weights


def decode_tile_padding(model: Model, gpu: str, gpus: int, layout: str) -> float:
    """How many times the useful FLOPs a decode step's attention costs: one token's query heads that share
    a KV (a GQA group; MLA: every head on the GPU) are the rows of one matrix multiply, and tensor cores
    compute whole tiles of mma_rows rows (gpu_families.toml). 16 MLA heads per GPU on a 64-row tile cost 4x.
    1 for a GPU in no family."""
    tile = next((f.mma_rows for f in families().values() if gpu in f.gpus), 1)
    if model.is_mla:
        rows = model.query_heads // (gpus if layout == "tp" else 1)
    else:
        rows = model.query_heads // model.kv_heads
    rows = max(rows, 1)
    return -(-rows // tile) * tile / rows


def build_replica(model: str | Model, gpu: str | Gpu, gpus: int, layout: str = "tp", ep: int = 1,
                  weights: str | None = None, kv: str = "bf16", adapters: AdapterMix | None = None) -> Replica:
    """The replica's numbers for `model` on `gpus` x `gpu`; weights=None takes the checkpoint's format. With
    `adapters`, the replica also holds their slice and each step reads its distinct adapters."""
    m = model if isinstance(model, Model) else get_model(model)
    g = gpu if isinstance(gpu, Gpu) else get_gpu(gpu)
    check_layout(layout)
    if isinstance(gpus, bool) or not isinstance(gpus, int) or gpus < 1:
        raise InputError(f"gpus must be a positive whole number, got {gpus!r}")
    if isinstance(ep, bool) or not isinstance(ep, int) or ep < 1 or gpus % ep:
        raise InputError(f"ep must be a positive whole number dividing gpus ({gpus}), got {ep!r}")
    if m.hidden_size is None:
        raise InputError(f"{m.name}: models.toml gives no hidden_size, which the step's all-reduces need")
    expert_fmt, other_fmt = weight_formats(m, m.native_weights if weights is None else weights)
    w_expert = lookup("dtype", expert_fmt, catalog().precisions).bytes
    w_other = lookup("dtype", other_fmt, catalog().precisions).bytes
    lookup("dtype", kv, catalog().precisions)
    if m.is_moe:
        per_expert = moe_expert_params(m.params, m.active, m.experts, m.experts_per_token)
        always = m.active - m.experts_per_token * per_expert  # the formula contract's a = N_a - k * e (ARCHITECTURE.md)
        experts, k, moe_layers = m.experts, m.experts_per_token, m.layers - (m.dense_layers or 0)
    else:
        per_expert, always, experts, k, moe_layers = 0.0, m.params, 0, 0, 0
    attention_bytes = attention_params(m) * w_other
    held = weight_bytes_held(always * w_other + per_expert * experts * w_expert, attention_bytes, gpus, layout)
    lora = {}  # no adapters: the Replica's zero defaults
    if adapters:
        one_adapter = adapter_bytes(m.key, adapters.rank)
        lora = {"adapter_bytes": one_adapter, "adapter_slots": int(adapters.slice_bytes // one_adapter),
                "adapter_catalogue": adapters.catalogue, "adapter_popularity": adapters.popularity}
    return Replica(
        model=m.key, gpu=g.key, gpus=gpus, layout=layout, ep=ep, expert_weights=expert_fmt, other_weights=other_fmt,
        kv=kv, layers=m.layers, moe_layers=moe_layers, hidden=m.hidden_size, attention="mla" if m.is_mla else "gqa",
        experts=experts, experts_per_token=k, expert_bytes=per_expert * w_expert,
        # Each rank reads its own copy of the attention weights under dp-attention.
        always_bytes=always * w_other + (gpus - 1) * attention_bytes * (layout == "dp-attention"),
        dense_flops_per_token=2 * (always if m.is_moe else m.active), attention_flops_per_token=2 * attention_params(m),
        moe_flops_per_token=2 * k * per_expert,
        moe_tile_rows=next((f.moe_rows for f in families().values() if g.key in f.gpus), 1),
        kv_bytes_per_token_layer=kv_bytes_per_token(m, kv) / m.layers,
        kv_copies=float(kv_copies(layout, gpus, m.kv_heads, m.is_mla)),
        window_layers=m.sliding_window_layers if m.sliding_window else 0, window=m.sliding_window or 0,
        # At one cached token every layer attends to one key: the per-layer coefficients, from geometry.
        decode_pair_flops=decode_attention_flops_per_seq(m, 1) / m.layers,
        decode_tile_padding=decode_tile_padding(m, g.key, gpus, layout),
        prefill_pair_flops=prefill_attention_flops(m, 1) / m.layers,
        bandwidth_bytes_per_s=g.bandwidth_bytes_per_s, dense_peak_flops=peak_flops(g, other_fmt),
        moe_peak_flops=peak_flops(g, expert_fmt), attention_peak_flops=peak_flops(g, kv),
        link_bytes_per_s=g.interconnect_bytes_per_s, memory_bytes=g.memory_visible_bytes or g.memory_bytes,
        weight_bytes_held=held + (adapters.slice_bytes if adapters else 0.0), **lora,
    )
