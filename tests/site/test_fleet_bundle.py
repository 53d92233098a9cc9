"""fleet-bundle.js (macros/site/build/browser_engine.py, by esbuild): the planner's twin as one classic script, run the
way a page opened from disk runs it (no ES modules: Node's vm with a bare `window`), gives what gpu_math.py plan
and autoscale give."""

from __future__ import annotations

import json
import math
import shutil
import subprocess

import pytest

from macros.engine.autoscale.run import autoscale
from macros.engine.export import catalog_json, workload_json
from macros.engine.fleet.answer import answer
from macros.engine.fleet.planner import plan
from macros.engine.fleet.workload_file import design
from macros.site.build import browser_engine

NODE = shutil.which("node")
RUN = """
const fs = require("fs"), vm = require("vm");
const input = JSON.parse(fs.readFileSync(0, "utf8"));
const window = {};
window.window = window;  // a page's global object is its window: the bundle's top-level var lands there
vm.runInNewContext(input.bundle, window);
const plan = window.GpuFleet.planAll(input.catalog, input.workload).json;
const day = window.GpuFleet.autoscale(input.catalog, input.workload, "predictive").json;
process.stdout.write(JSON.stringify({ plan, day }));
"""


@pytest.mark.skipif(NODE is None, reason="Node is not installed: run `make js-deps`")
def test_the_bundle_plans_and_runs_the_day_as_the_python_does():
    w, _ = design("consumer-chat")
    given = {"bundle": browser_engine.fleet_bundle(), "catalog": catalog_json(), "workload": workload_json(w)}
    out = subprocess.run([NODE, "-e", RUN], input=json.dumps(given), capture_output=True, text=True, check=True,
                         timeout=300)
    js = json.loads(out.stdout)
    py = answer(plan(w)).json
    day = autoscale(w, "predictive").as_json()
    for key in ("gpus", "napkin_gpus", "ttft_p95_s", "live_concurrency_per_replica",
                "shape_search_best_output_tokens_per_s_per_gpu"):
        assert math.isclose(js["plan"][key], py[key], rel_tol=1e-9), key
    assert js["plan"]["shape_search_best"] == py["shape_search_best"]
    for key in ("gpu_hours", "served_requests", "shed_requests", "cold_starts"):
        assert math.isclose(js["day"][key], day[key], rel_tol=1e-9), key
