"""The errata page's quotations of the source and the checks on its diagnoses (docs/errata.md).

A quotation is the source's own words (data/source_quotes.toml), never recomputed: a spec change
must not put new numbers in the source's mouth. A diagnosis ("the source divided by one GPU's
bandwidth", "1.25 is the size in GiB") is an assumption about today's data: it holds only while
redoing the source's arithmetic the way the page says it was done reproduces the source's printed
figure, to the digits it printed. When the data moves so that it no longer does, the row's reason is
reported (macros/site/assumptions.py) rather than left standing beside figures that contradict it."""

from __future__ import annotations

import tomllib
from functools import cache
from types import SimpleNamespace
from typing import Any

from ...engine.specs import DATA_DIR, catalog
from ...text import fmt
from ..assumptions import Assumption, assume
from ._shared import GIB, orders_of_magnitude

QUOTES = DATA_DIR / "source_quotes.toml"
KIB, MIB = 2**10, 2**20


@cache
def source_quotes() -> SimpleNamespace:
    """Each quotation's text, by key (where each comes from is in the data file)."""
    with QUOTES.open("rb") as file:
        table = tomllib.load(file)
    bad = [key for key, entry in table.items() if not (isinstance(entry, dict) and isinstance(entry.get("text"), str)
                                                      and isinstance(entry.get("where"), str))]
    if bad:
        raise ValueError(f"{QUOTES.name}: [{bad[0]}] needs a text and a where, both strings")
    return SimpleNamespace(**{key: entry["text"] for key, entry in table.items()})


def reproduces(value: float, printed: float, last_digit: float) -> bool:
    """Whether `value` is `printed` to the digits the source printed: within half its last digit."""
    return abs(value - printed) <= last_digit / 2 * (1 + 1e-9)


def _redo(name: str, value: str, printed: str, holds: bool, rewrite: str) -> Assumption:
    return assume(holds, f"{name}: {value} today, the source printed {printed}", rewrite)


def diagnoses(q: dict[str, Any], src: SimpleNamespace) -> SimpleNamespace:
    """The page's diagnoses as assumptions, from the errata model's figures `q` (the source's setup on
    today's data) and the source's printed figures `src` (errata.SOURCE_FIGURES)."""
    s, gpu = q["anchor"], q["gpu"]
    claims = catalog().claims
    sparse = gpu.bf16_sparse_flops
    compute_sparse = q["flops_one_token"] / sparse
    prefill_sparse = q["prompt_flops"] / sparse
    # The source's GPU figures are its own (its H100 at 3.35 TB/s): a spec change leaves its method as it was.
    seed_floor = src.step_bytes / src.bandwidth  # its 304 "GB" over ONE GPU's bandwidth
    weights_one_gpu = s.weight_bytes / src.bandwidth  # today's weights, the source's GPU
    compute_one_gpu = q["flops_one_token"] / src.bf16_flops
    mixed = int(src.kv_budget_bytes // (s.kv_bytes_per_seq / GIB * 1e9))  # its 164 GB over the size in GiB
    units = "the source's figure is no longer this binary size with a decimal label: say what it is instead"
    per_user_ratio = s.decode_tokens_per_s_per_user / src.per_user
    half = all(0.4 <= q[k] <= 0.6 for k in ("kv_long_share_of_gpu", "kv_long_share_of_visible"))
    slowest = s.decode_tokens_per_s_per_user / claims["floor-to-measured"].high
    checks = SimpleNamespace(
        sparse_bf16=_redo("the with-sparsity BF16 peak halved", fmt.flops_rate(sparse / 2), "989.5 TFLOP/s",
                          reproduces(sparse / 2, src.bf16_flops, 0.1e12),
                          "the halved sparse rate no longer gives the source's figure: drop that explanation"),
        sparse_compute=_redo("one token's compute at the with-sparsity peak", fmt.ms(compute_sparse, 4), "0.07 ms",
                             reproduces(compute_sparse, src.compute_s, 0.01e-3),
                             "the sparse rate no longer explains the source's time: find what does"),
        sparse_prefill=_redo(f"a {q['prompt_tokens']:,}-token prefill on one GPU at the with-sparsity peak",
                             fmt.ms(prefill_sparse), "141 ms", reproduces(prefill_sparse, src.prefill_s, 1e-3),
                             "the sparse rate no longer explains the source's prefill time: find what does"),
        # "..., not a thousandfold": the source's "three orders of magnitude" is still an overstatement
        orders=assume(q["memory_over_compute_one_gpu"] < 10**2.75,
                      f"memory time over compute time at batch 1: {fmt.times(q['memory_over_compute_one_gpu'])}",
                      "the ratio is now about a thousandfold, as the source said: the row is no longer an erratum"),
        rounding=assume(fmt.num(q["prompt_over_balance"], 2) != "6.7",
                        f"{q['prompt_tokens']:,} over the machine balance: {fmt.num(q['prompt_over_balance'])}",
                        "it now rounds to the source's 6.7: the row is no longer an erratum"),
        kv_token=_redo("KV per token", f"{fmt.count(s.kv_bytes_per_token)} B ({fmt.num(s.kv_bytes_per_token / KIB)} "
                       "KiB)", "327,680 bytes = 320 KB", s.kv_bytes_per_token == 327_680, units),
        kv_seq=_redo("KV per 4,096-token sequence", fmt.binary(s.kv_bytes_per_seq), "1.25 GB",
                     reproduces(s.kv_bytes_per_seq / GIB, src.kv_seq_bytes / 1e9, 0.01), units),
        kv_long=_redo("KV of a 128k-token conversation", fmt.binary(q["kv_long"]), "39 GB",
                      reproduces(q["kv_long"] / GIB, src.kv_long_bytes / 1e9, 1), units),
        # '"Half an H100" still holds': the words follow the share of today's GPU, marketed and visible
        half_h100_row='"Half an H100" still holds, roughly.' if half else "It is no longer half an H100.",
        half_h100_section='"Half an H100" survives either way' if half else '"Half an H100" no longer holds',
        mha=_redo("multi-head KV per token", fmt.binary(q["mha_kv_per_token"]), "2.5 MB, 8× GQA",
                  reproduces(q["mha_kv_per_token"] / MIB, src.mha_token_bytes / 1e6, 0.1)
                  and q["mha_over_gqa"] == 8, units),
        mha_seq=_redo("multi-head KV per 4,096-token sequence", fmt.binary(q["mha_kv_per_seq"]), "10 GB",
                      reproduces(q["mha_kv_per_seq"] / GIB, src.mha_seq_bytes / 1e9, 1), units),
        mixed_units=_redo("the source's 164 GB over the per-sequence size in GiB", f"{mixed} sequences", "131",
                          mixed == src.max_batch, "the source's batch no longer comes from mixing units: find how"),
        one_gpu=_redo(f"the source's 304 GB over ONE GPU's {fmt.bandwidth(src.bandwidth)}", fmt.ms(seed_floor), "91 ms",
                      reproduces(seed_floor, src.floor_s, 1e-3),
                      "dividing by one GPU's bandwidth no longer gives the source's floor: find what does"),
        # "The source's per-user rate was a quarter of the floor's": the group size, while the data is the source's
        per_user_share="a quarter of" if s.gpus == 4 and reproduces(per_user_ratio, 4, 0.2) else
        f"{fmt.pct(1 / per_user_ratio, 2)} of",
        above_reading=assume(slowest > claims["reading-speed"].high,
                             f"per user at the floor {fmt.tokens_per_s(s.decode_tokens_per_s_per_user)}, "
                             f"{fmt.tokens_per_s(slowest)} when {claims['floor-to-measured'].high:g}× slower; "
                             f"reading speed up to {claims['reading-speed'].high:g} tokens/s",
                             "the rate no longer stays above reading speed when measured: rewrite the sanity check"),
        swap_faster=assume(q["swap_round_trip_s"] < s.prefill_s,
                           f"one {s.seq_len:,}-token sequence: swap out and back {fmt.ms(q['swap_round_trip_s'])}, "
                           f"recompute {fmt.ms(s.prefill_s)}",
                           "recompute is now faster on the floor too: the source's claim holds there"),
        one_gpu_73=_redo(f"the weights over one GPU's {fmt.bandwidth(src.bandwidth)}, one token's compute at "
                         f"{fmt.flops_rate(src.bf16_flops)}",
                         f"{fmt.ms(weights_one_gpu)}, {fmt.ms(compute_one_gpu, 3)}",
                         "42 ms, 0.14 ms", reproduces(weights_one_gpu, src.weights_s, 1e-3)
                         and reproduces(compute_one_gpu, src.compute_73_s, 0.01e-3),
                         "the source's arithmetic no longer matches one GPU: say what it matches"),
        long_prompt=_redo("KV of a 100,000-token prompt", fmt.binary(q["long_prompt"].kv_bytes_per_seq), "31 GB",
                          reproduces(q["long_prompt"].kv_bytes_per_seq / GIB, src.kv_100k_bytes / 1e9, 1), units),
        a_fifth=('"A fifth" is right in decimal.' if 0.18 <= q["long_prompt_budget_share"] <= 0.22
                 else "It is no longer a fifth of the budget."),
        orders_words=orders_of_magnitude(q["memory_over_compute_one_gpu"]),
    )
    # "All three are binary values written with decimal labels": per token, per sequence, a long conversation
    three = (checks.kv_token, checks.kv_seq, checks.kv_long)
    checks.three_sizes = both(*three)
    checks.both_seq = both(checks.mha_seq, checks.kv_seq)  # "both are GiB figures with GB labels"
    checks.sparse_times = both(checks.sparse_compute, checks.sparse_prefill)  # "two of the source's times"
    return checks


def both(*facts: Assumption) -> Assumption:
    """One sentence resting on several facts: it holds while all do, and shows the evidence of each."""
    return assume(all(a.holds for a in facts), "; ".join(a.evidence for a in facts),
                  next((a.rewrite for a in facts if not a.holds), facts[0].rewrite))
