"""Settings given on the command line or to the API (`llgui.io.bundle.with_settings`) are
checked by the bundle's own rules: the same value is refused for the same reason (issue 24)."""
from __future__ import annotations

import pytest

from llgui.core.errors import LoadError, UsageError
from llgui.io.bundle import load_bundle, with_settings
from tests.conftest import DEMO

MT_DOC = ('[[documents]]\nid = "d"\ntime = 0\n'
          f'references = ["{DEMO / "mt" / "ref" / "news-2023-01-09.drm"}"]\n'
          f'hypothesis = "{DEMO / "mt" / "hyp" / "news-2023-01-09.drm"}"\n')
DIAR_DOC = ('[[documents]]\nid = "NEWS_20230306"\ntime = 0\n'
            f'references = ["{DEMO / "diarization" / "ref" / "shows.rttm"}"]\n'
            f'hypothesis = "{DEMO / "diarization" / "hyp" / "NEWS_20230306.rttm"}"\n')


def _bundle(tmp_path, task: str, settings: str = ""):
    path = tmp_path / f"{task}.toml"
    path.write_text(f'[bundle]\ntask = "{task}"\n\n[settings]\n{settings}\n'
                    + (MT_DOC if task == "mt" else DIAR_DOC))
    return path


@pytest.mark.parametrize("task, key, toml, value", [
    ("diarization", "collar", "-1", -1.0),
    ("diarization", "collar", "1e9", 1e9),
    ("diarization", "collar", "nan", float("nan")),
    ("diarization", "skip_overlap", "1", 1),
    ("mt", "tokenize", '"nope"', "nope"),
    ("mt", "lowercase", '"yes"', "yes"),
    ("mt", "max_ngram_order", "100", 100),
    ("mt", "beta", "2.5", 2.5),
    ("mt", "trg_lang", "3", 3),
])
def test_a_value_the_bundle_refuses_is_refused_with_the_same_reason(tmp_path, task, key, toml,
                                                                    value):
    with pytest.raises(LoadError) as from_file:
        load_bundle(_bundle(tmp_path, task, f"{key} = {toml}"))
    (problem,) = from_file.value.problems
    plain = load_bundle(_bundle(tmp_path, task))
    with pytest.raises(UsageError) as from_flag:
        with_settings(plain, {key: value})
    assert problem.reason in str(from_flag.value)


def test_a_good_value_is_laid_over_the_bundles_and_none_leaves_it(tmp_path):
    bundle = load_bundle(_bundle(tmp_path, "diarization", "collar = 0.5\nskip_overlap = true"))
    over = with_settings(bundle, {"collar": 0.25, "skip_overlap": None})
    assert dict(over.settings) == {"collar": 0.25, "skip_overlap": True}
    assert dict(bundle.settings) == {"collar": 0.5, "skip_overlap": True}   # unchanged
    assert with_settings(bundle, {}) is bundle
    with pytest.raises(UsageError, match="collar is read by der, jer"):
        with_settings(load_bundle(_bundle(tmp_path, "mt")), {"collar": 0.5})
    with pytest.raises(UsageError, match="not a setting"):
        with_settings(bundle, {"colar": 0.5})
