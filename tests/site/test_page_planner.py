"""The "Plan a fleet" page shows the planner's figures for the worked workload, and a change to that
workload's traffic reaches the page."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from conftest import ROOT

from macros.site.pages import planner as page

FILE = ROOT / "macros" / "data" / "designs" / "consumer-chat.toml"


def _text(site: Path) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", (site / "planner" / "index.html").read_text()))


def test_page_model_matches_the_command_line():
    q = page.model()
    cli = json.loads(subprocess.run([sys.executable, "gpu_math.py", "plan", str(FILE), "--json"], cwd=ROOT,
                                    capture_output=True, text=True, check=True).stdout)
    # The answer the page prints is the command line's, and so is the napkin beside it.
    assert (q.answer.gpus, q.answer.replicas, q.answer.gpus_per_replica) == (
        cli["gpus"], cli["replicas"], cli["gpus_per_replica"])
    assert (q.plan.gpus, q.plan.replicas, q.plan.slo_batch) == (cli["napkin_gpus"], cli["napkin_replicas"],
                                                                cli["slo_batch"])
    # Decode and prefill replica-time add up to the napkin's busy replicas.
    assert abs(q.decode_replicas + q.prefill_replicas - q.plan.replica_seconds_per_s) < 1e-9
    assert (q.simulated.replicas, q.simulated.gpus) == (cli["replicas"], cli["gpus"])
    assert q.simulated.as_json()["ttft_p95_s"] == cli["ttft_p95_s"]
    # Every shape tried at the answer's budget is in the page's table, and the answer is the fewest GPUs of all
    # the shapes and budgets tried.
    assert len(q.shapes) == sum(t["token_budget"] == cli["token_budget"] for t in cli["answer_tried"]) >= 1
    assert cli["gpus"] == min(t["gpus"] for t in cli["answer_tried"] if t["gpus"] is not None)


def test_the_page_carries_the_plan(built_site: Path):
    q, text = page.model(), _text(built_site)
    assert f"The fleet is {q.answer.gpus:,} H100 SXM in {q.answer.replicas:,} replicas" in text
    assert f"{q.plan.slo_batch} sequences of a possible {q.plan.max_batch}" in text
    # The napkin's count beside the answer, and what each model leaves out, in words.
    assert f"So the napkin's fleet is {q.plan.gpus:,} GPUs" in text
    assert "The napkin leaves out queueing" in text and "The simulation leaves out lengths that vary" in text


def test_traffic_in_the_workload_file_reaches_the_page(changed_project: tuple[Path, Path]):
    # The session's changed copy (conftest.py) doubled the design's requests a day.
    project, site = changed_project
    cli = json.loads(subprocess.run([sys.executable, "gpu_math.py", "plan", str(FILE.relative_to(ROOT)), "--json"],
                                    cwd=project, capture_output=True, text=True, check=True).stdout)
    before, after = page.model(), _text(site)
    assert cli["gpus"] > before.answer.gpus
    assert "200,000,000 requests a day" in after and f"The fleet is {cli['gpus']:,} H100 SXM" in after
    assert f"The fleet is {before.answer.gpus:,} H100 SXM" not in after


def test_the_browser_s_part_is_said_in_the_engine_s_constants():
    b = page.model().browser
    # The simulated runs: seed 0 and 1,000 requests (`gpu_math.py simulate`'s open-loop default), the search giving
    # up past 64 x the napkin's count; shapes of 1, 2, 4 and 8 GPUs (one node) at concurrencies 1 to 2^10 = 1,024.
    assert (b.seed, b.requests, b.search_limit) == (0, 1000, 64)
    assert (b.widths, b.lightest, b.heaviest) == ((1, 2, 4, 8), 1, 1024)
    # The day: 24 x 60 = 1,440 minutes, three policies, scaled on the queue; the other four signals are the CLI's.
    assert (b.minutes, b.policies, b.signal) == (1440, ("reactive", "predictive", "warm-pool"), "queue")
    assert set(b.other_signals) == {"kv", "tokens", "requests", "utilisation"}
