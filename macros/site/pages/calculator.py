"""The calculator page (docs/calculator.md): the example invocations' inputs and the one figure the
prose adds to the headline table. Values in SI units; the page formats them."""

from __future__ import annotations

from types import SimpleNamespace

from ...engine import formulas as f
from ...engine.model.scenario import DEFAULT_RESERVE_BYTES, DEFAULT_SEQ_LEN, get_gpu, scenario
from ...engine.serving.estimate import DEFAULT_ENGINE
from ...engine.serving.profiles import engines
from ...engine.workloads import workloads

MOE_EXAMPLE = "mixtral-8x7b"  # the mixture-of-experts example run in FP8: small enough for one H100


def model() -> SimpleNamespace:
    w = workloads()
    headline_gpu = get_gpu(w["headline_gpu"])
    anchor = scenario(w["model"], w["gpu"], gpus=w["gpus"])  # the configuration the chapters use
    return SimpleNamespace(
        anchor=anchor, anchor_gpu_name=anchor.gpu_spec.name,
        estimate_engine=engines()[DEFAULT_ENGINE]["name"], estimate_engine_key=DEFAULT_ENGINE,
        batch=w["batch"],
        long_ctx=2 * DEFAULT_SEQ_LEN,  # "twice the context at a fixed batch"
        moe=MOE_EXAMPLE,
        reserve_gb=DEFAULT_RESERVE_BYTES / 1e9,  # --reserve takes gigabytes
        headline_gpu=headline_gpu,
        # (M - R) / B on the headline GPU: the step every model approaches at its max batch
        full_memory_step_s=f.full_memory_step_s(headline_gpu.memory_bytes, DEFAULT_RESERVE_BYTES,
                                                headline_gpu.bandwidth_bytes_per_s),
    )
