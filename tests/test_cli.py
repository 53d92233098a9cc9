"""gpu_math.py's command line: human output, --json, --list, and every error path (main() in this process, conftest's
gpu_math; the first test starts the script as a user does)."""

from __future__ import annotations

import json
import subprocess

import pytest
from conftest import ROOT, gpu_math

from macros.engine.model.scenario import JSON_KEYS


def run(*args: str, process: bool = False) -> subprocess.CompletedProcess:
    return gpu_math(*args, process=process)


def test_json_anchor_4xh100():
    r = run("--model", "llama-70b", "--gpu", "h100", "--gpus", "4", "--json", process=True)  # as a user runs it
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert list(out) == list(JSON_KEYS)
    assert out["max_batch"] == 122 and out["batch"] == 122 and out["fits"] is True
    # 303.75e9 B / (4 x 3.35e12 B/s) = 22.668 ms
    assert out["decode_step_s"] == pytest.approx(0.022668, rel=1e-4)
    assert out["kv_bytes_per_token"] == 327_680
    assert out["memory_bytes"] == 320e9 and out["reserve_bytes"] == 16e9
    assert out["gpu_bandwidth_bytes_per_s"] == 3.35e12 and out["gpu_peak_flops"] == 989.4e12
    assert out["bound"] == "memory"


def test_human_output_is_the_script_to_say_aloud():
    r = run("--model", "llama-70b", "--gpu", "h100", "--gpus", "4")
    assert r.returncode == 0, r.stderr
    for text in ("Memory budget", "320 GB − 140 GB − 16 GB = 164 GB", "2 × 80 × 8 × 128 × 2 B = 327,680 B",
                 "⌊164 GB / 1.34 GB⌋ = 122", "304 GB / (4 × 3.35 TB/s) = 22.7 ms", "memory-bound",
                 "295 FLOP/B", "5,380 tokens/s", "44.1 tokens/s", "per million", "What the floor ignores"):
        assert text in r.stdout, f"{text!r} missing from the report"
    assert r.stderr == ""


def test_seed_readme_commands():
    first = run("--model", "llama-70b", "--gpu", "h100")
    assert first.returncode == 0 and "chose 2 GPUs" in first.stdout
    second = run("--model", "llama-70b", "--gpu", "h100", "--seq-len", "8192", "--batch", "64")
    assert second.returncode == 0 and "8 × H100 SXM" in second.stdout and "at batch 64" in second.stdout
    listing = run("--list")
    assert listing.returncode == 0 and "deepseek-v3" in listing.stdout and "tpu-v6e" in listing.stdout


def test_list_json():
    r = run("--list", "--json")
    out = json.loads(r.stdout)
    assert set(out) == {"models", "gpus"}
    assert {"key": "h100", "name": "H100 SXM"} in out["gpus"]
    assert {"key": "llama-70b", "name": "Llama-70B (napkin preset)"} in out["models"]


def test_nothing_fits_is_not_an_error():
    r = run("--model", "llama-70b", "--gpu", "h100", "--gpus", "1", "--json")
    assert r.returncode == 0
    out = json.loads(r.stdout)
    assert out["fits"] is False and out["max_batch"] == 0
    for key in ("decode_bytes", "decode_step_s", "decode_tokens_per_s", "prefill_s", "cost_per_million_tokens",
                "bound"):
        assert out[key] is None
    human = run("--model", "llama-70b", "--gpu", "h100", "--gpus", "1")
    assert human.returncode == 0 and "Does not fit" in human.stdout


@pytest.mark.parametrize("args, words", [
    (["--model", "llama-7b", "--gpu", "h100"], ["unknown model 'llama-7b'", "llama-70b"]),
    (["--model", "llama-70b", "--gpu", "h10"], ["unknown GPU 'h10'", "h100"]),
    (["--model", "llama-70b", "--gpu", "h100", "--gpus", "0"], ["--gpus", "positive whole number"]),
    (["--model", "llama-70b", "--gpu", "h100", "--gpus", "2.5"], ["--gpus", "positive whole number"]),
    (["--model", "llama-70b", "--gpu", "h100", "--batch", "-3"], ["--batch", "positive whole number"]),
    (["--model", "llama-70b", "--gpu", "h100", "--seq-len", "abc"], ["--seq-len", "positive whole number"]),
    (["--model", "llama-70b", "--gpu", "h100", "--weights", "fp4"], ["unknown dtype 'fp4'", "bf16"]),
    (["--model", "llama-70b", "--gpu", "h100", "--gpus", "2", "--batch", "50"],
     ["does not fit", "4 GPUs would hold them"]),
    (["--model", "llama-2-70b", "--gpu", "h100", "--seq-len", "8192"], ["at most 4,096 tokens"]),
    (["--model", "llama-70b", "--gpu", "h100", "--efficiency", "1.5"], ["efficiency"]),
    (["--model", "llama-70b", "--gpu", "h100", "--price", "-1"], ["price"]),
    (["--gpu", "h100"], ["--model is required"]),
])
def test_bad_input_exits_2_with_one_line(args: list[str], words: list[str]):
    r = run(*args)
    assert r.returncode == 2
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert "Traceback" not in r.stderr
    for word in words:
        assert word in r.stderr, f"{word!r} missing from: {r.stderr}"


def test_config_json_gives_the_same_figures_as_the_data_entry():
    # The Llama-3.1-70B config counts 70,553,706,496 parameters, the models.toml entry's exact count,
    # so every figure matches the keyed model's.
    config = ROOT / "tests" / "engine" / "fixtures" / "configs" / "llama-3.1-70b.json"
    keyed, read = (json.loads(run(*args, "--gpu", "h100", "--gpus", "4", "--json").stdout)
                   for args in (("--model", "llama-3.1-70b"), ("--config", str(config))))
    assert read["params"] == 70_553_706_496
    assert read == keyed


def test_a_bad_config_fails_in_one_line(tmp_path):
    bad = tmp_path / "config.json"
    bad.write_text('{"model_type": "llama", "num_hidden_layers": -1}')
    result = run("--config", str(bad), "--gpu", "h100")
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "config.json" in result.stderr


# The page embeds this text in a code block about 80 characters wide at 1280 px, and a terminal is 80.
@pytest.mark.parametrize("args", [
    ["--model", "llama-70b", "--gpu", "h100"],
    ["--model", "llama-70b", "--gpu", "h100", "--gpus", "1"],
    ["--model", "llama-70b", "--gpu", "h100", "--seq-len", "8192", "--batch", "64"],
    ["--model", "mixtral-8x7b", "--gpu", "h100", "--weights", "fp8"],
    ["--model", "deepseek-v3", "--gpu", "l4", "--price", "1"],
    ["--list"],
])
def test_text_output_fits_78_columns(args: list[str]):
    r = run(*args)
    assert r.returncode == 0, r.stderr
    long = [line for line in r.stdout.splitlines() if len(line) > 78]
    assert not long, f"lines wider than 78 columns: {long}"


def test_folding_keeps_words_flags_and_row_alignment():
    from macros.text.report import WIDTH, _rows, _wrap

    text = "word " * 30 + "--efficiency"
    lines = _wrap(text)
    assert all(len(line) <= WIDTH for line in lines) and lines[-1].endswith("--efficiency")
    assert " ".join(" ".join(lines).split()) == text  # nothing lost, nothing split mid-word
    # A row folds under its own text column: label "memory" is padded to 6, text starts at 2 + 6 + 2.
    folded = _rows([("memory", "x " * 50), ("KV", "y")])
    assert len(folded) == 3 and folded[1].startswith(" " * 10 + "x") and folded[2].startswith("  KV    ")
