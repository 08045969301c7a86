"""Issue 38.4: the Python API checks its arguments exactly as the command line checks its
options (one check, `llgui.core.bounds`), and wrong types and values are `UsageError` (or
`LoadError` for a file), never an internal exception or a run of 10**12 resamples.

The expected reasons are the command line's own: each out-of-range value is given to the
CLI (`llgui.cli.main.main`, in this process) and to the API, and the API's message holds the
reason the CLI printed. A hang guard (SIGALRM, 120 s) turns the old behaviour (compare with
10**12 samples ran on) into a failure instead of a stuck test; no time is asserted.
"""
from __future__ import annotations

import contextlib
import math
import re
import signal
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

import llgui
from llgui import api
from llgui.cli.main import main
from llgui.core.bounds import OPTIONS, max_workers

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "resources" / "demo"
DET = DEMO / "detection" / "bundle.toml"
MT = DEMO / "mt" / "bundle.toml"


class _Hung(BaseException):
    pass


@contextlib.contextmanager
def hang_guard(seconds: float = 120.0):
    def ring(*_):
        raise _Hung(f"still running after {seconds} s: the bound was not checked")

    previous = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    from tests.cli.test_hostile import make_campaign

    return make_campaign(tmp_path_factory.mktemp("campaign"))


@pytest.fixture(scope="module")
def inputs(campaign, tmp_path_factory):
    """What the calls of API_OF are given: the campaign, and a detection bundle of the demo's
    first 400 trials (33 targets) with its three systems. The bounds are checked before any
    figure is computed; a value the API accepts runs the call on it, and on the demo's 25,000
    trials `samples` left to its default (1,000 resamples) took ~4.5 s of CPU and `seed` ~1 s
    a run: the property does not need the size."""
    import types

    source = DEMO / "detection"
    folder = tmp_path_factory.mktemp("detection")
    (folder / "scores").mkdir()
    for path in sorted((source / "scores").iterdir()):
        head = path.read_text(encoding="utf-8").splitlines(keepends=True)[:400]
        (folder / "scores" / path.name).write_text("".join(head), encoding="utf-8")
    (folder / "bundle.toml").write_text((source / "bundle.toml").read_text(encoding="utf-8"),
                                        encoding="utf-8")
    return types.SimpleNamespace(campaign=campaign, det=folder / "bundle.toml")


@pytest.fixture
def in_process(monkeypatch, tmp_path):
    """A valid worker count runs the cells in this process: the argument's check is under
    test, not Dask's start-up."""
    from llgui.campaign import run as campaign_run
    from llgui.campaign.executor import Plan

    monkeypatch.setattr(campaign_run, "choose",
                        lambda *a, **k: Plan("in-process", 0, None, "test"))
    monkeypatch.setenv("LLGUI_CACHE_DIR", str(tmp_path / "cache"))


# -- the cases of the issue ------------------------------------------------------------------


def test_the_issues_cases_are_usage_errors(campaign, in_process):
    cases = [
        (lambda: llgui.compare([DET], baseline="sysA", samples=10 ** 12),
         "samples 1000000000000: must be an integer between 1 and 1000000"),
        (lambda: llgui.score_campaign(campaign, workers=10 ** 12),
         f"workers 1000000000000: must be an integer between 0 and {max_workers()}"),
        (lambda: llgui.score_campaign(campaign, workers=-1),
         f"workers -1: must be an integer between 0 and {max_workers()}"),
        (lambda: llgui.score_campaign(campaign, scheduler=8786),
         "scheduler '8786': must be a string, not int"),
        (lambda: llgui.score(None),
         "bundle must be a bundle (llgui.load) or the path of a bundle file, not None"),
        (lambda: llgui.compare({1: 2}, baseline="1"),
         "bundle must be a bundle (llgui.load) or the path of a bundle file, not int"),
        (lambda: llgui.compare([DET], baseline=1), "baseline '1': must be a string, not int"),
        (lambda: llgui.det(pairs=[("a",)]),
         "pairs[0] must be a pair (targets file, nontargets file), not ('a',)"),
        (lambda: llgui.det(DET, dcf=5), 'dcf must be "P_TARGET,C_MISS,C_FA" or three numbers'),
        (lambda: llgui.score(MT, metrics=[1]), "metrics: every name must be a string, not int"),
        (lambda: llgui.replay(MT, doc=3), "doc '3': must be a string, not int"),
        (lambda: llgui.lifelong(MT, policy=5), "policy must be A, B, C or the path of a "
                                               "policy file, not int"),
        (lambda: llgui.load(None), "path must be a file name (str or pathlib.Path), not None"),
        (lambda: llgui.load_files(None, "h.txt"), "ref must be a sequence, not None"),
    ]
    for call, message in cases:
        with hang_guard(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(llgui.UsageError) as caught:
                call()
        assert message in str(caught.value)


# -- every bound the command line has, the same reason -------------------------------------

# the API call of each option, and the command line that carries it; simulate has no API
# function (its --budget, --interactive-ratio and --timeout are the CLI's only)
API_OF = {
    "samples": (lambda v, i: api.compare_report([i.det], "sysA", samples=v),
                lambda t, i: ["compare", i.det, "--baseline", "sysA", "--samples", t]),
    "seed": (lambda v, i: api.compare_report([i.det], "sysA", samples=10, seed=v),
             lambda t, i: ["compare", i.det, "--baseline", "sysA", "--samples", "10", "--seed",
                           t]),
    "workers": (lambda v, i: api.campaign_report(i.campaign, workers=v),
                lambda t, i: ["campaign", i.campaign, "--workers", t]),
    "threads": (lambda v, i: api.campaign_run(i.campaign, workers=0, threads=v),
                lambda t, i: ["campaign", i.campaign, "--workers", "0", "--threads", t]),
    "cell_timeout": (lambda v, i: api.campaign_run(i.campaign, workers=0, cell_seconds=v),
                     lambda t, i: ["campaign", i.campaign, "--workers", "0", "--cell-timeout",
                                   t]),
    "connect_timeout": (lambda v, i: api.campaign_run(i.campaign, workers=0, connect_seconds=v),
                        lambda t, i: ["campaign", i.campaign, "--workers", "0",
                                      "--connect-timeout", t]),
    "threshold": (lambda v, i: api.det_report(i.det, threshold=v),
                  lambda t, i: ["det", i.det.parent / "scores" / "sysA.txt", "--key",
                                i.det.parent / "scores" / "trials.key", "--threshold", t]),
}
CLI_ONLY = {"budget", "interactive_ratio", "timeout"}


def test_every_bound_has_its_api_argument_or_is_simulates():
    assert set(API_OF) | CLI_ONLY == set(OPTIONS)


def _outside(name: str) -> list:
    bound = OPTIONS[name]
    values = [math.nan, math.inf, True, [1]]
    top = bound.top
    if bound.minimum is not None:
        values.append(bound.minimum - 1 if bound.integer else bound.minimum / 2 - 1)
    if top is not None:
        values.append(top + 1 if bound.integer else top * 2)
    if bound.integer:
        values += [2.5, 10 ** 12]
    return values


def _cli_reason(capsys, argv) -> str:
    with pytest.raises(SystemExit) as stopped:
        main([str(a) for a in argv])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    return err.strip().splitlines()[-1]


@pytest.mark.parametrize("name", sorted(API_OF))
def test_the_api_refuses_what_the_command_line_refuses_with_its_reason(name, inputs,
                                                                       in_process, capsys):
    call, argv = API_OF[name]
    for value in _outside(name):
        with hang_guard(), pytest.raises(llgui.UsageError) as caught:
            call(value, inputs)
        said = str(caught.value)
        assert said.startswith(f"{name} " if name not in ("cell_timeout", "connect_timeout")
                               else ("cell_seconds " if name == "cell_timeout"
                                     else "connect_seconds "))
        if isinstance(value, (bool, list)):
            continue   # no command-line text is a bool or a list
        text = str(value) if not isinstance(value, float) or not value.is_integer() \
            else repr(value)
        reason = _cli_reason(capsys, argv(text, inputs))
        # the CLI: "argument --samples: '0': must be ..."; the API: "samples 0: must be ..."
        cli_reason = re.search(r"'[^']*'(?::)? (.*)$", reason).group(1)
        assert said.endswith(f": {cli_reason}"), (reason, said)


# -- the property: any value, the API and the command line agree -----------------------------

VALUES = st.one_of(
    st.integers(-10 ** 30, 10 ** 30),
    st.sampled_from([0, 1, 2, 3, 64, 65, 3600, 3601, 10 ** 6, 10 ** 6 + 1, 2 ** 32 - 1, 2 ** 32,
                     -1, max_workers(), max_workers() + 1]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, -0.0, 5e-324, 0.0005, 0.001, 1e-3, 604800.0, 604800.5, 1e300]),
    st.booleans(), st.none(), st.text(max_size=6), st.lists(st.integers(), max_size=2),
)
PROPERTY = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


def _cli_accepts(name: str, value) -> bool | None:
    """Whether the command line's type of option `name` accepts the text of `value`
    (None: no text stands for it)."""
    import argparse

    from llgui.cli import options

    if isinstance(value, (bool, list)) or value is None:
        return None
    text = value if isinstance(value, str) else repr(value)
    try:
        options.bounded(name)(text)
    except argparse.ArgumentTypeError:
        return False
    return True


@PROPERTY
@given(name=st.sampled_from(sorted(API_OF)), value=VALUES)
def test_property_api_arguments_are_checked_as_the_cli_options(name, value, inputs,
                                                                in_process):
    """Whatever the value: the API either runs or raises UsageError (never another
    exception, never a hang), and it accepts exactly what the command line accepts."""
    if name == "samples" and isinstance(value, int) and not isinstance(value, bool):
        assume(value <= 2000 or value > 10 ** 6)   # a valid count runs that many resamples
    if name == "workers" and isinstance(value, int) and not isinstance(value, bool):
        assume(value <= 1 or value > max_workers())   # valid counts run in this process
    call, _ = API_OF[name]
    with hang_guard(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            call(value, inputs)
        except llgui.UsageError:
            accepted = False
        else:
            accepted = True
    if value is None:   # None is "not given": the default
        assert accepted
        return
    cli = _cli_accepts(name, value)
    if cli is not None:
        assert accepted == cli, (name, value)
    else:
        assert not accepted   # a bool or a list is no number
