"""The calculator's bundles (macros/site/build/browser_engine.py): esbuild's classic scripts set window.GpuMath and
window.GpuServing with every name the forms and the load explorer call, the engine in them computes what the
ES modules compute, and a missing bundler stops the build with one line that says how to install it."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from macros.engine.export import catalog_json
from macros.site.build import browser_engine

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="Node is not installed: run `make js-deps`")

# Runs a bundle as a page's <script> does (its top-level `var` becomes a property of the global object,
# which a browser calls window), then prints what the global holds and one scenario through it.
RUN = """
const fs = require("fs"), vm = require("vm");
const [bundle, global, catalog, input] = process.argv.slice(2);
globalThis.window = globalThis;
vm.runInThisContext(fs.readFileSync(bundle, "utf8"));
const api = window[global], out = { names: Object.keys(api).sort() };
if (api.format) out.format = Object.keys(api.format).sort();
if (api.scenario) out.scenario = api.scenario(JSON.parse(fs.readFileSync(catalog, "utf8")), JSON.parse(input));
console.log(JSON.stringify(out));
"""


def run_bundle(tmp_path: Path, text: str, global_name: str, scenario_input: dict | None = None) -> dict:
    bundle, catalog, script = tmp_path / "bundle.js", tmp_path / "catalog.json", tmp_path / "run.js"
    bundle.write_text(text)
    catalog.write_text(json.dumps(catalog_json()))
    script.write_text(RUN)
    out = subprocess.run([NODE, str(script), str(bundle), global_name, str(catalog), json.dumps(scenario_input or {})],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_the_engine_bundle_sets_gpumath_and_computes_the_anchor(tmp_path: Path):
    out = run_bundle(tmp_path, browser_engine.bundle(), "GpuMath",
                     {"model": "llama-70b", "gpu": "h100", "gpus": 4, "seq_len": 4096})
    wanted = {name for names in browser_engine.EXPORTS.values() for name in names} | {"format"}
    assert set(out["names"]) == wanted
    assert {"roundSig", "ms", "si", "usd"} <= set(out["format"])
    s = out["scenario"]
    # The anchor, by hand: KV per token 2 x 80 layers x 8 KV heads x 128 x 2 B = 327,680 B; per sequence
    # x 4,096 = 1,342,177,280 B; budget 4 x 80e9 - 70e9 x 2 B - 4 x 4e9 = 164e9 B; 164e9 / 1.342e9 = 122.2 -> 122.
    assert s["kv_bytes_per_token"] == 327_680
    assert s["kv_bytes_per_seq"] == 327_680 * 4096
    assert s["kv_budget_bytes"] == 164e9
    assert s["max_batch"] == 122


def test_the_serving_bundle_sets_gpuserving(tmp_path: Path):
    out = run_bundle(tmp_path, browser_engine.serving_bundle(), "GpuServing")
    assert set(out["names"]) == {name for names in browser_engine.SERVING_EXPORTS.values() for name in names}


def test_a_bundle_imports_nothing_at_run_time():
    # A classic script cannot import: every module is inside the bundle, and no `import` statement is left.
    for text in (browser_engine.bundle(), browser_engine.serving_bundle()):
        assert not any(line.lstrip().startswith(("import ", "export ")) for line in text.splitlines())


def test_a_missing_bundler_is_one_line_naming_the_make_target(monkeypatch, tmp_path: Path):
    monkeypatch.setattr(browser_engine, "ESBUILD", browser_engine.ROOT / "tools" / "no-such-esbuild")
    with pytest.raises(browser_engine.BundleError) as caught:
        browser_engine.site_files()
    message = str(caught.value)
    assert "\n" not in message
    assert "esbuild is not installed" in message and "make js-tools" in message


def test_a_bundle_that_does_not_resolve_is_one_line_naming_the_module():
    with pytest.raises(browser_engine.BundleError) as caught:
        browser_engine.esbuild('export { nothing } from "./no-such-module.js";\n', "GpuNothing")
    message = str(caught.value)
    assert "\n" not in message and "no-such-module.js" in message
