"""Writes tools/gpu_math_catalog.json: the catalog the site's build exports (macros/engine/export.py), for the
Node command line (tools/gpu_math.mjs), which then runs without Python. Run by `make generated` after a
change to the data or to the engine's exported constants; tests/js/test_node_catalog.py fails while the
committed file differs from what this writes now.

The file carries the sha256 of the data files the catalog is made from (SOURCES), computed as
tools/node_inputs.mjs computes it, so Node refuses a catalog older than the data with one line that names
the make target.

    python3 tools/node_catalog.py            # rewrite tools/gpu_math_catalog.json
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from macros.engine.export import catalog_json  # noqa: E402

OUT = ROOT / "tools" / "gpu_math_catalog.json"
# What the catalog is read from (macros/engine/specs.py's catalog, rules.py, serving/profiles.py,
# families.py and calibration.py): a file, or every *.toml of a folder.
SOURCES = ("macros/data/gpus.toml", "macros/data/prices.toml", "macros/data/precisions.toml",
           "macros/data/models.toml", "macros/data/claims.toml", "macros/data/designs/claims/*.toml",
           "macros/data/rules.toml", "macros/data/engines.toml", "macros/data/gpu_families.toml",
           "macros/data/calibration.toml")


def source_files(root: Path = ROOT) -> list[str]:
    files = []
    for source in SOURCES:
        if source.endswith("/*.toml"):
            files += [f"{source[:-len('/*.toml')]}/{p.name}" for p in (root / source[:-len("/*.toml")]).glob("*.toml")]
        else:
            files.append(source)
    return sorted(files)


def data_sha256(root: Path = ROOT) -> str:
    """sha256 over one "sha256  path" line per source file, in sorted order (node_inputs.mjs's dataSha256)."""
    lines = "".join(f"{hashlib.sha256((root / f).read_bytes()).hexdigest()}  {f}\n" for f in source_files(root))
    return hashlib.sha256(lines.encode()).hexdigest()


def document() -> dict[str, Any]:
    return {"made_by": "tools/node_catalog.py (make generated): do not edit", "sources": list(SOURCES),
            "data_sha256": data_sha256(), "catalog": catalog_json()}


def text() -> str:
    return json.dumps(document(), indent=1, allow_nan=False) + "\n"


if __name__ == "__main__":
    OUT.write_text(text())
    print(f"{OUT.relative_to(ROOT)}: written")
