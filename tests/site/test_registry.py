"""What pages can call is registered in one place per module, and macros/README.md's index is
generated from that registry, so it cannot drift from the code."""

from __future__ import annotations

from conftest import ROOT

from macros.site import registry


def test_every_derivation_taking_a_scenario_is_registered():
    # show.py's scenario derivations register themselves as show_<name>: count them by hand from the
    # module, independently of the registry's own introspection.
    import ast

    tree = ast.parse((ROOT / "macros" / "text" / "show.py").read_text())
    expected = {f"show_{fn.name}" for fn in tree.body if isinstance(fn, ast.FunctionDef)
                and fn.args.args and ast.unparse(fn.args.args[0].annotation or ast.Constant("")) == "Scenario"}
    assert expected and expected <= set(registry.MACROS)
    assert "show_memory" in expected and "show_cost" in expected


def test_the_index_lists_macros_from_every_module():
    text = registry.index()
    for name in ("scenario(", "figure(", "anchors_table(", "show_budget(", "page_models"):
        assert name in text, name
