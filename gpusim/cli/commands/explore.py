"""``gpusim explore SPEC.yaml``: sweep profile parameters x workloads x algorithms, each point
tuned, on local processes or a Dask cluster; resumable; a table, a summary and figures."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from gpusim.cli.app import app
from gpusim.cli.options import JsonOption, VerboseOption, check_profile
from gpusim.cli.output import debug, emit, log, set_verbose, shows_progress
from gpusim.errors import GpusimError
from gpusim.profiles import DEFAULT_PROFILE

EXPLORE = "Executor"
#: Knees and best points a person's summary shows (the JSON and summary.json have all).
SHOWN_ROWS = 12

SpecArgument = Annotated[
    Path | None,
    typer.Argument(
        help="The sweep's YAML (or JSON) spec: base_profile, vary, workloads, algorithms.",
        show_default=False,
    ),
]
OutOption = Annotated[
    Path,
    typer.Option(
        "--out", help="Folder of the results; the same folder again resumes the sweep there."
    ),
]
ExecutorOption = Annotated[
    str,
    typer.Option(
        "--executor",
        help="local (processes on this machine) or dask (a Dask cluster).",
        rich_help_panel=EXPLORE,
    ),
]
SchedulerOption = Annotated[
    str | None,
    typer.Option(
        "--scheduler",
        help="With --executor dask: the address of a running scheduler (tcp://HOST:PORT).",
        rich_help_panel=EXPLORE,
    ),
]
WorkersOption = Annotated[
    int | None,
    typer.Option(
        "--workers",
        help="With --executor dask and no --scheduler: start a LocalCluster of N workers "
        "(default: one per core).",
        rich_help_panel=EXPLORE,
    ),
]
JobsOption = Annotated[
    int | None,
    typer.Option(
        "--jobs",
        help="With --executor local: processes (default: one per core).",
        rich_help_panel=EXPLORE,
    ),
]
TimeoutOption = Annotated[
    float,
    typer.Option(
        "--connect-timeout",
        help="Seconds to reach the scheduler and see a worker before giving up.",
        rich_help_panel=EXPLORE,
    ),
]
RetryOption = Annotated[
    bool,
    typer.Option("--retry-failed", help="Run again the points whose recorded result is an error."),
]
FiguresOption = Annotated[
    bool, typer.Option("--figures/--no-figures", help="Write the figures (PNG).")
]
FieldsOption = Annotated[
    bool,
    typer.Option(
        "--fields", help="List the profile fields a spec may vary (of --profile) and stop."
    ),
]
ProfileOption = Annotated[
    str,
    typer.Option("--profile", "-p", help="With --fields: the profile.", callback=check_profile),
]


def _params_text(params: dict[str, Any]) -> str:
    from gpusim.explore.figures import fmt_param

    return ", ".join(f"{k} {fmt_param(k, v)}" for k, v in params.items()) or "-"


def _rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Summary rows as a person reads them: parameter values in their units, one cell each."""
    from gpusim.explore.figures import fmt_param

    out = []
    for r in rows[:SHOWN_ROWS]:
        row = {k: v for k, v in r.items() if k not in ("schedule", "params", "fixed")}
        if "params" in r:
            row["params"] = _params_text(r["params"])
        if "fixed" in r:
            row["others"] = _params_text(r["fixed"])
        if "knee" in r:
            at_knee, best = r.pop("runtime_at_knee_s"), r["best_runtime_s"]
            row = {k: row[k] for k in ("param", "workload", "algorithm", "others")}
            row["knee"] = "none" if r["knee"] is None else fmt_param(r["param"], r["knee"])
            row["at_knee"] = "-" if at_knee is None else f"+{(at_knee / best - 1) * 100:.1f} %"
            row["best_at"] = fmt_param(r["param"], r["best_at"])
        out.append(row)
    return out


def _human(result) -> dict[str, Any]:
    s = result.summary
    out: dict[str, Any] = {
        "out": str(result.out),
        "executor": s["executor"],
        "points": s["points"],
        "ok": s["ok"],
        "failed": s["failed"],
        "not_run": s["not_run"],
        "sim_wall_s_total": s["sim_wall_s_total"],
    }
    for key in ("best", "knees"):
        out[key] = _rows(s[key])
        if len(s[key]) > SHOWN_ROWS:
            out[f"{key}_not_shown"] = f"{len(s[key]) - SHOWN_ROWS} more in summary.json"
    out["slowest"] = _rows(s["slowest"][:5])
    if s["failures"]:
        out["failures"] = s["failures"][:5]
    out["files"] = [str(p) for p in result.files]
    return out


def _emit_json(result) -> None:
    """One JSON object, its ``points`` written a row at a time (a big sweep's list is not
    built in memory)."""
    from gpusim.explore.table import iter_point_json

    rest = {
        "out": str(result.out),
        "interrupted": result.sweep.interrupted,
        "files": [str(p) for p in result.files],
        "summary": result.summary,
    }
    write = sys.stdout.write
    write('{"points": [')
    for i, text in enumerate(iter_point_json(result.table)):
        write(("," if i else "") + text)
    write("], " + json.dumps(rest, allow_nan=False)[1:] + "\n")
    sys.stdout.flush()


@app.command()
def explore(
    spec: SpecArgument = None,
    out: OutOption = Path("results"),
    executor: ExecutorOption = "local",
    scheduler: SchedulerOption = None,
    workers: WorkersOption = None,
    jobs: JobsOption = None,
    connect_timeout: TimeoutOption = 5.0,
    retry_failed: RetryOption = False,
    figures: FiguresOption = True,
    fields: FieldsOption = False,
    profile: ProfileOption = DEFAULT_PROFILE,
    verbose: VerboseOption = False,
    json_out: JsonOption = False,
) -> None:
    """Tune every point of a grid of hardware what-ifs (profile fields by name) x workloads x
    algorithms; write points.parquet/.csv, summary.json (knees, slowest points, failures)
    and figures under --out. Run again on the same --out to resume."""
    from gpusim.explore import explore as run_explore
    from gpusim.explore import load_plan

    if verbose:
        set_verbose(True)
    if fields:
        from gpusim.api import load_profile
        from gpusim.explore.fields import describe_fields

        rows = describe_fields(load_profile(profile))
        if not json_out:  # four columns fit 80: the range as one cell
            rows = [
                {"field": r["field"], "type": r["type"], "value": r["value"],
                 "plausible": "-" if r["plausible_min"] is None
                 else f"{r['plausible_min']:g} .. {r['plausible_max']:g}"}
                for r in rows
            ]  # fmt: skip
        emit({"profile": profile, "fields": rows}, json_out)
        return
    if spec is None:
        raise GpusimError("explore needs a SPEC.yaml (or --fields to list what it may vary)")
    plan = load_plan(spec)
    debug(f"explore: {plan.n_points} points on {plan.base.name}")
    result = run_explore(
        plan,
        out,
        executor=executor,
        jobs=jobs,
        scheduler=scheduler,
        workers=workers,
        connect_timeout_s=connect_timeout,
        retry_failed=retry_failed,
        progress=shows_progress(json_out),
        figures=figures,
    )
    log(
        f"explore: {result.summary['done']} of {plan.n_points} points in {out} "
        f"({result.summary['failed']} failed)"
    )
    if json_out:
        _emit_json(result)
    else:
        emit(_human(result), False, title=f"explore {spec}")
    if result.sweep.interrupted:
        raise typer.Exit(130)
