"""The code-completion design's page model (macros/site/pages/design_code_completion.py) against hand
derivations from its inputs: 60,000 developers x 0.2 keystrokes/s = 12,000 keystrokes/s; a 75 ms
debounce over 250 ms mean gaps sends exp(-0.3) = 74.08% of them, 8,889.8 requests/s; the 250 ms budget
less 50 ms of network and 80 ms of TTFT leaves 120 ms for the mean completion's 15 later tokens, 8 ms
each; a keystroke within 250 ms cancels 1 - 1/e = 63.21% of sent requests, which stop halfway, so a
sent request decodes 16 x (1 - 0.6321 / 2) = 10.94 tokens. Llama-3.1-8B's KV: 2 x 32 layers x 8 heads
x 128 dims x 2 B = 131,072 B per token."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import pytest

from macros.site.pages import design, design_code_completion as page

FILE = design.DESIGNS_DIR / "code-completion.toml"
E = math.exp(-0.3)
CANCELLED = 1 - math.exp(-1)


@pytest.fixture(scope="module")
def x():
    return page.model()


def test_keystrokes_become_requests_and_cancels(x):
    assert x.t.triggers_per_s == pytest.approx(12_000)
    assert x.t.sent_per_s == pytest.approx(12_000 * E)
    assert x.suppressed_share == pytest.approx(1 - E)
    assert x.t.tpot_s == pytest.approx(0.008)
    assert x.t.cancelled_share == pytest.approx(CANCELLED)
    assert x.t.completed_per_s == pytest.approx(12_000 * E * math.exp(-1))
    assert x.t.decoded_tokens == pytest.approx(16 * (1 - CANCELLED / 2))


def test_the_file_agrees_with_its_inputs_and_a_disagreeing_file_is_refused(tmp_path: Path):
    page.check_file(FILE)  # the shipped file: no error
    bad = tmp_path / "code-completion.toml"
    shutil.copy(FILE, bad)
    bad.write_text(bad.read_text().replace("peak_requests_per_s = 8_890", "peak_requests_per_s = 9_500", 1))
    with pytest.raises(design.DesignError, match="peak_requests_per_s is 9500 but"):
        page.check_file(bad)
    # a variant whose overrides no longer match its inputs: the lost cancel decodes all 16 tokens, not 11
    bad.write_text(FILE.read_text().replace("output_tokens = 16\n", "output_tokens = 11\n", 1))
    with pytest.raises(design.DesignError, match=r"\[variants.cancel-lost\]: output_tokens is 11"):
        page.check_file(bad)


def test_variants_follow_from_their_inputs():
    w, variants, _ = page.check_file(FILE)
    assert variants["no-debounce"].peak_requests_per_s == pytest.approx(12_000)
    assert variants["cancel-lost"].output_tokens == 16
    # sized for 48 tokens: 120 ms / 47 = 2.553 ms; the mean completion then lands in 50 + 80 + 15 x 2.553
    # = 168.3 ms, cancelled 1 - exp(-0.6732) = 49.0%, decoding 16 x (1 - 0.490 / 2) = 12.08 tokens
    assert variants["p95-output"].tpot_s == pytest.approx(0.12 / 47, rel=1e-6)
    latency = 0.05 + 0.08 + 15 * 0.12 / 47
    assert variants["p95-output"].output_tokens == round(16 * (1 - (1 - math.exp(-latency / 0.25)) / 2))


def test_the_plan_inside_the_budget(x):
    p = x.p
    assert x.mean_total_s == pytest.approx(0.05 + p.planned_prefill_s + 15 * p.planned_step_s)
    assert x.p95_plain_s == pytest.approx(0.05 + p.planned_prefill_s + 47 * p.planned_step_s)
    assert x.p95_plain_s > 0.25  # the p95 completion misses the budget without speculation


def test_speculation_on_the_replica(x):
    p = x.p
    # at batch 67 the verify step of 5 tokens a sequence stays memory-bound: it costs what a plain step does
    assert x.spec_verify_ratio == pytest.approx(1.0)
    assert x.spec_tokens_per_step == pytest.approx(2.3056)
    assert x.per_token_spec_s == pytest.approx(p.planned_step_s / 2.3056)
    assert x.p95_spec_s == pytest.approx(0.05 + p.planned_prefill_s + 47 * p.planned_step_s / 2.3056)
    assert x.p95_novel_s == pytest.approx(0.05 + p.planned_prefill_s + 47 * p.planned_step_s / 1.4251)
    assert x.p95_spec_s < 0.25 < x.p95_novel_s


def test_work_spent_on_cancelled_requests(x):
    p = x.p
    prefill = 12_000 * E * p.planned_prefill_s  # replicas busy prefilling
    decode = 12_000 * E * 16 * CANCELLED * 0.5 / p.decode_tokens_per_s_per_replica  # cancelled tokens
    assert x.wasted_replica_share == pytest.approx((CANCELLED * prefill + decode) / p.replica_seconds_per_s,
                                                   rel=1e-3)
    assert x.wasted_gpus == pytest.approx(x.wasted_replica_share * p.gpus)


def test_debounce_and_prefix_cache_figures(x):
    p = x.p
    assert x.eager_sent_share == pytest.approx(math.exp(-0.04))
    assert x.eager.peak_requests_per_s == pytest.approx(12_000 * math.exp(-0.04))
    assert x.debounce_gpus == x.no_debounce.gpus - p.gpus > 0
    assert x.kv_per_token == pytest.approx(131_072)
    assert x.cached_prompts_per_replica == pytest.approx((p.max_batch - p.slo_batch) * 1511 / 1500)
    assert x.developers_per_replica == pytest.approx(60_000 / p.replicas)
    assert x.prefill_tokens_per_s == pytest.approx(12_000 * E * 300, rel=1e-3)


def test_shapes_are_priced_on_the_planner(x):
    # one GPU per replica needs more GPUs than two: the TPOT target caps its batch far lower
    assert x.one_gpu.gpus > x.p.gpus >= x.cheapest.gpus
    assert x.cheapest_saving_share == pytest.approx((x.p.gpus - x.cheapest.gpus) / x.p.gpus)
    assert x.cheapest_allreduce_share > x.allreduce_share > 0
    assert f"| {x.p.slo_batch} |" in x.shape_table
