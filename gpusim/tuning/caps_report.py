"""The tuner's launch caps against the recorded H200 run (no GPU): predicted and measured.

    python -m gpusim.tuning.caps_report [--out DIR]   # about 1 min; prints the table

It writes ``predictions.json`` into ``--out`` (default: a fresh temporary folder; the report's
copy is reports/tuning/caps/), never beside the measurement.

For every launch in data/h200/2026-11-30_tuning_caps/h200_caps.json (an instance at its
full CTAs per SM and at every smaller count), the engine's runtime with the default
profile (h200-sxm) and the SM core model's (h200-sxm-core), at the instance's
compiled registers and that many CTAs per SM: the launch the tuner's caps describe. The
figures compared are each capped launch's time over the same instance's full launch,
measured and predicted, so a model's overall level does not enter.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from dataclasses import replace
from pathlib import Path

from algorithms import get_algorithm
from gpusim.data.layout import REPO_ROOT, TUNING_CAPS
from gpusim.engine import simulate
from gpusim.kernel_catalog.compiled import compiled_footprints
from gpusim.profiles import load_profile
from gpusim.schedule import Schedule
from gpusim.tuning.proof_report import model_commit
from gpusim.workload import Workload

MEASURED = TUNING_CAPS / "h200_caps.json"
PROFILES = ("h200-sxm", "h200-sxm-core")


def predict(w: Workload, s: Schedule, key: str, ctas: int, profile) -> float:
    """The engine's runtime of instance ``key`` at its compiled registers and ``ctas`` per SM."""
    comp = compiled_footprints(profile.compute_capability)[key]
    (kernel,) = get_algorithm("flash2").kernels(w, s)
    chip = replace(kernel.on_chip(), regs_per_thread=comp.registers, max_ctas_per_sm=ctas)
    r = simulate("flash2", w, s, profile, detail="aggregated", on_chip={kernel.name: chip})
    if r.ctas_per_sm != ctas:
        raise SystemExit(f"{key}: the engine runs {r.ctas_per_sm} CTAs per SM, not {ctas}")
    return r.runtime_s


def _relative(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(REPO_ROOT))
    except ValueError:
        return str(path)


def main(argv: list[str] | None = None) -> int:
    """Predict every recorded launch, write ``predictions.json`` into ``--out``, print the table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--measured", type=Path, default=MEASURED)
    ap.add_argument("--out", type=Path, default=None, help="folder (default: a fresh temporary)")
    args = ap.parse_args(argv)
    out_dir = args.out or Path(tempfile.mkdtemp(prefix="gpusim-caps-"))
    out_dir.mkdir(parents=True, exist_ok=True)
    predictions = out_dir / "predictions.json"
    record = json.loads(args.measured.read_text())
    profiles = {p: load_profile(p) for p in PROFILES}
    rows = []
    for e in record["workloads"]:
        w = Workload(**e["workload"])
        for inst in e["instances"]:
            s = Schedule.from_record(inst["schedule"])
            for launch in inst["launches"]:
                c = launch["ctas_per_sm"]
                pred = {p: predict(w, s, inst["instance"], c, prof) for p, prof in profiles.items()}
                rows.append({"instance": inst["instance"], "ctas_per_sm": c,
                             "measured_s": launch["median_s"], "predicted_s": pred})  # fmt: skip
    predictions.write_text(json.dumps(
        {"model_commit": model_commit(), "measured_file": _relative(args.measured), "rows": rows},
        indent=1,
    ) + "\n")  # fmt: skip
    print(f"predictions: {predictions}")
    by_inst: dict[str, list[dict]] = {}
    for r in rows:
        by_inst.setdefault(r["instance"], []).append(r)
    errs: dict[str, list[float]] = {p: [] for p in PROFILES}
    print(f"{'instance':30} {'CTAs':>4} {'measured':>9} " + " ".join(f"{p:>20}" for p in PROFILES))
    print(f"{'':30} {'':>4} {'t / t_full':>9} " + " ".join(f"{'t / t_full':>20}" for _ in PROFILES))
    for key, rs in by_inst.items():
        full = rs[0]
        for r in rs[1:]:
            m = r["measured_s"] / full["measured_s"]
            ps = [r["predicted_s"][p] / full["predicted_s"][p] for p in PROFILES]
            for p, x in zip(PROFILES, ps, strict=True):
                errs[p].append(x / m - 1)
            print(f"{key:30} {r['ctas_per_sm']:4d} {m:9.3f} " + " ".join(f"{x:20.3f}" for x in ps))
    for p in PROFILES:
        e = errs[p]
        mean, mape = statistics.mean(e), statistics.mean(abs(x) for x in e)
        print(f"{p}: capped/full ratio error over {len(e)} capped launches: mean {mean:+.1%}, "
              f"MAPE {mape:.1%}, range {min(e):+.1%} to {max(e):+.1%}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
