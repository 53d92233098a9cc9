"""The site's computing core. mkdocs-macros calls define_env(); it only registers.

Pages set a scenario once and use it everywhere on the page:

    {% set s = scenario('llama-70b', 'h100', gpus=4) %}
    {{ s.kv_bytes_per_seq | bytes }} per sequence, {{ s.max_batch }} sequences, {{ s.decode_step_s | ms }}

so an input like 4,096 tokens is never typed twice and every figure comes from formulas.py.
"""

from __future__ import annotations

import inspect
import os
from pathlib import Path
from typing import Any

from ..engine import formulas, memo
from ..engine.model import scenario as scen
from ..engine.serving import cache as simulation_cache
from ..engine.specs import SpecError, catalog, source_date
from ..engine.workloads import workloads
from ..text import fmt, report, show
from . import assumptions, pages, tables
from .build import figures
from .markdown import cite

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
    c = scen.lookup("claim", key, catalog().claims)
    return cite(c.text or fmt.span(c.low, c.high, c.unit), f"{c.status}: {c.source}", kind="claim")


# Pages whose claims show their date beside them, not only in the tooltip: the worked designs quote real
# systems' scale and prices as anchors, and an anchor's age is part of what it says. Elsewhere (the cheat
# sheet, the cards) the date stays in the tooltip, for room.
DATED_CLAIM_PAGES = ("designs/",)


def _claim_on(env: Any) -> Any:
    def claim(key: str) -> str:
        """A reported (not computed) figure from data/claims.toml, its source and status in its tooltip; on the
        worked designs' pages, its source's date beside it."""
        out = _claim(key)
        page = getattr(getattr(env, "page", None), "file", None)
        if page is None or not page.src_uri.startswith(DATED_CLAIM_PAGES):
            return out
        date = source_date(scen.lookup("claim", key, catalog().claims).source)
        return f"{out} ({date or 'undated'})"

    return claim


def _assumed_on(env: Any) -> Any:
    def assumed(assumption: assumptions.Assumption, caller: Any = None) -> str:
        """`{% call assumed(q.fact) %}sentence{% endcall %}`: the sentence, checked against the page
        model's assumption; a broken one is logged as an error naming the page and the words, and marked."""
        page = getattr(getattr(env, "page", None), "file", None)
        return assumptions.check(assumption, caller(), f"docs/{page.src_uri}" if page else "a page")

    return assumed


# The slowest answers (a design's serving-model answer, the shape search, ...), kept between builds
# (macros/engine/memo.py). Not while the simulations are being written or their use logged (make generated, the
# suite's checks of the memo): those must see every run a page asks for, and a kept answer asks for none.
KEPT_ANSWERS_DIR = Path(__file__).resolve().parents[2] / ".cache" / "answers"


def define_env(env: Any) -> None:
    # A build: the same scenario or plan asked for by page after page is computed once.
    watched = os.environ.get(simulation_cache.MODE) or os.environ.get(simulation_cache.LOG)
    memo.switch_on(None if watched else KEPT_ANSWERS_DIR)
    try:
        cat, inputs = catalog(), workloads()
    except SpecError as exc:  # a data error: one line, no traceback, the build stops
        from mkdocs.exceptions import PluginError

        raise PluginError(str(exc)) from None

    env.variables.update({
        "gpus": cat.gpus, "models": cat.models, "prices": cat.prices, "precisions": cat.precisions,
        "claims": cat.claims, "workloads": inputs,
        "f": formulas,  # every formula, for the rare figure no scenario field holds
        "defaults": {"seq_len": scen.DEFAULT_SEQ_LEN, "reserve_bytes": scen.DEFAULT_RESERVE_BYTES,
                     "efficiency": scen.DEFAULT_EFFICIENCY, "dtype": scen.DEFAULT_DTYPE},
    })
    for name, fn in MACROS.items():
        env.macro(fn, name)
    for name, fn in FILTERS.items():
        env.filter(fn, name)
    env.macro(_assumed_on(env), "assumed")
    env.macro(_claim_on(env), "claim")  # replaces MACROS' claim: the same figure, dated on the designs' pages
    tables.register(env)
    figures.register(env)
    pages.register(env)


def _derivations() -> dict[str, Any]:
    """show_<name> for every derivation in text/show.py that takes a Scenario: a new one registers itself."""
    return {f"show_{name}": fn for name, fn in inspect.getmembers(show, inspect.isfunction)
            if fn.__module__ == show.__name__ and not name.startswith("_")
            and next(iter(inspect.signature(fn).parameters.values())).annotation == "Scenario"}


MACROS: dict[str, Any] = {
    "scenario": scen.scenario,
    "gpu": scen.get_gpu,
    "model": scen.get_model,
    "dtype_bytes": scen.dtype_bytes,
    "peak_flops": scen.peak_flops,
    "kv_per_token": lambda key, kv=scen.DEFAULT_DTYPE: scen.kv_bytes_per_token(scen.get_model(key), kv),
    "mha_kv_per_token": lambda key, kv=scen.DEFAULT_DTYPE: scen.mha_kv_bytes_per_token(scen.get_model(key), kv),
    "kv_per_seq": lambda key, seq_len, kv=scen.DEFAULT_DTYPE:
        scen.model_kv_bytes_per_seq(scen.get_model(key), seq_len, kv),
    "params_read": lambda key, batch: scen.params_read_per_step(scen.get_model(key), batch),
    "calculator": _report,
    "claim": _claim,
    **_derivations(),
    "show_kv_per_token": lambda key, kv=scen.DEFAULT_DTYPE: show.kv_per_token(scen.get_model(key), kv),
    "show_machine_balance": lambda key, peak=None: show.machine_balance(scen.get_gpu(key), peak),
    "show_moe_read": lambda key, batch, w=scen.DEFAULT_DTYPE: show.moe_read(scen.get_model(key), batch, w),
}


# --- the index in macros/README.md, generated from what define_env() registers ------------


class _Recorder:
    """Stands in for mkdocs-macros' env: records what define_env() registers."""

    def __init__(self) -> None:
        self.variables: dict[str, Any] = {}
        self.macros: dict[str, Any] = {}
        self.filters: dict[str, Any] = {}

    def macro(self, fn: Any, name: str) -> None:
        self.macros[name] = fn

    def filter(self, fn: Any, name: str) -> None:
        self.filters[name] = fn


def _params(fn: Any) -> str:
    """`(key, batch, w='bf16')`: names and defaults, without annotations."""
    out = []
    for p in inspect.signature(fn).parameters.values():
        if p.kind is p.VAR_KEYWORD:
            out.append(f"**{p.name}")
        else:
            out.append(p.name if p.default is p.empty else f"{p.name}={p.default!r}")
    return "(" + ", ".join(out) + ")"


def _summary(fn: Any) -> str:
    doc = inspect.getdoc(fn) or ""
    return doc.split("\n\n")[0].replace("\n", " ")


def index() -> str:
    """Every macro, filter and variable a page can use (macros/README.md's index, checked by a test)."""
    env = _Recorder()
    define_env(env)
    lines = ["| macro | what it gives |", "|---|---|"]
    for name in sorted(env.macros):
        fn = env.macros[name]
        summary = _summary(fn).replace("|", "\\|")
        lines.append(f"| `{name}{_params(fn)}` | {summary} |")
    lines += ["", "Filters: " + ", ".join(f"`{n}`" for n in sorted(env.filters)) + ".", "",
              "Variables: " + ", ".join(f"`{n}`" for n in sorted(env.variables)) + "."]
    return "\n".join(lines) + "\n"
