"""Chapter 8's data and its two kinds of practice problem.

`topic()` reads data/topics/reasoning.toml (the chapter's worked workloads and the published figures it
quotes), checking every value finite and inside its entry's band, or raising one SpecError line naming the
file, the entry and what is wrong. The page model and the problems below both read it.

The kinds: "reasoning-kv", how many reasoning requests a replica runs at once when the engine admits by the
KV in use (the cache a request holds averages its prompt plus half its output) or reserves each request's
whole output; and "grammar-mask", the batch at which the token masks a grammar computes on the CPU outlast
the decode step's floor they run beside.
"""

from __future__ import annotations

import functools
import math
import random
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from .. import formulas as f
from ..formulas import reasoning as rf
from ..lookup import dtype_bytes, get_gpu, get_model
from ..model.geometry import model_kv_bytes_per_seq
from ..model.scenario import scenario
from ..specs import DATA_DIR, SpecError, catalog, display_path, read_toml
from .base import Draw, Given, Solution, Value
from .sizing import MEMORY_MODELS, _memory_given

PATH = DATA_DIR / "topics" / "reasoning.toml"
DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
TOKENS, SECONDS, FRACTION = (1, 1e7), (1e-9, 10.0), (0.0, 1.0)
# Each entry's fields: a numeric band (low, high), "int" marks a whole number; a key type for names.
FIELDS: dict[str, dict[str, Any]] = {
    "example": {"model": "model", "gpu": "gpu", "gpus": ("int", 1, 72), "weights": "precision", "engine": "text"},
    "reasoning_request": {"prompt_tokens": ("int", *TOKENS), "thinking_tokens": ("int", *TOKENS),
                          "answer_tokens": ("int", *TOKENS)},
    "chat_request": {"prompt_tokens": ("int", *TOKENS), "answer_tokens": ("int", *TOKENS)},
    "thinking_budgets": {"tokens": ("ints", *TOKENS)},
    "sampling": {"samples": ("int", 1, 1024)},
    "structured_example": {"model": "model", "gpu": "gpu", "gpus": ("int", 1, 72),
                           "context_tokens": ("int", *TOKENS), "threads": ("ints", 1, 256)},
    "qwen3_output_length": {"most_queries_tokens": ("int", *TOKENS), "competition_tokens": ("int", *TOKENS)},
    "self_consistency": {"pass_at_1": ("float", *FRACTION), "majority_accuracy": ("float", *FRACTION),
                         "samples": ("int", 1, 1024)},
    "mask_time.llguidance": {"mean": ("float", *SECONDS), "p50": ("float", *SECONDS), "p99": ("float", *SECONDS),
                             "compile_p50": ("float", *SECONDS),
                             "version": "text"},
    "mask_time.xgrammar": {"mean": ("float", *SECONDS), "p50": ("float", *SECONDS), "p99": ("float", *SECONDS),
                           "compile_p50": ("float", *SECONDS),
                           "version": "text"},
    "trie_walk": {"cycles_per_node": ("float", 1, 1000), "nodes_per_token": ("float", 1, 10),
                  "clock_hz": ("float", 1e8, 1e10)},
    "fast_forward": {"share": ("float", 0.0, 0.99), "share_compact": ("float", 0.0, 0.99),
                     "claimed_gain_low": ("float", *FRACTION), "claimed_gain_high": ("float", *FRACTION)},
    "qwen3_thinking_budget": {"stop_instruction": "text"},
    "vllm_fill": {"parallel_above": ("int", 1, 1e5), "batch": ("int", 1, 1e5), "max_threads": ("int", 1, 1024)},
    "llgtrt": {"mask_s": ("float", *SECONDS), "cores": ("int", 1, 1024), "step_s": ("float", *SECONDS),
               "batch": ("int", 1, 1e6)},
}
PROVENANCE = ("source", "date", "checked")


def _number(where: str, name: str, value: Any, kind: str, low: float, high: float) -> None:
    whole = isinstance(value, int) and not isinstance(value, bool)
    numeric = whole or (isinstance(value, float) and kind == "float")
    if not numeric or not math.isfinite(value):
        raise SpecError(f"{where}: {name} must be a finite {'whole ' if kind != 'float' else ''}number, "
                        f"got {value!r}")
    if not low <= value <= high:
        raise SpecError(f"{where}: {name} must be between {low:g} and {high:g}, got {value!r}")


def _field(where: str, name: str, value: Any, rule: Any) -> None:
    if rule == "text":
        if not isinstance(value, str) or not value.strip():
            raise SpecError(f"{where}: {name} must be non-empty text, got {value!r}")
        return
    if isinstance(rule, str):  # a key of models.toml, gpus.toml or precisions.toml
        table = {"model": catalog().models, "gpu": catalog().gpus, "precision": catalog().precisions}[rule]
        if value not in table:
            raise SpecError(f"{where}: {name} must name a {rule} of the data, got {value!r}")
        return
    kind, low, high = rule
    if kind == "ints":
        if not isinstance(value, list) or not value:
            raise SpecError(f"{where}: {name} must be a non-empty list of whole numbers, got {value!r}")
        for item in value:
            _number(where, name, item, "int", low, high)
        return
    _number(where, name, value, kind, low, high)


def _entry(raw: dict[str, Any], dotted: str) -> dict[str, Any]:
    where = f"{display_path(PATH)}: [{dotted}]"
    entry: Any = raw
    for part in dotted.split("."):
        entry = entry.get(part) if isinstance(entry, dict) else None
    if not isinstance(entry, dict):
        raise SpecError(f"{where}: missing")
    for name, rule in FIELDS[dotted].items():
        if name not in entry:
            raise SpecError(f"{where}: {name} is missing")
        _field(where, name, entry[name], rule)
    for name in PROVENANCE:
        if not isinstance(entry.get(name), str) or not entry[name].strip():
            raise SpecError(f"{where}: {name} must be non-empty text")
    for name in ("date", "checked"):
        if not DATE.fullmatch(entry[name]):
            raise SpecError(f"{where}: {name} must be a date YYYY-MM-DD, got {entry[name]!r}")
    return entry


def load_topic(path: Path = PATH) -> SimpleNamespace:
    """The chapter's data, checked (see the module docstring), as namespaces: topic().mask_time.xgrammar.p99."""
    raw = read_toml(path)
    out: dict[str, Any] = {}
    for dotted in FIELDS:
        entry = _entry(raw, dotted)
        head, _, tail = dotted.partition(".")
        if tail:
            out.setdefault(head, {})[tail] = SimpleNamespace(**entry)
        else:
            out[head] = SimpleNamespace(**entry)
    if sorted(out["thinking_budgets"].tokens) != out["thinking_budgets"].tokens:
        raise SpecError(f"{display_path(path)}: [thinking_budgets] tokens must be in ascending order")
    return SimpleNamespace(**{k: SimpleNamespace(**v) if isinstance(v, dict) else v for k, v in out.items()})


@functools.lru_cache(maxsize=1)
def topic() -> SimpleNamespace:
    return load_topic()


# --- reasoning requests held at once ------------------------------------------------------------------


def solve_reasoning_kv(g: dict[str, Value]) -> Solution:
    """Max concurrent requests of P prompt and n output tokens under tensor parallelism: the KV budget over the
    KV of P + n / 2 tokens (admitted by the KV in use: the time-average) or of P + n (each request's whole
    output reserved on admission); KV heads replicate past H_kv ranks."""
    kv_token = f.kv_bytes_per_token_gqa(g["layers"], g["kv_heads"], g["head_dim"], g["bytes_per_kv"])
    weights = f.weight_bytes(g["params"], g["bytes_per_weight"])
    copies = f.kv_copies("tp", g["gpus"], g["kv_heads"], False)
    budget = f.kv_budget_bytes(g["gpus"], g["memory"], weights, g["reserve"])
    mean_tokens = rf.mean_context_tokens(g["prompt"], g["output"])
    end_tokens = g["prompt"] + g["output"]
    mean_seq = f.kv_bytes_per_seq(kv_token, g["layers"], mean_tokens)
    end_seq = f.kv_bytes_per_seq(kv_token, g["layers"], end_tokens)
    average, reserved = (int(f.max_batch(budget, copies * kv)) for kv in (mean_seq, end_seq))
    return dict(answer=average if g["mode"] == "average" else reserved, unit="requests", kv_per_token=kv_token,
                weights=weights, copies=copies, budget=budget, total_memory=g["gpus"] * g["memory"],
                reserve_total=g["gpus"] * g["reserve"], mean_tokens=mean_tokens, end_tokens=end_tokens,
                mean_seq=mean_seq, end_seq=end_seq, average=average, reserved=reserved)


PROMPTS = (500, 1000, 2000, 4000)
OUTPUTS = (4000, 8000, 16000, 30000)
KV_GPUS = ("h100", "h200", "b200", "mi300x")
GPU_COUNTS = (1, 2, 4, 8)
FORMATS = ("bf16", "fp8")


def draw_reasoning_kv(n: int, rng: random.Random) -> Draw | None:
    mode = ("average", "reserve")[n % 2]
    m, gpu = get_model(rng.choice(MEMORY_MODELS)), get_gpu(rng.choice(KV_GPUS))
    prompt, output = rng.choice(PROMPTS), rng.choice(OUTPUTS)
    if prompt + output > m.max_context:
        return None
    replica = _memory_given(m, gpu, rng.choice(FORMATS), rng.choice(FORMATS), prompt + output, rng.choice(GPU_COUNTS))
    exact = (*(x for x in replica if x.name != "seq_len"), Given("prompt", prompt, "tokens"),
             Given("output", output, "tokens"), Given("mode", mode, "text"))
    s = solve_reasoning_kv({x.name: x.value for x in exact})
    return Draw(mode, exact, {"model": m.key, "gpu": gpu.key}) if s["reserved"] >= 1 else None


# --- the token mask against the decode step ------------------------------------------------------------


def solve_grammar_mask(g: dict[str, Value]) -> Solution:
    """The smallest whole batch whose masks, (k + 1) per sequence at m seconds each over N threads, take longer
    than the memory-bound decode floor (N w + b * KV) / (g B): floor(b*) + 1 with b* from
    formulas.reasoning.mask_crossover_batch."""
    weights = f.weight_bytes(g["params"], g["bytes_per_weight"])
    weight_s = f.memory_time_s(weights, g["gpus"], g["bandwidth"])
    kv_s = f.memory_time_s(g["kv_per_seq"], g["gpus"], g["bandwidth"])
    positions = g["draft_tokens"] + 1
    crossover = rf.mask_crossover_batch(weight_s, kv_s, g["mask"], g["threads"], positions)
    batch = math.floor(crossover) + 1 if math.isfinite(crossover) else 0
    return dict(answer=batch, unit="sequences", weights=weights, weight_s=weight_s, kv_s=kv_s, positions=positions,
                per_sequence_cpu=positions * g["mask"] / g["threads"], crossover=crossover,
                gpu_at=weight_s + batch * kv_s, cpu_at=rf.mask_cpu_s(batch, g["mask"], g["threads"], positions))


MASK_MODELS = ("llama-3.1-8b", "llama-3.1-70b", "qwen2.5-72b", "gemma-2-27b")  # dense: every step reads N w
MASK_GPUS = ("a100", "h100", "h200", "b200", "l40s", "mi300x")
MASK_CONTEXTS = (500, 1000, 2000, 4000)
THREADS = (1, 2, 4, 8)
DRAFTS = (2, 3, 4, 5)
ENGINES = ("llguidance", "xgrammar")
STATS = ("mean", "p50", "p99")


@functools.cache
def _replica_fit(model: str, gpu: str, context: int) -> tuple[int, int]:
    """(GPUs, max batch): the fewest GPUs that hold the model in BF16 and what they hold at this context."""
    gpus = scenario(model, gpu, seq_len=context, weights="bf16").gpus
    return gpus, scenario(model, gpu, gpus=gpus, seq_len=context, weights="bf16").max_batch


def draw_grammar_mask(n: int, rng: random.Random) -> Draw | None:
    variant = ("plain", "speculative")[n % 2]
    m, gpu = get_model(rng.choice(MASK_MODELS)), get_gpu(rng.choice(MASK_GPUS))
    context = rng.choice([c for c in MASK_CONTEXTS if c <= m.max_context])
    gpus, fits = _replica_fit(m.key, gpu.key, context)
    engine, stat = rng.choice(ENGINES), rng.choice(STATS)
    mask = getattr(getattr(topic().mask_time, engine), stat)
    exact = (Given("params", float(m.params), "params"), Given("bytes_per_weight", dtype_bytes("bf16"), "bytes"),
             Given("gpus", gpus, "count"), Given("bandwidth", gpu.bandwidth_bytes_per_s, "B/s"),
             Given("kv_per_seq", float(model_kv_bytes_per_seq(m, context)), "B"), Given("mask", mask, "s"),
             Given("threads", rng.choice(THREADS), "count"),
             Given("draft_tokens", rng.choice(DRAFTS) if variant == "speculative" else 0, "count"))
    s = solve_grammar_mask({x.name: x.value for x in exact})
    usable = 2 <= s["answer"] <= fits
    return Draw(variant, exact, {"model": m.key, "gpu": gpu.key, "engine": engine, "stat": stat,
                                 "context": str(context)}) if usable else None
