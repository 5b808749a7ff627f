"""The queued launch of a profile: what a kernel queued behind another one costs, from a
recorded ``gpusim calibrate --only launch`` run.

    python -m gpusim.calibrate.queued_launch --record RESULTS.json --profile PROFILE.yaml

The launch benchmark (:mod:`gpusim.calibrate.launch`) times empty kernels queued behind a
256 MiB fill between CUDA events; a second one adds ``queued_second_launch_s`` (1.81 us on
the H200, data/h200/2026-12-04_launch_set/launch-h200.json, against 9.36 us for one kernel
alone on an idle GPU). The engine charges it to every kernel of a run after the first
(:mod:`gpusim.engine.sim`); reports/long_context/launch2 judged that on a held-out set.
A calibration run since the benchmark measures it sets the field itself
(:data:`gpusim.calibrate.profile_writer.FIELDS`); this sets it from a record on a profile
calibrated before, as :mod:`gpusim.calibrate.wgmma_burst` does for its clock.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from gpusim.calibrate.profile_patch import set_after

FIELD = "kernel_queued_launch_s"
KEY = "queued_second_launch_s"
_AFTER = "kernel_launch_overhead_s"


def profile_entry(record: dict[str, Any], record_path: str) -> dict[str, Any]:
    """The profile's ``kernel_queued_launch_s`` from a launch benchmark's results."""
    try:
        val = record["benchmarks"]["launch"]["values"][KEY]
    except (KeyError, TypeError):
        raise ValueError(f"{record_path}: no launch value {KEY}") from None
    return {
        "value": float(val["value"]),
        "source": f"{val['source']} ({record_path}, {KEY})",
        "note": f"median of {val['count']}, min {val['min']:.4g}, max {val['max']:.4g} s; "
        f"{val['method']}",
    }


def apply(profile_text: str, record: dict[str, Any], record_path: str) -> str:
    """``profile_text`` with the queued launch set (after the launch time), a header line
    naming the record."""
    entry = {FIELD: profile_entry(record, record_path)}
    return set_after(profile_text, _AFTER, entry, f"# queued launch: {record_path}")


def main(argv: list[str] | None = None) -> int:
    """Set the queued launch of ``--profile`` from ``--record``."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--record", type=Path, required=True, help="a launch run's results JSON")
    ap.add_argument("--profile", type=Path, required=True, help="the profile YAML to update")
    a = ap.parse_args(argv)
    from gpusim import atomic

    text = apply(a.profile.read_text(), json.loads(a.record.read_text()), str(a.record))
    atomic.write_text(a.profile, text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
