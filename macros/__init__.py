"""The site's computing core. mkdocs-macros calls define_env(); it only registers.

Pages set a scenario once and use it everywhere on the page:

    {% set s = scenario('llama-70b', 'h100', gpus=4) %}
    {{ s.kv_bytes_per_seq | bytes }} per sequence, {{ s.max_batch }} sequences, {{ s.decode_step_s | ms }}

so an input like 4,096 tokens is never typed twice and every figure comes from formulas.py.
"""

from __future__ import annotations

import posixpath
from typing import Any

from . import drawings, fmt, formulas, report, scenario as scen, show, tables
from .markdown import cite
from .workloads import worked
from .specs import SpecError, catalog

FILTERS = {
    "num": fmt.num, "count": fmt.count, "si": fmt.si, "bytes": fmt.bytes_, "binary": fmt.binary,
    "bytes_exact": fmt.bytes_exact, "bandwidth": fmt.bandwidth, "flops": fmt.flops,
    "flops_rate": fmt.flops_rate, "seconds": fmt.seconds, "ms": fmt.ms, "usd": fmt.usd, "pct": fmt.pct,
    "times": fmt.times, "tokens_per_s": fmt.tokens_per_s, "tokens": fmt.tokens, "params": fmt.params,
    "billion": fmt.billion, "watts": fmt.watts, "round_sig": fmt.round_sig, "span": fmt.span,
}


def _report(model: str, gpu: str, **kwargs: Any) -> str:
    """The calculator's text for these arguments, exactly as gpu_math.py prints it."""
    return report.render(scen.scenario(model, gpu, **kwargs))


def _claim(key: str) -> str:
    """A reported (not computed) figure from data/claims.toml, its source and status in its tooltip."""
    c = scen._lookup("claim", key, catalog().claims)
    return cite(c.text or fmt.span(c.low, c.high, c.unit), f"{c.status}: {c.source}", kind="claim")


def _figure(env: Any, name: str, variant: str | None = None, caption: str = "") -> str:
    """A rendered drawing from diagrams/<name>.py as Markdown, with its alt text and a caption."""
    module = drawings.load(name)
    if variant not in drawings.variants(module):
        raise drawings.DrawingError(f"diagrams/{name}.py has no variant {variant!r}")
    alt = drawings.alt_text(name, variant).replace("[", "(").replace("]", ")").replace("\n", " ")
    target = f"{drawings.SITE_DIR}/{drawings.file_stem(name, variant)}.{module.FORMAT}"
    rel = posixpath.relpath(target, posixpath.dirname(env.page.file.src_uri) or ".")
    text = f'<figure class="drawing" markdown="span">\n![{alt}]({rel})'
    if caption:
        text += f"\n<figcaption>{caption}</figcaption>"
    return text + "\n</figure>"


def define_env(env: Any) -> None:
    try:
        cat, inputs = catalog(), worked()
    except SpecError as exc:  # a data error: one line, no traceback, the build stops
        from mkdocs.exceptions import PluginError

        raise PluginError(str(exc)) from None

    env.variables.update({
        "gpus": cat.gpus, "models": cat.models, "prices": cat.prices, "precisions": cat.precisions,
        "claims": cat.claims, "worked": inputs,
        "f": formulas,  # every formula, for the rare figure no scenario field holds
        "defaults": {"seq_len": scen.DEFAULT_SEQ_LEN, "reserve_bytes": scen.DEFAULT_RESERVE_BYTES,
                     "efficiency": scen.DEFAULT_EFFICIENCY, "dtype": scen.DEFAULT_DTYPE},
    })
    macros = {
        "scenario": scen.scenario,
        "gpu": scen.get_gpu,
        "model": scen.get_model,
        "dtype_bytes": scen.dtype_bytes,
        "peak_flops": scen.peak_flops,
        "kv_per_token": lambda key, kv="bf16": scen.kv_bytes_per_token(scen.get_model(key), kv),
        "mha_kv_per_token": lambda key, kv="bf16": scen.mha_kv_bytes_per_token(scen.get_model(key), kv),
        "kv_per_seq": lambda key, seq_len, kv="bf16": scen.kv_bytes_per_seq(scen.get_model(key), seq_len, kv),
        "params_read": lambda key, batch: scen.params_read_per_step(scen.get_model(key), batch),
        "calculator": _report,
        "figure": lambda name, variant=None, caption="": _figure(env, name, variant, caption),
        "claim": _claim,
    }
    for name, fn in macros.items():
        env.macro(fn, name)
    for name in ("memory", "weights", "reserve", "budget", "kv_per_seq", "max_batch", "decode_bytes",
                 "decode_flops", "memory_time", "compute_time", "intensity", "prefill_compute",
                 "prefill_memory", "throughput", "per_user", "cost"):
        env.macro(getattr(show, name), f"show_{name}")
    env.macro(lambda key, kv="bf16": show.kv_per_token(scen.get_model(key), kv), "show_kv_per_token")
    env.macro(lambda key, peak=None: show.machine_balance(scen.get_gpu(key), peak), "show_machine_balance")
    env.macro(lambda key, batch, w="bf16": show.moe_read(scen.get_model(key), batch, w), "show_moe_read")
    for name, fn in FILTERS.items():
        env.filter(fn, name)
    tables.register(env)
