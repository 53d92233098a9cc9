"""The catalog the Node command line reads (tools/gpu_math_catalog.json, written by tools/node_catalog.py): the
committed file is what the Python exports now, Node hashes the data files as Python does, and a catalog
older than the data is refused in one line that names the make target, exit 2."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess

import pytest
from conftest import ROOT

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="Node is not installed: run `make js-deps`")

_spec = importlib.util.spec_from_file_location("node_catalog", ROOT / "tools" / "node_catalog.py")
node_catalog = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(node_catalog)

# The simulations' memo: no catalog source, and 12 MB a copy need not carry.
NOT_READ = shutil.ignore_patterns("simulated")
HASH = """
import { dataSha256 } from "./tools/node_inputs.mjs";
console.log(dataSha256(JSON.parse(process.argv[1]), process.argv[2]));
"""


def node_hash(root) -> str:
    out = subprocess.run([NODE, "--input-type=module", "-e", HASH, json.dumps(node_catalog.SOURCES), str(root)],
                         cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_node_hashes_the_data_files_as_python_does(tmp_path):
    assert node_hash(ROOT) == node_catalog.data_sha256(ROOT)
    # One byte changed in one source changes both hashes alike; a file that is not a source changes neither.
    data = shutil.copytree(ROOT / "macros" / "data", tmp_path / "macros" / "data", ignore=NOT_READ)
    before = node_catalog.data_sha256(tmp_path)
    (data / "glossary.toml").write_text((data / "glossary.toml").read_text() + "\n")
    assert node_catalog.data_sha256(tmp_path) == before
    (data / "gpus.toml").write_text((data / "gpus.toml").read_text() + "\n")
    assert node_catalog.data_sha256(tmp_path) != before
    assert node_hash(tmp_path) == node_catalog.data_sha256(tmp_path)


def test_a_catalog_older_than_the_data_is_one_line_naming_the_make_target(tmp_path):
    # What the command line needs, copied, with one GPU's bandwidth edited after the catalog was written.
    for part in ("docs/assets/javascripts/calculator", "macros/data"):
        shutil.copytree(ROOT / part, tmp_path / part, ignore=NOT_READ)
    (tmp_path / "tools").mkdir()
    for name in ("gpu_math.mjs", "node_inputs.mjs", "gpu_math_catalog.json"):
        shutil.copy(ROOT / "tools" / name, tmp_path / "tools" / name)
    (tmp_path / "tools" / "node_modules").symlink_to(ROOT / "tools" / "node_modules")
    args = [NODE, "tools/gpu_math.mjs", "--model", "llama-70b", "--gpu", "h100", "--json"]
    assert subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, timeout=60).returncode == 0
    gpus = tmp_path / "macros" / "data" / "gpus.toml"
    gpus.write_text(gpus.read_text().replace("bandwidth_bytes_per_s = 3.35e12", "bandwidth_bytes_per_s = 3.36e12", 1))
    out = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr == ("gpu_math.mjs: error: tools/gpu_math_catalog.json is out of date: the data it was made from "
                          "(macros/data/) has changed; run `make generated`\n")
