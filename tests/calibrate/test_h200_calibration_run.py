"""The 2026-12-02 H200 run of one ``gpusim calibrate`` (and one ``--quick``), recomputed here.

The profiles written on the device must be what the profile writer derives today from the
raw results beside them (every record benchmark's field re-derived from its raw record),
and complete.
"""

from __future__ import annotations

import pytest
import yaml

from gpusim.calibrate import completeness, profile_writer
from gpusim.data.layout import H200
from tests.calibrate.recorded_results import DATASHEET

RUN = H200 / "2026-12-02_calibration"
RUNS = {
    "full": (RUN / "h200-results.json", RUN / "h200-sxm-calibrated.yaml", "h200-sxm-calibrated"),
    "quick": (
        RUN / "quick" / "h200-quick-results.json",
        RUN / "quick" / "h200-sxm-calibrated-quick.yaml",
        "h200-sxm-calibrated-quick",
    ),
}
# The run's base was the datasheet profile, then named h200-sxm.
BASE = DATASHEET
#: written after these runs: the full run's record has its loops, and its replay leaves them out
RELEASE = "smem_sched_release_share"


def before_release(results: dict) -> dict:
    """``results`` without the smem_overlap rows the shared-memory release is read from (the
    writer of 2026-12-02 had no such field)."""
    from gpusim.calibrate.smem_overlap import RELEASE_LOOPS

    record = results["benchmarks"]["smem_overlap"]["record"]
    loop = ("nld", "mma_per_ld", "nmma_reg", "rounds")
    record["rows"] = [r for r in record["rows"] if tuple(r[k] for k in loop) not in RELEASE_LOOPS]
    return results


@pytest.mark.parametrize("run", list(RUNS))
def test_the_written_profile_is_what_its_raw_results_give(run):
    results_path, profile_path, name = RUNS[run]
    results = before_release(profile_writer.load_results(results_path))
    base = yaml.safe_load(profile_writer.base_profile_path(BASE).read_text())
    base["name"] = "h200-sxm"  # the datasheet profile's name when the run wrote its note
    profile, replaced = profile_writer.build_profile(results, base, name)
    written = yaml.safe_load(profile_path.read_text())
    assert profile == written
    # The run predates the launch benchmark's queued timing and load_clock (2026-12-04), and
    # the shared-memory release (2026-12-06).
    assert completeness.missing(profile) == ["sm_clock_stream_load_hz", RELEASE,
                                             "kernel_queued_launch_s"]  # fmt: skip
    assert completeness.borrowed(profile, replaced) == []
    assert results["quick"] is (run == "quick")
    assert all(rec["status"] == "ok" for rec in results["benchmarks"].values())


def test_the_quick_run_with_load_clock_is_complete_and_what_its_results_give():
    """2026-12-04: ``gpusim calibrate --quick`` with load_clock in the suite."""
    run = H200 / "2026-12-04_calibrate_quick" / "quick"
    results = profile_writer.load_results(run / "h200-quick.results.json")
    written = yaml.safe_load((run / "h200-quick.yaml").read_text())
    base = yaml.safe_load(profile_writer.base_profile_path(BASE).read_text())
    profile, replaced = profile_writer.build_profile(results, base, written["name"])
    assert profile == written
    # its quick record has no release loops (2026-12-06 added them to --quick)
    assert completeness.missing(profile) == [RELEASE]
    assert completeness.borrowed(profile, replaced) == []
    clock = results["benchmarks"]["load_clock"]["values"]["sm_clock_stream_load_hz"]
    committed = yaml.safe_load(profile_writer.base_profile_path("h200-sxm").read_text())
    assert clock["low"] <= committed["sm_clock_stream_load_hz"]["value"] <= clock["high"]
