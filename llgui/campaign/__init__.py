"""Campaign jobs on Dask (DESIGN.md section 3b): the only package of llgui that imports dask.

- `cells`: the jobs, module-level functions on plain data (paths, settings) that return
  additive statistics, so a worker process started with `spawn` (or on another machine) can
  run them;
- `cache`: the content-addressed cache of finished cells;
- `executor`: in-process, a `LocalCluster` on this machine, or an existing cluster (the
  default measured on the first cells; a failing, killed or hung cell a named problem);
- `run`: the driver: cache look-ups, jobs, merging in a fixed order, the report.
"""
