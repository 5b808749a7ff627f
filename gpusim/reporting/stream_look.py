"""A look at measured long-context sets with the tile stream's law off and on (seen data,
judges nothing): MAPE, mean signed and worst error per set and over all.

    python -m gpusim.reporting.stream_look --profile h100-sxm5 [--unscoped] SET ...

Each SET is ``DATA_DIR:MANIFEST_DIR`` (the measured runs, and the folder under data/h200
whose ``manifest_configs.json`` fixed them; ``DATA_DIR`` alone where it holds its
manifest). The closing note of 2026-12-06 quotes two looks:

    # the H100's seen sets while the law was on (as sets 25-26 had it: --unscoped)
    H6=data/h200/2026-12-05_long_context_heldout6
    python -m gpusim.reporting.stream_look --profile h100-sxm5 --unscoped \\
        data/h100/2026-12-05_long_context_heldout7:data/h200/2026-12-05_long_context_heldout7 \\
        data/h100/2026-12-05_long_context_heldout8:data/h200/2026-12-05_long_context_heldout8 \\
        data/h100/2026-12-05_long_context_heldout6_on_h100:$H6 \\
        data/h100/2026-12-06_inference_tuning_heldout23:data/h200/2026-12-06_inference_tuning_heldout23
    # the H200's seen decode sets with the H100's three numbers borrowed into h200-sxm
    cp hardware_profiles/h200-sxm.yaml /tmp/h200-sxm-stream.yaml
    python -m gpusim.calibrate.step_stream_fit --profile /tmp/h200-sxm-stream.yaml \\
        --record data/h100/2026-12-06_calibration_step_stream/step-stream-h100.json \\
        --read-bps 3.214120049656e12
    python -m gpusim.reporting.stream_look --profile /tmp/h200-sxm-stream.yaml --unscoped \\
        --kernel project data/h200/2026-12-04_load_latency_heldout12 ...

(the H200 look's sets, each its own manifest folder: 2026-12-04_load_latency_heldout12,
2026-12-04_inference_tuning_heldout13, 2026-12-05_inference_tuning_heldout16, 2026-12-03_pack_gqa,
2026-12-04_launch_set, 2026-12-04_dram_read_heldout9). Its "off" column is the
profile without the law's effect (``streaming(False)``), whatever fields the profile holds.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path


def look(profile: str, sets: list[str], unscoped: bool, kernel: str | None) -> list[str]:
    """The table's lines: per set, then over all."""
    from gpusim.engine.stream_latency import scoped, streaming
    from gpusim.reporting.long_context_predict import predict_one
    from gpusim.validation import long_context_sweep
    from gpusim.validation.long_context_configs import read_manifest

    def summary(errs: list[float]) -> str:
        mape, mean = statistics.fmean(map(abs, errs)), statistics.fmean(errs)
        return f"{mape * 100:.2f} % {mean * 100:+.2f} % worst {max(map(abs, errs)) * 100:.1f} %"

    lines, every = [], {False: [], True: []}
    for spec in sets:
        data, _, manifest = spec.partition(":")
        configs = read_manifest(Path(manifest or data) / "manifest_configs.json")
        measured = {r["id"]: r for r in long_context_sweep.records(Path(data))}
        errs: dict[bool, list[float]] = {False: [], True: []}
        for c in configs:
            m = measured.get(c.config_id)
            if not m or m.get("status") != "ok" or (kernel and c.kernel != kernel):
                continue
            for on in (False, True):
                with streaming(on), scoped(not unscoped):
                    pred = predict_one(c, profile)["runtime_s"]
                errs[on].append(pred / m["median_s"] - 1)
        if errs[False]:
            lines.append(f"{Path(data).name} ({len(errs[False])} runs): off {summary(errs[False])}"
                         f"; on {summary(errs[True])}")  # fmt: skip
            for on in (False, True):
                every[on] += errs[on]
    if every[False]:
        lines.append(f"all ({len(every[False])} runs): off {summary(every[False])}; on "
                     f"{summary(every[True])}")  # fmt: skip
    return lines


def main(argv: list[str] | None = None) -> int:
    """Print the look; a bad set or profile is one line and exit 2."""
    from gpusim.errors import GpusimError

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--profile", required=True)
    ap.add_argument("--unscoped", action="store_true", help="the law as sets 25-26 had it")
    ap.add_argument("--kernel", choices=("project", "torch"), help="only this kernel's runs")
    ap.add_argument("sets", nargs="+", metavar="DATA_DIR:MANIFEST_DIR")
    a = ap.parse_args(sys.argv[1:] if argv is None else argv)
    try:
        lines = look(a.profile, a.sets, a.unscoped, a.kernel)
    except (OSError, ValueError, KeyError, GpusimError) as exc:
        print(f"stream_look: error: {exc}", file=sys.stderr)
        return 2
    print("\n".join(lines) if lines else "no measured run matched")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
