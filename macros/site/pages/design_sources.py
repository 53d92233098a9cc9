"""What a worked design's page states about its sources (docs/designs/<slug>.md): the KV precision with its
quality caveat, the GPU price with its date and source, and the dated reference list the page ends with.

The reference list is built from what the page used, not typed: the GPU prices of its plan and variants
(data/prices.toml), the spec figures of those GPUs and of its model with the date they were checked
(data/gpus.toml, data/models.toml), the claims its Markdown cites with {{ claim('key') }} (data/claims.toml
and data/designs/claims/), and the FP8-KV caveat when the plan holds its KV in FP8. A page reads
`{% set src = page_models.design_sources('<slug>') %}` and writes `{{ src.kv_words }}`, `{{ src.price_words }}`
and, at its end, `{{ src.references }}`.
"""

from __future__ import annotations

import dataclasses
import re
from functools import cache
from pathlib import Path
from types import SimpleNamespace

from ...engine.fleet.planner import Plan, plan, require
from ...engine.lookup import get_gpu, get_model
from ...engine.model.geometry import kv_bytes_per_token
from ...engine.specs import Claim, Price, catalog
from ...engine.specs import source_date as specs_source_date
from ...text import fmt
from ..markdown import table
from . import design

DOCS_DIR = Path(__file__).resolve().parents[3] / "docs" / "designs"
FP8_KV_CLAIM = "fp8-kv-quality"
BASELINE_KV = "bf16"  # what an unstated KV precision is read as: the engines' default for BF16 models
CLAIM_CALL = re.compile(r"claim\(\s*['\"]([^'\"]+)['\"]\s*\)")
def source_date(source: str) -> str:
    """The first date a source string gives ("2025-03-01", "2025-03", "2024"), or "undated"."""
    return specs_source_date(source) or "undated"


def cited_claims(markdown: str) -> list[str]:
    """The claim keys a page's Markdown cites, in first-use order, each once."""
    return list(dict.fromkeys(CLAIM_CALL.findall(markdown)))


def price_of(gpu: str) -> Price | None:
    return catalog().prices.get(gpu)


def price_words(gpu: str) -> str:
    """"Every cost on this page prices the H200 at $3.80 per GPU-hour (as of 2026; source: ...).": the price
    every cost on the page uses, with its date and source, or that there is none."""
    price, name = price_of(gpu), get_gpu(gpu).name
    if price is None:
        return f"The {name} has no price on record, so this page gives no cost."
    spread = "" if price.low == price.high else f", range {fmt.usd(price.low)}–{fmt.usd(price.high)}"
    return (f"Every cost on this page prices the {name} at {fmt.usd(price.typical)} per GPU-hour{spread} "
            f"(as of {price.as_of}; source: {price.source}).")


def kv_words(p: Plan) -> str:
    """The plan's KV precision in a sentence, with what it buys against BF16 and, for FP8, its caveat."""
    w, model = p.workload, get_model(p.model)
    per_token = kv_bytes_per_token(model, p.kv_dtype)
    if p.kv_dtype == BASELINE_KV:
        return f"The KV cache is held in {p.kv_dtype.upper()}: {fmt.bytes_(per_token)} a token."
    base = require(plan(dataclasses.replace(w, kv=BASELINE_KV)), f"{w.name} with {BASELINE_KV.upper()} KV")
    out = (f"The KV cache is held in {p.kv_dtype.upper()}, not {BASELINE_KV.upper()}: "
           f"{fmt.bytes_(per_token)} a token instead of {fmt.bytes_(kv_bytes_per_token(model, BASELINE_KV))}, "
           f"so a replica holds {fmt.count(p.max_batch)} sequences of {fmt.tokens(p.seq_len)} rather than "
           f"{fmt.count(base.max_batch)}")
    # What that does to the fleet is the serving model's to say (its answer, section 3), not the napkin's count.
    claim = catalog().claims[FP8_KV_CLAIM]
    return out + f". The caveat: {claim.text} ({claim.source}); the accuracy check on this model comes first."


def _cell(text: str) -> str:
    return text.replace("|", "\\|")  # a pipe in a source would split the table's row


def _claim_row(c: Claim) -> list[str]:
    figure = c.text or ("—" if c.low is None else fmt.span(c.low, c.high, c.unit))
    return ["Claim", c.key, _cell(figure), c.status, source_date(c.source), _cell(c.source)]


@cache
def model(slug: str) -> SimpleNamespace:
    d = design.model(slug, infeasible_ok=True)
    markdown = (DOCS_DIR / f"{slug}.md").read_text(encoding="utf-8")
    claims = catalog().claims
    keys = cited_claims(markdown)
    unknown = [k for k in keys if k not in claims]
    if unknown:
        raise design.DesignError(f"docs/designs/{slug}.md cites unknown claims: {', '.join(unknown)}")
    plans = [d.plan, *d.variants.values()] if d.feasible else []
    gpus = list(dict.fromkeys([d.workload.gpu, *(p.gpu for p in plans)]))
    rows = []
    for gpu in gpus:
        price = price_of(gpu)
        if price is not None:
            rows.append(["Price", get_gpu(gpu).name, f"{fmt.usd(price.typical)} per GPU-hour", "unverified",
                         price.as_of, _cell(price.source)])
    for gpu in gpus:  # the spec figures every plan rests on: memory and bandwidth, with where they come from
        g = get_gpu(gpu)
        where = "; ".join(dict.fromkeys(g.sources.get(k, "") for k in ("memory_bytes", "bandwidth_bytes_per_s")))
        rows.append(["Spec", g.name, f"{fmt.bytes_(g.memory_bytes)}, {fmt.bandwidth(g.bandwidth_bytes_per_s)}",
                     "checked", g.checked, _cell(where or "—")])
    m = get_model(d.workload.model)
    rows.append(["Spec", m.name, f"{fmt.billion(m.params)} parameters", "checked", m.checked, _cell(m.source)])
    fp8 = d.feasible and d.plan.kv_dtype == "fp8"
    if fp8 and FP8_KV_CLAIM not in keys:
        keys.append(FP8_KV_CLAIM)
    rows += [_claim_row(claims[k]) for k in keys]
    return SimpleNamespace(
        price_words=price_words(d.workload.gpu),
        kv_words=kv_words(d.plan) if d.feasible else "",
        claim_keys=keys,
        # In a frame whose cells break long addresses and keys anywhere (extra.css .reference-list): a source's
        # URL has no space to wrap at, and would widen the table past the column.
        references='<div class="reference-list" markdown="1">\n\n'
        + table(["Kind", "What", "Figure", "Status", "Dated", "Source"], rows, align="llllll") + "\n\n</div>",
    )
