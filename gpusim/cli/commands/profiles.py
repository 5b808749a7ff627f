"""``gpusim profiles``: the hardware profiles, or every sourced field of the ones named."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from gpusim.cli.app import app
from gpusim.cli.options import JsonOption
from gpusim.cli.output import emit
from gpusim.profiles import HardwareProfile, list_profiles, load_profile, profile_path
from gpusim.profiles.gaps import ENGINE_OPTIONAL, borrowed_fields, missing_fields


def summary(p: HardwareProfile) -> dict[str, Any]:
    """The headline numbers of a profile (the contract's keys and a few more)."""
    return {
        "name": p.name,
        "display_name": p.display_name,
        "architecture": p.architecture,
        "compute_capability": p.compute_capability,
        "sm_count": p.sm_count.value,
        "sm_clock_hz": p.sm_clock_hz.value,
        "smem_per_sm_bytes": p.smem_per_sm_bytes.value,
        "smem_per_block_bytes": p.smem_per_block_bytes.value,
        "l2_bytes": p.l2_bytes.value,
        "dram_bytes": p.dram_bytes.value,
        "dram_bandwidth_bytes_per_s": p.dram_bandwidth_bytes_per_s.value,
    }


#: What the table for a person shows, with its headers (the JSON has every summary key).
HUMAN_COLUMNS = {
    "name": "name",
    "compute_capability": "CC",
    "sm_count": "SMs",
    "sm_clock_hz": "SM clock",
    "smem_per_block_bytes": "smem/CTA",
    "l2_bytes": "L2",
    "dram_bandwidth_bytes_per_s": "DRAM BW",
}


@app.command()
def profiles(
    names: Annotated[
        list[str] | None,
        typer.Argument(
            help="Profile names or YAML/JSON files to show in full (with sources); "
            "none: list the shipped profiles.",
            show_default=False,
        ),
    ] = None,
    json_out: JsonOption = False,
) -> None:
    """List the hardware profiles; with names or files, validate them and show every field."""
    detailed = bool(names)
    names = names or list_profiles()
    shown = [load_profile(n) for n in names]
    rows = [summary(p) | {"path": str(profile_path(n))} for n, p in zip(names, shown, strict=True)]
    if json_out:
        out: dict[str, Any] = {"profiles": rows}
        if detailed:
            out["details"] = [p.model_dump(mode="json", exclude_none=True) for p in shown]
            out["missing_fields"] = {p.name: missing_fields(p) for p in shown}
            out["borrowed_fields"] = {p.name: borrowed_fields(p) for p in shown}
        emit(out, True)
        return
    emit(
        {"profiles": [{k: r[k] for k in HUMAN_COLUMNS} for r in rows]}, False, headers=HUMAN_COLUMNS
    )
    for p in shown if detailed else ():
        emit(_sourced_rows(p), False, title=p.name)


def _sourced_rows(p: HardwareProfile) -> dict[str, Any]:
    """``field: value  [source]`` lines for a person reading one profile."""
    out: dict[str, Any] = {}
    for key, value in p.model_dump(exclude_none=True).items():
        if isinstance(value, dict) and "value" in value:
            out[key] = f"{value['value']}  [{value['source']}]"
        elif isinstance(value, dict):
            for sub, v in value.items():
                out[f"{key}.{sub}"] = f"{v['value']}  [{v['source']}]"
        else:
            out[key] = value
    # What the engine reads and this profile has no source for, and what it does instead.
    for field in missing_fields(p):
        out[field] = f"missing  [the engine: {ENGINE_OPTIONAL[field]}]"
    return out
