"""`llgui simulate` as a long job: every system with every oracle, and the panel.

`run_simulation(bundle_path, systems, oracles, out, ..., progress=None, should_stop=None)`
is a plain job function (`llgui.core.jobs`): the CLI calls it with a terminal progress bar,
the window on a worker. One run writes its folder in `out`; several systems or oracles write
`out/SYSTEM/ORACLE/` each, and `out/panel.json` (`llgui.core.reports.oracle_panel`).

A system that fails (exit 3) does not stop the other runs of a panel; the first failure is
raised at the end, after panel.json is written. A cancelled job ends the running system's
process group at once and raises `Cancelled`.
"""
from __future__ import annotations

import difflib
import json
import math
import shlex
import shutil
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Sequence

from llgui.utils.atomic import write_atomic
from llgui.utils.names import safe_name
from llgui.utils.regular import output_folder
from llgui.core.errors import SystemFailed
from llgui.core.metrics import error_metrics
from llgui.core.penalty import pooled_msr
from llgui.core.reports.oracle_panel import Panel, PanelRun, make_panel
from llgui.sim.driver import RunResult, Session
from llgui.sim.oracles import make_oracle, oracle_folder

REFERENCE_SYSTEMS = ("static", "mt_memory", "diar_clusters", "diar_audio", "mt_complete")


@dataclass(frozen=True)
class SystemSpec:
    name: str
    command: tuple[str, ...]

    @property
    def command_text(self) -> str:
        return shlex.join(self.command)


def parse_system(spec: str, python: str = sys.executable) -> SystemSpec:
    """`[NAME=]COMMAND`; a reference-system name (static, mt_memory, diar_clusters,
    diar_audio), with its options if any (`diar_clusters --global-speakers`), runs
    `python -m llgui.systems.NAME [OPTIONS]`."""
    name = None
    text = spec.strip()
    head, sep, rest = text.partition("=")
    if sep and head and " " not in head and "/" not in head and rest.strip():
        name, text = head, rest.strip()
    if text in REFERENCE_SYSTEMS:
        return SystemSpec(name or text, (python, "-m", f"llgui.systems.{text}"))
    try:
        argv = tuple(shlex.split(text))
    except ValueError as exc:
        raise ValueError(f"--system {spec!r}: {exc}") from None
    if not argv:
        raise ValueError(f"--system {spec!r}: empty command")
    if argv[0] in REFERENCE_SYSTEMS:   # a reference system with its options
        return SystemSpec(name or argv[0], (python, "-m", f"llgui.systems.{argv[0]}",
                                            *argv[1:]))
    if len(argv) == 1 and "/" not in argv[0] and shutil.which(argv[0]) is None:
        # one word that is no program: a mistyped reference system is the user's error (exit
        # 2), not the system's failure to start (exit 3)
        close = difflib.get_close_matches(argv[0], REFERENCE_SYSTEMS, n=1, cutoff=0.6)
        hint = (f"did you mean {close[0]!r}?" if close
                else f"the reference systems are {', '.join(REFERENCE_SYSTEMS)}")
        raise ValueError(f"--system {spec!r}: no program {argv[0]!r} on PATH; {hint}")
    if name is None:
        if len(argv) >= 3 and argv[1] == "-m":
            name = argv[2].rsplit(".", 1)[-1]
        else:
            name = Path(argv[-1]).stem or Path(argv[0]).name
    return SystemSpec(name, argv)


@dataclass(frozen=True)
class RunOutcome:
    system: str
    oracle: str
    out: Path
    result: RunResult | None
    error: str | None = None


@dataclass(frozen=True)
class Simulation:
    out: Path
    outcomes: tuple[RunOutcome, ...]
    panel: Panel | None
    metric: str
    msr_metric: str | None


def run_summary(result: RunResult, metric: str, msr_metric: str | None) -> PanelRun:
    """Means over documents of S_base, S_adapt, S_pen (`metric`), the pooled MSR; documents
    cut short (the run stopped in them) are left out, as every report leaves them out."""
    docs = [d for d in result.documents if not d.partial]
    def mean(key):
        values = [d.scores[metric][key] for d in docs if metric in d.scores
                  and d.scores[metric][key] is not None]
        return float(sum(values) / len(values)) if values else None
    msr = None
    if msr_metric is not None:
        msr = pooled_msr(sum(d.feedback.get(msr_metric, 0.0) for d in docs),
                         [d.errors.get(msr_metric) for d in docs])
    return PanelRun(system="", oracle="", s_base=mean("s_base"), s_adapt=mean("s_adapt"),
                    s_pen=mean("s_pen"), msr=msr, cost=float(sum(d.cost for d in docs)),
                    exit=result.exit, ipmt=result.run.get("ipmt"))


def equal_spend(outcomes: Sequence[RunOutcome], metric: str
                ) -> tuple[dict[tuple[str, str], float | None], dict[str, float | None]]:
    """Each run's S_pen at equal spend (`oracle_panel`): per oracle and document, the common
    cost is the least any system's run spent on the document; each run's S_pen is read on
    its learning curve there (`DocumentResult.s_pen_at`) and averaged over the documents
    every run of the oracle completed. Returns ({(system, oracle): S_pen@equal}, {oracle:
    the common cost summed over those documents})."""
    equal: dict[tuple[str, str], float | None] = {}
    common: dict[str, float | None] = {}
    for oracle in dict.fromkeys(o.oracle for o in outcomes):
        done = [o for o in outcomes if o.oracle == oracle and o.result is not None]
        if not done:
            common[oracle] = None
            continue
        docs = [{d.doc: d for d in o.result.documents if not d.partial} for o in done]
        ids = [i for i in docs[0] if all(i in d for d in docs[1:])]
        least = {i: min(d[i].cost for d in docs) for i in ids}
        common[oracle] = float(sum(least.values())) if ids else None
        for o, by_id in zip(done, docs):
            values = [by_id[i].s_pen_at(metric, least[i]) for i in ids]
            values = [v for v in values if v is not None]
            equal[(o.system, o.oracle)] = float(sum(values) / len(values)) if values else None
    return equal, common


def _inputs(bundle) -> list[str]:
    """The files a simulation reads: the bundle file and every file its documents name."""
    import tomllib

    if bundle.path is None:
        return []
    path = Path(bundle.path)
    out = [str(path)]
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return out
    for table in data.get("documents", []) if isinstance(data.get("documents"), list) else []:
        if not isinstance(table, dict):
            continue
        for key in ("references", "hypothesis", "source", "uem", "docids", "words",
                    "hypothesis_words"):
            value = table.get(key)
            for v in value if isinstance(value, list) else [value]:
                if isinstance(v, str):
                    out.append(str(path.parent / v))
    return out


def run_simulation(
    bundle_path: str | Path,
    systems: Sequence[str | SystemSpec],
    oracles: Sequence[str] = ("allies",),
    out: str | Path = "simulation",
    *,
    budget: float | None = None,
    mode: str | None = None,
    interactive_ratio: float | None = None,
    seed: int = 0,
    timeout: float = 30.0,
    startup_timeout: float | None = None,
    progress: Callable[[float], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    on_step: Callable | None = None,
) -> Simulation:
    from llgui.io.bundle import load_bundle

    bundle = load_bundle(bundle_path)
    for warning in bundle.warnings:   # the run goes on; said as every command says them
        print(warning, file=sys.stderr)   # (e.g. an audio file the system will not be sent)
    if bundle.task not in ("mt", "diarization"):
        raise ValueError(f"simulate needs an MT or diarization bundle, not a {bundle.task} one")
    specs = [s if isinstance(s, SystemSpec) else parse_system(s) for s in systems]
    names = [s.name for s in specs]
    if len(set(names)) != len(names):
        raise ValueError(f"two systems are named {next(n for n in names if names.count(n) > 1)!r}"
                         ": name them with NAME=COMMAND")
    made = [make_oracle(o) for o in oracles]
    if len({o.name for o in made}) != len(made):
        raise ValueError("an oracle is given twice")
    out = Path(out)
    several = len(specs) * len(made) > 1
    writes = ["panel.json"] + [safe_name(s.name, "system") for s in specs] if several else [
        "bundle.toml", "run.json", "system.stderr", "hyp", "logs", "ref", "src"]
    output_folder(out, "--out", _inputs(bundle), writes)   # ValueError: exit 2
    from llgui.utils.folder_lock import hold

    with hold(out, "--out"):   # one run at a time in a folder (FolderBusy: exit 2)
        metric = bundle.metrics[0]
        errors = error_metrics(bundle.task)   # the metrics whose replay has an MSR
        msr_metric = next((m for m in errors if m in bundle.metrics), errors[0])
        outcomes: list[RunOutcome] = []
        first_failure: SystemFailed | None = None
        total = len(specs) * len(made)
        for i, spec in enumerate(specs):
            for j, oracle in enumerate(made):
                k = i * len(made) + j
                folder = (out / safe_name(spec.name, "system") / safe_name(oracle_folder(oracle.name), "oracle")
                          if several else out)
                sub = None
                if progress is not None:
                    def sub(f, k=k):
                        progress((k + f) / total)
                session = Session(bundle, spec.command, oracle, folder, system_name=spec.name,
                                  mode=mode, interactive_ratio=interactive_ratio, budget=budget,
                                  seed=seed, timeout=timeout, startup_timeout=startup_timeout,
                                  should_stop=should_stop,
                                  on_step=on_step)
                try:
                    result = session.run(sub)
                except SystemFailed as error:
                    if not several:
                        raise
                    first_failure = first_failure or error
                    outcomes.append(RunOutcome(spec.name, oracle.name, folder, None, str(error)))
                    continue
                outcomes.append(RunOutcome(spec.name, oracle.name, folder, result))
        panel = None
        if several:
            runs = []
            for o in outcomes:
                if o.result is None:
                    runs.append(PanelRun(o.system, o.oracle, None, None, None, None, math.nan, 3))
                    continue
                summary = run_summary(o.result, metric, msr_metric)
                runs.append(PanelRun(o.system, o.oracle, summary.s_base, summary.s_adapt,
                                     summary.s_pen, summary.msr, summary.cost, summary.exit,
                                     summary.ipmt))
            equal, common = equal_spend(outcomes, metric)
            runs = [replace(r, s_pen_equal=equal.get((r.system, r.oracle))) for r in runs]
            panel = make_panel(runs, metric, msr_metric, common)
            data = panel.to_dict()
            data["runs"] = [dict(r, folder=str(o.out.relative_to(out)))
                            for r, o in zip(data["runs"], outcomes)]
            write_atomic(out / "panel.json", json.dumps(data, indent=2, allow_nan=False) + "\n")
        if first_failure is not None:
            raise first_failure
        return Simulation(out, tuple(outcomes), panel, metric, msr_metric)
