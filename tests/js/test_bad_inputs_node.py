"""The shared table of bad inputs (tests/vectors/bad_inputs.json) through Node's test runner
(tests/js/bad_inputs.test.mjs): the Node twin and the JavaScript engine refuse every case with exit code 2,
one line and the message Python gives (tests/test_bad_inputs.py holds Python to the same lines)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="Node is not installed: run `make js-deps`")


def test_node_refuses_every_bad_input_with_python_s_message():
    cases = json.loads((ROOT / "tests" / "vectors" / "bad_inputs.json").read_text())["cases"]
    r = subprocess.run([NODE, "--test", "tests/js/bad_inputs.test.mjs"], cwd=ROOT, capture_output=True, text=True,
                       timeout=600, env={"PATH": "/usr/bin:/bin", "PYTHON": sys.executable})
    failed = re.findall(r"^not ok \d+ - (.*)$", r.stdout, flags=re.M)
    assert r.returncode == 0 and not failed, f"failed in Node: {failed}\n{r.stdout[-3000:]}{r.stderr[-2000:]}"
    # every case ran, and one more test: --json prints null where a figure does not exist
    assert re.search(r"^# pass (\d+)$", r.stdout, flags=re.M).group(1) == str(len(cases) + 1)
