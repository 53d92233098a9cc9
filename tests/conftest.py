"""Shared fixtures: the repository root, a built site, and CI's rule that a skip is a failure.

`make test` runs the suite on every core with pytest-xdist. Each worker runs whole files (a module's
fixtures are made once) except a few long files spread test by test (`pytest_xdist_make_scheduler`); each site
is built once for all workers (`made_once`), and the browser walk is walked in parts that the workers share
(`parts`)."""

from __future__ import annotations

import contextlib
import fcntl
import io
import json
import os
import pickle
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "browser"))  # headless.py, the browser helper


def build_site(project: Path, site_dir: Path, env_extra: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Run a strict `mkdocs build` of `project` into `site_dir`, as CI does."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "MACROS_FAIL": "true", **(env_extra or {})}
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(project / "mkdocs.yml"),
         "-d", str(site_dir)],
        cwd=project, env=env, capture_output=True, text=True, timeout=600,
    )


def gpu_math(*args: str, process: bool = False, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """`gpu_math.py ARGS` as a CompletedProcess. By default its main() runs in this process, its output and exit
    code captured (argparse's exit too): an interpreter's start-up per call was most of the command-line tests'
    time. `process=True` starts the script as a user does, for the tests that hold the real process to its exit
    code and its one line."""
    if process:
        return subprocess.run([sys.executable, str(ROOT / "gpu_math.py"), *args], capture_output=True, text=True,
                              cwd=cwd, timeout=120)
    import gpu_math as script

    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(cwd), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = script.main(list(args))
        except SystemExit as exit_:  # argparse's refusals and --help
            code = exit_.code if isinstance(exit_.code, int) else int(exit_.code is not None)
    return subprocess.CompletedProcess(["gpu_math.py", *args], code, out.getvalue(), err.getvalue())


def copy_project(dest: Path) -> Path:
    """A copy of the project without build output or the virtualenv. It keeps the drawing cache
    (.cache/), so a copied build renders only the drawings whose inputs the test changes."""
    top_level = {".venv", ".git", ".pytest_cache", "site", "site-offline", "node_modules"}

    def ignore(folder: str, names: list[str]) -> set[str]:
        skip = {n for n in names if n == "__pycache__"}
        return skip | (top_level & set(names) if Path(folder) == ROOT else set())

    def copy(src: str, dst: str) -> None:
        try:
            shutil.copy2(src, dst)
        except FileNotFoundError:  # a drawing the suite's own build renders or prunes in .cache/ as it is copied
            if ".cache" not in Path(src).relative_to(ROOT).parts:
                raise

    shutil.copytree(ROOT, dest, ignore=ignore, copy_function=copy)
    return dest


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    with path.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def made_once(tmp_path_factory: pytest.TempPathFactory, name: str, make: Callable[[Path], None]) -> Path:
    """A directory that `make` fills once per test run, however many xdist workers ask for it: the
    first builds it under a lock in the run's shared temporary directory, the others wait and reuse
    it. A failed `make` is not marked done: the next worker to ask starts afresh and reports its own
    failure."""
    if os.environ.get("PYTEST_XDIST_WORKER") is None:
        folder = tmp_path_factory.mktemp(name)
        make(folder)
        return folder
    shared = tmp_path_factory.getbasetemp().parent  # this run's folder, above each worker's own
    folder, done = shared / name, shared / f"{name}.done"
    with _locked(shared / f"{name}.lock"):
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            make(folder)
            done.touch()
    return folder


# Beside the suite's build of the site: every simulated run it asked for, and whether the memo held it (the
# generated-files test reads it).
SIMULATIONS_LOG = "simulations.log"


def _built(tmp_path_factory: pytest.TempPathFactory, name: str, env_extra: dict[str, str] | None = None) -> Path:
    def build(site: Path) -> None:
        log = site.parent / SIMULATIONS_LOG if name == "site" else None
        if log:
            log.unlink(missing_ok=True)
        result = build_site(ROOT, site, {**(env_extra or {}), **({"SIMULATIONS_LOG": str(log)} if log else {})})
        assert result.returncode == 0, f"strict build ({name}) failed:\n{result.stdout}\n{result.stderr}"

    return made_once(tmp_path_factory, name, build)


@pytest.fixture(autouse=True)
def build_memo_off() -> Iterator[None]:
    """A test that renders pages in this process (define_env) switches the build's memo on for the process;
    switched off after every test, so no later test reads an answer memoized before it patched the data."""
    yield
    from macros.engine import memo

    memo.switch_off()


@pytest.fixture(scope="session", autouse=True)
def shared_simulations(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One cache of simulated runs for every build this run makes of a copy of the project, however many
    workers make them (SIMULATIONS_CACHE, macros/engine/serving/cache.py): a run is named by everything it reads,
    so the copies that change a GPU the same way (the changed project, the what-if, the drawings' spec change)
    simulate its runs once, and a copy that changes it otherwise simulates its own. After it, the runs kept for the
    suite's what-ifs (SIMULATIONS_KEPT: tests/simulated/, `make generated`), so that those simulate nothing."""
    base = tmp_path_factory.getbasetemp()
    folder = (base if os.environ.get("PYTEST_XDIST_WORKER") is None else base.parent) / "simulations"
    settings = {"SIMULATIONS_CACHE": str(folder), "SIMULATIONS_KEPT": str(ROOT / "tests" / "simulated")}
    before = {k: os.environ.get(k) for k in settings}
    os.environ.update(settings)
    yield folder
    for k, v in before.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real project, built once per test session."""
    return _built(tmp_path_factory, "site")


@pytest.fixture(scope="session")
def offline_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The offline copy, built as `make offline` builds it (Material's offline plugin on)."""
    return _built(tmp_path_factory, "site-offline", {"OFFLINE": "true"})


@pytest.fixture(scope="session")
def print_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site with the whole guide on print_page/, built as `make pdf` builds it."""
    return _built(tmp_path_factory, "site-print", {"PRINT_SITE": "true"})


def whatif_build(tmp_path_factory: pytest.TempPathFactory, name: str) -> tuple[str, list[str], Path]:
    """(verdict, lines, folder) of the what-if `name` (tools/whatif.py) built once per run on a copy of the project,
    however many workers ask: folder/project is the changed copy, folder/site its site (drawings off), and
    folder/simulations.log the runs it asked for (a what-if of the suite's finds them kept: tests/simulated/)."""
    from tools.whatif import WHATIFS, run

    def make(folder: Path) -> None:
        out = run(WHATIFS[name], folder, {"SIMULATIONS_LOG": str(folder / SIMULATIONS_LOG)})
        (folder / "outcome.json").write_text(json.dumps({"verdict": out.verdict, "lines": out.lines}))

    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    folder = made_once(tmp_path_factory, f"whatif-{slug}", make)
    outcome = json.loads((folder / "outcome.json").read_text())
    return outcome["verdict"], outcome["lines"], folder


# The project changed as a reader might change it, built once for every test that follows a change to
# the pages: the H100's bandwidth raised (a spec edit) and the consumer-chat design's traffic doubled
# (a workload edit; tools/whatif.py's CHANGED_PROJECT). The two do not touch each other's figures: the anchor is
# the napkin preset at a fixed batch, and the tests that read the design compute its plan with the copy's own
# command line. The bandwidth is the what-if "h100 bandwidth_bytes_per_s x1.4"'s (3.35e12 x 1.4 = 4.69e12
# exactly), so that the builds with that change read the same H100 runs.
CHANGED_BANDWIDTH = 4.69e12


@pytest.fixture(scope="session")
def changed_project(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the changed copy of the project, its site built as CI builds it, drawings off)."""
    from tools.whatif import CHANGED_PROJECT, GREEN

    verdict, lines, folder = whatif_build(tmp_path_factory, CHANGED_PROJECT.name)
    assert verdict == GREEN, lines
    return folder / "project", folder / "site"


# Files whose tests are spread over the workers one by one, not the file to one worker: each test is costly and
# what they share is made once for all workers (made_once, parts), so a long file does not hold up the run.
SPREAD = {"test_whatif.py", "test_mock_round.py", "test_twin.py", "test_whatifs_build.py"}


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """Whole files to a worker, as `--dist loadfile` does, so that a module's fixtures are made once; the tests
    of the files in SPREAD one by one. (xdist's own `--dist loadgroup` marks do not reach its scheduler under
    pytest 9, which no longer lets a plugin rename a test.)"""
    from xdist.scheduler import LoadScopeScheduling

    class WholeFiles(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            file = nodeid.split("::", 1)[0]
            return nodeid if Path(file).name in SPREAD else file

    return WholeFiles(config, log)


SITE_FIXTURES = {"built_site", "offline_site", "print_site", "changed_project", "chromium", "site_walk"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark `site` every test that builds the site or opens a browser, so `make check` can leave them out: those
    under tests/site/ and tests/browser/, and any that asks for a built site or Chromium."""
    for item in items:
        folder = Path(str(item.path)).parent.name
        if folder in ("site", "browser") or SITE_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.site)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    """Under CI (CI=true) a skipped test fails: a missing browser must not pass silently."""
    outcome = yield
    report = outcome.get_result()
    if os.environ.get("CI") == "true" and report.skipped and call.when in ("setup", "call"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"skipped under CI, which counts as a failure: {reason}"


NO_BROWSER = "Chromium or Playwright is missing (apt-get install -y chromium; make setup): the browser tests cannot run"


@pytest.fixture(scope="session")
def chromium():
    """One headless Chromium for every browser test. Skipped in setup, not at import: under CI a
    setup skip is a failure (below)."""
    import headless

    if headless.chromium() is None:
        pytest.skip(NO_BROWSER)
    with headless.launch() as browser:
        yield browser


@pytest.fixture(scope="session")
def site_walk(chromium, built_site: Path, tmp_path_factory: pytest.TempPathFactory):
    """Every built page loaded once in headless Chromium, measured and checked (tests/browser/walk.py). The
    pages are walked in WALK_PARTS parts, each once per run, by whichever workers ask (the two walk files run
    on different workers, so each walks about half), and the parts merged."""
    from walk import merged, page_paths, walk

    paths = page_paths(built_site)
    assert len(paths) >= 19 and "" in paths and "numbers/" in paths, paths
    shares = parts(tmp_path_factory, "walk", WALK_PARTS, lambda i: walk(chromium, built_site, paths[i::WALK_PARTS]))
    return merged(shares)


WALK_PARTS = 2


def parts(tmp_path_factory: pytest.TempPathFactory, name: str, count: int, make: Callable[[int], object]) -> list:
    """`make(i)` for i in range(count), each made once per run and shared by the xdist workers: a worker makes
    every part no other worker has started (claimed by creating its file, which only one can), then waits for
    the parts others are making. A part that failed is made again by the next worker to ask."""
    if os.environ.get("PYTEST_XDIST_WORKER") is None:
        return [make(i) for i in range(count)]
    shared = tmp_path_factory.getbasetemp().parent
    results: dict[int, object] = {}
    for i in range(count):
        claim = shared / f"{name}-{i}.claim"
        try:
            claim.touch(exist_ok=False)
        except FileExistsError:
            continue  # another worker is making it
        try:
            results[i] = make(i)
            (shared / f"{name}-{i}.pickle").write_bytes(pickle.dumps(results[i]))
        except BaseException:
            claim.unlink(missing_ok=True)
            raise
    for i in range(count):
        done = shared / f"{name}-{i}.pickle"
        while i not in results:
            if done.exists():
                results[i] = pickle.loads(done.read_bytes())
            elif not (shared / f"{name}-{i}.claim").exists():  # its maker failed: make it here
                return parts(tmp_path_factory, name, count, make)
            else:
                time.sleep(0.2)
    return [results[i] for i in range(count)]
