"""``gpusim explore``: hardware what-if sweeps, profile parameters x workloads x algorithms,
each point tuned, on local processes or a Dask cluster; resumable, with a table (Parquet,
CSV), a JSON summary (knees, slowest points, failures) and figures.

The pieces: :mod:`~gpusim.explore.spec` (the YAML file), :mod:`~gpusim.explore.fields`
(profile fields by name, varied and validated), :mod:`~gpusim.explore.sweep_plan` (the checked
grid), :mod:`~gpusim.explore.evaluate` (one point), :mod:`~gpusim.explore.dask_executor`,
:mod:`~gpusim.explore.table`, :mod:`~gpusim.explore.summary`,
:mod:`~gpusim.explore.figures` and :mod:`~gpusim.explore.run` (all of it).
"""

from gpusim.explore.run import ExploreResult, explore
from gpusim.explore.spec import ExploreSpec, load_spec, parse_spec
from gpusim.explore.sweep_plan import Plan, load_plan, make_plan

__all__ = [
    "ExploreResult",
    "ExploreSpec",
    "Plan",
    "explore",
    "load_plan",
    "load_spec",
    "make_plan",
    "parse_spec",
]
