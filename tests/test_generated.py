"""Every generated file the repository keeps is what its generator writes now (the list and the generators:
macros/engine/generated.py, tools/generated.py). A stale one fails here, naming the one command that rewrites
it, `make generated` (`make calibrate` for the fitted model)."""

from __future__ import annotations

import dataclasses
import importlib.util
from pathlib import Path

import pytest
from conftest import ROOT, SIMULATIONS_LOG, whatif_build

from macros.engine.generated import ARTIFACTS, CALIBRATION, CHECK_TIER_LIST, KEPT, MEMO, TEXT_ARTIFACTS
from macros.engine.serving import cache
from tools.whatif import SUITE

_spec = importlib.util.spec_from_file_location("generated_tool", ROOT / "tools" / "generated.py")
generated_tool = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(generated_tool)


@pytest.mark.parametrize("artifact", [*TEXT_ARTIFACTS, CALIBRATION, *(pytest.param(a, marks=pytest.mark.site)
                                                                      for a in (MEMO, KEPT))], ids=lambda a: a.name)
def test_every_generated_file_is_what_its_generator_writes_now(artifact, request, tmp_path_factory):
    if artifact is KEPT:
        # The runs the suite's what-if builds asked for beyond the memo, each kept, and no run besides them.
        asked: dict[str, str] = {}
        for name in SUITE:
            asked |= generated_tool.logged(whatif_build(tmp_path_factory, name)[2] / SIMULATIONS_LOG)
        beyond = {n: held for n, held in asked.items() if held != "memo"}
        kept = {p.name for p in (ROOT / KEPT.path).glob("*.json")}
        # and the runs make check's tier simulated when they were written, named in their list, each kept (which
        # of them that tier asks for now only its speed shows: a run is named by its inputs and code, never stale)
        quick = set((ROOT / KEPT.path / CHECK_TIER_LIST).read_text().split())
        missing = sorted({n for n, held in beyond.items() if held != "kept"} | (quick - kept))
        unused = sorted(kept - set(beyond) - quick)
        assert not missing and not unused, (
            f"{KEPT.path} is stale ({len(missing)} runs missing, {len(unused)} unused): run `{KEPT.command}`")
    elif artifact is MEMO:
        # The runs the suite's build of the site asked for, each found in the memo, and no run besides them.
        asked = generated_tool.logged(request.getfixturevalue("built_site").parent / SIMULATIONS_LOG)
        kept = {p.name for p in cache.MEMO_DIR.glob("*.json")}
        missing, unused = sorted(n for n, held in asked.items() if held != "memo"), sorted(kept - set(asked))
        assert not missing and not unused, (
            f"{MEMO.path} is stale ({len(missing)} runs missing, {len(unused)} unused): run `{MEMO.command}`")
    else:
        assert not generated_tool.stale(artifact), f"{artifact.path} is stale: run `{artifact.command}`"


def test_the_list_names_every_generator_and_file_and_each_generator_writes_its_own_file():
    assert len({a.path for a in ARTIFACTS}) == len(ARTIFACTS)
    for a in ARTIFACTS:
        assert (ROOT / a.tool).is_file() and (ROOT / a.path).exists(), a
        assert a.tool in a.code()  # the generator's own source is part of what the file is computed from
    for a in TEXT_ARTIFACTS:
        assert Path(generated_tool.tool(a).OUT) == ROOT / a.path, a


def test_the_check_fails_on_a_stale_file_and_names_the_command(tmp_path, monkeypatch, capsys):
    catalog = next(a for a in TEXT_ARTIFACTS if a.name == "Node catalog")
    copy = tmp_path / "catalog.json"
    copy.write_text((ROOT / catalog.path).read_text().replace('"h100"', '"h100x"', 1))
    # The same artifact at an absolute path outside the tree (ROOT / an absolute path is that path).
    monkeypatch.setattr(generated_tool, "TEXT_ARTIFACTS", (dataclasses.replace(catalog, path=str(copy)),))
    monkeypatch.setattr("sys.argv", ["generated.py", "--check"])
    assert generated_tool.main() == 1
    assert f"{copy} (Node catalog) is stale: run `make generated`" in capsys.readouterr().err
    copy.write_text((ROOT / catalog.path).read_text())
    assert generated_tool.main() == 0


@pytest.mark.parametrize("edited", ["inferencemax-2025-12.json", "mlperf-inference-llama.json"])
def test_the_fit_is_stale_when_either_measured_file_changes(edited, monkeypatch):
    # The fit records the hash of both files it was fitted to; an edit to either one makes it stale.
    from macros.engine.calibration import measured

    real = measured.data_hash
    monkeypatch.setattr(measured, "data_hash",
                        lambda path=measured.PATH: "edited" if Path(path).name == edited else real(path))
    assert generated_tool.stale(CALIBRATION)
