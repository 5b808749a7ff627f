"""The record benchmarks inside the suite, without a GPU: their records, values and brackets."""

from __future__ import annotations

import json
import sys
import types

import pytest

from gpusim.calibrate import l2_bytes, profile_writer, recorded, spreads, suite
from gpusim.calibrate.context import BenchContext
from gpusim.data.layout import H200
from gpusim.errors import GpusimError
from tests.calibrate.recorded_results import recorded_results
from tests.calibrate.test_calibrate_command import _FakeCupy

RUN = H200 / "2026-12-02_calibration"
RESULTS = {
    "2026-11-30 runs": recorded_results,
    "2026-12-02 full": lambda: profile_writer.load_results(RUN / "h200-results.json"),
    "2026-12-02 quick": lambda: profile_writer.load_results(
        RUN / "quick" / "h200-quick-results.json"
    ),
}


#: benchmarks the suite gained after a run: the run has no record of them
LATER = {"2026-12-02 full": {"load_clock"}, "2026-12-02 quick": {"load_clock"}}
#: fields a benchmark gained after a run: the run's quick record lacks their loops
LATER_FIELDS = {"2026-12-02 quick": {"smem_sched_release_share"}}


@pytest.mark.parametrize("run", list(RESULTS))
@pytest.mark.parametrize("name", list(recorded.RECORD_BENCHMARKS))
def test_every_derived_value_lies_in_its_bracket(name, run):
    benchmarks = RESULTS[run]()["benchmarks"]
    if name in LATER.get(run, ()):
        assert name not in benchmarks
        return
    record = benchmarks[name]["record"]
    derived = recorded.entries(name, record)
    fields = set(recorded.RECORD_BENCHMARKS[name].fields) - LATER_FIELDS.get(run, set())
    assert set(derived) == fields
    for field, e in derived.items():
        if isinstance(e["value"], list):
            shares = [v for _x, v in e["value"]]
            assert len(e["low"]) == len(shares) == len(e["high"])
            assert all(lo <= v <= hi for lo, v, hi in zip(e["low"], shares, e["high"], strict=True))
        else:
            assert e["low"] <= e["value"] <= e["high"], field
        assert e["spread"] and e["note"]


def test_the_bracket_widens_with_the_repeats():
    record = recorded_results()["benchmarks"]["simt_mm"]["record"]
    for row in record["rows"]:
        raw = row["raw"]["per_clk_per_sm"]
        raw["min"], raw["max"] = raw["median"] * 0.9, raw["median"] * 1.1
    e = spreads.simt(record)["simt_mma_flops_per_clk_per_sm"]
    assert e["low"] == pytest.approx(e["value"] * 0.9, rel=2e-3)
    assert e["high"] == pytest.approx(e["value"] * 1.1, rel=2e-3)


def test_a_record_benchmark_in_the_suite_keeps_its_record(monkeypatch):
    record = recorded_results()["benchmarks"]["smem_fill"]["record"]
    monkeypatch.setattr(recorded, "measure", lambda ctx, name: record)
    ctx = BenchContext(cp=_FakeCupy(), gpu_name="Fake GPU", sm_count=1, date="2026-01-01")
    results = suite.run_suite(ctx, ("smem_fill",), argv=[])
    rec = results["benchmarks"]["smem_fill"]
    assert rec["status"] == "ok" and rec["record"] is record
    value = rec["values"]["smem_fill_cost_per_byte"]
    assert value["source"] == "measured on Fake GPU, 2026-01-01, gpusim calibrate smem_fill"
    assert value["low"] <= value["value"] <= value["high"]
    json.dumps(results)


def test_without_ncu_the_l2_cache_benchmark_fails_in_one_line(monkeypatch):
    monkeypatch.setattr("gpusim.ncu.find_ncu", lambda: None)
    ctx = BenchContext(cp=_FakeCupy(), gpu_name="Fake GPU", sm_count=1, date="2026-01-01")
    rec = suite.run_one(ctx, "l2_cache")
    assert rec["status"] == "failed"
    assert rec["error"] == (
        "RuntimeError: ncu (Nsight Compute) not found: l2_cache counts DRAM bytes with it"
    )


def test_a_short_ncu_run_is_a_failure_not_a_misattributed_record(monkeypatch):
    doc = {"records": [{"kernel": "x"}], "planned_launches": 3, "profiled_kernels": 1,
           "exit_code": 1, "log_tail": "==ERROR== out of memory\n"}  # fmt: skip
    monkeypatch.setattr("gpusim.ncu.find_ncu", lambda: "/bin/ncu")
    monkeypatch.setattr(l2_bytes, "record", lambda *a, **k: dict(doc))
    ctx = BenchContext(cp=_FakeCupy(), gpu_name="Fake GPU", sm_count=1, date="2026-01-01")
    with pytest.raises(RuntimeError, match=r"profiled 1 of 3 launches .*out of memory"):
        recorded.measure(ctx, "l2_cache")


def test_a_record_that_gives_no_value_is_a_one_line_error():
    results = recorded_results()
    results["benchmarks"]["cta_scatter"]["record"] = {"launches": [{"loop": "products"}]}
    with pytest.raises(GpusimError, match="the cta_scatter record gives no profile value"):
        recorded.profile_fields(results)


def test_the_quick_l2_plan_is_a_thinning_of_the_full_one():
    full, quick = l2_bytes.suite_plan(False), l2_bytes.suite_plan(True)
    assert set(quick["read_p_mib"]) < set(full["read_p_mib"])
    assert set(quick["written_p_mib"]) < set(full["written_p_mib"])
    # The full plan reads at every depth the three stand-alone runs read at.
    assert set(full["read_p_mib"]) >= set(l2_bytes.FINE_P_MIB) | set(l2_bytes.HOT_P_MIB)
    assert full["written_p_mib"] == list(l2_bytes.WRITES_P_MIB)


def test_the_l2_suite_mode_is_refused_outside_the_suite(capsys):
    with pytest.raises(SystemExit):
        l2_bytes.main(["--suite", "--out", "x.json"])
    assert "runs inside gpusim calibrate" in capsys.readouterr().err


def test_cupy_is_not_needed_to_import_the_record_benchmarks():
    assert "cupy" not in sys.modules or isinstance(sys.modules["cupy"], types.ModuleType)
    for b in recorded.RECORD_BENCHMARKS.values():
        __import__(f"gpusim.calibrate.{b.module}")


def test_the_summary_says_when_a_record_gives_no_value():
    from gpusim.calibrate.calibrate_command import summarise

    results = recorded_results()
    results["benchmarks"]["dram_mlp"]["record"] = {"rows": []}
    doc = summarise(results)
    assert doc["failed"]["dram_mlp"].startswith("its record gives no profile value")
    assert "dram_mlp.dram_share_by_inflight" not in doc["measured"]
    assert "simt_mm.simt_mma_flops_per_clk_per_sm" in doc["measured"]
