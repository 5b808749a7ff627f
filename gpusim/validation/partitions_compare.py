"""The SM-partition set's predictions against its measurements, beside two baselines.

Errors are signed relative errors ``(predicted - measured) / measured`` of runtime (the
simulator's ``runtime_s``, launch overhead included, against the measured median). Per
profile, per kernel (the project's, PyTorch's given its schedule), per partition size and
over the target's range (8 to 72 SMs): the number of runs, MAPE, the mean signed error and
the worst runs. A run whose partition the driver granted with another SM count than the
config asked for is listed (the prediction was made for the count asked). Baselines, judged
on the same runs:

- ``roofline``: launch overhead + the larger of model FLOPs over the partition's tensor-core
  peak (``mma_sync`` rate x the partition's SMs x the clock under tensor load) and the
  compulsory bytes (Q, K, V, O once) over the DRAM bandwidth (the whole GPU's: a
  partition shares the memory system);
- ``constant_efficiency``: each kernel's roofline over measured time at one reference
  shape (:data:`REFERENCE`, fixed with the manifest, before the measurement) on the whole
  GPU; every other run's roofline divided by it.
"""

from __future__ import annotations

from typing import Any

from gpusim.profiles.schema import HardwareProfile
from gpusim.profiles.sm_count import with_sm_count
from gpusim.validation.long_context_compare import rel_err, roofline_s, summarise
from gpusim.validation.partition_configs import H200_SMS, PartitionConfig
from gpusim.workload import Workload

#: The constant-efficiency baseline's reference: the config id fragment of the shape
#: (prefill N4096 causal) measured on the whole GPU, one per kernel.
REFERENCE = "prefill_b1h16_q4096k4096_c1"
#: The issue's target: runtime MAPE over the partitions of 8 to 72 SMs, each kernel.
TARGET_MAPE = 0.07
TARGET_SMS = (8, 72)


def partition_roofline_s(w: Workload, profile: HardwareProfile, sm_count: int) -> float:
    """The roofline on ``sm_count`` of the profile's SMs (the memory system whole)."""
    return roofline_s(w, with_sm_count(profile, sm_count))


def reference_efficiency(
    configs: list[PartitionConfig], measured: dict[str, dict], profile: HardwareProfile
) -> dict[str, dict[str, Any]]:
    """Per kernel: roofline / measured at the reference shape on the whole GPU, and its id."""
    out: dict[str, dict[str, Any]] = {}
    for c in configs:
        m = measured.get(c.config_id) or {}
        if REFERENCE in c.config_id and c.sm_count == H200_SMS and m.get("status") == "ok":
            roof = partition_roofline_s(c.workload, profile, H200_SMS)
            out[c.kernel] = {"efficiency": roof / m["median_s"], "reference": c.config_id}
    return out


def rows(
    configs: list[PartitionConfig],
    measured: dict[str, dict],
    predicted: dict[str, dict],
    profile_name: str,
    profile: HardwareProfile,
) -> dict[str, Any]:
    """(measured, predicted, err) rows per method, and the configs without a pair."""
    eff = reference_efficiency(configs, measured, profile)
    out: dict[str, list] = {"model": [], "roofline": [], "constant_efficiency": []}
    missing, mismatched = [], []
    for c in configs:
        m = measured.get(c.config_id)
        if m is None or m.get("status") != "ok":
            why = "not measured" if m is None else m.get("error", "failed")[:200]
            missing.append({"id": c.config_id, "why": why})
            continue
        got = m.get("sm_count_obtained")
        if got != c.sm_count:
            mismatched.append({"id": c.config_id, "asked": c.sm_count, "obtained": got})
        base = {
            "id": c.config_id,
            "kernel": c.kernel,
            "group": c.group,
            "sm_count": c.sm_count,
            "measured": m["median_s"],
        }
        p = (predicted.get(c.config_id) or {}).get(profile_name) or {}
        if p.get("runtime_s") is None:
            missing.append({"id": c.config_id, "why": p.get("error", "no prediction")})
        else:
            out["model"].append(base | {"predicted": p["runtime_s"], "bound": p.get("bound")})
        roof = partition_roofline_s(c.workload, profile, c.sm_count)
        out["roofline"].append(base | {"predicted": roof})
        if c.kernel in eff:
            out["constant_efficiency"].append(
                base | {"predicted": roof / eff[c.kernel]["efficiency"]}
            )
    for rs in out.values():
        for r in rs:
            r["err"] = rel_err(r["predicted"], r["measured"])
    return {"rows": out, "missing": missing, "sm_mismatch": mismatched, "efficiency": eff}


def scaling_rows(model_rows: list[dict]) -> list[dict]:
    """The slowdown a partition causes, predicted against measured: per run on fewer SMs,
    ``(predicted(N) / predicted(132)) / (measured(N) / measured(132)) - 1`` for the same
    kernel and workload. Near 0 where the model scales right even if it misses both."""
    full = {
        r["id"].replace(f"_sm{H200_SMS}_", "_"): r for r in model_rows if r["sm_count"] == H200_SMS
    }
    out = []
    for r in model_rows:
        f = full.get(r["id"].replace(f"_sm{r['sm_count']}_", "_"))
        if r["sm_count"] == H200_SMS or f is None:
            continue
        measured = r["measured"] / f["measured"]
        predicted = r["predicted"] / f["predicted"]
        out.append(
            {k: r[k] for k in ("id", "kernel", "group", "sm_count")}
            | {"measured": measured, "predicted": predicted, "err": predicted / measured - 1}
        )
    return out


def in_target(r: dict) -> bool:
    """Whether a row's partition is in the target's range (8 to 72 SMs)."""
    return TARGET_SMS[0] <= r["sm_count"] <= TARGET_SMS[1]


def compare(
    configs: list[PartitionConfig],
    measured: dict[str, dict],
    predictions: dict[str, Any],
    profiles: dict[str, HardwareProfile],
) -> dict[str, Any]:
    """The whole comparison, per profile: per method and kernel, over the target's range,
    and per partition size."""
    doc: dict[str, Any] = {
        "target": {"runtime_mape": TARGET_MAPE, "sm_counts": list(TARGET_SMS)},
        "reference_shape": REFERENCE,
        "profiles": {},
    }
    for name, hw in profiles.items():
        got = rows(configs, measured, predictions.get("by_config", {}), name, hw)
        per: dict[str, Any] = {k: got[k] for k in ("missing", "sm_mismatch", "efficiency")}
        for method, rs in got["rows"].items():
            per[method] = {}
            for kernel in ("project", "torch"):
                mine = [r for r in rs if r["kernel"] == kernel]
                sizes = sorted({r["sm_count"] for r in mine})
                per[method][kernel] = {
                    "target_range": summarise([r for r in mine if in_target(r)]),
                    "all": summarise(mine),
                    "by_sm_count": {
                        str(n): summarise([r for r in mine if r["sm_count"] == n]) for n in sizes
                    },
                    "by_group_in_target": {
                        g: summarise([r for r in mine if in_target(r) and r["group"] == g])
                        for g in sorted({r["group"] for r in mine})
                    },
                }
        per["both_kernels_target_range"] = {
            m: summarise([r for r in rs if in_target(r)]) for m, rs in got["rows"].items()
        }
        scaling = scaling_rows(got["rows"]["model"])
        per["slowdown_vs_132"] = {
            k: summarise([r for r in scaling if r["kernel"] == k]) for k in ("project", "torch")
        }
        per["rows"] = got["rows"]["model"]
        doc["profiles"][name] = per
    return doc
