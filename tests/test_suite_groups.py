"""The suite's own scheduling: under `python3 dev.py test` (pytest-xdist, `--dist loadgroup`)
every test without a group of its own runs in its module's group (tests/conftest.py), so a
module's fixtures are built on one worker. pytest 9.2 broke this silently with pytest-xdist
3.8 (the group never reached the test's id): this test fails when that happens again."""
from __future__ import annotations

import pytest


def test_this_test_runs_in_its_modules_group(request):
    if not getattr(request.config.option, "loadgroup", False):
        pytest.skip("not under pytest-xdist --dist loadgroup (python3 dev.py test runs it so)")
    assert request.node.nodeid == (
        "tests/test_suite_groups.py::test_this_test_runs_in_its_modules_group"
        "@tests/test_suite_groups.py")


@pytest.mark.xdist_group("suite-groups-own")
def test_a_group_of_its_own_is_kept(request):
    if not getattr(request.config.option, "loadgroup", False):
        pytest.skip("not under pytest-xdist --dist loadgroup (python3 dev.py test runs it so)")
    assert request.node.nodeid.endswith("::test_a_group_of_its_own_is_kept@suite-groups-own")
