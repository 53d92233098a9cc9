"""The measured runs the serving model is fitted to and checked against (data/measured/, InferenceMAX).

Each configuration is mapped to the catalog's keys (DeepSeek-R1-0528 has DeepSeek-V3's geometry; `fp4`
is MXFP4 for GPT-OSS and on AMD GPUs, NVFP4 for NVIDIA's DeepSeek checkpoint) and to the workload its
benchmark ran: a closed loop at its concurrency, ten requests per unit of concurrency, prompt and output
lengths drawn with range ratio 0.8 (data/measured/README.md). Runs the model does not cover yet carry
the reason they are left out.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
from dataclasses import dataclass
from pathlib import Path

from ..serving.arrivals import ClosedLoop, Offline
from ..serving.families import families
from ..serving.lengths import Fixed, RangeRatio
from ..serving.names import ENGINES
from ..serving.sim import RequestStream
from ..specs import DATA_DIR

PATH = DATA_DIR / "measured" / "inferencemax-2025-12.json"
RANGE_RATIO = 0.8
# A run that stalled: its slowest requests waited on something besides the queue (its p99 TTFT over this many
# medians) and it delivered less than this share of the throughput its own medians give at its concurrency
# (Little's law: concurrency x output / (TTFT + (output - 1) x TPOT)). In the file these are SGLang's DeepSeek
# runs on B200, whose p99 TTFT is about 70 s (or 37 s) at every concurrency and length: a fixed wait of the first
# requests, as for kernels compiled on first use (DeepGEMM and FlashInfer JIT their kernels; vLLM warms them up
# before serving for that reason: vllm-project/vllm PR 25619, envs.py). The throughput counts that wait and no
# steady-state model does, so such a run's throughput is neither fitted nor scored; its latencies are.
STALL_TTFT_OVER_MEDIAN = 20
STALL_THROUGHPUT_SHARE = 0.9
PROMPTS_PER_CONCURRENCY = 10
OFFLINE_WAVES = 3  # an offline run queues this many times the engine's running cap
MODELS = {"dsr1": "deepseek-v3", "gptoss": "gpt-oss-120b"}
AMD = ("mi300x", "mi325x", "mi355x")


@dataclass(frozen=True)
class Run:
    id: str
    series: str  # one setup across its concurrencies (series_key)
    gpu: str
    model: str
    engine: str
    weights: str
    tp: int
    ep: int
    layout: str
    isl: int
    osl: int
    concurrency: int
    median_tpot_s: float
    p99_tpot_s: float
    median_ttft_s: float
    p99_ttft_s: float
    output_tokens_per_s_per_gpu: float
    excluded: str  # why the model leaves it out, or ""
    # What differs in other sources (calibration/mlperf.py): how the benchmark sent its requests ("closed-loop",
    # "offline", "server", "interactive"), the KV dtype its launch set (None: the engine's default), the running
    # cap it set (concurrency, for an offline run: None or 0 is the engine's), the Poisson rate per replica and
    # the p99 bounds a server run was held to, and who ran it.
    scenario: str = "closed-loop"
    kv: str | None = None
    source: str = "inferencemax"
    rate_per_replica: float = 0.0
    ttft_p99_bound_s: float = 0.0
    tpot_p99_bound_s: float = 0.0
    submitter: str = ""
    launch: tuple = ()  # (simulate's launch flag, value) pairs the submitter's config sets

    @property
    def gpus(self) -> int:
        return self.tp

    @property
    def little_output_per_gpu(self) -> float:
        """The throughput per GPU the run's own medians give at its concurrency, by Little's law (a closed loop's
        only; NaN otherwise), with the benchmark's mean output length."""
        if self.scenario != "closed-loop":
            return math.nan
        out = RangeRatio(self.osl, RANGE_RATIO).mean
        return self.concurrency * out / (self.median_ttft_s + (out - 1) * self.median_tpot_s) / self.gpus

    @property
    def stalled(self) -> bool:
        """Whether the run's throughput counts a wait its medians do not see (STALL_TTFT_OVER_MEDIAN)."""
        return (self.p99_ttft_s > STALL_TTFT_OVER_MEDIAN * self.median_ttft_s
                and self.output_tokens_per_s_per_gpu < STALL_THROUGHPUT_SHARE * self.little_output_per_gpu)

    @property
    def steady_output_per_gpu(self) -> float:
        """The measured throughput per GPU as the fit and the scores take it: NaN for a run that stalled."""
        return math.nan if self.stalled else self.output_tokens_per_s_per_gpu

    @property
    def offline(self) -> bool:
        return self.scenario == "offline"

    def workload(self, seed: int = 0, cap: int | None = None) -> RequestStream:
        """The benchmark's run: a closed loop at the concurrency, ten prompts per unit of it; an offline run,
        OFFLINE_WAVES times the engine's running cap `cap`, all queued at time 0, fixed mean lengths."""
        if self.offline:
            n = OFFLINE_WAVES * (cap or self.concurrency)
            return RequestStream(Offline(n), Fixed(self.isl), Fixed(self.osl), n, seed)
        return RequestStream(ClosedLoop(self.concurrency), RangeRatio(self.isl, RANGE_RATIO),
                             RangeRatio(self.osl, RANGE_RATIO), PROMPTS_PER_CONCURRENCY * self.concurrency, seed)


def series_key(gpu: str, model: str, engine: str, weights: str, tp: int, ep: int, layout: str, isl: int,
               osl: int) -> str:
    """A series: one GPU x model x engine x precision x parallelism x lengths, across its concurrencies."""
    return f"{gpu}/{model}/{engine}/{weights}/tp{tp}-ep{ep}-{layout}/{isl}-{osl}"


def _weights(row: dict) -> str:
    if row["precision"] == "fp8":
        return "fp8"
    return "nvfp4" if row["model_family"] == "dsr1" and row["gpu"] not in AMD else "mxfp4"


def _excluded(row: dict, families: set[str]) -> str:
    if row.get("disagg") or row.get("multinode"):
        return "disaggregated prefill and decode on several nodes"
    if row.get("spec_decoding", "none") != "none":
        return f"speculative decoding ({row['spec_decoding']})"
    if row["framework"] not in ENGINES:
        return f"engine {row['framework']}"
    if row["gpu"] not in families:
        return f"GPU {row['gpu']} has no family"
    return ""


def family_gpus() -> set[str]:
    return {g for fam in families().values() for g in fam.gpus}


@functools.lru_cache(maxsize=2)
def runs(path: Path = PATH) -> tuple[Run, ...]:
    families = family_gpus()
    out = []
    for row in json.loads(path.read_text())["points"]:
        excluded = _excluded(row, families)
        if excluded:
            out.append(Run(row["id"], "", row["gpu"], MODELS.get(row["model_family"], row["model_family"]),
                           row["framework"], row["precision"], 0, 0, "", row["isl"], row["osl"], row["concurrency"],
                           row["median_tpot"], row["p99_tpot"], row["median_ttft"], row["p99_ttft"],
                           row["output_tput_per_gpu"], excluded))
            continue
        model, weights = MODELS[row["model_family"]], _weights(row)
        layout = "dp-attention" if row["dp_attention"] else "tp"
        key = series_key(row["gpu"], model, row["framework"], weights, row["tp"], row["ep"], layout, row["isl"],
                         row["osl"])
        out.append(Run(row["id"], key, row["gpu"], model, row["framework"], weights, row["tp"], row["ep"], layout,
                       row["isl"], row["osl"], row["concurrency"], row["median_tpot"], row["p99_tpot"],
                       row["median_ttft"], row["p99_ttft"], row["output_tput_per_gpu"], ""))
    return tuple(out)


def data_hash(path: Path = PATH) -> str:
    """sha256 of the measured file, as calibration.toml records it."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def meta(path: Path = PATH) -> dict[str, str]:
    """The file's own description of itself: what it is, its source, the runs' dates, when it was collected."""
    return json.loads(path.read_text())["meta"]
