"""PyTorch's flash runs of two sweeps predicted by replaying PyTorch's own SASS, beside the
pipe model and two baselines on the same runs.

    python -m gpusim.reporting.torch_sass --out reports/torch_sass

The sets: the PyTorch rows of the long-context sweep (data/h200/2026-12-02_long_context) and
of the partition sweep (data/h200/2026-12-02_partitions). Both were measured before the SASS
replay of a binary existed and did not suggest it, so they may judge it. Each run is
predicted with the schedule its flash backend ran (the sweep's, tiles as launched) by

- ``sass-replay``: profile ``h200-sxm-core``, the core model replaying the main loop of the
  exact ``flash_fwd_kernel`` / ``flash_fwd_splitkv_kernel`` instance the run launched
  (:func:`torch_kernel`, checked against the kernel names the sweep recorded where it did),
  read from data/h200/2026-12-02_torch_flash_sass, with that instance's registers;
- ``pipe``: profile ``h200-sxm`` (the measured H200), the pipe model, as the sweeps' reports;
- ``roofline`` and ``constant_efficiency`` (:mod:`gpusim.validation.long_context_compare`).
"""

from __future__ import annotations

import argparse
import functools
import json
from pathlib import Path
from typing import Any

from gpusim.data.layout import H200, VALIDATION_DRAM21
from gpusim.errors import GpusimError
from gpusim.schedule import Schedule
from gpusim.validation.torch_fwd_kernel import (  # noqa: F401 (names this module gives too)
    RES_USAGE,
    SASS,
    SASS_DIR,
    replay_args,
    torch_kernel,
)
from gpusim.workload import Workload

SETS = {
    "long_context": H200 / "2026-12-02_long_context",
    "partitions": H200 / "2026-12-02_partitions",
}
REPLAY_PROFILE, PIPE_PROFILE = "h200-sxm-core", "h200-sxm"
#: The partition target's range of SMs.
PARTITION_TARGET_SMS = (8, 16, 32, 72)


def _recorded(row: dict) -> str | None:
    """The demangled plain/split kernel name the sweep's profiler recorded, if any."""
    for k in row.get("torch_kernels") or []:
        if "flash_fwd" in k.get("name", "") and "combine" not in k["name"]:
            return k["name"]
    return None


def _readable_bools(mangled: str) -> str:
    tail = mangled.rsplit("S3_EE", 1)[1]
    return ", ".join("true" if b == "1" else "false" for b in tail[2::4][:8])


def runs(set_name: str) -> list[dict]:
    """The set's ok PyTorch rows, one per run (a run the sweep re-recorded with its profiler
    trace appears twice with the same timing: the later record, with the kernel names, wins)."""
    rows = [json.loads(x) for x in (SETS[set_name] / "sweep.jsonl").read_text().splitlines() if x]
    by_id = {r["id"]: r for r in rows if r.get("kernel") == "torch" and r.get("status") == "ok"}
    return list(by_id.values())


@functools.cache
def _loop(kernel: str):
    from gpusim.kernels.binary_dump import load_binary_loop

    return load_binary_loop(kernel, sass=SASS, res_usage=RES_USAGE)


def predict_row(row: dict) -> dict[str, Any]:
    """Both models' runtime for one run (an error string where one refuses it)."""
    w, s = Workload(**row["workload"]), Schedule(**row["schedule"])
    sm = row.get("sm_count")
    name = torch_kernel(w, s)
    out: dict[str, Any] = {"id": row["id"], "set": row["set"], "group": row["group"]}
    out |= {"sm_count": sm or 132, "measured": row["median_s"], "kernel": name}
    rec = _recorded(row)
    if rec is not None:
        out["recorded_kernel_agrees"] = rec.split(">, ", 1)[-1].startswith(_readable_bools(name))
    for model, kwargs in (
        ("sass-replay", {"profile": REPLAY_PROFILE, "binary": True}),
        ("pipe", {"profile": PIPE_PROFILE}),
    ):
        try:
            extra = {"binary": _loop(name)} if kwargs.get("binary") else {}
            r = _simulate(w, s, kwargs["profile"], sm, **extra)
            out[model] = r.runtime_s
            out[f"{model}_timing"] = [k.timing_model for k in r.kernels]
            out[f"{model}_ctas_per_sm"] = r.ctas_per_sm
        except GpusimError as exc:
            out[model], out[f"{model}_error"] = None, str(exc)
    return out


def _simulate(w, s, profile, sm, binary=None):
    from gpusim.api.functions import _inputs
    from gpusim.engine.simulate import simulate as engine_simulate

    w, s, hw = _inputs("flash2", w, s, profile, sm)
    return engine_simulate("flash2", w, s, hw, binary=binary)


def baselines(row: dict, eff: float) -> dict[str, float]:
    from gpusim.profiles.loader import load_profile
    from gpusim.profiles.sm_count import with_sm_count
    from gpusim.validation.long_context_compare import roofline_s

    hw = with_sm_count(load_profile(PIPE_PROFILE), row.get("sm_count"))
    roof = roofline_s(Workload(**row["workload"]), hw)
    return {"roofline": roof, "constant_efficiency": roof / eff}


def summary(preds: list[dict], models: tuple[str, ...]) -> dict[str, Any]:
    from gpusim.validation.long_context_compare import rel_err, summarise

    out = {}
    for m in models:
        rows = [{"id": p["id"], "measured": p["measured"], "predicted": p.get(m),
                 "err": rel_err(p.get(m), p["measured"])} for p in preds]  # fmt: skip
        out[m] = summarise(rows)
    return out


MODELS = ("sass-replay", "pipe", "roofline", "constant_efficiency")


def judge(jobs: int | None = None) -> dict[str, Any]:
    from gpusim.parallel_map import pmap
    from gpusim.profiles.loader import load_profile
    from gpusim.source_commit import git_commit
    from gpusim.validation.long_context_compare import efficiency_from_dataset

    eff, n_eff = efficiency_from_dataset(
        VALIDATION_DRAM21 / "h200-dataset.json", load_profile(PIPE_PROFILE)
    )
    rows = [r | {"set": name} for name in SETS for r in runs(name)]
    preds = pmap(predict_row, rows, jobs=jobs)
    for p, r in zip(preds, rows, strict=True):
        p |= baselines(r, eff)
    by_set = {
        "long_context": [p for p in preds if p["set"] == "long_context"],
        "partitions_8_72": [
            p for p in preds if p["set"] == "partitions" and p["sm_count"] in PARTITION_TARGET_SMS
        ],
        "partitions_all": [p for p in preds if p["set"] == "partitions"],
        "all": preds,
    }
    return {
        "model_commit": git_commit(),
        "sass": str(SASS.relative_to(H200.parents[1])),
        "constant_efficiency": {"efficiency": eff, "from_runs": n_eff},
        "summary": {k: summary(v, MODELS) for k, v in by_set.items()},
        "runs": preds,
    }


def table(doc: dict[str, Any]) -> str:
    """Markdown: per set, each model's n, MAPE, mean signed error and worst run."""

    def pct(x):
        return "-" if x is None else f"{100 * x:+.1f} %" if x < 0 else f"{100 * x:.1f} %"

    lines = ["| set | model | n | MAPE | mean signed | worst |", "|---|---|---|---|---|---|"]
    for name, per in doc["summary"].items():
        for m, s in per.items():
            w = s["worst"][0] if s["worst"] else None
            worst = f"{pct(w['err'])} ({w['id']})" if w else "-"
            lines.append(f"| {name} | {m} | {s['n']} | {pct(s['mape'])} | "
                         f"{pct(s['mean_signed'])} | {worst} |")  # fmt: skip
    lines += [
        "",
        "| run | SMs | measured us | sass-replay | pipe | roofline |",
        "|---|---|---|---|---|---|",
    ]
    for p in doc["runs"]:

        def e(m, p=p):
            v = p.get(m)
            return "refused" if v is None else f"{100 * (v - p['measured']) / p['measured']:+.1f} %"

        cells = [p["id"], p["sm_count"], f"{1e6 * p['measured']:.1f}"]
        cells += [e(m) for m in ("sass-replay", "pipe", "roofline")]
        lines.append("| " + " | ".join(map(str, cells)) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    from gpusim import atomic

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True, help="folder for compare.json/.md")
    ap.add_argument("--jobs", type=int, default=None)
    args = ap.parse_args(argv)
    doc = judge(args.jobs)
    args.out.mkdir(parents=True, exist_ok=True)
    atomic.write_text(args.out / "compare.json", json.dumps(doc, indent=1) + "\n")
    atomic.write_text(args.out / "compare.md", table(doc))
    print(table(doc).split("\n\n")[0])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
