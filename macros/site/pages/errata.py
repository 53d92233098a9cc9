"""The errata page (docs/errata.md): the source's figures, quoted, beside what the site computes for the
source's own setup. Values in SI units; the page formats them.

The errata correct the source, so they use the source's inputs, not the shared worked inputs of
data/workloads.toml: if the guide's anchor or examples change, a correction of the source must not.
The last section, corrections of the guide's own earlier figures, is the exception: it is about the
guide, so it uses the guide's anchor (site_corrections)."""

from __future__ import annotations

from types import SimpleNamespace

from ...engine import formulas as f
from ...engine.lookup import dtype_bytes, get_gpu, get_model
from ...engine.model.geometry import mha_kv_bytes_per_token, model_kv_bytes_per_seq
from ...engine.model.scenario import anchor, scenario
from ...engine.specs import catalog
from ...engine.workloads import workloads
from ..assumptions import assume
from ._shared import GIB, bandwidth_comparison, one_gpu_decode, preemption_costs
from ._site_corrections import site_corrections as speculation_and_transfer
from .errata_checks import diagnoses, source_quotes

# The source's setup and worked inputs.
SOURCE_MODEL = "llama-70b"  # a 70B dense model in BF16 ...
SOURCE_GPU = "h100"  # ... on H100s ...
SOURCE_GPUS = 4  # ... four of them, tensor-parallel
SOURCE_COMPARISON_GPU = "h200"  # "the H200 has identical compute and more bandwidth"
SOURCE_SEQ_LEN = 4096  # the sequence length of its memory budget
SOURCE_PROMPT_TOKENS = 2000  # its prefill example
SOURCE_LONG_CONTEXT = 128000  # "a single 128k-context conversation"
SOURCE_SMALL_PROMPT, SOURCE_SMALL_OUTPUT = 20, 5  # its cheapest request ...
SOURCE_BIG_PROMPT, SOURCE_BIG_OUTPUT = 100000, 4000  # ... against its most expensive one
SOURCE_PCIE_BYTES_PER_S = 64e9  # PCIe Gen5 x16, one direction, as in chapter 6.4
SOURCE_GPU_MEMORY_GIB = 80  # the source's "80 GB" H100, read as binary
SOURCE_RESERVE_GIB = 4  # its 4 GB reserve per GPU, read as binary

# The source's own figures, quoted on the page. Spec values the source quotes (the H100's
# bandwidth) are not here: the page elides them in brackets, so a spec change leaves no stale copy.
SOURCE_FIGURES = SimpleNamespace(
    bf16_flops=989.5e12,  # "989.5 TFLOP/s dense dense BF16"
    compute_s=0.00007,  # the compute for one token, "~0.07 ms"
    weights_s=0.042,  # reading the weights on one H100
    compute_73_s=0.00014,  # chapter 7.3's compute for one token
    bandwidth_gain=0.43,  # the H200's extra bandwidth
    nearly=7,  # prefill intensity above the balance "by nearly 7x"
    kv_seq_bytes=1.25e9,  # KV per 4,096-token sequence
    kv_long_bytes=39e9,  # KV of a 128k-token conversation
    mha_token_bytes=2.5e6,  # multi-head attention's KV per token
    mha_seq_bytes=10e9,  # ... and per 4,096-token sequence
    floor_s=0.091,  # the decode floor, divided by one GPU's bandwidth
    tokens_per_s=1440,  # aggregate throughput from that floor
    per_user=11,  # tokens/s per user from that floor
    prefill_s=0.141,  # a 2,000-token prefill
    kv_100k_bytes=31e9,  # KV of a 100,000-token prompt
    price=2.5,  # USD per GPU-hour
    cost_tokens_per_s=1400,  # the throughput its cost uses
    realised_tokens_per_s=560,  # ... at its realised efficiency
    efficiency=0.4,
    weight_bytes=140e9,  # chapter 7.3's weights
    flops=140e9,  # chapter 7.3's FLOPs for one token
    kv_budget_bytes=164e9,  # "Available for KV = 164 GB"
    max_batch=131,  # "164 / 1.25 ≈ 131 concurrent sequences"
    bandwidth=3.35e12,  # "time = 304 / 3.35 TB/s = 91 ms": its H100's bandwidth
    step_bytes=304e9,  # "bytes per step = 140 GB (weights) + 131 × 1.25 GB (KV) = 304 GB"
)

# The site's own earlier figures, quoted from its text before the model behind them was corrected.
SITE_BEFORE = SimpleNamespace(
    prompt_prefill_s=0.0707,  # a 2,000-token prefill on 4 x H100, attention left out
    llama405_max_batch=191,  # Llama-3.1-405B on 16 x H100: the KV heads split 16 ways, not replicated
    dsv3_max_batch=1476,  # DeepSeek-V3 FP8 on 8 x H200: the MLA latent split 8 ways
    prompt_kv_nvlink_s=0.000728,  # a 2,000-token prompt's KV over NVLink at the two directions added
    h100_link_bytes_per_s=900e9,  # link bandwidths were the two directions added ...
    tpu_v5e_link_bytes_per_s=400e9,
    tpu_v5p_link_bytes_per_s=1200e9,
    int4_bytes_per_weight=0.5,  # INT4 without its block scales
)
# The configurations those figures were for: (model, GPU, GPUs per replica, weights)
SITE_405B = ("llama-3.1-405b", "h100", 16, "bf16")
SITE_DSV3 = ("deepseek-v3", "h200", 8, "fp8")
SITE_TPUS = ("tpu-v5e", "tpu-v5p")


def site_corrections() -> SimpleNamespace:
    """What the site computes now for each of its own earlier figures (the "Corrections to this
    guide" section): the guide's anchor of data/workloads.toml, and the frontier replicas."""
    w = workloads()
    a = anchor()
    m = a.model_spec

    def replica(case: tuple[str, str, int, str], layout: str = "tp"):
        key, gpu_key, gpus, weights = case
        return scenario(key, gpu_key, gpus=gpus, weights=weights, layout=layout)

    now = dict(
        before=SITE_BEFORE, anchor=a, prompt_tokens=w["prompt_tokens"],
        prompt=anchor(seq_len=w["prompt_tokens"], batch=1),
        llama405=replica(SITE_405B), dsv3_tp=replica(SITE_DSV3), dsv3_dp=replica(SITE_DSV3, "dp-attention"),
        tpu_v5e=get_gpu(SITE_TPUS[0]), tpu_v5p=get_gpu(SITE_TPUS[1]),
        int4_bytes_per_weight=dtype_bytes("int4"), int4_anchor=anchor(weights="int4"),
        allreduces_per_step=f.tp_allreduces_per_step(m.layers),
        **preemption_costs(a),
    )
    # Speculation and the KV transfer (chapter 5) come from their own module; one namespace for the page.
    return SimpleNamespace(**{**vars(speculation_and_transfer()), **now})


def model() -> SimpleNamespace:
    w = workloads()
    gpu, m = get_gpu(SOURCE_GPU), get_model(SOURCE_MODEL)

    def source_setup(**kwargs):
        """The source's model on its group of GPUs."""
        return scenario(SOURCE_MODEL, SOURCE_GPU, gpus=SOURCE_GPUS, **kwargs)

    s = source_setup(seq_len=SOURCE_SEQ_LEN)
    bw, peak = gpu.bandwidth_bytes_per_s, gpu.bf16_flops
    one_gpu = one_gpu_decode(s)  # the overview's one fact, on one GPU as the source computed it
    token_flops = one_gpu["flops_one_token"]
    prompt_flops = f.prefill_flops(s.active_params, SOURCE_PROMPT_TOKENS)
    prompt_compute_one_gpu_s = f.compute_time_s(prompt_flops, 1, peak)
    kv_long = model_kv_bytes_per_seq(m, SOURCE_LONG_CONTEXT)
    mha_token = mha_kv_bytes_per_token(m)
    gpu_memory_binary, reserve_binary = SOURCE_GPU_MEMORY_GIB * GIB, SOURCE_RESERVE_GIB * GIB
    long_prompt = source_setup(seq_len=SOURCE_BIG_PROMPT, batch=1)
    source = SimpleNamespace(**vars(SOURCE_FIGURES), cost_spread=w["source_cost_spread"],
                             cost_usd=w["source_cost_usd"])
    h200 = bandwidth_comparison(s)
    figures = dict(
        anchor=s, gpu=gpu, price=catalog().prices[SOURCE_GPU],
        source=source,
        source_memory_over_compute=source.weights_s / source.compute_s,
        prompt_tokens=SOURCE_PROMPT_TOKENS,
        long_context=SOURCE_LONG_CONTEXT,
        small_prompt=SOURCE_SMALL_PROMPT, small_output=SOURCE_SMALL_OUTPUT,
        big_prompt=SOURCE_BIG_PROMPT, big_output=SOURCE_BIG_OUTPUT,
        pcie_bytes_per_s=SOURCE_PCIE_BYTES_PER_S,
        **one_gpu,
        bandwidth_ratio=get_gpu(SOURCE_COMPARISON_GPU).bandwidth_bytes_per_s / bw,
        # 2.3 and 4.4: the worked prompt
        prompt_flops=prompt_flops,
        half_prompt=SOURCE_PROMPT_TOKENS // 2,  # the prompt the source's prefill time fits at the dense rate
        prompt_compute_one_gpu_s=prompt_compute_one_gpu_s,
        prompt_compute_over_memory=prompt_compute_one_gpu_s / one_gpu["weight_read_one_gpu_s"],
        prompt_over_balance=SOURCE_PROMPT_TOKENS / s.machine_balance,
        prompt=source_setup(seq_len=SOURCE_PROMPT_TOKENS),
        # 3: the memory budget
        kv_long=kv_long,
        kv_long_share_of_gpu=kv_long / gpu.memory_bytes,
        kv_long_share_of_visible=kv_long / gpu.memory_visible_bytes,
        mha_kv_per_token=mha_token,
        mha_over_gqa=mha_token / s.kv_bytes_per_token,
        mha_kv_per_seq=mha_token * s.seq_len,
        gpu_memory_binary=gpu_memory_binary,
        reserve_binary=reserve_binary,
        max_batch_binary=int(f.max_batch(f.kv_budget_bytes(s.gpus, gpu_memory_binary, s.weight_bytes, reserve_binary),
                                         s.kv_bytes_per_seq)),
        double_context=source_setup(seq_len=2 * s.seq_len),
        # 6: the request-cost spread, and swapping one sequence's KV out and back
        request_token_spread=(SOURCE_BIG_PROMPT + SOURCE_BIG_OUTPUT) / (SOURCE_SMALL_PROMPT + SOURCE_SMALL_OUTPUT),
        swap_round_trip_s=2 * f.transfer_time_s(s.kv_bytes_per_seq, SOURCE_PCIE_BYTES_PER_S),
        # 7: one token on the group; the long prompt's KV against the budget
        token_memory_group_s=f.memory_time_s(s.weight_bytes, s.gpus, bw),
        token_compute_group_s=f.compute_time_s(token_flops, s.gpus, peak),
        long_prompt=long_prompt,
        long_prompt_budget_share=long_prompt.kv_bytes_per_seq / s.kv_budget_bytes,
        # the site's corrections of its own earlier figures
        site=site_corrections(),
    )
    # "The direction of the argument holds": the H200 has the same compute and more bandwidth
    direction = assume(h200["same_compute"].holds and h200["more_bandwidth"].holds,
                       f"{h200['same_compute'].evidence}; {h200['more_bandwidth'].evidence}",
                       "the H200 no longer has the same compute and more bandwidth: the source's argument fails too")
    return SimpleNamespace(**figures, quote=source_quotes(), check=diagnoses(figures, source), h200_direction=direction)
