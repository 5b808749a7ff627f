"""The model's predictions for every configuration of the long-context manifest.

Each configuration is simulated through the public API (:func:`gpusim.api.simulate`, the
``flash2`` algorithm with the configuration's workload and schedule) on each profile; for
PyTorch's runs the schedule is the one its flash backend runs (tiles, split count, walking
orders, packed GQA queries), as the manifest holds it. A configuration the model refuses
gets its one-line reason instead of numbers (past a limit, say), and one the model fails on
with an internal error gets that error, marked ``internal``: the others are still predicted.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from gpusim.api import simulate
from gpusim.errors import GpusimError
from gpusim.profiles.schema import HardwareProfile
from gpusim.source_commit import git_commit
from gpusim.validation.long_context_configs import LongContextConfig, manifest_doc

PROFILES = ("h200-sxm", "h200-sxm-core", "h200-sxm-datasheet")
PREDICTIONS_KIND = "gpusim.long_context_predictions"


def predict_one(
    c: LongContextConfig, profile: str | HardwareProfile, detail: str = "auto"
) -> dict[str, Any]:
    """Runtime, DRAM and SM-to-L2 bytes, bound and occupancy of one config on one profile;
    ``error`` where the model refuses it."""
    t0 = time.perf_counter()
    try:
        r = simulate("flash2", c.workload, c.schedule, profile, detail=detail)
    except GpusimError as exc:
        return {"error": str(exc), "sim_wall_s": time.perf_counter() - t0}
    except Exception as exc:  # a bug of the model: recorded as one, the other configs go on
        return {
            "error": f"internal error: {type(exc).__name__}: {exc}",
            "internal": True,
            "sim_wall_s": time.perf_counter() - t0,
        }
    return {
        "runtime_s": r.runtime_s,
        "dram_read_bytes": r.dram_read_bytes,
        "dram_write_bytes": r.dram_write_bytes,
        "dram_bytes": r.dram_read_bytes + r.dram_write_bytes,
        "sm_l2_read_bytes": r.counters.sm_l2_read_bytes,
        "global_write_bytes": r.global_write_bytes,
        "bound": r.bound,
        "ctas_per_sm": r.ctas_per_sm,
        "registers_from": r.registers_from,
        "waves": r.waves,
        "kernels": [k.name for k in r.kernels],
        "detail": r.detail,
        "sim_wall_s": time.perf_counter() - t0,
    }


def predict(
    configs: list[LongContextConfig],
    profiles: tuple[str, ...] = PROFILES,
    detail: str = "auto",
    log: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Every config on every profile, as one JSON-ready document."""
    by_config: dict[str, dict] = {}
    for n, c in enumerate(configs, 1):
        by_config[c.config_id] = {p: predict_one(c, p, detail) for p in profiles}
        ok = sum("runtime_s" in v for v in by_config[c.config_id].values())
        log(f"[{n}/{len(configs)}] {c.config_id}: {ok}/{len(profiles)} profiles predicted")
    return {
        "kind": PREDICTIONS_KIND,
        "model_commit": git_commit(),
        "manifest_configs_sha256": manifest_doc(configs)["configs_sha256"],
        "profiles": list(profiles),
        "detail": detail,
        "by_config": by_config,
    }
