"""The GPU side of ``gpusim validate``: time the sweep, count bytes with ncu, write the dataset.

Steps, each resumable: (1) every config not yet in ``<out>/sweep.jsonl`` is timed and
appended; (2) unless ncu is missing or switched off, the configs marked ``ncu`` that have no
counts in ``<out>/ncu.json`` are profiled in one ncu process; (3) the dataset
``<out>/<gpu>-dataset.json`` is assembled from both files with provenance. A missing ncu (or
counters not permitted) leaves a timing-only dataset that says why.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gpusim.errors import GpusimError
from gpusim.validation.configs import ValidationConfig, sweep_configs
from gpusim.validation.dataset import DATASET_KIND, SCHEMA, gpu_model
from gpusim.validation.store import RecordStore

SWEEP_FILE = "sweep.jsonl"
NCU_FILE = "ncu.json"


def select(configs: list[ValidationConfig], only: str | None) -> list[ValidationConfig]:
    """Configs whose id contains any comma-separated part of ``only`` (all when None)."""
    if not only:
        return configs
    parts = [p for p in only.split(",") if p]
    return [c for c in configs if any(p in c.config_id for p in parts)]


def ncu_step(
    configs: list[ValidationConfig],
    out_dir: Path,
    cubin_dir: Path | None,
    timeout_s: float,
    log: Callable[[str], None],
) -> dict[str, Any]:
    """Counts of the ncu-marked configs (reusing ``ncu.json``); ``available`` says if ncu ran."""
    from gpusim.validation import ncu

    path = out_dir / NCU_FILE
    state: dict[str, Any] = json.loads(path.read_text()) if path.exists() else {}
    state.setdefault("by_config", {})
    todo = [c.config_id for c in configs if c.ncu and c.config_id not in state["by_config"]]
    exe = ncu.find_ncu()
    if exe is None:
        state |= {"available": False, "error": "ncu not found: timing-only dataset"}
        log(state["error"])
        return state
    if not todo:
        return state
    known, qerr = ncu.query_metrics(exe)
    metrics, dropped = ncu.select_metrics(known)
    state |= {"available": True, "ncu": exe, "metrics_dropped": dropped}
    if qerr:
        state["query_error"] = qerr
    ids_file = out_dir / "ncu_ids.txt"
    ids_file.write_text("\n".join(todo) + "\n")
    argv = [sys.executable, "-m", "gpusim.validation.ncu_driver", "--ids-file", str(ids_file)]
    if cubin_dir:
        argv += ["--cubin-dir", str(cubin_dir)]
    log(f"ncu: profiling {len(todo)} configs with {len(metrics)} metrics")
    t0 = time.perf_counter()
    res = ncu.profile(exe, argv, todo, out_dir / "ncu_report", metrics, timeout_s)
    log(f"ncu: {res.get('kernels_profiled', 0)} kernels in {time.perf_counter() - t0:.1f} s")
    state["by_config"].update(res.pop("by_config", {}))
    state["last_run"] = res
    if res.get("error") or not state["by_config"]:
        state["error"] = res.get("error", "ncu counted nothing; see last_run.log_tail")
        log(f"ncu: {state['error']}")
    try:
        ver = subprocess.run([exe, "--version"], capture_output=True, text=True)
        state["version"] = ver.stdout.strip().splitlines()[-1] if ver.stdout else None
    except OSError:
        pass
    path.write_text(json.dumps(state, indent=1))
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
) -> Path:
    """Measure the sweep on the local GPU (resuming what ``out_dir`` holds); the dataset path."""
    from gpusim.calibrate.clocks import SmiSampler
    from gpusim.kernels.provenance import provenance
    from gpusim.kernels.runner import import_cupy
    from gpusim.kernels.timing import L2_FLUSH_BYTES
    from gpusim.validation.measure import SweepMeasurer

    cp = import_cupy()  # GpusimError with a one-line reason when there is no GPU or CuPy
    out_dir.mkdir(parents=True, exist_ok=True)
    configs = select(sweep_configs(), only)
    if not configs:
        raise GpusimError(f"--only {only!r} matches no config of the sweep")
    prov = provenance(cp)
    try:
        prov["nvrtc_version"] = ".".join(str(v) for v in cp.cuda.nvrtc.getVersion())
    except Exception as exc:  # recorded, not fatal
        prov["nvrtc_version"] = f"unknown ({type(exc).__name__})"
    prov["argv"] = list(sys.argv)
    prov["commit_env"] = os.environ.get("GPUSIM_COMMIT")
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
    method = {
        "timer": "CUDA events around one launch",
        "statistic": "median",
        "repeats": repeats,
        "warmup": warmup,
        "l2_flush_bytes": L2_FLUSH_BYTES,
        "inputs": "standard normal, fresh per workload (never zeros)",
        "correctness": "relative error of one (batch, head) slice against a float64 "
        "(flash2) or float32 (standard) reference; above the limit the config fails",
        "sweep_wall_s": time.perf_counter() - t0,
    }
    data = assemble(configs, store, ncu_state, prov, method)
    path = out_dir / f"{gpu_model(prov.get('gpu_name', 'gpu')).lower() or 'gpu'}-dataset.json"
    path.write_text(json.dumps(data, indent=1) + "\n")
    log(f"dataset: {path} ({len(data['records'])} records)")
    return path
