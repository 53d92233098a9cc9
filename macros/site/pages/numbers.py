"""The numbers sheet (docs/numbers.md): the anchor model on the group of the anchor GPU that holds the
worked batch, the single-GPU whiteboard figures, and the derived rules. Values in SI units; the page
formats them."""

from __future__ import annotations

from types import SimpleNamespace

from ...engine import formulas as f
from ...engine.model.scenario import (
    DEFAULT_RESERVE_BYTES,
    DEFAULT_SEQ_LEN,
    anchor,
    get_gpu,
    get_model,
    model_kv_bytes_per_seq,
    scenario,
)
from ...engine.specs import catalog
from ...engine.workloads import workloads
from ...text import fmt
from ..assumptions import assume
from ._reference import reference_group, whiteboard
from ._shared import bandwidth_comparison, cache_against_weights

TPU_EXAMPLES = ("tpu-v5e", "tpu-v5p")  # the link note: Google prints one direction or both, by revision


def model() -> SimpleNamespace:
    w = workloads()
    m, gpu, h200 = get_model(w["model"]), get_gpu(w["gpu"]), get_gpu(w["compared_gpu"])
    batch = w["batch"]
    s = reference_group()
    s1, s64 = reference_group(batch=1), reference_group(batch=batch)
    s64_h200 = scenario(w["model"], w["compared_gpu"], gpus=s.gpus, batch=batch)  # the same group, compared GPU
    s_long = reference_group(seq_len=2 * DEFAULT_SEQ_LEN)  # "doubling the context halves the batch"
    s_fp8 = reference_group(batch=1, weights="fp8")
    kv_max_context = model_kv_bytes_per_seq(m, m.max_context)
    return SimpleNamespace(
        tpu_v5e=get_gpu(TPU_EXAMPLES[0]), tpu_v5p=get_gpu(TPU_EXAMPLES[1]),
        model=m, gpu=gpu, h200=h200, batch=batch, prompt_tokens=w["prompt_tokens"],
        s=s, s1=s1, s64=s64, s64_h200=s64_h200, s_long=s_long, s_fp8=s_fp8,
        **bandwidth_comparison(s),  # the H100-against-H200 sentence's words and facts
        cache=cache_against_weights(s),  # the cache against the weights, in words
        bandwidth_gain=h200.bandwidth_bytes_per_s / gpu.bandwidth_bytes_per_s - 1,
        one_gpu=whiteboard(anchor(), w["prompt_tokens"]),
        kv_max_context=kv_max_context,
        kv_max_context_share=kv_max_context / gpu.memory_bytes,
        # decode intensity at batch 1, the worked batch and the max batch: weights only, then with KV
        intensity_rows=[SimpleNamespace(s=x, weights_only=f.intensity(f.decode_step_flops(x.active_params, x.batch),
                                                                      s.weight_bytes))
                        for x in (s1, s64, s)],
        crossover=f.kv_overtakes_weights_batch(s.weight_bytes, s.kv_bytes_per_seq),
        # "it stays below the balance at every batch that fits": the largest batch's intensity, weights only
        below_balance=assume(f.intensity(f.decode_step_flops(s.active_params, s.batch), s.weight_bytes)
                             < s.machine_balance,
                             f"intensity at batch {s.batch}, weights only, "
                             f"{fmt.num(f.intensity(f.decode_step_flops(s.active_params, s.batch), s.weight_bytes))} "
                             f"FLOP/B, the balance {fmt.num(s.machine_balance)}",
                             "the largest batch now reaches the balance: decode turns compute-bound there"),
        full_memory_step_s=f.full_memory_step_s(gpu.memory_bytes, DEFAULT_RESERVE_BYTES,
                                                gpu.bandwidth_bytes_per_s),
        full_memory_step_h200_s=f.full_memory_step_s(h200.memory_bytes, DEFAULT_RESERVE_BYTES,
                                                     h200.bandwidth_bytes_per_s),
        fp8_weight_saving=s.weight_bytes - s_fp8.weight_bytes,
        balances={key: f.machine_balance(g.bf16_flops, g.bandwidth_bytes_per_s)
                  for key, g in catalog().gpus.items()},
    )

