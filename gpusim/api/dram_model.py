"""Which model gives a simulation's DRAM bytes: the engine's tile L2 (``tile-l2``, the
default: what the timed run itself saw) or the K/V trace of record (``kv-trace``,
:func:`gpusim.engine.kv_trace_l2.kv_trace_of_record`: reuse distances, the shared-traffic
aging and the SM-mates' drift, judged on long-context held-out set 5 at 12.3 % MAPE against
the tile L2's 49.8 %).

The trace models one kernel: flash2's forward, one CTA per (batch, head, query block)
(``kv_splits`` 1, no packed GQA), on a profile with the three measured fields it reads.
Asked of anything else it raises ValueError with the reason; it never answers with the
tile L2 instead. With ``kv-trace`` the result's DRAM bytes (and the L2 hit rate they give)
are the trace's; its runtime stays the engine's, timed with the tile L2's bytes, and
``dram_model_detail`` keeps the tile L2's bytes beside what the trace used.
"""

from __future__ import annotations

from gpusim.engine.kv_trace_l2 import PROFILE_FIELDS, kv_trace_of_record
from gpusim.engine.rates import rates_for
from gpusim.engine.result import SimResult

DRAM_MODELS = ("tile-l2", "kv-trace")


def check_dram_model(name: str) -> str:
    """``name`` if it is a DRAM model, else ValueError naming the known ones."""
    if name not in DRAM_MODELS:
        raise ValueError(f"unknown DRAM model {name!r}; known: {', '.join(DRAM_MODELS)}")
    return name


def check_kv_trace(algorithm: str, schedule, profile) -> None:
    """ValueError, before anything is simulated, where the K/V trace cannot model the run."""
    if algorithm != "flash2":
        raise ValueError(f"the K/V trace models flash2's forward kernel, not {algorithm}")
    if schedule.kv_splits != 1 or schedule.pack_gqa:
        raise ValueError(
            f"the K/V trace models one kernel, kv_splits 1 without packed GQA (kv_splits "
            f"{schedule.kv_splits}{', packed GQA' if schedule.pack_gqa else ''}: 2 kernels)"
        )
    missing = [f for f in PROFILE_FIELDS if getattr(profile, f) is None]
    if missing:
        raise ValueError(f"the K/V trace needs the profile's {', '.join(missing)} (measured)")


def apply_kv_trace(result: SimResult, workload, profile) -> SimResult:
    """``result`` with the K/V trace's DRAM bytes (in place; see the module's docstring)."""
    s = result.schedule
    check_kv_trace(result.algorithm, s, profile)
    if len(result.kernels) != 1:
        raise ValueError(f"the K/V trace models one kernel, not {len(result.kernels)}")
    rates = rates_for(profile, workload.dtype, s.warps)
    t = kv_trace_of_record(workload, s, rates, result.ctas_per_sm, result.runtime_s)
    tile = result.counters
    detail = {
        "tile_l2_dram_read_bytes": tile.dram_read_bytes,
        "tile_l2_dram_write_bytes": tile.dram_write_bytes,
        "l2_shared_aging": t.shared_aging,
        "sm_mate_priority": t.priority,
        "tile_step_s": t.step_s,
        "tile_step_outside_calibration": t.step_outside_calibration,
    }
    for c in (result.counters, result.kernels[0].counters):
        c.dram_read_bytes = t.result.dram_read_bytes
        c.dram_write_bytes = t.result.dram_write_bytes
    result.dram_model = "kv-trace"
    result.dram_model_detail = detail
    return result
