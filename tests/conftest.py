"""Shared fixtures: the published reference data, offscreen Qt, the demo bundles."""
from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

import pytest

# Qt renders offscreen in tests; pyqtgraph must bind PySide6 even if PyQt is installed.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")
# the windows of the tests leave their memory where it is (each would copy it onto huge pages
# on a thread once loaded: CPU the suite needs); tests/utils/test_huge_pages.py turns it on
os.environ["LLGUI_HUGE_PAGES"] = "0"
# The campaign cell cache of every test, and of the subprocesses tests start, lives in a
# temporary folder, never in the user's cache (llgui.campaign.cache).
os.environ["LLGUI_CACHE_DIR"] = tempfile.mkdtemp(prefix="llgui-test-cache-")
atexit.register(shutil.rmtree, os.environ["LLGUI_CACHE_DIR"], True)

# The statistics cache (llgui.core.mt.stats_cache) of the whole run lives in a temporary folder,
# never in the user's cache; subprocesses inherit it. Set here, before any test imports llgui.
_CACHE = tempfile.mkdtemp(prefix="llgui-test-cache-")
os.environ["LLGUI_CACHE_DIR"] = _CACHE
os.environ.pop("LLGUI_NO_CACHE", None)
atexit.register(shutil.rmtree, _CACHE, True)

REPO = Path(__file__).resolve().parent.parent
DEMO = REPO / "resources" / "demo"


def reference_data_dir() -> Path:
    """Where `../shared/reference-data` is: $LLGUI_REFERENCE_DATA, else beside the repository."""
    configured = os.environ.get("LLGUI_REFERENCE_DATA")
    if configured:
        return Path(configured).expanduser().resolve()
    return (REPO.parent / "shared" / "reference-data").resolve()


@pytest.fixture(scope="session")
def reference_data() -> Path:
    """The published reference data; tests that need it skip, saying why, where it is absent."""
    root = reference_data_dir()
    if not (root / "EXPECTED.json").is_file():
        pytest.skip(
            f"reference data not found at {root} (set LLGUI_REFERENCE_DATA to the folder "
            "holding EXPECTED.json)"
        )
    return root


@pytest.fixture(scope="session")
def expected(reference_data: Path) -> dict:
    import json

    return json.loads((reference_data / "EXPECTED.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def demo_dir() -> Path:
    return DEMO


class PublishedScores:
    """`llgui score --format json` of published data, each (files, metrics, settings) once per
    test run, shared by every test that checks it (WMT17 TER takes ~13 s a system: scored
    twice, it was half of the suite's time). One document per bundle, so a test that checks
    three systems scores three, and the `slow` mark keeps its meaning."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.cache: dict[tuple, dict] = {}

    def mt(self, reference: Path, hypothesis: Path, metrics: tuple[str, ...],
           settings: tuple[tuple[str, object], ...] = ()) -> dict:
        import contextlib
        import io
        import json

        from llgui.cli.main import main

        key = (str(reference), str(hypothesis), tuple(metrics), tuple(settings))
        if key not in self.cache:
            lines = ["[bundle]", 'task = "mt"',
                     "metrics = [" + ", ".join(f'"{m}"' for m in metrics) + "]", "[settings]"]
            lines += [f"{k} = {json.dumps(v)}" for k, v in settings]
            lines += ["[[documents]]", f"id = {json.dumps(hypothesis.name)}", "time = 0",
                      f"references = [{json.dumps(str(reference))}]",
                      f"hypothesis = {json.dumps(str(hypothesis))}"]
            bundle = self.folder / f"published-{len(self.cache)}.toml"
            bundle.write_text("\n".join(lines) + "\n", encoding="utf-8")
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = main(["score", str(bundle), "--format", "json"])
            assert code == 0, err.getvalue()
            self.cache[key] = json.loads(out.getvalue())
        return self.cache[key]


@pytest.fixture(scope="session")
def published_scores(tmp_path_factory) -> PublishedScores:
    return PublishedScores(tmp_path_factory.mktemp("published"))


# -- `python3 dev.py test --quick`: the edit-test loop -------------------------------------------
QUICK_LEAVES_OUT = ("tests/gui/", "tests/docs/", "tests/campaign/", "tests/test_notebook.py",
                    "tests/test_demo.py", "tests/test_demo_meeting.py", "tests/test_layering.py",
                    "tests/cli/test_reference_bundles.py", "tests/cli/test_hostile.py",
                    "tests/io/test_fuzz.py", "tests/sim/", "tests/cli/test_hostile_38.py",
                    "tests/test_api_bounds.py", "tests/cli/test_first_hour.py")
"""What --quick leaves out: the window (offscreen Qt), the docs' commands and the wheel,
Dask, the simulations (real subprocesses), the fuzzers and hostile-input suites, the first
hour's subprocess checks, and every test of the published
reference data (its fixture) or marked slow. What
it keeps (the core's numbers against the libraries, the readers, the command line's own
tests) runs in about half a minute on two quiet cores; the whole suite before a commit."""


def pytest_addoption(parser):
    parser.addoption("--quick", action="store_true",
                     help="the edit-test loop: leave out the window, docs, Dask, simulations, "
                          "fuzzers and slow tests (tests/conftest.py QUICK_LEAVES_OUT)")


# -- two workers that end together ------------------------------------------------------------
HEAVY_FIRST = (
    "tests/campaign/test_campaign_cluster.py", "tests/docs/test_code_blocks.py",
    "tests/core/mt/test_reference_data.py", "tests/core/mt/test_stats.py",
    "tests/gui/test_app.py", "tests/cli/test_reference_bundles.py",
    "tests/core/diarization/test_der.py", "tests/gui/workbench/test_tab.py",
    "tests/sim/test_protocol_v11.py", "tests/core/significance/test_judgments.py",
    "tests/docs/test_wheel.py", "tests/cli/test_compare_all_pairs.py",
    "tests/campaign/test_campaign_reference.py", "tests/sim/test_diar_audio.py",
    "tests/gui/systems/test_open_campaign.py", "tests/cli/test_hostile_38.py",
    "tests/cli/test_compare_bundles.py", "tests/sim/test_ipmt.py",
)
"""The modules that take longest (measured: `--durations` of a whole run), in that order, are
handed out first; the rest follow in their own order. dev.py runs xdist with `--dist loadgroup
--no-loadscope-reorder`, and every test without an xdist_group of its own is grouped by its
module: a module's fixtures are built once, on one worker (not once per worker, as when single
tests are spread), and the longest modules first leave short ones to even out the end
(longest-processing-time-first scheduling)."""


def _module(item) -> str:
    return Path(str(item.fspath)).resolve().relative_to(REPO).as_posix()


def pytest_itemcollected(item):
    # before any pytest_collection_modifyitems: xdist's writes the group into the test's id
    if getattr(item.config.option, "loadgroup", False) and \
            item.get_closest_marker("xdist_group") is None:
        item.add_marker(pytest.mark.xdist_group(_module(item)))


def pytest_collection_modifyitems(config, items):
    if config.getoption("--quick"):
        _leave_out_for_quick(config, items)
    if getattr(config.option, "loadgroup", False):   # an xdist worker under --dist loadgroup
        rank = {path: n for n, path in enumerate(HEAVY_FIRST)}
        order = {id(item): n for n, item in enumerate(items)}
        items.sort(key=lambda item: (rank.get(_module(item), len(rank)), order[id(item)]))


def pytest_configure(config):
    if config.getoption("--quick", default=False):
        # the edit-test loop draws half the examples of the MT statistics' properties (16
        # settings x 60 corpora against sacrebleu were a fifth of its time); the whole run
        # draws them all (tests/core/mt/test_stats.py reads LLGUI_MT_EXAMPLES at import)
        os.environ.setdefault("LLGUI_MT_EXAMPLES", "0.5")


def pytest_report_header(config):
    if config.getoption("--quick", default=False):
        return ["--quick: the core's numbers, the readers and the command line; left out: "
                "the window, the docs' commands, Dask, the simulations, the fuzzers and "
                "hostile-input suites, the published reference data and slow tests "
                "(`python3 dev.py test` runs everything)"]
    return None


def pytest_ignore_collect(collection_path, config):
    """Under --quick the folders and files it leaves out are not even imported (their
    imports, Qt's among them, and pytest's rewriting of their asserts took about a third of
    the quick run)."""
    if not config.getoption("--quick", default=False):
        return None
    try:
        path = Path(collection_path).resolve().relative_to(REPO).as_posix()
    except ValueError:
        return None
    if Path(collection_path).is_dir():
        path += "/"
    return True if path.startswith(QUICK_LEAVES_OUT) else None


def _leave_out_for_quick(config, items) -> None:
    kept, left = [], []
    for item in items:
        path = _module(item)
        slow = item.get_closest_marker("slow") is not None
        # the published data's reruns (WMT, AMI, the coverage of intervals) are the full run's
        published = "reference_data" in getattr(item, "fixturenames", ())
        (left if slow or published or path.startswith(QUICK_LEAVES_OUT) else kept).append(item)
    items[:] = kept
    config.hook.pytest_deselected(items=left)


# -- llgui's command line in the test's own process ------------------------------------------

def llgui_in_process(args: list[str], **env: str) -> subprocess.CompletedProcess:
    """`llgui ARGS`'s own entry point, in this process, `env` set for the call: the figures
    it prints are what is checked, not its process (a second interpreter cost ~0.5-1 s of CPU
    in imports)."""
    import contextlib
    import io
    import subprocess

    from llgui.cli.main import main

    printed, said = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        for name, value in env.items():
            patch.setenv(name, value)
        with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(said):
            try:
                code = main(args)
            except SystemExit as stop:   # argparse's own errors exit (2)
                code = stop.code
    return subprocess.CompletedProcess(["llgui", *args], code, printed.getvalue(),
                                       said.getvalue())
