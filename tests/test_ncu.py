"""Parsing Nsight Compute's CSV, choosing metrics, and attributing kernels to configs."""

from __future__ import annotations

import pytest

from gpusim import ncu

CSV = """==PROF== Connected to process 1
"ID","Process ID","Kernel Name","dram__bytes_read.sum","gpu__time_duration.sum",\
"launch__grid_size","lts__t_sectors_srcunit_tex_op_read.sum"
"","","","Mbyte","msecond","","sector"
"0","1","gpusim_ncu_marker","0.00","0.001","1","0"
"1","1","void flash2_tc<true, 128, 128, 64, 4, 2>(...)","1,234.5","2.5","512","100"
"2","1","gpusim_ncu_marker","0.00","0.001","2","0"
"3","1","gpusim_ncu_marker","0.00","0.001","3","0"
"4","1","nvjet_hsh_128x128","10","1","64","50"
"5","1","row_softmax<128>","20","2","4096","60"
"6","1","gpusim_ncu_marker","0.00","0.001","4","0"
"7","1","flash2_tc<false, 64, 64, 32, 4, 1>","99","9","9","9"
"""


def test_parse_converts_units_and_separators():
    ks = ncu.parse_csv(CSV)
    assert [k["id"] for k in ks] == list(range(8))
    k1 = ks[1]["metrics"]
    assert k1["dram__bytes_read.sum"] == pytest.approx(1234.5e6)
    assert k1["gpu__time_duration.sum"] == pytest.approx(2.5e6)  # ns
    assert k1["launch__grid_size"] == 512


def test_attribution_keeps_only_kernels_between_a_config_markers():
    by = ncu.attribute(ncu.parse_csv(CSV), ["first", "second"])
    assert [k["id"] for k in by["first"]] == [1]
    assert [k["id"] for k in by["second"]] == [4, 5]  # kernel 7 is after the closing marker
    s = ncu.summarise(by["second"])
    assert s["dram_read_bytes"] == pytest.approx(30e6)
    assert s["l2_read_bytes_from_sm"] == 110 * ncu.SECTOR_BYTES
    assert s["gpu_time_s"] == pytest.approx(3e-3)
    assert s["dram_write_bytes"] is None


def test_select_metrics_drops_unknown_diagnostics_but_keeps_required():
    known = ncu.known_metric_bases(
        "Device GH100\nMetric Name   Metric Type   Metric Unit\n"
        "dram__bytes_read   Counter  byte   # of bytes read\n"
        "dram__bytes_write   Counter  byte\n"
        "lts__t_sectors_srcunit_tex_op_read Counter\nlts__t_sectors_srcunit_tex_op_write C\n"
        "gpu__time_duration Counter\nsm__cycles_elapsed Counter\n"
    )
    keep, dropped = ncu.select_metrics(known)
    assert set(ncu.REQUIRED_METRICS) <= set(keep)
    assert "sm__cycles_elapsed.avg.per_second" in keep
    assert "smsp__inst_executed.sum" in dropped
    keep, dropped = ncu.select_metrics(set())
    assert keep == list(ncu.REQUIRED_METRICS)
    keep, dropped = ncu.select_metrics(known, ncu.DIAGNOSTIC_METRICS)
    assert "dram__bytes_read.sum" not in keep and "sm__cycles_elapsed.max" in keep


def test_no_header_means_no_kernels():
    assert ncu.parse_csv("ncu: error: nothing profiled") == []


def test_summary_keeps_both_ends_of_the_l2_traffic():
    from gpusim.ncu import summarise

    k = {
        "lts__t_sectors_srcunit_tex_op_read.sum": 10.0,
        "lts__t_sectors_srcunit_tex_op_write.sum": 2.0,
        "l1tex__m_xbar2l1tex_read_bytes.sum": 480.0,
        "l1tex__m_l1tex2xbar_write_bytes.sum": 64.0,
    }
    s = summarise([{"id": 0, "name": "k", "metrics": k}, {"id": 1, "name": "k", "metrics": k}])
    assert (s["l2_read_bytes_from_sm"], s["l2_write_bytes_from_sm"]) == (640, 128)
    assert (s["sm_read_bytes_from_l2"], s["sm_write_bytes_to_l2"]) == (960, 128)
    old = summarise([{"id": 0, "name": "k", "metrics": {"dram__bytes_read.sum": 1.0}}])
    assert old["sm_read_bytes_from_l2"] is None
