"""The panel of evaluated oracles: Geoffrois's weights against a hand-computed table, and a
real panel (static, mt_memory and the README's example system, two oracles) in panel.json."""
from __future__ import annotations

import json
import re
import sys

import pytest

from llgui.core.reports.oracle_panel import PanelRun, make_panel
from llgui.sim.run import run_simulation
from tests.conftest import REPO
from tests.sim.test_simulate_demo import first_document_bundle


def test_weights_and_panel_msr_by_hand():
    # MSR (%) and S_pen of two systems with three oracles:
    #            o1        o2        o3
    #   A     40 / 30   90 / 20  110 / 10
    #   B     60 / 35  120 / 15  130 / 5
    # best MSR: o1 40, o2 90, o3 110 -> weights 0.6, 0.1, 0 (1 - 1.1 floored)
    # panel MSR A = (0.6*40 + 0.1*90) / 0.7 = 33/0.7;  B = (0.6*60 + 0.1*120) / 0.7 = 48/0.7
    # panel S_pen A = (0.6*30 + 0.1*20) / 0.7 = 20/0.7; B = (0.6*35 + 0.1*15) / 0.7 = 22.5/0.7
    table = {("A", "o1"): (40, 30), ("A", "o2"): (90, 20), ("A", "o3"): (110, 10),
             ("B", "o1"): (60, 35), ("B", "o2"): (120, 15), ("B", "o3"): (130, 5)}
    runs = [PanelRun(s, o, 0.0, 0.0, pen, msr, 1.0) for (s, o), (msr, pen) in table.items()]
    panel = make_panel(runs, "ter", "ter")
    assert panel.best_msr == {"o1": 40, "o2": 90, "o3": 110}
    assert panel.weights == pytest.approx({"o1": 0.6, "o2": 0.1, "o3": 0.0})
    assert panel.panel_msr["A"] == pytest.approx(33 / 0.7)
    assert panel.panel_msr["B"] == pytest.approx(48 / 0.7)
    assert panel.panel_s_pen["A"] == pytest.approx(20 / 0.7)
    assert panel.panel_s_pen["B"] == pytest.approx(22.5 / 0.7)


def readme_example() -> str:
    text = (REPO / "docs" / "protocol.md").read_text(encoding="utf-8")
    section = text.split("## Evaluate your own system", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_readme_example_system_in_a_panel(tmp_path, demo_dir):
    example = tmp_path / "keeper.py"
    example.write_text(readme_example(), encoding="utf-8")
    assert 20 <= len(readme_example().splitlines()) <= 45
    bundle = first_document_bundle(demo_dir, "mt", tmp_path / "in")
    sim = run_simulation(bundle, ["static", "mt_memory", f"keeper={sys.executable} {example}"],
                         ["allies", "worst-first"], tmp_path / "out", budget=100.0)
    data = json.loads((tmp_path / "out" / "panel.json").read_text())
    assert data["systems"] == ["static", "mt_memory", "keeper"]
    runs = {(r["system"], r["oracle"]): r for r in data["runs"]}
    assert all(r["exit"] == 0 for r in runs.values())
    assert runs[("keeper", "allies")]["cost"] > 0          # the example asked and was answered
    for oracle in ("allies", "worst-first"):
        best = min(runs[(s, oracle)]["msr"] for s in data["systems"])
        assert data["weights"][oracle] == pytest.approx(max(0.0, 1 - best / 100))
    for system in data["systems"]:
        w = data["weights"]
        total = sum(w.values())
        expected = sum(w[o] * runs[(system, o)]["msr"] for o in w) / total if total else None
        assert data["panel_msr"][system] == pytest.approx(expected)
    assert sim.panel is not None and sim.panel.weights == pytest.approx(data["weights"])
