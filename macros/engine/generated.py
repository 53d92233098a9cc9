"""Every file the repository keeps that a program writes, with the program that writes it and what it is
computed from: the one list `make generated` rewrites from (tools/generated.py) and the generated-files test
checks (tests/test_generated.py). A new generated file joins this list, or it has no check.

Each generator is a script under tools/ with a module-level OUT (the file it writes) and text() (what the file
should hold now). The simulations memo is the exception: it holds the runs the site's pages ask for, so it is
written by a build (SIMULATIONS=memo-write) and checked against the runs the test suite's build asked for; the
suite's runs likewise, by the suite's what-if builds and one run of make check's tier. The fitted serving model
(calibration.toml) is written by `make calibrate` (minutes of fitting): it is listed so the check covers it, by the
hash of the measured runs it was fitted on, and not rewritten by `make generated`.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import sources


@dataclass(frozen=True)
class Artifact:
    name: str
    path: str  # from the project's root: a file, or a folder of files
    tool: str  # the script that writes it, from the project's root
    reads: tuple[str, ...]  # the data it is computed from, besides the code its script imports
    command: str = "make generated"  # what rewrites it

    def code(self) -> tuple[str, ...]:
        """The project's source files the generator runs: its script and everything the script imports."""
        module = self.tool.removesuffix(".py").replace("/", ".")
        return tuple(p.relative_to(sources.PROJECT).as_posix() for p in sources.closure(module))


MEMO = Artifact("simulations memo", "macros/data/simulated", "tools/generated.py",
                ("every run the pages ask for: its request and the data entries it reads (serving/cache.py)",))
# The runs the test suite's what-if builds ask for beyond the memo (tools/whatif.py's SUITE): kept so that the suite's
# copies of the project simulate nothing; written by those builds and checked against what they asked for. Beside
# them, the runs make check's tests simulate (named in CHECK_TIER_LIST), so that a fresh clone's quick tier reads them.
KEPT = Artifact("the suite's runs", "tests/simulated", "tools/generated.py",
                ("every run the suite's what-if builds ask for beyond the memo (tools/whatif.py, SUITE)",
                 "every run make check's tests simulate beyond the memo"))
CHECK_TIER_LIST = "check-tier.txt"
CALIBRATION = Artifact("fitted serving model", "macros/data/calibration.toml", "tools/calibrate.py",
                       ("macros/data/measured/",), command="make calibrate")

ARTIFACTS = (
    MEMO,
    KEPT,
    Artifact("Node catalog", "tools/gpu_math_catalog.json", "tools/node_catalog.py", ("macros/data/*.toml",)),
    Artifact("twin vectors", "tests/vectors/twin.json", "tools/twin_vectors.py",
             ("macros/data/*.toml", "macros/data/designs/")),
    Artifact("serving vectors", "tests/vectors/serving.json", "tools/serving_vectors.py", ("macros/data/*.toml",)),
    Artifact("planner vectors", "tests/vectors/planner.json", "tools/planner_vectors.py",
             ("macros/data/*.toml", "macros/data/designs/")),
    Artifact("bad-input vectors", "tests/vectors/bad_inputs.json", "tools/bad_inputs.py",
             ("macros/data/rules.toml",)),
    Artifact("macro index", "macros/README.md", "tools/macro_index.py", ("what define_env registers",)),
    CALIBRATION,
)
TEXT_ARTIFACTS = tuple(a for a in ARTIFACTS if a not in (MEMO, KEPT, CALIBRATION))  # each written by its tool's text()
