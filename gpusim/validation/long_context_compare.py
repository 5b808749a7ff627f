"""The long-context sweep's predictions against its measurements, beside two baselines.

Errors are signed relative errors ``(predicted - measured) / measured`` of runtime (the
simulator's ``runtime_s``, launch overhead included, against the measured median) and of
DRAM bytes (read + written, against Nsight Compute). For each profile and each kernel
(the project's, PyTorch's given the schedule its flash backend runs), and each group of
the manifest: the number of runs, MAPE, the mean signed error and the worst runs. Configs
the model refused (or that failed on the GPU) are counted and listed, never dropped
silently. Baselines, judged the same way:

- ``roofline``: launch overhead + the larger of model FLOPs over the profile's tensor-core
  peak (``mma_sync`` rate x SMs x the clock under tensor load) and compulsory bytes (Q, K,
  V once per K/V head, O) over DRAM bandwidth;
- ``constant_efficiency``: the roofline divided by one efficiency, the median of roofline
  over measured time of the project's tensor-core runs in the earlier validation dataset
  (``data/h200/2026-11-30_validation_dram21``): fixed before this sweep, not fitted to it.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

from gpusim.profiles.gaps import launch_overhead_s
from gpusim.profiles.schema import HardwareProfile
from gpusim.validation.long_context_configs import LongContextConfig
from gpusim.workload import Workload

WORST = 5
#: The issue's targets: runtime MAPE of the project's and PyTorch's runs; DRAM bytes.
TARGETS = {"project_runtime_mape": 0.10, "torch_runtime_mape": 0.15, "dram_bytes_max_err": 0.10}
#: Lengths at which the DRAM target applies.
DRAM_TARGET_TOKENS = (65536, 131072)


def rel_err(predicted: float | None, measured: float | None) -> float | None:
    """``(predicted - measured) / measured``, None when either is missing or measured is 0."""
    if predicted is None or measured is None or measured == 0:
        return None
    return (predicted - measured) / measured


def tensor_peak_flops(profile: HardwareProfile, dtype: str) -> float:
    """Dense tensor-core FLOP/s of ``mma.sync`` at the clock under tensor load."""
    rate = getattr(profile.mma_sync_flops_per_clk_per_sm, dtype).value
    clock = profile.sm_clock_tensor_load_hz or profile.sm_clock_hz
    return rate * profile.sm_count.value * clock.value


def roofline_s(w: Workload, profile: HardwareProfile) -> float:
    """Launch overhead + max(FLOPs / tensor peak, compulsory bytes / DRAM bandwidth), both
    of the workload's pass."""
    compute = w.model_flops() / tensor_peak_flops(profile, w.dtype)
    memory = w.compulsory_bytes() / profile.dram_bandwidth_bytes_per_s.value
    return launch_overhead_s(profile) + max(compute, memory)


def efficiency_from_dataset(path: Path, profile: HardwareProfile) -> tuple[float, int]:
    """Median roofline / measured of a validation dataset's ok flash2 tensor-core runs, and
    how many there were."""
    data = json.loads(Path(path).read_text())
    fractions = [
        roofline_s(Workload(**r["workload"]), profile) / r["median_s"]
        for r in data["records"]
        if r.get("status") == "ok" and r.get("kind") == "flash2" and r.get("variant") == "tc"
    ]
    if not fractions:
        raise ValueError(f"{path} has no ok flash2 tensor-core runs")
    return statistics.median(fractions), len(fractions)


def summarise(rows: list[dict[str, Any]], key: str = "err") -> dict[str, Any]:
    """n, MAPE, mean signed error, and the worst runs by absolute error."""
    errs = [r for r in rows if r.get(key) is not None]
    if not errs:
        return {"n": 0, "mape": None, "mean_signed": None, "worst": []}
    worst = sorted(errs, key=lambda r: abs(r[key]), reverse=True)[:WORST]
    return {
        "n": len(errs),
        "mape": statistics.fmean(abs(r[key]) for r in errs),
        "mean_signed": statistics.fmean(r[key] for r in errs),
        "max_abs": abs(worst[0][key]),
        "worst": [{k: r[k] for k in ("id", "measured", "predicted", key)} for r in worst],
    }


def _runtime_rows(configs, measured, predicted, profile_name: str, baseline) -> dict:
    """Rows of (measured, predicted, err) per kernel family, and what was missing."""
    rows: dict[str, list] = {"model": [], "roofline": [], "constant_efficiency": []}
    missing: list[dict[str, str]] = []
    for c in configs:
        m = measured.get(c.config_id)
        if m is None or m.get("status") != "ok":
            missing.append({"id": c.config_id, "why": "not measured ok"})
            continue
        t = m["median_s"]
        p = (predicted.get(c.config_id) or {}).get(profile_name) or {}
        base = {"id": c.config_id, "kernel": c.kernel, "group": c.group, "measured": t}
        if p.get("runtime_s") is None:
            missing.append({"id": c.config_id, "why": p.get("error", "no prediction")})
        else:
            rows["model"].append(base | {"predicted": p["runtime_s"]})
        for name, value in baseline(c.workload).items():
            rows[name].append(base | {"predicted": value})
    for rs in rows.values():
        for r in rs:
            r["err"] = rel_err(r["predicted"], r["measured"])
    return {"rows": rows, "missing": missing}


def _by(rows: list[dict], field: str) -> dict[str, dict]:
    groups: dict[str, list] = {}
    for r in rows:
        groups.setdefault(r[field], []).append(r)
    return {g: summarise(rs) for g, rs in sorted(groups.items())}


def dram_rows(configs, ncu: dict, predicted: dict, profile_name: str) -> list[dict]:
    """Predicted against Nsight Compute's DRAM bytes (read + written) per ncu config."""
    out = []
    for c in configs:
        m = (ncu.get("by_config") or {}).get(c.config_id)
        p = (predicted.get(c.config_id) or {}).get(profile_name) or {}
        if not m or m.get("dram_read_bytes") is None:
            continue
        meas = m["dram_read_bytes"] + (m.get("dram_write_bytes") or 0)
        pred = p.get("dram_bytes")
        out.append(
            {
                "id": c.config_id,
                "kernel": c.kernel,
                "tokens": c.workload.seq_len_k,
                "measured": meas,
                "predicted": pred,
                "err": rel_err(pred, meas),
                "l2_from_sm_measured": m.get("sm_read_bytes_from_l2"),
                "l2_from_sm_predicted": p.get("sm_l2_read_bytes"),
            }
        )
    return out


def torch_schedule_check(configs: list[LongContextConfig], measured: dict) -> list[dict]:
    """PyTorch's runs whose launched kernels disagree with the schedule given to the model."""
    out = []
    for c in configs:
        obs = (measured.get(c.config_id) or {}).get("torch_observed")
        if c.kernel != "torch" or not obs:
            continue
        s = c.schedule
        want = {"block_m": s.block_m, "block_n": s.block_n, "warps": s.warps}
        want["kv_splits"] = s.kv_splits
        got = {k: obs.get(k) for k in want}
        if got != want:
            out.append({"id": c.config_id, "given": want, "observed": got})
    return out


def compare(
    configs: list[LongContextConfig],
    measured: dict[str, dict],
    predictions: dict[str, Any],
    profiles: dict[str, HardwareProfile],
    efficiency: dict[str, tuple[float, int]] | None = None,
    ncu: dict | None = None,
) -> dict[str, Any]:
    """The whole comparison, per profile: runtime by kernel and group, DRAM bytes, misses.

    ``efficiency``: per profile name, the constant-efficiency baseline's efficiency and the
    number of earlier runs it is the median of (:func:`efficiency_from_dataset`)."""
    pred = predictions.get("by_config", {})
    efficiency = efficiency or {}
    doc: dict[str, Any] = {"targets": TARGETS, "profiles": {}}
    doc["constant_efficiency"] = {
        name: {"efficiency": e, "from_runs": n} for name, (e, n) in efficiency.items()
    }
    doc["torch_schedule_mismatches"] = torch_schedule_check(configs, measured)
    for name, hw in profiles.items():
        eff = efficiency.get(name)

        def baseline(w: Workload, hw=hw, eff=eff) -> dict[str, float]:
            roof = roofline_s(w, hw)
            out = {"roofline": roof}
            if eff:
                out["constant_efficiency"] = roof / eff[0]
            return out

        got = _runtime_rows(configs, measured, pred, name, baseline)
        per: dict[str, Any] = {"missing": got["missing"]}
        for method, rows in got["rows"].items():
            per[method] = {
                kernel: summarise([r for r in rows if r["kernel"] == kernel])
                | {"by_group": _by([r for r in rows if r["kernel"] == kernel], "group")}
                for kernel in ("project", "torch")
            }
        drams = dram_rows(configs, ncu or {}, pred, name)
        per["dram_bytes"] = {
            "all": summarise(drams),
            "at_64k_128k": summarise([r for r in drams if r["tokens"] in DRAM_TARGET_TOKENS]),
            "rows": drams,
        }
        doc["profiles"][name] = per
    return doc


def table(doc: dict[str, Any]) -> str:
    """A short text table of the comparison (runtime MAPE and mean signed error)."""

    def pct(x: float | None) -> str:
        return "   -  " if x is None else f"{100 * x:6.1f}"

    lines = [f"{'profile':22} {'method':20} {'kernel':8} {'n':>4} {'MAPE%':>6} {'mean%':>6}"]
    for name, per in doc["profiles"].items():
        for method in ("model", "roofline", "constant_efficiency"):
            for kernel, s in per.get(method, {}).items():
                lines.append(
                    f"{name:22} {method:20} {kernel:8} {s['n']:4d} {pct(s['mape'])} "
                    f"{pct(s['mean_signed'])}"
                )
        d = per["dram_bytes"]["at_64k_128k"]
        lines.append(f"{name:22} {'DRAM bytes 64k-128k':20} {'':8} {d['n']:4d} {pct(d['mape'])} "
                     f"{pct(d['mean_signed'])}")  # fmt: skip
        lines.append(f"{name:22} {len(per['missing'])} configs without a measured/predicted pair")
    return "\n".join(lines)
