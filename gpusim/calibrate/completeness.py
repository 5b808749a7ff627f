"""Whether a written profile is complete, and which of its numbers are not this GPU's.

``gpusim calibrate`` must give every number the engine reads for the GPU at hand. A field
the suite did not measure (its benchmark failed, or it was left out with ``--only``) keeps
the base profile's value: a guide's or a datasheet's fact is fine where the base profile is
of the same architecture, but a number *measured* on the base profile's GPU is not this
one's, and the command says so instead of passing it off as calibrated.
"""

from __future__ import annotations

from typing import Any

from gpusim.profiles.schema import HardwareProfile

#: Profile keys that describe the profile, not the GPU.
META = ("schema_version", "name", "display_name", "architecture", "compute_capability", "note")
#: Optional fields a calibration does not give, and why.
NOT_CALIBRATED = {
    "sass_core_cycles": "the SM core model's cycles, a refinement a profile opts into with "
    "--sass-timing (python -m gpusim.calibrate.sass_timing); the engine reads it only where "
    "present and the default H200 profile has none",
    "wgmma_flops_per_clk_per_sm": "Hopper only, from the separate sm_90a run python -m "
    "gpusim.calibrate.wgmma (gpusim.calibrate.wgmma_record), not the suite",
}
#: The wgmma fields: the same separate run gives them (Hopper only).
NOT_CALIBRATED |= {
    f: NOT_CALIBRATED["wgmma_flops_per_clk_per_sm"]
    for f in (
        "wgmma_rate_by_n",
        "sm_clock_wgmma_load_hz",
        "wgmma_softmax_overlap_same_warpgroup",
        "wgmma_softmax_overlap_other_warpgroup",
        "wgmma_softmax_overlap_two_warpgroups",
    )
}
NOT_CALIBRATED["l2_shared_aging"] = (
    "the K/V trace's aging, from a recorded l2_bytes --hot run by python -m "
    "gpusim.calibrate.l2_shared_aging RECORD --profile PROFILE, not the suite"
)
for _f in ("tile_stream_latency_s", "tile_stream_ingress_bytes_per_s", "tile_stream_knee_power"):
    NOT_CALIBRATED[_f] = (
        "the tile stream's law, from the separate run python -m gpusim.calibrate.step_stream "
        "(python -m gpusim.calibrate.step_stream_fit --record R --profile P applies it), not "
        "the suite; read only with the mechanism gpusim.engine.stream_latency on"
    )
NOT_CALIBRATED["sm_mate_priority"] = (
    "the K/V trace's SM-mates, from a recorded kv_walk --drift run (ncu and CuPy) by python "
    "-m gpusim.calibrate.sm_mate_drift RECORD --profile PROFILE, not the suite"
)
NOT_CALIBRATED["sm_mate_first_wave_ratio"] = (
    "the first wave's SM-mates, from the separate run python -m gpusim.calibrate.mate_gap (its "
    "--record/--profile apply it), not the suite; judged by held-out set 32"
)
NOT_CALIBRATED["step_efficiency_by_cta_warps"] = (
    "the step efficiency by CTA grouping, from the separate run python -m "
    "gpusim.calibrate.step_grouping, not the suite; judged by held-out set 35"
)
NOT_CALIBRATED["grouped_products_kappa_by_cta_warps"] = (
    "the grouped products' exposed pipe, from the separate run python -m "
    "gpusim.calibrate.group_products (its --record/--profile apply it), not the suite"
)
NOT_CALIBRATED["sm_clock_wgmma_burst_hz"] = (
    "Hopper only, from the separate sm_90a run python -m gpusim.calibrate.wgmma_burst "
    "(its --record/--profile apply it), not the suite"
)
NOT_CALIBRATED["fragment_store_bytes_per_clk_per_sm"] = (
    "from the separate sm_90a run python -m gpusim.calibrate.cta_life (setmaxnreg, as "
    "warp-specialized kernels; its --record/--profile apply it), not the suite"
)
for _g in ("2_warpgroups", "3_warpgroups", "by_block_n"):
    NOT_CALIBRATED[f"wgmma_softmax_cycles_per_instr_{_g}"] = (
        "Hopper only, from the separate sm_90a run python -m gpusim.calibrate.wgmma_step "
        "(python -m gpusim.calibrate.wgmma_pingpong --record R --profile P applies it), not "
        "the suite"
    )
NOT_CALIBRATED["wgmma_softmax_cycles_per_instr_1_warpgroups_by_tile"] = (
    "Hopper only, each tile's c from the separate sm_90a run python -m "
    "gpusim.calibrate.wgmma_step_one (its --record/--profile apply it), not the suite"
)
NOT_CALIBRATED["wgmma_softmax_cycles_per_instr_1_warpgroups"] = (
    "Hopper only, from the separate sm_90a run python -m gpusim.calibrate.wgmma_step_one (its "
    "--record/--profile apply it), not the suite"
)
NOT_CALIBRATED["dram_read_bandwidth_bytes_per_s"] = (
    "from the separate run python -m gpusim.calibrate.dram_read (its --record/--profile "
    "apply it), not the suite"
)
for _f in ("tile_stream_latency_s", "tile_stream_ingress_bytes_per_s", "tile_stream_knee_power"):
    NOT_CALIBRATED[_f] = (
        "from the separate run python -m gpusim.calibrate.step_stream (python -m "
        "gpusim.calibrate.step_stream_fit --record R --profile P applies it), not the suite"
    )
NOT_CALIBRATED["l2_atomic_add_bytes_per_s"] = (
    "from the separate run python -m gpusim.calibrate.l2_atomics (its --record/--profile "
    "apply it), not the suite"
)
NOT_CALIBRATED["staged_store_bytes_per_clk_per_sm"] = NOT_CALIBRATED[
    "fragment_store_bytes_per_clk_per_sm"
]
#: Fields no microbenchmark measures: facts of the architecture from NVIDIA's guides and
#: whitepapers, kept with their citations from a base profile of the same architecture.
CITED = (
    "smem_carveout_steps_kib",
    "smem_alloc_unit_bytes",
    "registers_per_thread_max",
    "register_alloc_unit_per_warp",
    "warp_alloc_granularity",
    "warp_size_threads",
    "warp_schedulers_per_sm",
    "issue_warp_instrs_per_clk_per_scheduler",
    "l2_line_bytes",
)
#: Every field a complete calibrated profile has.
EXPECTED = tuple(f for f in HardwareProfile.model_fields if f not in (*META, *NOT_CALIBRATED))


def missing(profile: dict[str, Any]) -> list[str]:
    """Expected fields the profile lacks (the engine falls back to a simpler model there)."""
    return [f for f in EXPECTED if profile.get(f) is None]


def _sources(entry: Any, path: str) -> list[tuple[str, str]]:
    if isinstance(entry, dict) and "source" in entry:
        return [(path, str(entry["source"]))]
    if isinstance(entry, dict):
        return [(f"{path}.{k}", str(v["source"])) for k, v in entry.items() if isinstance(v, dict)]
    return []


def borrowed(profile: dict[str, Any], replaced: list[str]) -> list[str]:
    """Fields kept from the base profile whose source is a measurement (another GPU's, or
    another run's): ``field: source``."""
    out = []
    for field in EXPECTED:
        for path, source in _sources(profile.get(field), field):
            if path not in replaced and source.lower().startswith("measured"):
                out.append(f"{path}: {source}")
    return out


def architecture_warning(results: dict[str, Any], base: dict[str, Any]) -> str | None:
    """A line when the measured GPU's compute capability is not the base profile's: then the
    guide's facts kept from the base (carve-out steps, allocation units) may not hold."""
    device = results.get("benchmarks", {}).get("device", {})
    cc = device.get("details", {}).get("compute_capability")
    if cc and cc != base.get("compute_capability"):
        return (
            f"this GPU is compute capability {cc}, the base profile {base.get('name')} is "
            f"{base.get('compute_capability')}: the values kept from it (see each source) "
            "describe another architecture; pass --base-profile of this one"
        )
    return None
