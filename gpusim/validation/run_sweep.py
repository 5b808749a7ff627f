"""The GPU side of ``gpusim validate``: time the sweep, count bytes with ncu, write the dataset.

Steps, each resumable: (1) every config not yet in ``<out>/sweep.jsonl`` is timed and
appended; (2) unless ncu is missing or switched off, the configs marked ``ncu`` that have no
counts in ``<out>/ncu.json`` are profiled in one ncu process; (3) the dataset
``<out>/<gpu>-dataset.json`` is assembled from both files with provenance. A missing ncu (or
counters not permitted) leaves a timing-only dataset that says why.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gpusim import atomic
from gpusim.errors import GpusimError
from gpusim.validation.configs import ValidationConfig, sweep_configs
from gpusim.validation.dataset import DATASET_KIND, SCHEMA, gpu_model
from gpusim.validation.store import RecordStore

SWEEP_FILE = "sweep.jsonl"
NCU_FILE = "ncu.json"
PROVENANCE_FILE = "provenance.json"


def picked(config_id: str, only: str | None) -> bool:
    """Whether ``--only`` picks this id: it contains any comma-separated part (all when None)."""
    return not only or any(p in config_id for p in only.split(",") if p)


def select(configs: list[ValidationConfig], only: str | None) -> list[ValidationConfig]:
    """Configs whose id contains any comma-separated part of ``only`` (all when None)."""
    return [c for c in configs if picked(c.config_id, only)]


def _ncu_pass(
    exe: str,
    name: str,
    ids: list[str],
    metrics: list[str],
    out_dir: Path,
    cubin_dir: Path | None,
    timeout_s: float,
    log: Callable[[str], None],
) -> dict[str, Any]:
    from gpusim import ncu

    if "launch__grid_size" not in metrics:  # the markers are told apart by their grid size
        metrics = [*metrics, "launch__grid_size"]
    ids_file = out_dir / f"ncu_{name}_ids.txt"
    ids_file.write_text("\n".join(ids) + "\n")
    argv = [sys.executable, "-m", "gpusim.validation.ncu_driver", "--ids-file", str(ids_file)]
    if cubin_dir:
        argv += ["--cubin-dir", str(cubin_dir)]
    log(f"ncu {name}: {len(ids)} configs, {len(metrics)} metrics")
    t0 = time.perf_counter()
    res = ncu.profile(exe, argv, ids, out_dir / f"ncu_{name}", metrics, timeout_s)
    res["wall_s"] = time.perf_counter() - t0
    log(f"ncu {name}: {res.get('kernels_profiled', 0)} kernels in {res['wall_s']:.1f} s")
    if res.get("error"):
        log(f"ncu {name}: {res['error']}")
    return res


def ncu_step(
    configs: list[ValidationConfig],
    out_dir: Path,
    cubin_dir: Path | None,
    timeout_s: float,
    log: Callable[[str], None],
) -> dict[str, Any]:
    """Counts of the ncu-marked configs (reusing ``ncu.json``); ``available`` says if ncu ran.

    Two ncu processes: the bytes, time and clock of every marked config first (few replay
    passes), then the diagnostic counters (instructions by pipe, stalls, occupancy), so
    that a slow or failing diagnostic pass cannot cost the bytes.
    """
    from gpusim import ncu

    path = out_dir / NCU_FILE
    state: dict[str, Any] = json.loads(path.read_text()) if path.exists() else {}
    state.setdefault("by_config", {})
    exe = ncu.find_ncu()
    if exe is None:
        state |= {"available": False, "error": "ncu not found: timing-only dataset"}
        log(state["error"])
        return state
    marked = [c.config_id for c in configs if c.ncu]
    todo = [i for i in marked if i not in state["by_config"]]
    todo_diag = [i for i in marked if "diagnostics" not in state["by_config"].get(i, {})]
    if not todo and not todo_diag:
        return state
    known, qerr = ncu.query_metrics(exe)
    state |= {"available": True, "ncu": exe}
    if qerr:
        state["query_error"] = qerr
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        ver = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30)
        state["version"] = ver.stdout.strip().splitlines()[-1] if ver.stdout.strip() else None
    if todo:
        metrics, dropped = ncu.select_metrics(known, ncu.REQUIRED_METRICS + ncu.BYTES_PASS_EXTRA)
        res = _ncu_pass(exe, "bytes", todo, metrics, out_dir, cubin_dir, timeout_s, log)
        state["by_config"].update(res.pop("by_config", {}))
        state["bytes_pass"] = res | {"metrics_dropped": dropped}
        if not state["by_config"]:
            state["error"] = res.get("error", "ncu counted nothing; see bytes_pass.log_tail")
        atomic.write_text(path, json.dumps(state, indent=1))
    todo_diag = [i for i in todo_diag if i in state["by_config"]]
    if todo_diag:
        metrics, dropped = ncu.select_metrics(known, ncu.DIAGNOSTIC_METRICS)
        res = _ncu_pass(exe, "diagnostics", todo_diag, metrics, out_dir, cubin_dir, timeout_s, log)
        for cid, summ in res.pop("by_config", {}).items():
            state["by_config"][cid]["diagnostics"] = [
                {"name": k["name"], "metrics": k["metrics"]} for k in summ["kernels"]
            ]
        state["diagnostics_pass"] = res | {"metrics_dropped": dropped}
        atomic.write_text(path, json.dumps(state, indent=1))
    return state


def assemble(
    configs: list[ValidationConfig],
    store: RecordStore,
    ncu_state: dict[str, Any],
    provenance: dict[str, Any],
    method: dict[str, Any],
) -> dict[str, Any]:
    """The dataset object: provenance, method, ncu's status, and records with counts merged."""
    records = []
    for rec in store.ordered([c.config_id for c in configs]):
        counts = ncu_state.get("by_config", {}).get(rec["id"])
        records.append(rec | {"counts": counts} if counts else rec)
    ncu_meta = {k: v for k, v in ncu_state.items() if k != "by_config"}
    return {
        "kind": DATASET_KIND,
        "schema": SCHEMA,
        "provenance": provenance,
        "method": method,
        "ncu": ncu_meta,
        "records": records,
    }


def run_sweep(
    out_dir: Path,
    cubin_dir: Path | None = None,
    repeats: int = 10,
    warmup: int = 2,
    use_ncu: bool = True,
    ncu_timeout_s: float = 240,
    only: str | None = None,
    log: Callable[[str], None] = print,
    configs: list[ValidationConfig] | None = None,
) -> Path:
    """Measure the sweep (or ``configs``, another set) on the local GPU (resuming what
    ``out_dir`` holds); the dataset path."""
    from gpusim.calibrate.clocks import SmiSampler
    from gpusim.kernels.measurement_provenance import provenance
    from gpusim.kernels.runner import import_cupy
    from gpusim.kernels.schedule_timing import L2_FLUSH_BYTES
    from gpusim.validation.measure import SweepMeasurer

    cp = import_cupy()  # GpusimError with a one-line reason when there is no GPU or CuPy
    out_dir.mkdir(parents=True, exist_ok=True)
    configs = select(sweep_configs() if configs is None else configs, only)
    if not configs:
        raise GpusimError(f"--only {only!r} matches no config of the sweep")
    prov = provenance(cp)
    try:
        prov["nvrtc_version"] = ".".join(str(v) for v in cp.cuda.nvrtc.getVersion())
    except Exception as exc:  # recorded, not fatal
        prov["nvrtc_version"] = f"unknown ({type(exc).__name__})"
    prov["argv"] = list(sys.argv)
    prov["commit_env"] = os.environ.get("GPUSIM_COMMIT")
    method = {
        "timer": "CUDA events around one launch",
        "statistic": "median",
        "repeats": repeats,
        "warmup": warmup,
        "l2_flush_bytes": L2_FLUSH_BYTES,
        "inputs": "standard normal, fresh per workload (never zeros)",
        "correctness": "relative error of one (batch, head) slice against a float64 "
        "(flash2) or float32 (standard) reference; above the limit the config fails",
    }
    # Written first, so that an interrupted run can still be assembled (assemble_dir).
    atomic.write_text(
        (out_dir / PROVENANCE_FILE), json.dumps({"provenance": prov, "method": method})
    )
    store = RecordStore(out_dir / SWEEP_FILE)
    measurer = SweepMeasurer(store, cubin_dir, repeats, warmup, log)
    t0 = time.perf_counter()
    try:
        measurer.preload(configs)
    except GpusimError as exc:  # each config then records its own failure
        log(f"preload: {exc}")
    with SmiSampler(period_ms=200) as smi:
        m0 = time.monotonic()
        measurer.run(configs, smi)
        prov["smi_during_sweep"] = smi.window(m0, time.monotonic())
    log(f"timing: {time.perf_counter() - t0:.1f} s")
    ncu_state = (
        ncu_step(configs, out_dir, cubin_dir, ncu_timeout_s, log)
        if use_ncu
        else {"available": False, "error": "ncu switched off (--no-ncu)"}
    )
    method["sweep_wall_s"] = time.perf_counter() - t0
    atomic.write_text(
        (out_dir / PROVENANCE_FILE), json.dumps({"provenance": prov, "method": method})
    )
    return write_dataset(out_dir, assemble(configs, store, ncu_state, prov, method), log)


def write_dataset(out_dir: Path, data: dict[str, Any], log: Callable[[str], None]) -> Path:
    """Write ``data`` as ``<out>/<gpu model>-dataset.json``; its path."""
    model = gpu_model(data["provenance"].get("gpu_name", "gpu")).lower() or "gpu"
    path = out_dir / f"{model}-dataset.json"
    atomic.write_text(path, json.dumps(data, indent=1) + "\n")
    log(f"dataset: {path} ({len(data['records'])} records)")
    return path


def assemble_dir(
    out_dir: Path,
    log: Callable[[str], None] = print,
    configs: list[ValidationConfig] | None = None,
) -> Path:
    """The dataset of a run folder from its files alone (no GPU): for an interrupted run."""
    meta = json.loads((out_dir / PROVENANCE_FILE).read_text())
    ncu_path = out_dir / NCU_FILE
    ncu_state = json.loads(ncu_path.read_text()) if ncu_path.exists() else {"available": False}
    store = RecordStore(out_dir / SWEEP_FILE)
    configs = sweep_configs() if configs is None else configs
    data = assemble(configs, store, ncu_state, meta["provenance"], meta["method"])
    return write_dataset(out_dir, data, log)
