"""A results document as ``gpusim calibrate`` now writes it, built from recorded H200 runs.

The 2026-11-30 suite run (the value benchmarks) plus the stand-alone runs of that day as
the record benchmarks' raw records, each under the suite's name with the suite's source,
and the queued launches a later launch run measured (the suite's launch benchmark has
timed them since 2026-12-04): what one ``gpusim calibrate`` on the H200 records, without
a GPU.
"""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path
from typing import Any

from gpusim.calibrate import recorded
from gpusim.data.layout import CALIBRATION, H200, calibration_run
from gpusim.profiles.loader import list_profiles, profile_path

RESULTS = CALIBRATION / "h200-results.json"
#: The launch run whose queued launches the 2026-11-30 suite run did not time yet.
QUEUED_LAUNCH = H200 / "2026-12-04_launch_set" / "launch-h200.json"
QUEUED_KEYS = ("queued_launch_s", "queued_second_launch_s")
#: The datasheet-only H200 profile (``h200-sxm`` until the profiles' rename, then
#: ``h200-sxm-datasheet``): a base with no measured value of its own but the barrier's.
DATASHEET = "h200-sxm-datasheet" if "h200-sxm-datasheet" in list_profiles() else "h200-sxm"
#: The committed calibrated H200 profile (``h200-sxm-calibrated``, a former name after it).
COMMITTED = profile_path("h200-sxm-calibrated")
RECORDS = {
    "barrier": [H200 / "2026-11-30_barrier_cost" / "barrier_cost_h200.json"],
    "simt_mm": [calibration_run("simt_mm") / "simt-mm-h200.json"],
    "smem_overlap": [calibration_run("smem_overlap") / "smem-overlap-h200.json"],
    "smem_fill": [calibration_run("smem_fill") / "smem-fill-h200.json"],
    "cta_scatter": [calibration_run("cta_scatter") / "cta-scatter-h200.json"],
    "dram_mlp": [calibration_run("dram_mlp") / "dram-mlp-h200.json"],
    # One ncu run's worth: the copies of the first l2_bytes run, the fine read depths and the
    # written ones (the suite runs them in one process).
    "l2_cache": [
        calibration_run("l2_bytes") / "l2-bytes-h200.json",
        calibration_run("l2_survive") / "l2-survive-fine-h200.json",
        calibration_run("l2_survive") / "l2-survive-writes-h200.json",
    ],
    # The stand-alone run of 2026-12-04 (all six variants; the suite runs the profile's one).
    "load_clock": [H200 / "2026-12-04_calibration_load_clock" / "load-clock-h200.json"],
}


def _load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())


@cache
def _recorded() -> dict[str, Any]:
    doc = _load(RESULTS)
    for name, paths in RECORDS.items():
        if name == "l2_cache":
            recs = [r for r in _load(paths[0])["records"] if r["kernel"] == "ldgsts_copy"]
            recs += _load(paths[1])["records"]
            recs += [r for r in _load(paths[2])["records"] if r["kernel"] == "l2_survive_w"]
            record: dict[str, Any] = {"records": recs}
        else:
            record = _load(paths[0])
        doc["benchmarks"][name] = {
            "source": f"measured on NVIDIA H200, 2026-11-30, gpusim calibrate {name}",
            "status": "ok",
            "values": recorded.values_of(name, record),
            "record": record,
        }
    later = _load(QUEUED_LAUNCH)["benchmarks"]["launch"]["values"]
    doc["benchmarks"]["launch"]["values"].update({k: later[k] for k in QUEUED_KEYS})
    return doc


def recorded_results(failed: tuple[str, ...] = ()) -> dict[str, Any]:
    """A fresh copy of the document; ``failed`` benchmarks marked failed."""
    doc = copy.deepcopy(_recorded())
    for name in failed:
        doc["benchmarks"][name] = {"status": "failed", "error": "RuntimeError: boom"}
    return doc
