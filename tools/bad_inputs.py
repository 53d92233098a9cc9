"""Writes tests/vectors/bad_inputs.json: the inputs gpu_math.py and its Node twin must refuse, each with
exit code 2 and one line, the same in both. pytest (tests/test_bad_inputs.py) and Node
(tests/js/bad_inputs.test.mjs) read it; a test fails when this file and the vectors drift apart.

    python3 tools/bad_inputs.py            # rewrite the vectors

Two parts. Generated: every numeric field of the command line, the workload file and the config
reader (the fields rules.toml lists) crossed with a negative number, zero, nan, inf, a huge number
(1e400, which reads as inf), text and an empty value; the expected message is built here from the
field's kind and bounds with words written out below, not by the code under test, so a rule the
engine applies wrongly fails. Written by hand: the cases the issue names and the cross-field rules.

Each case: name; kind (cli, plan, config, data, scenario, workload); its input; exit (2); and
either `message` (the whole line after "PROG: error: "; a file's path, when it names one, in front of
it as "<path>: ") or `parts` (stable pieces the line must contain, where the rest is the data's, like
the list of valid keys). A number JSON cannot hold is {"$float": "nan" | "inf" | "-inf"}.
"""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "vectors" / "bad_inputs.json"
FIXTURES = "tests/engine/fixtures/configs"

# (label, as typed on a command line, as written in TOML, as written in JSON, as the message shows a file's value)
BAD = [
    ("negative", "-1", "-1", "-1", "-1"),
    ("zero", "0", "0", "0", "0"),
    ("nan", "nan", "nan", "NaN", "nan"),
    ("inf", "inf", "inf", "Infinity", "inf"),
    ("huge", "1e400", "1e400", "1e400", "inf"),
    ("text", "abc", '"abc"', '"abc"', "'abc'"),
    ("empty", "", '""', '""', "''"),
]

WORKLOAD = """name = "Bad input"
model = "llama-70b"
gpu = "h100"
gpus_per_replica = 4
[traffic]
peak_requests_per_s = 10
prompt_tokens = 1000
output_tokens = 100
prefix_hit_rate = 0.5
burstiness = 1
[slo]
ttft_s = 1
tpot_s = 0.05
ttft_p95_s = 2
tpot_p95_s = 0.1
[fleet]
efficiency = 0.4
headroom = 0.2
price_per_gpu_hour = 2.5
engine = "vllm"
[adapters]
"""
DAILY = WORKLOAD.replace("peak_requests_per_s = 10", "requests_per_day = 1e6\npeak_to_mean = 2")

# The config fields the reader reads, each in a fixture whose family reads it.
CONFIG_FIELDS = {
    "llama-3.1-8b": ["num_hidden_layers", "hidden_size", "num_attention_heads", "num_key_value_heads", "head_dim",
                     "intermediate_size", "vocab_size", "max_position_embeddings"],
    "mixtral-8x7b": ["num_local_experts", "num_experts_per_tok"],
    "gemma-2-27b": ["sliding_window"],
    "qwen3-235b-a22b": ["num_experts", "moe_intermediate_size", "decoder_sparse_step"],
    "deepseek-v3": ["n_routed_experts", "n_shared_experts", "first_k_dense_replace", "moe_layer_freq", "q_lora_rank",
                    "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"],
}


def expected(rule: dict[str, Any]) -> str:
    """What the field must be, in the words a reader should see (written out here, not computed by
    macros/engine/rules.py): one entry per shape of bounds rules.toml uses."""
    noun = {"number": "number", "whole": "whole number"}[rule["kind"]]
    return {
        (0, None, None): f"a positive {noun}",
        (None, 0, None): f"zero or a positive {noun}",
        (None, 1, None): f"a {noun} of at least 1",
        (None, 0, 1): f"a {noun} between 0 and 1",
        (0, None, 1): f"a {noun} above 0 and at most 1",
    }[(rule.get("above"), rule.get("min"), rule.get("max"))]


def message(field: str, rule: dict[str, Any], label: str, got: str) -> str | None:
    """The line for one bad value, or None where the value is allowed (zero, for a field that may be 0)."""
    if label == "zero" and rule.get("min") == 0:
        return None
    if label in ("nan", "inf", "huge"):
        return f"{field} must be a finite number, got {got}"
    return f"{field} must be {expected(rule)}, got {got}"


def with_field(base: str, field: str, section: str | None, toml: str) -> str:
    """The workload file `base` with `field = toml`: its line replaced, or added at the top of its section
    (the percentile targets the template does not list)."""
    lines = base.splitlines()
    at = [n for n, ln in enumerate(lines) if ln.startswith(f"{field} = ")]
    if at:
        lines[at[0]] = f"{field} = {toml}"
    else:
        lines.insert(lines.index(f"[{section}]") + 1 if section else 0, f"{field} = {toml}")
    return "\n".join(lines) + "\n"


def generated(rules: dict[str, Any]) -> list[dict[str, Any]]:
    cases = []
    for rule in rules["scenario"]["fields"].values():
        if rule["kind"] not in ("number", "whole"):
            continue
        for label, typed, _, _, _ in BAD:
            line = message(rule["flag"], rule, label, f"'{typed}'")
            if line:
                cases.append({"name": f"cli {rule['flag']} {label}", "kind": "cli",
                              "args": ["--model", "llama-70b", "--gpu", "h100", rule["flag"], typed], "message": line})
    for field, rule in rules["workload"]["fields"].items():
        if rule["kind"] not in ("number", "whole"):
            continue
        base = DAILY if field in ("requests_per_day", "peak_to_mean") else WORKLOAD
        where = f"[{rule['section']}] " if "section" in rule else ""
        for label, _, toml, _, got in BAD:
            line = message(f"{where}{field}", rule, label, got)
            if line is None:
                continue
            cases.append({"name": f"workload {field} {label}", "kind": "plan",
                          "toml": with_field(base, field, rule.get("section"), toml), "message": line,
                          "names_file": True})
    for fixture, fields in CONFIG_FIELDS.items():
        for field in fields:
            rule = rules["hf_config"]["fields"][field]
            for label, _, _, text, got in BAD:
                line = message(field, rule, label, got)
                if line:
                    cases.append({"name": f"config {fixture} {field} {label}", "kind": "config", "base": fixture,
                                  "set": {field: text}, "message": line, "names_file": True})
    return cases


MODEL = {"key": "custom", "name": "Custom model", "params": 70e9, "layers": 80, "query_heads": 64, "kv_heads": 8,
         "head_dim": 128, "max_context": 131072, "hidden_size": 8192, "source": "a test", "checked": "2026-12-01"}
GPU = {"key": "custom", "name": "Custom GPU", "memory": "", "memory_bytes": 80e9, "bandwidth_bytes_per_s": 3.35e12,
       "bf16_flops": 989.4e12, "interconnect": "", "interconnect_bytes_per_s": 450e9, "checked": "2026-12-01"}
# The [slo] fields a reader may give, written out: the means, then each percentile target.
SLO_KNOWN = ("ttft_s, tpot_s, ttft_p50_s, ttft_p90_s, ttft_p95_s, ttft_p99_s, tpot_p50_s, tpot_p90_s, tpot_p95_s, "
             "tpot_p99_s, itl_p50_s, itl_p90_s, itl_p95_s, itl_p99_s")
KV7 = "kv_heads 7 must divide query_heads 64: each KV head serves the same number of query heads"
BOTH = "[traffic] give peak_requests_per_s, or requests_per_day and peak_to_mean, not both"


def _cli(name: str, args: list[str], line: str | None = None, parts: list[str] | None = None) -> dict[str, Any]:
    case: dict[str, Any] = {"name": name, "kind": "cli", "args": args}
    return {**case, "message": line} if parts is None else {**case, "parts": parts}


def _plan(name: str, toml: str, line: str | None = None, parts: list[str] | None = None, **more: Any) -> dict[str, Any]:
    case = {"name": name, "kind": "plan", "toml": toml, "names_file": True, **more}
    return {**case, "message": line} if parts is None else {**case, "parts": parts}


def hand() -> list[dict[str, Any]]:
    anchor = ["--model", "llama-70b", "--gpu", "h100"]
    return [
        # --- the command line -------------------------------------------------------------------------
        _cli("issue: --price inf --json", [*anchor, "--price", "inf", "--json"],
             "--price must be a finite number, got 'inf'"),
        _cli("--reserve=-inf", [*anchor, "--reserve=-inf"], "--reserve must be a finite number, got '-inf'"),
        _cli("--reserve -inf reads as a flag", [*anchor, "--reserve", "-inf"],
             "argument --reserve: expected one argument (see --help)"),
        _cli("--price Infinity", [*anchor, "--price", "Infinity"], "--price must be a finite number, got 'Infinity'"),
        _cli("--efficiency NaN", [*anchor, "--efficiency", "NaN"], "--efficiency must be a finite number, got 'NaN'"),
        _cli("--gpus 2.5", [*anchor, "--gpus", "2.5"], "--gpus must be a positive whole number, got '2.5'"),
        _cli("--batch 1_000", [*anchor, "--batch", "1_000"], "--batch must be a positive whole number, got '1_000'"),
        _cli("--seq-len 0x10", [*anchor, "--seq-len", "0x10"], "--seq-len must be a positive whole number, got '0x10'"),
        _cli("--price 1,000", [*anchor, "--price", "1,000"], "--price must be a positive number, got '1,000'"),
        _cli("issue: a field holding 1e", [*anchor, "--gpus", "1e"],
             "--gpus must be a positive whole number, got '1e'"),
        _cli("issue: a field holding -", [*anchor, "--price", "-"], "--price must be a positive number, got '-'"),
        _cli("--efficiency 1.5", [*anchor, "--efficiency", "1.5"],
             "--efficiency must be a number above 0 and at most 1, got '1.5'"),
        _cli("--layout ep", [*anchor, "--layout", "ep"], "--layout must be one of tp, dp-attention, got 'ep'"),
        _cli("--model empty", ["--model", "", "--gpu", "h100"], "--model must be a non-empty string, got ''"),
        _cli("--weights empty", [*anchor, "--weights", ""], "--weights must be a non-empty string, got ''"),
        _cli("unknown model", ["--model", "llama-7b", "--gpu", "h100"],
             parts=["unknown model 'llama-7b'. Did you mean llama-70b? Valid: llama-70b, "]),
        _cli("unknown GPU", ["--model", "llama-70b", "--gpu", "h10"],
             parts=["unknown GPU 'h10'. Did you mean h100? Valid: "]),
        _cli("unknown weights", [*anchor, "--weights", "fp4"],
             parts=["unknown dtype 'fp4'. Did you mean fp8? Valid: "]),
        _cli("unknown KV dtype", [*anchor, "--kv", "int3"],
             parts=["unknown dtype 'int3'. Did you mean int8, int4? Valid: "]),
        _cli("context past the model's", ["--model", "llama-2-70b", "--gpu", "h100", "--seq-len", "8192"],
             parts=["supports at most 4,096 tokens of context, got 8,192"]),
        _cli("a batch that does not fit", [*anchor, "--gpus", "2", "--batch", "50"],
             parts=["batch 50 does not fit: 2 x H100 SXM hold at most ",
                    "4 GPUs would hold them, or use a smaller batch"]),
        _cli("unknown flag", [*anchor, "--foo", "3"], "unrecognized arguments: --foo 3 (see --help)"),
        _cli("no abbreviated flags", [*anchor, "--eff", "0.5"], "unrecognized arguments: --eff 0.5 (see --help)"),
        _cli("a flag without its value", [*anchor, "--gpus"], "argument --gpus: expected one argument (see --help)"),
        _cli("no model", ["--gpu", "h100"],
             "--model is required (see --list for the keys), or --config PATH/config.json (see --help)"),
        _cli("no GPU", ["--model", "llama-70b"], "--gpu is required (see --list for the keys) (see --help)"),
        _cli("model and config", [*anchor, "--config", "x.json"], "give --model or --config, not both (see --help)"),
        # --- a workload file --------------------------------------------------------------------------
        _plan("issue: top-level variants = 3", "variants = 3\n" + WORKLOAD, "[variants] must be a table, got 3"),
        _plan("a variant that is not a table", WORKLOAD + "[variants]\nfast = 3\n",
              parts=[": [variants.fast] must be a table, got 3"]),
        _plan("a section that is not a table", "fleet = 3\n" + WORKLOAD.split("[fleet]")[0],
              "[fleet] must be a table, got 3"),
        _plan("a variant's bad value", WORKLOAD + "[variants.x]\nprompt_tokens = nan\n",
              parts=[": [variants.x]: [traffic] prompt_tokens must be a finite number, got nan"]),
        _plan("a variant's unknown format", WORKLOAD + "[variants.x]\nweights = \"fp99\"\n",
              parts=[": [variants.x]: unknown dtype 'fp99'. Valid: "]),
        _plan("a variant that does not exist", WORKLOAD, parts=[": no [variants.nope] (has: none)"],
              args=["--variant", "nope"]),
        _plan("peak and daily volume both", DAILY.replace("[traffic]\n", "[traffic]\npeak_requests_per_s = 10\n"),
              BOTH),
        _plan("no peak and no daily volume", WORKLOAD.replace("peak_requests_per_s = 10\n", ""),
              "[traffic] peak_requests_per_s is missing (or requests_per_day and peak_to_mean)"),
        _plan("a daily volume without peak_to_mean", DAILY.replace("peak_to_mean = 2\n", ""),
              "[traffic] peak_requests_per_s is missing (or requests_per_day and peak_to_mean)"),
        _plan("an unknown field", "latency = 1\n" + WORKLOAD, "unknown field latency (known: name, model, gpu, "
              "gpus_per_replica, weights, kv, layout, note, adapters, fleet, slo, traffic, variants, design)"),
        _plan("an unknown field in a section", WORKLOAD.replace("[slo]\n", "[slo]\nlatency = 1\n"),
              f"[slo] unknown field latency (known: {SLO_KNOWN})"),
        _plan("issue: a percentile that is not p50, p90, p95 or p99",
              WORKLOAD.replace("ttft_p95_s = 2", "ttft_p97_s = 2"),
              f"[slo] unknown field ttft_p97_s (known: {SLO_KNOWN})"),
        _plan("an unknown engine", WORKLOAD.replace('engine = "vllm"', 'engine = "tgi"'),
              "[fleet] engine must be one of vllm, sglang, trt, atom, got 'tgi'"),
        _plan("a missing target", WORKLOAD.replace("ttft_s = 1\n", "").replace("ttft_p95_s = 2\n", ""),
              "[slo] ttft_s is missing: give it, or a percentile target (ttft_p50_s or ttft_p90_s or ttft_p95_s or "
              "ttft_p99_s)"),
        _plan("a missing name", WORKLOAD.replace('name = "Bad input"\n', ""), "name is missing"),
        _plan("a model that is not a string", WORKLOAD.replace('model = "llama-70b"', "model = 3"),
              "model must be a non-empty string, got 3"),
        _plan("issue: a wrong type in a design file",
              WORKLOAD.replace("gpus_per_replica = 4", 'gpus_per_replica = "four"'),
              "gpus_per_replica must be a positive whole number, got 'four'"),
        _plan("a fractional GPU count", WORKLOAD.replace("gpus_per_replica = 4", "gpus_per_replica = 2.5"),
              "gpus_per_replica must be a positive whole number, got 2.5"),
        _plan("an unknown layout", WORKLOAD.replace('gpu = "h100"', 'gpu = "h100"\nlayout = "ep"'),
              "layout must be one of tp, dp-attention, got 'ep'"),
        _plan("an unknown model", WORKLOAD.replace('"llama-70b"', '"llama-71b"'),
              parts=[": unknown model 'llama-71b'. Did you mean llama-70b"]),
        _plan("a hit rate of 1.5", WORKLOAD.replace("prefix_hit_rate = 0.5", "prefix_hit_rate = 1.5"),
              "[traffic] prefix_hit_rate must be a number between 0 and 1, got 1.5"),
        _plan("a headroom of -0.5", WORKLOAD.replace("headroom = 0.2", "headroom = -0.5"),
              "[fleet] headroom must be zero or a positive number, got -0.5"),
        _plan("peak to mean below 1", DAILY.replace("peak_to_mean = 2", "peak_to_mean = 0.5"),
              "[traffic] peak_to_mean must be a number of at least 1, got 0.5"),
        _plan("a date for a time", WORKLOAD.replace("ttft_s = 1", "ttft_s = 1979-05-27"),
              "[slo] ttft_s must be a positive number, got a date"),
        _plan("true for a time", WORKLOAD.replace("tpot_s = 0.05", "tpot_s = true"),
              "[slo] tpot_s must be a positive number, got true"),
        _plan("a list for a count", WORKLOAD.replace("prompt_tokens = 1000", "prompt_tokens = [1000]"),
              "[traffic] prompt_tokens must be a positive whole number, got a list"),
        _plan("not TOML", "name = \n", parts=[": not valid TOML: "]),
        {"name": "issue: a workload file that is not UTF-8", "kind": "plan", "hex": b'name = "caf\xe9"\n'.hex(),
         "message": "not UTF-8 text (byte 11 is 0xe9)", "names_file": True},
        {"name": "issue: a directory given to plan", "kind": "plan", "directory": True,
         "message": "is a directory, not a file", "names_file": True},
        {"name": "a workload file that does not exist", "kind": "plan", "missing": True,
         "message": "file not found", "names_file": True},
        {"name": "plan without a file", "kind": "cli", "args": ["plan"],
         "message": "the following arguments are required: file (see --help)"},
        # --- a config.json ----------------------------------------------------------------------------
        {"name": "issue: kv_heads 7 with 64 query heads, from a config", "kind": "config", "base": "llama-3.1-70b",
         "set": {"num_key_value_heads": "7"}, "names_file": True,
         "message": "num_key_value_heads 7 must divide num_attention_heads 64: each KV head serves the same number "
                    "of query heads"},
        {"name": "more KV heads than query heads", "kind": "config", "base": "llama-3.1-70b",
         "set": {"num_key_value_heads": "80"}, "message": "num_key_value_heads 80 exceeds num_attention_heads 64",
         "names_file": True},
        {"name": "as many experts per token as experts", "kind": "config", "base": "mixtral-8x7b",
         "set": {"num_experts_per_tok": "8"}, "message": "num_experts_per_tok 8 must be below num_local_experts 8",
         "names_file": True},
        {"name": "a head size that does not divide", "kind": "config", "base": "llama-3.1-70b",
         "set": {"hidden_size": "4000"}, "names_file": True,
         "message": "head_dim is missing, and hidden_size 4000 is not a multiple of num_attention_heads 64"},
        {"name": "a flag that is not true or false", "kind": "config", "base": "llama-3.1-70b",
         "set": {"tie_word_embeddings": '"no"'}, "message": "tie_word_embeddings must be true or false, got 'no'",
         "names_file": True},
        {"name": "issue: a config that is not UTF-8", "kind": "config", "hex": b'{"a": "\xff"}'.hex(),
         "message": "not UTF-8 text (byte 7 is 0xff)", "names_file": True},
        {"name": "issue: a directory given to --config", "kind": "config", "directory": True,
         "message": "is a directory, not a file", "names_file": True},
        {"name": "a config that is not JSON", "kind": "config", "text": "{", "parts": [": not valid JSON: "]},
        {"name": "a config that is a list", "kind": "config", "text": "[1]", "names_file": True,
         "message": "must be a JSON object, got list"},
        # --- the data files (a copy of macros/data with one edit) ------------------------------------------
        {"name": "issue: 3.35e400 in gpus.toml", "kind": "data", "file": "gpus.toml",
         "replace": ["bandwidth_bytes_per_s = 3.35e12", "bandwidth_bytes_per_s = 3.35e400"],
         "message": "[h100] bandwidth_bytes_per_s must be a finite number, got inf", "names_file": True},
        {"name": "nan in gpus.toml", "kind": "data", "file": "gpus.toml",
         "replace": ["memory_bytes = 80e9\nmemory_visible_bytes = 85_520",
                     "memory_bytes = nan\nmemory_visible_bytes = 85_520"],
         "message": "[h100] memory_bytes must be a finite number, got nan", "names_file": True},
        {"name": "-inf in gpus.toml", "kind": "data", "file": "gpus.toml",
         "replace": ["bf16_flops = 989.4e12", "bf16_flops = -inf"],
         "message": "[h100] bf16_flops must be a finite number, got -inf", "names_file": True},
        {"name": "an FP4 peak below the FP8 one", "kind": "data", "file": "gpus.toml",
         "replace": ["fp4_flops = 13500e12", "fp4_flops = 1350e12"], "names_file": True,
         "message": "[b300] fp4_flops 1.35e15 is below fp8_flops 4.5e15; a narrower format's dense peak is at least "
                    "as high"},
        {"name": "issue: kv_heads = 7 with 64 query heads in models.toml", "kind": "data", "file": "models.toml",
         "replace": ["query_heads = 64\nkv_heads = 8", "query_heads = 64\nkv_heads = 7"],  # the first: llama-70b
         "message": f"[llama-70b] {KV7}", "names_file": True},
        {"name": "1e400 layers in models.toml", "kind": "data", "file": "models.toml",
         "replace": ["layers = 80\n", "layers = 1e400\n"],  # the first: llama-70b
         "message": "[llama-70b] layers must be a finite number, got inf", "names_file": True},
        {"name": "as many experts per token as experts in models.toml", "kind": "data", "file": "models.toml",
         "replace": ["experts = 8\nexperts_per_token = 2", "experts = 8\nexperts_per_token = 8"],
         "message": "[mixtral-8x7b] experts_per_token 8 must be below experts 8", "names_file": True},
        {"name": "inf bytes in precisions.toml", "kind": "data", "file": "precisions.toml",
         "replace": ['name = "INT8"\nbytes = 1', 'name = "INT8"\nbytes = inf'],
         "message": "[int8] bytes must be a finite number, got inf", "names_file": True},
        {"name": "nan price", "kind": "data", "file": "prices.toml", "replace": ["typical = 2.50", "typical = nan"],
         "message": "[h100] typical must be a finite number, got nan", "names_file": True},
        {"name": "a typical price outside its range", "kind": "data", "file": "prices.toml",
         "replace": ["typical = 2.50", "typical = 9.50"],
         "message": "[h100] typical must lie within low..high, got 1.5 <= 9.5 <= 3", "names_file": True},
        {"name": "inf in claims.toml", "kind": "data", "file": "claims.toml", "replace": ["low = 0.45", "low = inf"],
         "message": "[decode-bandwidth-utilisation] low must be a finite number, got inf", "names_file": True},
        {"name": "nan in measurements.toml", "kind": "data", "file": "measurements.toml",
         "replace": ["value = 18.58e-3", "value = nan"],
         "message": "[nim-c1-long-prompt-itl] value must be a finite number, got nan", "names_file": True},
        # --- scenario() given values by a program or a form, and custom models and GPUs ----------------
        *[{"name": f"scenario {field} = {shown}", "kind": "scenario", "input": {"model": "llama-70b", "gpu": "h100",
                                                                                   field: value}, "message": line}
          for field, value, shown, line in [
              ("efficiency", 0, "0", "efficiency must be a number above 0 and at most 1, got 0"),
              ("seq_len", {"$float": "nan"}, "nan", "seq_len must be a finite number, got nan"),
              ("reserve_bytes", -1, "-1", "reserve_bytes must be zero or a positive number, got -1"),
              ("gpus", 0, "0", "gpus must be a positive whole number, got 0"),
              ("batch", 2.5, "2.5", "batch must be a positive whole number, got 2.5"),
              ("price", {"$float": "inf"}, "inf", "price must be a finite number, got inf"),
              ("layout", "ep", "'ep'", "layout must be one of tp, dp-attention, got 'ep'"),
              ("kv", "", "''", "kv must be a non-empty string, got ''")]],
        *[{"name": f"custom {kind} {why}", "kind": "scenario", "message": line,
           "input": {"model": {**MODEL, **fields} if kind == "model" else "llama-70b",
                     "gpu": {**GPU, **fields} if kind == "gpu" else "h100"}}
          for kind, why, fields, line in [
              ("model", "kv_heads 7", {"kv_heads": 7}, f"Custom model: {KV7}"),
              ("model", "0 layers", {"layers": 0}, "Custom model: layers must be a positive whole number, got 0"),
              ("model", "negative parameters", {"params": -140e9},
               "Custom model: params must be a positive number, got -1.4e11"),
              ("model", "nan parameters", {"params": {"$float": "nan"}},
               "Custom model: params must be a finite number, got nan"),
              ("model", "8 of 8 experts", {"experts": 8, "experts_per_token": 8, "active_params": 20e9},
               "Custom model: experts_per_token 8 must be below experts 8"),
              ("model", "experts without a count per token", {"experts": 8},
               "Custom model: experts and experts_per_token must be given together"),
              ("gpu", "0 bandwidth", {"bandwidth_bytes_per_s": 0},
               "Custom GPU: bandwidth_bytes_per_s must be a positive number, got 0"),
              ("gpu", "nan memory", {"memory_bytes": {"$float": "nan"}},
               "Custom GPU: memory_bytes must be a finite number, got nan"),
              ("gpu", "inf bandwidth", {"bandwidth_bytes_per_s": {"$float": "inf"}},
               "Custom GPU: bandwidth_bytes_per_s must be a finite number, got inf"),
              ("gpu", "an FP4 peak without FP8", {"fp4_flops": 4e15},
               "Custom GPU: an FP4 peak (fp4_flops) needs an FP8 one (fp8_flops)")]],
        # --- a workload from the planner's form (flat fields, none named by a file) ----------------------
        *[{"name": f"form {why}", "kind": "workload", "message": line, "input": {
            "name": "This workload", "model": "llama-70b", "gpu": "h100", "requests_per_day": 1e6, "peak_to_mean": 2,
            "prompt_tokens": 1000, "output_tokens": 100, "ttft_s": 1, "tpot_s": 0.05, **fields}}
          for why, fields, line in [
              ("0 requests a day", {"requests_per_day": 0}, "requests_per_day must be a positive number, got 0"),
              ("peak to mean -1", {"peak_to_mean": -1}, "peak_to_mean must be a number of at least 1, got -1"),
              ("0 output tokens", {"output_tokens": 0}, "output_tokens must be a positive whole number, got 0"),
              ("a hit rate of 1.5", {"prefix_hit_rate": 1.5},
               "prefix_hit_rate must be a number between 0 and 1, got 1.5"),
              ("a headroom of -0.5", {"headroom": -0.5}, "headroom must be zero or a positive number, got -0.5"),
              ("a nan target", {"tpot_s": {"$float": "nan"}}, "tpot_s must be a finite number, got nan"),
              ("a peak as well as a daily volume", {"peak_requests_per_s": 10},
               "give peak_requests_per_s, or requests_per_day and peak_to_mean, not both")]],
    ]


def build() -> dict[str, Any]:
    with open(ROOT / "macros" / "data" / "rules.toml", "rb") as fh:
        rules = tomllib.load(fh)
    cases = generated(rules) + hand()
    for case in cases:
        case["exit"] = 2
    return {"about": "Inputs gpu_math.py and tools/gpu_math.mjs must refuse: exit 2, one line, the same message. "
                     "Written by tools/bad_inputs.py; see its docstring for the format.", "cases": cases}


def text() -> str:
    return json.dumps(build(), indent=1, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(text())
    print(f"{OUT.relative_to(ROOT)}: {len(build()['cases'])} cases", file=sys.stderr)
