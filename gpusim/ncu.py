"""Nsight Compute counts of a subset of the sweep: DRAM bytes, SM-to-L2 bytes, kernel time.

One ``ncu`` process profiles a driver (:mod:`gpusim.validation.ncu_driver`) that launches
each selected config exactly once (no warm-up, no repeats) between two one-thread marker
kernels whose grid sizes encode the config's index; the report's kernels are attributed to
configs by those markers, and the bytes of a config's kernels are summed (standard attention
has three or more). Only the markers, the flash2 and softmax kernels and cuBLAS's GEMM
kernels are profiled (:data:`KERNEL_FILTER`), not CuPy's input generators.
``--cache-control all`` (ncu's default) flushes the caches before every profiled kernel, as
the timed runs flush L2; ``--clock-control none`` leaves the clocks as the card runs them.
SM-to-L2 bytes are ``lts__t_sectors_srcunit_tex_op_{read,write}.sum`` sectors x 32 (the L2
traffic that comes from the SMs' L1/TEX units, cp.async included).
"""

from __future__ import annotations

import csv
import io
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

SECTOR_BYTES = 32
MARKER_KERNEL = "gpusim_ncu_marker"
#: What the comparison needs.
REQUIRED_METRICS = (
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "lts__t_sectors_srcunit_tex_op_read.sum",
    "lts__t_sectors_srcunit_tex_op_write.sum",
    "gpu__time_duration.sum",
    "launch__grid_size",
)
#: What explains a miss (clock under load, instruction issue, pipes, shared memory, occupancy);
#: dropped when this ncu does not know them.
DIAGNOSTIC_METRICS = (
    "sm__cycles_elapsed.avg.per_second",
    "sm__cycles_elapsed.max",
    "smsp__inst_executed.sum",
    "smsp__issue_active.avg.pct_of_peak_sustained_active",
    "sm__inst_executed_pipe_tensor.sum",
    "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",
    "sm__inst_executed_pipe_fma.sum",
    "sm__inst_executed_pipe_alu.sum",
    "sm__inst_executed_pipe_xu.sum",
    "sm__inst_executed_pipe_lsu.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "launch__registers_per_thread",
    "launch__occupancy_limit_registers",
    "launch__occupancy_limit_shared_mem",
    "lts__t_sectors_op_read.sum",
    "lts__t_sectors_op_write.sum",
    "smsp__warps_active.avg.per_cycle_active",
    "smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_wait_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_selected_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio",
)
#: ncu's --kernel-name filter: markers, our kernels, and the names cuBLAS GEMM kernels carry.
KERNEL_FILTER = (
    f"regex:{MARKER_KERNEL}|flash2|row_softmax|gemm|Gemm|GEMM|nvjet|cublas|xmma|cutlass|splitK"
)
_METRIC_BASE = re.compile(r"^([a-z0-9]+__[a-z0-9_]+)\b")


def find_ncu() -> str | None:
    """Path of ``ncu`` on PATH or under the CUDA toolkit, else None."""
    found = shutil.which("ncu")
    if found:
        return found
    for cand in (Path("/usr/local/cuda/bin/ncu"), *Path("/opt/nvidia").glob("nsight-compute*/ncu")):
        if cand.exists():
            return str(cand)
    return None


def known_metric_bases(query_output: str) -> set[str]:
    """Base names (``dram__bytes_read``) listed by ``ncu --query-metrics``."""
    return {m.group(1) for line in query_output.splitlines() if (m := _METRIC_BASE.match(line))}


#: The clock and the registers ride along with the bytes (cheap, and they explain runtime).
BYTES_PASS_EXTRA = (
    "sm__cycles_elapsed.avg.per_second",
    "launch__registers_per_thread",
    # The SMs' end of the same traffic: the L2 slices count fewer sectors than the SMs
    # receive when CTAs ask for the same lines together (reports/validation/
    # l2_probe_h200_2026-11-30), so both ends are recorded.
    "l1tex__m_xbar2l1tex_read_bytes.sum",
    "l1tex__m_l1tex2xbar_write_bytes.sum",
)


def select_metrics(
    known: set[str] | None, wanted: tuple[str, ...] = REQUIRED_METRICS + DIAGNOSTIC_METRICS
) -> tuple[list[str], list[str]]:
    """(metrics of ``wanted`` to ask for, those dropped as unknown); with no query, only the
    required ones are asked for."""
    if not known:
        keep = [m for m in wanted if m in REQUIRED_METRICS]
        return keep, [m for m in wanted if m not in keep]
    keep, dropped = [], []
    for m in wanted:
        base = m.split(".")[0]
        # launch__ metrics are launch attributes, not always listed; the required ones stay.
        if base in known or (m in REQUIRED_METRICS and base.startswith("launch__")):
            keep.append(m)
        else:
            dropped.append(m)
    return keep, dropped


def _number(text: str) -> float | None:
    t = text.strip().replace(",", "")
    if t in ("", "n/a", "N/A"):
        return None
    try:
        return float(t)
    except ValueError:
        return None


#: Scale of each unit ncu may print to the base unit (bytes, nanoseconds, cycles, ...).
_UNIT_SCALE = {
    "byte": 1.0,
    "kbyte": 1e3,
    "mbyte": 1e6,
    "gbyte": 1e9,
    "nsecond": 1.0,
    "usecond": 1e3,
    "msecond": 1e6,
    "second": 1e9,
    "hz": 1.0,
    "khz": 1e3,
    "mhz": 1e6,
    "ghz": 1e9,
    "cycle/nsecond": 1e9,  # a clock rate in cycles per ns, as Hz
    "cycle/usecond": 1e6,
    "cycle/second": 1.0,
}


def parse_csv(text: str) -> list[dict[str, Any]]:
    """Kernels of ``ncu --csv --page raw`` output: ``{id, name, metrics: {name: float}}``.

    Values are in base units (bytes, ns, Hz) whatever unit row ncu printed.
    """
    start = text.find('"ID"')
    if start < 0:
        return []
    rows = list(csv.reader(io.StringIO(text[start:])))
    header = rows[0]
    units: dict[str, float] = {}
    kernels = []
    for row in rows[1:]:
        if len(row) != len(header):
            continue
        d = dict(zip(header, row, strict=True))
        kid = _number(d.get("ID", ""))
        if kid is None:  # the units row
            units = {k: _UNIT_SCALE.get(v.strip().lower(), 1.0) for k, v in d.items()}
            continue
        metrics = {}
        for k, v in d.items():
            if "__" in k:
                num = _number(v)
                if num is not None:
                    metrics[k] = num * units.get(k, 1.0)
        name = d.get("Kernel Name") or d.get("Function Name") or d.get("Demangled Name") or ""
        kernels.append({"id": int(kid), "name": name, "metrics": metrics})
    return sorted(kernels, key=lambda k: k["id"])


def attribute(kernels: list[dict[str, Any]], ids: list[str]) -> dict[str, list[dict[str, Any]]]:
    """Kernels of each config id: those between its opening marker (grid size ``2i + 1``)
    and its closing one (``2i + 2``)."""
    out: dict[str, list[dict[str, Any]]] = {}
    current: str | None = None
    for k in kernels:
        if MARKER_KERNEL in k["name"]:
            g = int(k["metrics"].get("launch__grid_size", 0))
            opening = g % 2 == 1 and 1 <= (g + 1) // 2 <= len(ids)
            current = ids[(g - 1) // 2] if opening else None
            continue
        if current is not None:
            out.setdefault(current, []).append(k)
    return out


def summarise(kernels: list[dict[str, Any]]) -> dict[str, Any]:
    """Bytes and time of one config: sums over its kernels, and each kernel's metrics."""

    def total(name: str) -> float | None:
        vals = [k["metrics"].get(name) for k in kernels]
        return sum(v for v in vals if v is not None) if any(v is not None for v in vals) else None

    rd = total("lts__t_sectors_srcunit_tex_op_read.sum")
    wr = total("lts__t_sectors_srcunit_tex_op_write.sum")
    return {
        "dram_read_bytes": total("dram__bytes_read.sum"),
        "dram_write_bytes": total("dram__bytes_write.sum"),
        # the L2 slices' end: sectors the slices served to (took from) the SMs' L1/TEX
        "l2_read_bytes_from_sm": None if rd is None else rd * SECTOR_BYTES,
        "l2_write_bytes_from_sm": None if wr is None else wr * SECTOR_BYTES,
        # the SMs' end: bytes over the crossbar into (out of) L1/TEX
        "sm_read_bytes_from_l2": total("l1tex__m_xbar2l1tex_read_bytes.sum"),
        "sm_write_bytes_to_l2": total("l1tex__m_l1tex2xbar_write_bytes.sum"),
        "gpu_time_s": None
        if (t := total("gpu__time_duration.sum")) is None
        else t * 1e-9,  # ncu reports ns with --print-units base
        "kernels": kernels,
    }


def query_metrics(ncu: str, timeout_s: float = 60) -> tuple[set[str], str | None]:
    """Metric bases this ncu knows on GPU 0, and an error message if the query failed."""
    try:
        proc = subprocess.run(
            [ncu, "--query-metrics"], capture_output=True, text=True, timeout=timeout_s
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return set(), f"ncu --query-metrics failed: {exc}"
    known = known_metric_bases(proc.stdout)
    if proc.returncode != 0 or not known:
        return known, f"ncu --query-metrics exit {proc.returncode}: {proc.stderr.strip()[-300:]}"
    return known, None


def profile(
    ncu: str,
    driver_argv: list[str],
    ids: list[str],
    report_base: Path,
    metrics: list[str],
    timeout_s: float,
    kernel_filter: str = KERNEL_FILTER,
) -> dict[str, Any]:
    """Run the driver under ncu; per-config summaries (``by_config``) and what ran.

    ``kernel_filter``: ncu's ``--kernel-name`` (the markers must match it)."""
    rep = report_base.with_suffix(".ncu-rep")
    cmd = [
        ncu,
        "--clock-control",
        "none",
        "--cache-control",
        "all",
        "--kernel-name",
        kernel_filter,
        "--metrics",
        ",".join(metrics),
        "-f",
        "-o",
        str(report_base),
        *driver_argv,
    ]
    out: dict[str, Any] = {"command": " ".join(cmd), "metrics": metrics}
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s)
        out["exit_code"] = proc.returncode
        out["log_tail"] = (proc.stdout + proc.stderr)[-3000:]
    except subprocess.TimeoutExpired:
        out["error"] = f"ncu ran past {timeout_s:.0f} s"
    except OSError as exc:
        out["error"] = f"ncu could not start: {exc}"
    if not rep.exists():
        out.setdefault("error", "ncu wrote no report")
        return out
    imp = subprocess.run(
        [ncu, "--import", str(rep), "--csv", "--page", "raw", "--print-units", "base"],
        capture_output=True,
        text=True,
        timeout=timeout_s,
    )
    csv_text = imp.stdout
    report_base.with_suffix(".csv").write_text(csv_text)
    kernels = parse_csv(csv_text)
    out["kernels_profiled"] = len(kernels)
    out["by_config"] = {i: summarise(ks) for i, ks in attribute(kernels, ids).items()}
    return out
