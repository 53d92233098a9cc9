"""The "Model against measurement" page model (macros/site/pages/model_vs_measured.py) on a tiny fabricated
calibration whose every figure is derived by hand below, and the page as built from the real one."""

from __future__ import annotations

import dataclasses
import math
import re
from pathlib import Path

import pytest

from macros.engine.calibration import report as v
from macros.engine.calibration.measured import Run
from macros.engine.serving.calibration import calibration
from macros.site.assumptions import PREFIX
from macros.site.pages import model_vs_measured as page

# Two series of GPT-OSS-120B under vLLM at concurrency 4 and 64: A on one B200, B on eight H100s.
#            measured (TPOT s, TTFT s, out/s/GPU, p99 s)   cv (the same order)            floor (TPOT, TTFT, out)
ROWS = {
    "A4": ("b200", 1, 4, (0.010, 0.100, 400, 0.012), (0.0105, 0.120, 380, 0.0125), (0.002, 0.010, 2000)),
    "A64": ("b200", 1, 64, (0.020, 0.400, 3200, 0.030), (0.024, 0.300, 2600, 0.033), (0.010, 0.010, 6400)),
    "B4": ("h100", 8, 4, (0.005, 0.050, 100, 0.006), (0.0051, 0.060, 98, 0.0062), (0.0005, 0.002, 1000)),
    "B64": ("h100", 8, 64, (0.010, 0.200, 800, 0.015), (0.0096, 0.500, 840, 0.016), (0.004, 0.002, 2000)),
}


def _row(name: str, gpu: str, tp: int, c: int, measured: tuple, cv: tuple, floor: tuple) -> v.Checked:
    run = Run(id=name, series=f"{gpu}/tp{tp}", gpu=gpu, model="gpt-oss-120b", engine="vllm", weights="mxfp4", tp=tp,
              ep=1, layout="tp", isl=1024, osl=1024, concurrency=c, median_tpot_s=measured[0],
              median_ttft_s=measured[1], output_tokens_per_s_per_gpu=measured[2], p99_tpot_s=measured[3],
              p99_ttft_s=measured[1], excluded="")
    predicted = dict(zip(v.PREDICTED, cv, strict=True))
    return v.Checked(run, predicted, predicted, v.Floors(*floor))


@pytest.fixture(scope="module")
def rows() -> list[v.Checked]:
    return [_row(name, *spec) for name, spec in ROWS.items()]


@pytest.fixture(scope="module")
def cal():
    real = calibration()
    # Two values at the edges of their bands: bandwidth at its upper 0.96, the hop latency at its lower 0.15 us.
    values = {**real.values, ("bw_fraction", "hopper"): 0.96, ("link_latency_s", "hopper"): 0.15e-6}
    raw = {"data": {"date": "2026-01-01", "cross_validation": "each series left out"},
           "left_out": {"reason1": {"why": "disaggregated", "count": 3}}}
    return dataclasses.replace(real, values=values, raw=raw)


@pytest.fixture(scope="module")
def q(cal, rows):
    return page.model(cal, rows)


def test_targets_and_the_verdict(q):
    # cv / measured, TPOT: A4 1.05, A64 1.2, B4 1.02, B64 0.96: within 15 % three of four (75 %);
    # median |log| of (0.0198, 0.0408, 0.0488, 0.1823) = (0.0408 + 0.0488) / 2 = 0.0448 <= 0.05: met.
    # Tokens/s: 0.95, 0.8125, 0.98, 1.05: 75 %. TTFT: 1.2, 0.75, 1.2, 2.5: within 1.5x 75 % (< 80 %).
    # p99: 1.042, 1.1, 1.033, 1.067: all within 25 %. So 2 of 5 met.
    assert [t.met for t in q.targets] == [False, True, False, False, True]
    assert q.targets[1].cv == pytest.approx((math.log(1 / 0.96) + math.log(1.05)) / 2)
    assert q.verdict == ("meets 2 of the 5 targets; it misses median TPOT within ±15% (75% against ≥ 90% of runs); "
                         "output tokens/s per GPU within ±15% (75% against ≥ 90% of runs); median TTFT within a "
                         "factor of 1.5 (75% against ≥ 80% of runs)")
    # The floor / 0.4 on TPOT: 5, 25, 1.25, 10 ms against 10, 20, 5, 10: only B64 (ratio 1) within 15 %.
    assert q.planned["tpot_within_15pct"] == 0.25
    assert q.runs == 4 + 3 and q.fitted == 4 and q.series == 2 and q.gpus == "B200 (HGX), H100 SXM"


def test_the_weakest_gpu(q):
    # B200: 1.05 in, 1.2 out: 50 %, median |log| (0.0488 + 0.1823) / 2; H100 both in.
    assert (q.weakest.name, q.weakest.runs, q.weakest.share) == ("B200 (HGX)", 2, 0.5)
    assert q.weakest.error == pytest.approx((math.log(1.05) + math.log(1.2)) / 2)


def test_what_the_floor_leaves_out(q):
    # measured / floor TPOT: A4 5, A64 2, B4 10, B64 2.5. Concurrency 4: median(5, 10) = 7.5; 64: median(2, 2.5)
    # = 2.25. TP1 (A): median(5, 2) = 3.5; TP8 (B): median(10, 2.5) = 6.25. Overall (2.5 + 5) / 2 = 3.75.
    assert (q.low_c, q.high_c, q.tp_low, q.tp_high) == (4, 64, 1, 8)
    assert (q.floor_low, q.floor_high) == (pytest.approx(7.5), pytest.approx(2.25))
    assert (q.floor_tp_low, q.floor_tp_high) == (pytest.approx(3.5), pytest.approx(6.25))
    assert q.tpot_floor == pytest.approx(3.75)
    # TTFT measured / floor: 10, 40, 25, 100: median 32.5. Tokens/s floor / measured: 5, 2, 10, 2.5: 3.75.
    assert (q.ttft_floor, q.output_floor) == (pytest.approx(32.5), pytest.approx(3.75))
    # 7.5 > 2.25; 7.5 > 1 / 0.4 = 2.5 > 2.25; 6.25 > 3.5: every teaching claim holds on these figures.
    assert q.floor_shrinks.holds and q.eta_between.holds and q.floor_grows_with_tp.holds
    assert q.ttft_mostly_waiting.holds  # 32.5 > 2
    # The example is the run at concurrency 4 furthest from its floor: B4 (10x). Its fixed cost: GPT-OSS-120B's
    # 36 GQA layers at Hopper's per layer, or the host's work per step beside them if that is longer.
    values = calibration().values
    fixed = max(values[("step_overhead_s", "all")], 36 * values[("layer_overhead_s", "hopper")])
    assert (q.example.concurrency, q.example.ratio, q.example.floor) == (4, pytest.approx(10), 0.0005)
    assert q.example.fixed == pytest.approx(fixed) and q.fixed_exceeds_floor.holds == (fixed > 0.0005)


def test_a_reason_the_page_does_not_know_shows_without_a_meaning(cal, rows):
    raw = {**cal.raw, "left_out": {"reason1": {"why": "a new kind of run", "count": 2}}}
    q = page.model(dataclasses.replace(cal, raw=raw), rows)
    assert q.left_out_table.splitlines()[-1] == "| a new kind of run | 2 |  |"


def test_a_claim_breaks_when_the_figures_turn(cal, rows):
    # Swap the floors of each series' two runs: measured / floor is now A4 1, A64 10, B4 1.25, B64 20, so
    # median(1, 1.25) = 1.125 at concurrency 4 and median(10, 20) = 15 at 64: the gap no longer narrows.
    swapped = [dataclasses.replace(c, floor=rows[i ^ 1].floor) for i, c in enumerate(rows)]
    q = page.model(cal, swapped)
    assert not q.floor_shrinks.holds and not q.eta_between.holds
    # Give the TP8 runs the TP1 runs' floors: B4 0.005 / 0.002 = 2.5, B64 0.010 / 0.010 = 1, median 1.75, below
    # TP1's 3.5: the wider group is no longer the further from its floor.
    narrower = rows[:2] + [dataclasses.replace(c, floor=rows[i].floor) for i, c in enumerate(rows[2:])]
    assert not page.model(cal, narrower).floor_grows_with_tp.holds


def test_residual_tables(q):
    # B200 row: 2 runs, TPOT 50 % within 15 %, tokens/s 0.95 in and 0.8125 out: 50 %, TTFT 1.2 and 0.75: 100 %,
    # measured / floor median(5, 2) = 3.5x.
    b200 = next(line for line in q.gpu_table.splitlines() if line.startswith("| B200"))
    cells = [c.strip() for c in b200.strip("|").split("|")]
    assert cells[:3] == ["B200 (HGX)", "2", "50%"] and cells[4:] == ["50%", "100%", "3.5×"]
    assert "| TP8 | 2 | 100% |" in q.tp_table
    assert "| 64 | 2 | 50% |" in q.concurrency_table  # A64 out, B64 in


def test_parameters_and_left_out(q):
    assert "NVIDIA Hopper: 0.96 (at its upper bound)" in q.parameters_table
    assert "NVIDIA Hopper: 150 ns (at its lower bound)" in q.parameters_table
    # Each parameter shows its prior, its band and where they come from.
    assert "0.85, in 0.65 to 0.96: copy kernels read" in q.parameters_table
    # A reason the page knows gets its meaning; the runs left out add to the runs in all (4 + 3 = 7).
    assert q.left_out_table.splitlines()[-1].startswith("| disaggregated | 3 | prefill and decode on separate pools")
    assert q.runs == 7


def test_the_stalled_runs_are_counted_with_their_waits_and_shares():
    from macros.engine.calibration.measured import runs
    from macros.site.pages.model_vs_measured import stalled_runs

    fitted = [r for r in runs() if not r.excluded]
    s = stalled_runs(fitted)
    mine = [r for r in fitted if r.p99_ttft_s > 20 * r.median_ttft_s
            and r.output_tokens_per_s_per_gpu < 0.9 * r.little_output_per_gpu]
    assert s.count == len(mine) > 0
    assert s.p99_ttft_s == (min(r.p99_ttft_s for r in mine), max(r.p99_ttft_s for r in mine))
    assert s.share[1] < 0.9 and stalled_runs([]).count == 0


def test_the_worst_misses_are_named(cal, rows, monkeypatch: pytest.MonkeyPatch):
    # One per figure: TPOT A64 (|log 1.2| = 0.182, the largest), TTFT B64 (2.5), tokens/s A64 (0.8125).
    # All vLLM; 2 of the 3 on the B200; 2 series; all at concurrency 64, above each series' middle (34).
    monkeypatch.setattr(page, "WORST_PER_METRIC", 1)
    q = page.model(cal, rows)
    assert q.worst_pattern == ("of these 3, all run on vLLM and 2 on the B200 (HGX); they come from 2 series, "
                               "and all sit at or above the middle concurrency of their series")
    ratios = re.findall(r"\| ([\d.]+)× \|$", q.worst_table, re.M)
    assert ratios == ["1.2", "2.5", "0.81"]


def _text(site: Path) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", (site / "model-vs-measured" / "index.html").read_text()))


def test_the_page_builds_with_its_figures(built_site: Path):
    q, text = page.model(), _text(built_site)
    assert q.verdict in text and PREFIX not in text
    assert f"{q.fitted} measured runs" in text
    assert (built_site / "model-vs-measured" / "index.html").read_text().count('class="drawing') >= 3
    assert "model-vs-measured/" in (built_site / "reality-check" / "index.html").read_text()


def test_what_the_data_pin_sorts_every_fitted_value_by_its_error():
    # Every fitted value (not those held at their priors) has an error in the file, and falls in exactly one
    # of three groups by the page's thresholds: pinned below 10 %, left to the prior at 100 % or more.
    from macros.engine.serving.calibration import calibration, fitted_slots
    from macros.site.pages._identification import identification

    cal = calibration()
    got = identification(cal)
    errors = {k: v for k, v in cal.raw["identification"].items() if k != "method"}
    assert sorted(errors) == sorted(f"{n} {k}" for n, k in fitted_slots())
    assert len(got.pinned) == sum(e < 0.1 for e in errors.values())
    assert len(got.unpinned) == sum(e >= 1 for e in errors.values())
    assert got.pairs == len(cal.raw.get("identification_pair", []))
    assert all(abs(p["correlation"]) >= got.strong for p in cal.raw.get("identification_pair", []))


def test_every_value_at_an_edge_says_what_it_means_and_a_new_edge_fails_until_it_does():
    # The committed fit: each value calibrate lists at an edge has its sentence, and the page shows the edge
    # the value sits on (recomputed from the value and its band, not copied from the list).
    from macros.site.pages import _edge_findings

    cal = calibration()
    got = _edge_findings.findings(cal)
    assert [e for e, _, _ in got] == cal.raw["edges"]["at_edge"]
    assert all(side in ("lower", "upper") and says for _, side, says in got)
    # A refit that moved the Blackwell family's GEMM fraction to an edge, with no sentence for it, stops the page.
    raw = {**cal.raw, "edges": {"at_edge": [*cal.raw["edges"]["at_edge"], "gemm_fraction blackwell"]}}
    with pytest.raises(KeyError, match="gemm_fraction blackwell"):
        _edge_findings.findings(dataclasses.replace(cal, raw=raw))
    # No sentence is kept for a value that is no longer at an edge: the list says only what this fit found.
    assert set(_edge_findings.FINDINGS) == set(cal.raw["edges"]["at_edge"])
