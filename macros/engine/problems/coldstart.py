"""A cold start and the warm pool that covers it (chapter 6.3): how long a new replica takes to serve, and how
many loaded, idle replicas cover the forecast's error until it does.

The cold start is the autoscaled day's own (autoscale/inputs.py's ColdStart, its parts added there and rounded
up to whole minutes there): allocate an instance (the low end of the instance-acquisition claim), pull the
image, load the weights, start the engine, one after the other. Two things the day leaves at their defaults
are drawn here: the image comes from a registry over its own link, and the weights load at the narrower of the
storage they are read from and the GPUs' PCIe links (formulas.weight_load_bytes_per_s). The pool is
formulas.warm_pool_replicas on the forecast at the minute a replica ordered now first serves.
"""

from __future__ import annotations

import random

from .. import formulas as f
from ..autoscale.inputs import ALLOCATION_CLAIM, ColdStart, day_inputs
from ..lookup import dtype_bytes, get_gpu, get_model
from ..model.scenario import scenario
from ..specs import catalog
from ..workloads import workloads
from .base import Draw, Given, Solution, Value


def solve_cold_start(g: dict[str, Value]) -> Solution:
    """The cold start's parts (ColdStart), and the pool: ceil(forecast at that minute x error)."""
    weights = f.weight_bytes(g["params"], g["bytes_per_weight"])
    path = f.weight_load_bytes_per_s(g["storage"], g["pcie"], g["gpus"])
    cold = ColdStart(allocation_s=g["allocation"], image_pull_s=f.transfer_time_s(g["image"], g["registry"]),
                     weight_load_s=f.transfer_time_s(weights, path), engine_start_s=g["startup"])
    demand = g["forecast"] + g["ramp"] * cold.minutes
    pool = f.warm_pool_replicas(demand, g["error"])
    return dict(answer=pool, unit="replicas", verdict="source" if path == g["storage"] else "PCIe", weights=weights,
                pcie_path=g["gpus"] * g["pcie"], path=path, image_pull=cold.image_pull_s,
                weight_load=cold.weight_load_s, cold_start=cold.total_s, minutes=cold.minutes, demand=demand,
                slack=demand * g["error"])


MODELS = ("llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b", "qwen2.5-72b", "deepseek-v3", "qwen3-235b-a22b")
GPUS = ("h100", "h200", "b200", "mi300x")  # HGX-class nodes: each GPU on its own PCIe 5 x16 link to the host
MAX_GPUS = 8  # one node: its storage and its host memory feed every GPU of the replica
# One socket of host memory, eight DDR5-4800 channels of 8 bytes: 307 GB/s, faster than any PCIe link here.
HOST_MEMORY_BYTES_PER_S = 8 * 4800e6 * 8
# The chapter's read rate from a local NVMe copy of the weights (site/pages/autoscaling.py's
# LOCAL_NVME_BYTES_PER_S, which the engine cannot import; tests/engine/test_problems.py holds them equal).
LOCAL_NVME_BYTES_PER_S = 5e9
FAST_NETWORK_BYTES_PER_S = 12.5e9  # a 100 Gb/s path, fully used
ERRORS = (0.05, 0.08, 0.12, 0.15)  # the forecast's error on a bad day; chapter 6's examples use 8% and 15%
FORECASTS = (10, 20, 40, 80, 120)  # replicas the forecast calls for now
RAMPS = (0, 0.5, 1, 2, 4)  # replicas a minute it rises by (a morning ramp); 0: a flat forecast


def weight_sources() -> dict[str, float]:
    """Where a replica's weights may be read from, and how fast: the chapter's network storage and local NVMe,
    a 100 Gb/s network store, and host memory (a node that has loaded them before)."""
    return {"network storage": workloads()["network_storage_bytes_per_s"], "a local NVMe copy": LOCAL_NVME_BYTES_PER_S,
            "a fast network store": FAST_NETWORK_BYTES_PER_S, "host memory": HOST_MEMORY_BYTES_PER_S}


def draw_cold_start(n: int, rng: random.Random) -> Draw | None:
    m, gpu = get_model(rng.choice(MODELS)), get_gpu(rng.choice(GPUS))
    weights = m.native_weights if m.native_weights in ("bf16", "fp8") else "bf16"
    gpus = scenario(m.key, gpu.key, weights=weights).gpus  # the fewest GPUs that hold the model
    if gpus > MAX_GPUS:
        return None
    day, where = day_inputs(), rng.choice(sorted(weight_sources()))
    exact = (Given("params", float(m.params), "params"), Given("bytes_per_weight", dtype_bytes(weights), "bytes"),
             Given("gpus", gpus, "count"), Given("allocation", float(catalog().claims[ALLOCATION_CLAIM].low), "s"),
             Given("image", day.image_bytes * rng.choice((0.5, 1, 2)), "B"),
             Given("registry", rng.choice((workloads()["network_storage_bytes_per_s"], FAST_NETWORK_BYTES_PER_S)),
                   "B/s"),
             Given("storage", weight_sources()[where], "B/s"), Given("pcie", workloads()["pcie_bytes_per_s"], "B/s"),
             Given("startup", day.engine_start_s * rng.choice((0.5, 1, 2)), "s"),
             Given("forecast", rng.choice(FORECASTS), "count"), Given("ramp", rng.choice(RAMPS), "count"),
             Given("error", rng.choice(ERRORS), "fraction"))
    binds = solve_cold_start({x.name: x.value for x in exact})["verdict"]
    if (binds == "PCIe") != (n % 3 == 2):
        return None  # every third problem loads from host memory through the PCIe links, the rest from storage
    return Draw(binds, exact, {"model": m.key, "gpu": gpu.key, "storage": where})
