"""``gpusim count``: trace a schedule and count traffic and work, without timing."""

from __future__ import annotations

from gpusim.cli.app import app
from gpusim.cli.notes import notes
from gpusim.cli.options import JsonOption, SmCountOption, WorkloadOptions, workload_options
from gpusim.cli.output import emit, warn
from gpusim.occupancy import occupancy

#: Facts of one kernel's CTA: the JSON's top level has the largest (smallest for CTAs/SM).
PER_KERNEL_KEYS = (
    "smem_bytes_per_cta",
    "smem_buffers_bytes",
    "threads_per_cta",
    "regs_per_thread",
    "ctas_per_sm",
)


@app.command()
@workload_options
def count(
    opts: WorkloadOptions, sm_count: SmCountOption = None, json_out: JsonOption = False
) -> None:
    """Count FLOPs, global (SM <-> L2) bytes and on-chip needs of one schedule."""
    from gpusim.api import count as run_count

    workload, schedule, profile, filled = opts.build(sm_count=sm_count)
    counts = run_count(opts.algorithm, workload, schedule, profile).to_json_dict()
    for k in counts["kernels"]:
        occ = occupancy(
            profile, k["smem_bytes_per_cta"], k["threads_per_cta"], k["regs_per_thread"]
        )
        k["ctas_per_sm"] = occ.ctas_per_sm
        k["occupancy"] = occ.as_dict()
    counts["profile"] = profile.name
    counts["sm_count"] = profile.sm_count.value
    counts["sm_count_overridden"] = sm_count is not None
    if counts.get("executed_mma_flops"):
        from gpusim.kernel_catalog.description import describe

        counts["kernel_description"] = describe(workload, schedule).as_dict()
    counts["defaults_used"] = filled
    counts["ctas_per_sm"] = min(k["ctas_per_sm"] for k in counts["kernels"])
    keys, warnings = notes(opts.algorithm, workload, schedule, profile)
    counts.update(keys)
    for line in warnings:
        warn(line)
    if not json_out and len(counts["kernels"]) > 1:
        # Several kernels: their per-CTA facts differ, so only the per-kernel tables show them.
        counts = {k: v for k, v in counts.items() if k not in PER_KERNEL_KEYS}
    emit(counts, json_out, title=f"{schedule.label(opts.algorithm)} on {profile.name}")
