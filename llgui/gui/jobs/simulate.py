"""The Simulate dialog's worker job (no Qt): a simulation run, and its bundles loaded."""
from __future__ import annotations


def simulate_and_load(bundle, systems, oracles, out, progress=None, should_stop=None, **options):
    """The dialog's job: `run_simulation`, then every run's bundle loaded (on the worker, so
    the window only adds them). Returns (Simulation, [Bundle, ...])."""
    from llgui.io.bundle import load_bundle
    from llgui.sim.run import run_simulation

    simulation = run_simulation(bundle, systems, oracles, out, progress=progress,
                                should_stop=should_stop, **options)
    loaded = [load_bundle(o.out / "bundle.toml") for o in simulation.outcomes
              if o.result is not None]
    return simulation, loaded
