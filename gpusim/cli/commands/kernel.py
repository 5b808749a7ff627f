"""``gpusim run-kernel``: run the flash2 schedule as a CUDA kernel through CuPy, check, time."""

from __future__ import annotations

from typing import Annotated

import typer

from gpusim.cli.app import app
from gpusim.cli.options import JsonOption, WorkloadOptions, workload_options
from gpusim.cli.output import emit
from gpusim.errors import GpusimError


@app.command("run-kernel")
@workload_options
def run_kernel(
    opts: WorkloadOptions,
    repeats: Annotated[
        int, typer.Option("--repeats", min=1, help="Timed launches (median reported).")
    ] = 20,
    check: Annotated[
        bool, typer.Option("--check/--no-check", help="Compare with a float64 reference.")
    ] = True,
    json_out: JsonOption = False,
) -> None:
    """Run the schedule's flash2 CUDA kernel on random inputs: error and measured time."""
    from gpusim.kernels.check import check_case
    from gpusim.kernels.runner import Flash2Runner
    from gpusim.kernels.schedule_timing import time_schedules

    if opts.algorithm != "flash2":
        raise GpusimError(f"the CUDA kernel implements algorithm 'flash2', not {opts.algorithm!r}")
    workload, schedule, _profile, filled = opts.build(check=False)
    runner = Flash2Runner()  # GpusimError when CuPy or a GPU is missing
    inst = runner.instance(workload, schedule)
    (rec,) = time_schedules([(workload, schedule)], runner, repeats=repeats)
    out = {
        "algorithm": opts.algorithm,
        "workload": workload.model_dump(),
        "schedule": schedule.model_dump(),
        "defaults_used": filled,
        "instance": inst.as_dict(),
        "runtime_s": rec["median_s"],
        "min_runtime_s": rec["min_s"],
        "tflops": rec["tflops"],
        "ctas": rec["ctas"],
        "attributes": rec["attributes"],
    }
    if check:
        w = workload
        case = (w.batch, w.heads, w.seq_len_q, w.seq_len_k, w.causal)
        res = check_case(runner, inst, case, seed=1)
        out["check"] = {k: res[k] for k in ("max_abs_err", "rel_err", "nan_count", "ok")}
    emit(out, json_out, title=f"{schedule.label(opts.algorithm)} on {inst.key}")
