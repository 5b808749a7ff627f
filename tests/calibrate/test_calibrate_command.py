"""The calibrate command without a GPU: clear errors, replay from recorded results, failures."""

from __future__ import annotations

import builtins
import json
import types

import pytest

from gpusim.calibrate import calibrate_command as command
from gpusim.calibrate import suite
from gpusim.calibrate.__main__ import main
from gpusim.calibrate.context import BenchContext, import_cupy
from gpusim.errors import GpusimError
from tests.calibrate.sample_results import sample_results


def _no_cupy(monkeypatch):
    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name == "cupy" or name.startswith("cupy."):
            raise ImportError("No module named 'cupy'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)


def test_without_cupy_the_error_is_one_line(monkeypatch):
    _no_cupy(monkeypatch)
    with pytest.raises(GpusimError) as err:
        import_cupy()
    assert "\n" not in str(err.value)
    assert "CuPy" in str(err.value)


def test_main_without_cupy_exits_nonzero_with_one_line(monkeypatch, capsys, tmp_path):
    _no_cupy(monkeypatch)
    code = main(["--json", "--out", str(tmp_path / "p.yaml")])
    captured = capsys.readouterr()
    assert code != 0
    assert captured.out == ""
    assert len(captured.err.strip().splitlines()) == 1
    assert captured.err.startswith("error: ")


def test_unknown_benchmark_and_unknown_base_profile_are_errors(capsys):
    with pytest.raises(GpusimError, match="unknown benchmark nope"):
        suite.select("dram,nope")
    assert main(["--base-profile", "no-such-gpu", "--json"]) != 0
    assert "unknown profile 'no-such-gpu'" in capsys.readouterr().err


def test_replay_from_recorded_results_prints_one_json_object(tmp_path, capsys):
    results = tmp_path / "r.json"
    results.write_text(json.dumps(sample_results(failed=("launch",))))
    out = tmp_path / "cal.yaml"
    assert main(["--from", str(results), "--out", str(out), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["profile"] == str(out)
    assert out.is_file()
    assert doc["measured"]["tensor.mma_sync_fp16_flops_per_clk_per_sm"]["value"] == 2660.0
    assert doc["failed"] == {"launch": "RuntimeError: boom"}
    assert "kernel_launch_overhead_s" not in doc["replaced"]


def test_table_output_names_values_and_failures(tmp_path, capsys):
    results = tmp_path / "r.json"
    results.write_text(json.dumps(sample_results(failed=("sfu",))))
    assert main(["--from", str(results), "--out", str(tmp_path / "p.yaml")]) == 0
    text = capsys.readouterr().out
    assert "dram.copy_bandwidth_bytes_per_s" in text
    assert "sfu: FAILED" in text


def test_default_paths_sit_beside_each_other():
    out, res = command.default_paths("h200-sxm-datasheet", None, None)
    assert out.name == "h200-sxm-datasheet-calibrated.yaml"
    assert res.name == "h200-sxm-datasheet-calibrated.results.json"


class _FakeCupy:
    """Just enough of CuPy for the suite's bookkeeping (no kernels)."""

    __version__ = "0.0-fake"

    def __init__(self):
        runtime = types.SimpleNamespace(runtimeGetVersion=lambda: 1, driverGetVersion=lambda: 1)
        stream = types.SimpleNamespace(synchronize=lambda: None)
        self.cuda = types.SimpleNamespace(
            runtime=runtime,
            nvrtc=types.SimpleNamespace(getVersion=lambda: (1, 0)),
            get_current_stream=lambda: stream,
        )

    def get_default_memory_pool(self):
        return types.SimpleNamespace(free_all_blocks=lambda: None)


def test_a_failing_benchmark_is_recorded_and_the_others_go_on(monkeypatch):
    def boom(ctx):
        raise RuntimeError("kernel exploded")

    def fine(ctx):
        return {"values": {"x_s": {"value": 1.0, "unit": "s"}}, "details": {}, "kernels": {}}

    monkeypatch.setitem(
        __import__("sys").modules, "gpusim.calibrate.boom", types.SimpleNamespace(run=boom)
    )
    monkeypatch.setitem(
        __import__("sys").modules, "gpusim.calibrate.fine", types.SimpleNamespace(run=fine)
    )
    ctx = BenchContext(cp=_FakeCupy(), gpu_name="Fake GPU", sm_count=1, date="2026-01-01")
    results = suite.run_suite(ctx, ("boom", "fine"), argv=[])
    assert results["benchmarks"]["boom"]["status"] == "failed"
    assert results["benchmarks"]["boom"]["error"] == "RuntimeError: kernel exploded"
    fine_rec = results["benchmarks"]["fine"]
    assert fine_rec["status"] == "ok"
    assert fine_rec["values"]["x_s"]["source"] == (
        "measured on Fake GPU, 2026-01-01, gpusim calibrate fine"
    )
    assert results["provenance"]["gpu_name"] == "Fake GPU"
    json.dumps(results)  # the whole document is JSON-ready


def test_gpusim_calibrate_is_a_registered_command(tmp_path, capsys):
    from gpusim.cli.main import run

    results = tmp_path / "r.json"
    results.write_text(json.dumps(sample_results()))
    out = tmp_path / "p.yaml"
    assert run(["calibrate", "--from", str(results), "--out", str(out), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["profile"] == str(out)
    assert "dram.copy_bandwidth_bytes_per_s" in doc["measured"]


def test_the_table_says_where_the_commands_time_went():
    from gpusim.calibrate.calibrate_command import format_table

    doc = {"gpu": "g", "date_utc": "d", "measured": {}, "failed": {}, "results": "r",
           "profile": "p", "wall_s": {"suite": 33.2, "records": {"l2_hot": 14.4, "wgmma": 2.1,
           "cubin_wait": 0.2}, "total": 88.8}}  # fmt: skip
    assert "wall: suite 33 s, records 16 s (the wgmma cubin waited for 0 s), in all 89 s" in (
        format_table(doc)
    )
    del doc["wall_s"]
    assert "wall:" not in format_table(doc)
