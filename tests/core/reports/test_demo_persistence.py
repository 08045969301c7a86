"""The demo campaign shows what persists (issue 33): `relapsing` regresses exactly on the
sentences its versions M04, M08 and M11 cut, and forgets the first correction of its online
run after 2 documents, keeping the second; sentence chrF from sacrebleu, in the test."""
from __future__ import annotations

import pytest

from llgui.resources import demo_dir


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    from llgui import api

    with pytest.MonkeyPatch.context() as patch:   # a cache of its own, not the user's
        patch.setenv("LLGUI_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        return api.regressions_report(demo_dir() / "campaign" / "campaign.toml", samples=50)


CUT = {"M04": (0, 2), "M08": (1,), "M11": (3, 4)}


def test_relapsing_versions_regress_where_they_cut(report):
    import sacrebleu

    root = demo_dir() / "campaign"
    rows = [r for r in report["rows"] if r["kind"] == "flip" and r["system"] == "relapsing"]
    expected = set()
    for version, units in CUT.items():
        before = f"M{int(version[1:]) - 1:02d}"
        for ref_path in sorted((root / "ref").glob("*.drm")):
            refs = ref_path.read_text().splitlines()
            old = (root / "relapsing" / before / ref_path.name).read_text().splitlines()
            new = (root / "relapsing" / version / ref_path.name).read_text().splitlines()
            for i in range(len(refs)):
                a = sacrebleu.sentence_chrf(old[i], [refs[i]]).score
                b = sacrebleu.sentence_chrf(new[i], [refs[i]]).score
                if b < a:
                    expected.add((before, version, ref_path.stem, i))
                    assert i in units
    assert expected and {(r["before"], r["after"], r["batch"], r["index"]) for r in rows} \
        == expected


def test_relapsing_forgets_after_two_documents():
    from llgui import api

    report = api.regressions_report(demo_dir() / "campaign" / "relapsing" / "online"
                                     / "bundle.toml")
    rows = [(r["correction"], r["retest"], r["outcome"]) for r in report["rows"]
            if r["kind"] == "relapse"]
    assert rows == [("talk-1#1", "talk-2", "kept"), ("talk-1#1", "talk-3", "kept"),
                    ("talk-1#1", "talk-4", "relapsed"), ("talk-1#1", "talk-5", "relapsed"),
                    ("talk-1#1", "talk-6", "relapsed"),
                    *(("talk-2#1", f"talk-{k}", "kept") for k in range(3, 7))]
    (section,) = report["relapses"]
    assert (section["retested"], section["relapsed"], section["rate"]) == (2, 1, 50.0)
