"""The reference pages (numbers sheet, KV tables, calculator, reality check) follow the data: a GPU
and a model added to the TOML files get their rows, their roofline and their KV entries with no page
edited; the cells a reader checks match values derived by hand; the new formulas and the
measurement data behave."""

from __future__ import annotations

import html.parser
import re
import shutil
from pathlib import Path

import pytest
from conftest import ROOT, build_site, copy_project

from macros.engine import formulas as f
from macros.engine.model import measurements as meas
from macros.engine.model import scenario as scen
from macros.engine.specs import SpecError, catalog

NEW_GPU = """
[x1000]
name = "Test X1000"
memory = "100 GB"
memory_bytes = 100e9
bandwidth_bytes_per_s = 5e12
bf16_flops = 1000e12
interconnect = "test link"
interconnect_bytes_per_s = 1e12
checked = "2026-11-29"
[x1000.sources]
memory_bytes = "test datasheet"
bandwidth_bytes_per_s = "test datasheet"
bf16_flops = "test datasheet"
"""
NEW_MODEL = """
[test-13b]
name = "Test-13B"
params = 13e9
layers = 40
query_heads = 40
kv_heads = 10
head_dim = 128
max_context = 16384
source = "test config"
checked = "2026-11-29"
"""


class Tables(html.parser.HTMLParser):
    """Every table of a page as a list of rows, each row a list of cell texts."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[list[list[str]]] = []
        self._row: list[str] | None = None
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self._row.append(re.sub(r"\s+", " ", "".join(self._cell)).strip())
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.tables[-1].append(self._row)
            self._row = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def tables(site: Path, page: str) -> list[list[list[str]]]:
    parser = Tables()
    parser.feed((site / page / "index.html").read_text())
    return parser.tables


def rows(site: Path, page: str, first_cell: str, header_has: str = "") -> list[list[str]]:
    """The rows starting with `first_cell`, in tables whose header row mentions `header_has`."""
    return [row for t in tables(site, page) if header_has in " ".join(t[0])
            for row in t[1:] if row and row[0] == first_cell]


# --- the real site: cells against hand-derived values ------------------------------------------


def test_hardware_row_matches_the_datasheet(built_site: Path):
    # H100 SXM: 80e9 B, 3.35e12 B/s, 989.4e12 FLOP/s dense; balance 989.4 / 3.35 = 295.3 -> "295".
    (row,) = rows(built_site, "numbers", "H100 SXM", "balance")
    assert row[1:4] == ["80", "3.35", "989.4"] and row[-1] == "295"
    (a100,) = rows(built_site, "numbers", "A100 80GB SXM", "balance")
    assert a100[4] == "—"  # Ampere has no FP8
    (links,) = rows(built_site, "numbers", "H100 SXM", "each way")
    assert links[2] == "450 GB/s"  # NVLink 4's 900 GB/s is both directions added


def test_70b_anchors_match_the_hand_derivation(built_site: Path):
    # 4 x 80 GB - 140 GB - 4 x 4 GB = 164 GB; KV per sequence 327,680 B x 4,096 = 1.342 GB;
    # floor(164 / 1.342) = 122; step (140 + 122 x 1.342) GB / (4 x 3.35 TB/s) = 303.7 / 13.4 = 22.7 ms.
    # One column per group (1, 2, 4, 8 GPUs), one row per figure.
    def cells(label: str) -> list[str]:
        (row,) = rows(built_site, "numbers", label, "4 × H100 SXM")
        return row[1:]
    groups = [t for t in tables(built_site, "numbers") if "4 × H100 SXM" in t[0]][0][0]
    assert groups == ["", "1 × H100 SXM", "2 × H100 SXM", "4 × H100 SXM", "8 × H100 SXM"]
    assert cells("KV budget")[2] == "164 GB" and cells("max batch")[2] == "122"
    assert cells("step, max batch")[2] == "22.7 ms"
    # One H100: 80 - 140 - 4 = -64 GB, nothing fits.
    assert cells("KV budget")[0] == "−64 GB" and cells("max batch")[0] == "does not fit"


def test_kv_cells_match_the_hand_derivation(built_site: Path):
    # Llama-70B: 2 x 80 x 8 x 128 x 2 B = 327,680 B per token; FP8 half of it; MHA has 64 KV heads: 8x.
    (row,) = rows(built_site, "kv-tables", "Llama-70B (napkin preset)", "B/token")
    assert row[5:] == ["327,680", "163,840", "2,621,440", "8×"]
    # DeepSeek-V3 MLA: 61 x (512 + 64) x 2 B = 70,272 B (no factor of two).
    (mla,) = rows(built_site, "kv-tables", "DeepSeek-V3", "B/token")
    assert mla[5] == "70,272"
    # Mistral-7B v0.1: window of 4,096 on every layer, so 131,072 B x 4,096 = 537 MB at any length;
    # its max context is 32,768, so 131,072 tokens is beyond it.
    bf16_per_seq = [t for t in tables(built_site, "kv-tables") if "max context" in " ".join(t[0])][0]
    (mistral,) = [r for r in bf16_per_seq if r[0] == "Mistral-7B v0.1"]
    assert mistral[2:] == ["537 MB", "537 MB", "537 MB", "beyond max context"]
    # Gemma-2-27B at 8,192: 8,192 B per layer x (23 x 8,192 + 23 x 4,096) = 2.32 GB.
    (gemma,) = [r for r in bf16_per_seq if r[0] == "Gemma-2-27B"]
    assert gemma[3] == "2.32 GB"


def test_capacity_and_reality_cells(built_site: Path):
    capacity = [t for t in tables(built_site, "kv-tables") if t[0][1:] == ["1 GPU", "2 GPUs", "4 GPUs", "8 GPUs"]]
    h100 = capacity[list(catalog().gpus).index("h100")]
    assert [r for r in h100 if r[0] == "Llama-70B (napkin preset)"][0][1:] == ["does not fit", "8", "122", "348"]
    # vLLM CI, 4 x H200, batch 8, 32 in, 128 out: step (141.107 + 8 x 327,680 x 96 / 1e9) GB / 19.2 TB/s
    # = 7.362 ms; prefill of 256 tokens 2 x 70.55e9 x 256 / (4 x 989.4e12) = 9.13 ms (compute-bound);
    # floor 9.13 + 128 x 7.362 = 951.5 ms; 2,077.53 / 951.5 = 2.18 -> "2.2×".
    row = [r for t in tables(built_site, "reality-check") for r in t if r and r[0].startswith("vLLM nightly")][0]
    assert "BF16, 4 × H200 SXM, batch 8" in row[0] and row[1] == "end-to-end latency"
    assert row[2:5] == ["2,080 ms", "952 ms", "2.2×"]


def test_efficiency_default_lies_within_the_measured_throughput_runs():
    # The reality-check page says the default sits near the best throughput run, above their median.
    from macros.engine.model.scenario import DEFAULT_EFFICIENCY

    runs = meas.efficiencies("throughput")
    assert sorted(runs)[len(runs) // 2] < DEFAULT_EFFICIENCY <= max(runs) * 1.05


# --- a GPU and a model added to the data -----------------------------------------------------


@pytest.fixture(scope="module")
def extended(tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = copy_project(tmp_path_factory.mktemp("extended") / "project")
    docs_before = {p.relative_to(project): p.read_bytes() for p in (project / "docs").rglob("*.md")}
    for name, text in (("gpus.toml", NEW_GPU), ("models.toml", NEW_MODEL)):
        path = project / "macros" / "data" / name
        path.write_text(path.read_text() + text)
    site = project.parent / "site"
    # The roofline variant is placed; rendering is tested elsewhere.
    result = build_site(project, site, {"DRAWINGS": "off"})
    assert result.returncode == 0, f"build failed:\n{result.stdout}\n{result.stderr}"
    assert {p.relative_to(project): p.read_bytes() for p in (project / "docs").rglob("*.md")} == docs_before
    return site


def test_new_gpu_gets_its_rows_and_its_roofline(extended: Path):
    # X1000: balance 1,000e12 / 5e12 = 200 FLOP/B; no FP8, no TDP, no price.
    (row,) = rows(extended, "numbers", "Test X1000", "balance")
    assert row[1:5] == ["100", "5", "1,000", "—"] and row[-1] == "200"
    (links,) = rows(extended, "numbers", "Test X1000", "interconnect")
    assert links[-2:] == ["—", "—"]
    chart = extended / "assets" / "drawings" / "roofline-x1000.svg"
    assert chart.is_file() and b"<svg" in chart.read_bytes()[:400]
    assert "roofline-x1000.svg" in (extended / "numbers" / "index.html").read_text()


def test_new_model_gets_its_kv_entries(extended: Path):
    # Test-13B: 2 x 40 x 10 x 128 x 2 B = 204,800 B per token; MHA 40 heads: 4x.
    (row,) = rows(extended, "kv-tables", "Test-13B", "B/token")
    assert row[5:] == ["204,800", "102,400", "819,200", "4×"]
    # Per sequence: 204,800 x 4,096 = 838.9 MB; x 8,192 = 1.68 GB; max context 16,384, so 32k is beyond.
    per_seq = [r for t in tables(extended, "kv-tables") if "max context" in " ".join(t[0]) for r in t]
    assert [r for r in per_seq if r[0] == "Test-13B"][0][2:] == ["839 MB", "1.68 GB", "beyond max context",
                                                               "beyond max context"]
    # On the X1000 (13e9 x 2 B = 26 GB of weights, 838,860,800 B per sequence):
    # 1 GPU (100 - 26 - 4) GB = 70 GB -> 83.4; 2: 166 GB -> 197.9; 4: 358 GB -> 426.8; 8: 742 GB -> 884.5.
    capacity = [t for t in tables(extended, "kv-tables") if t[0][1:] == ["1 GPU", "2 GPUs", "4 GPUs", "8 GPUs"]]
    assert ["Test-13B", "83", "197", "426", "884"] in capacity[-1]
    # ... and a row in the calculator's headline table.
    assert rows(extended, "calculator", "Test-13B", "group")


# --- the new formulas, against hand-derived values ---------------------------------------------


def test_kv_overtakes_weights_batch():
    # 140e9 B of weights / 1,342,177,280 B per sequence = 104.3 sequences.
    assert f.kv_overtakes_weights_batch(140e9, 327_680 * 4096) == pytest.approx(104.31, abs=0.01)


def test_attainable_flops_is_the_roofline():
    import numpy as np

    # H100: 1 FLOP/B x 3.35e12 B/s = 3.35e12 on the slope; 1,000 FLOP/B is past the 295 ridge: the ceiling.
    assert f.attainable_flops(1, 989.4e12, 3.35e12) == pytest.approx(3.35e12)
    assert f.attainable_flops(1000, 989.4e12, 3.35e12) == pytest.approx(989.4e12)
    out = f.attainable_flops(np.array([1.0, 1000.0]), 989.4e12, 3.35e12)
    assert out.tolist() == pytest.approx([3.35e12, 989.4e12])


def test_compute_ceiling_tokens_per_s():
    # 8 x 2,614.9e12 FLOP/s / (2 x 68,976,648,192 FLOP per token) = 151,640 tokens/s.
    assert f.compute_ceiling_tokens_per_s(68_976_648_192, 8, 2614.9e12) == pytest.approx(151_640, rel=1e-4)


def test_run_tokens_per_s():
    # 8 requests x 128 tokens / (0.5 s prefill + 128 x 0.01 s) = 1,024 / 1.78 = 575.3 tokens/s.
    assert f.run_tokens_per_s(8, 128, 0.5, 0.01) == pytest.approx(575.28, abs=0.01)


# --- the measurement data ---------------------------------------------------------------------


def test_nim_floor_matches_the_reference_notes():
    # seed-errata section 6: 70.55 GB of FP8 weights / (2 x 3.35 TB/s) = 10.5 ms; measured 18.58 ms: 57%.
    c = meas.compare(meas.measurements()["nim-c1-long-prompt-itl"])
    assert c.modelled == pytest.approx(10.66e-3, rel=0.01)  # 10.53 ms of weights + 5,250 tokens of FP8 KV
    assert c.efficiency == pytest.approx(0.574, abs=0.005)


def test_a_batch_beyond_the_kv_budget_is_reported_not_hidden():
    c = meas.compare(meas.measurements()["nim-c100-itl"])
    assert c.kind == "does not fit" and c.max_batch < 100 and c.time_ratio is None


def test_a_bad_measurement_fails_in_one_line(tmp_path: Path):
    path = tmp_path / "measurements.toml"
    good = (ROOT / "macros" / "data" / "measurements.toml").read_text()
    path.write_text(good.replace('gpu = "h200"', 'gpu = "h300"', 1))
    with pytest.raises(SpecError, match=r"\[vllm-ci-h200-tp4\] gpu: 'h300' is not a key"):
        meas.load_measurements(path)
    shutil.copy(ROOT / "macros" / "data" / "measurements.toml", path)
    path.write_text(good.replace('metric = "e2e"', 'metric = "latency"', 1))
    with pytest.raises(SpecError, match="metric: 'latency' is not one of"):
        meas.load_measurements(path)
    # a throughput with only one of the two lengths cannot price its prefill
    path.write_text(good.replace('value = 33928.1', 'value = 33928.1\ninput_tokens = 1000', 1))
    with pytest.raises(SpecError, match=r"\[mlperf-v50-mi325x-offline\] input_tokens: give input_tokens and"):
        meas.load_measurements(path)


def test_compute_ceiling_of_a_run_counts_prefill():
    # Requests of 1,000 tokens in and 250 out on the 70B (N_a = 70e9, no attention term here):
    # 2 x 70e9 x 1,250 = 1.75e14 FLOP buy 250 tokens, 7e11 FLOP each = 2 x 70e9 x (1 + 1,000 / 250).
    # 8 x 989.4e12 x 250 / 1.75e14 = 11,307 tokens/s, a fifth of the decode-only 8 x 989.4e12 / 1.4e11 = 56,537.
    assert f.compute_ceiling_run_tokens_per_s(1.75e14, 250, 8, 989.4e12) == pytest.approx(11_307, rel=1e-4)
    assert f.compute_ceiling_tokens_per_s(70e9, 8, 989.4e12) == pytest.approx(56_537, rel=1e-4)


def test_a_ceiling_with_lengths_includes_prefill_and_attention():
    # The MI325X Offline result with lengths added (hypothetical: its summary has none): 1,000 in, 250 out on
    # Llama-2-70B (L = 80, H_q = 64, d_h = 128). Per request: 2 x N_a x 1,250 plus causal attention
    # 2 x 80 x 64 x 128 x 1,250 x 1,251 = 2.0495e12 FLOP; per output token that over 250.
    from dataclasses import replace

    base = meas.measurements()["mlperf-v50-mi325x-offline"]
    without = meas.compare(base)
    m = replace(base, input_tokens=1000, output_tokens=250)
    with_lengths = meas.compare(m)
    active = scen.get_model("llama-2-70b").active
    per_output = (2 * active * 1250 + 2 * 80 * 64 * 128 * 1250 * 1251) / 250
    assert meas.flops_per_output_token(m) == pytest.approx(per_output)
    assert with_lengths.modelled == pytest.approx(8 * without.peak_flops / per_output)
    assert without.modelled == pytest.approx(8 * without.peak_flops / (2 * active))
    # prefill makes each output token cost (1 + 1,000 / 250) = 5 times the decode FLOPs, and a bit more
    assert 5 < without.modelled / with_lengths.modelled < 5.1
