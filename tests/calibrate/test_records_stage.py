"""The stand-alone records `gpusim calibrate` runs after the suite, and how they are applied."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from gpusim.calibrate import records_stage
from gpusim.calibrate.calibrate_command import calibrate
from gpusim.data.layout import REPO_ROOT
from gpusim.profiles.loader import load_profile

FOLDER = REPO_ROOT / "data" / "h100" / "2026-12-05_calibration"
RESULTS = FOLDER / "suite" / "cal" / "h100-sxm5-measured.results.json"
PROFILE = "h100-sxm5-measured.yaml"
STEP_ONE = REPO_ROOT / "data/h100/2026-12-06_wgmma_step_one/wgmma-step-one.json"
STEP_STREAM = REPO_ROOT / "data/h100/2026-12-06_calibration_step_stream/step-stream-h100.json"
GROUP_PRODUCTS = (
    REPO_ROOT / "data/h100/2026-12-07_calibration_group_products" / "group-products-h100.json"
)


def _values(doc: dict) -> dict:
    return {k: v["value"] if isinstance(v, dict) and "value" in v else v for k, v in doc.items()}


def test_a_replay_applies_the_records_beside_the_results(tmp_path):
    """`gpusim calibrate --from` with the records folder beside the results gives the
    committed H100 profile's every value (sources name the copies' paths)."""
    results = tmp_path / "h100.results.json"
    shutil.copy(RESULTS, results)
    folder = records_stage.records_folder(results)
    shutil.copytree(FOLDER / "records", folder)
    # one warpgroup's step: the H100's record of a later call (the calibration predates it)
    shutil.copy(STEP_ONE, folder / "ws" / "wgmma-step-one.json")
    (folder / "ss").mkdir()  # and the tile stream's (held-out set 25)
    shutil.copy(STEP_STREAM, folder / "ss" / "step-stream.json")
    (folder / "gp").mkdir()  # and the grouped products' (held-out set 41)
    shutil.copy(GROUP_PRODUCTS, folder / "gp" / "group-products.json")
    out = tmp_path / "h100.yaml"
    doc = calibrate(out=out, base_profile="h100-sxm5", from_results=results,
                    name="h100-sxm5-measured")  # fmt: skip
    assert doc["records"]["applied"] == [r.name for r in records_stage.RECORDS]
    committed = yaml.safe_load((REPO_ROOT / "hardware_profiles" / PROFILE).read_text())
    assert _values(yaml.safe_load(out.read_text())) == _values(committed)
    assert doc["missing"] == []


def test_an_absent_record_is_named_and_its_fields_keep_the_base(tmp_path):
    results = tmp_path / "h100.results.json"
    shutil.copy(RESULTS, results)
    folder = records_stage.records_folder(results)
    shutil.copytree(FOLDER / "records", folder)
    (folder / "ws" / "wgmma-step.json").unlink()
    out = tmp_path / "h100.yaml"
    doc = calibrate(out=out, base_profile="h100-sxm5", from_results=results, name="x")
    assert "wgmma_step" not in doc["records"]["applied"]
    assert any(w.startswith("wgmma_step: no record at") for w in doc["warnings"])
    written = yaml.safe_load(out.read_text())
    base = load_profile("h100-sxm5")
    field = "wgmma_softmax_cycles_per_instr_2_warpgroups"
    assert written[field]["value"] == getattr(base, field).value
    assert written[field]["source"] == getattr(base, field).source


def test_a_record_that_gives_no_value_is_named_not_fatal(tmp_path):
    """The one-command run's first H100 l2_bytes --hot record (4-MiB depths) never crossed
    half a set lost under shared traffic: the command says so and keeps the base value."""
    results = tmp_path / "h100.results.json"
    shutil.copy(RESULTS, results)
    folder = records_stage.records_folder(results)
    shutil.copytree(FOLDER / "records", folder)
    hot = folder / "l2h" / "l2-survive-hot.json"
    doc = json.loads(hot.read_text())
    doc["records"] = [r for r in doc["records"] if r.get("p_mib", 0) < 24]  # no crossing left
    hot.write_text(json.dumps(doc))
    out = tmp_path / "h100.yaml"
    got = calibrate(out=out, base_profile="h100-sxm5", from_results=results, name="x")
    assert "l2_hot" not in got["records"]["applied"]
    assert any(w.startswith("l2_hot: its record") and "never crosses one half" in w
               for w in got["warnings"])  # fmt: skip
    written = yaml.safe_load(out.read_text())["l2_shared_aging"]
    assert written["source"] == load_profile("h100-sxm5").l2_shared_aging.source


def test_records_run_in_processes_and_each_failure_says_why(tmp_path, monkeypatch):
    """Without a Hopper GPU the wgmma records are skipped with the reason; a record whose
    process fails is reported with its last line; the others run."""
    monkeypatch.setattr(records_stage, "_hopper", lambda: False)
    ran: list[list[str]] = []

    def fake_run(cmd, capture_output, text, timeout):
        ran.append(cmd)
        out = Path(cmd[cmd.index("--out") + 1])
        if "kv_walk" in cmd[2]:
            return subprocess.CompletedProcess(cmd, 1, "", "RuntimeError: ncu not found\n")
        out.write_text(json.dumps({"ok": True}))
        return subprocess.CompletedProcess(cmd, 0, "done\n", "")

    monkeypatch.setattr(records_stage.subprocess, "run", fake_run)
    logged: list[str] = []
    status = records_stage.run_records(tmp_path / "rec", False, logged.append)
    assert status["wgmma"].startswith("skipped: needs an sm_90 GPU")
    assert status["cta_life"].startswith("skipped: needs an sm_90 GPU")  # setmaxnreg
    assert status["kv_drift"] == "failed: exit 1: RuntimeError: ncu not found"
    assert status["dram_read"] == status["l2_hot"] == status["step_stream"] == "ok"
    assert status["group_products"] == "ok"
    assert len(ran) == 5 and all("--cubin" not in c for c in ran)
    assert any("kv_drift: failed" in line for line in logged)


def test_a_wgmma_cubin_that_does_not_build_skips_only_its_records(tmp_path, monkeypatch):
    import gpusim.calibrate.wgmma as wgmma

    monkeypatch.setattr(records_stage, "_hopper", lambda: True)

    def no_nvcc(_folder):
        raise RuntimeError("nvcc not found: pass --cubin (a prebuilt sm_90a cubin of wgmma.cu)")

    monkeypatch.setattr(wgmma, "nvcc_command", no_nvcc)
    ran: list[list[str]] = []

    def fake_run(cmd, capture_output, text, timeout):
        ran.append(cmd)
        Path(cmd[cmd.index("--out") + 1]).write_text("{}")
        return subprocess.CompletedProcess(cmd, 0, "", "")

    monkeypatch.setattr(records_stage.subprocess, "run", fake_run)
    status = records_stage.run_records(tmp_path / "rec", True, lambda _line: None)
    for name in ("wgmma", "wgmma_burst", "wgmma_step"):
        assert (
            status[name] == "skipped: the wgmma cubin did not build: nvcc not found: "
            "pass --cubin (a prebuilt sm_90a cubin of wgmma.cu)"
        )
    assert status["cta_life"] == "ok" and len(ran) == 6
    assert [a for c in ran if "dram_read" in c[2] for a in c if a == "--quick"] == ["--quick"]
    assert [a for c in ran if "group_products" in c[2] for a in c if a == "--quick"] == ["--quick"]
    assert [a for c in ran if "step_stream" in c[2] for a in c if a == "--quick"] == ["--quick"]


def _fake_nvcc(monkeypatch, script: str):
    """nvcc_command replaced by a Python child running ``script`` (argv[1]: the cubin)."""
    import gpusim.calibrate.wgmma as wgmma

    monkeypatch.setattr(records_stage, "_hopper", lambda: True)

    def command(out_dir):
        cubin = out_dir / "wgmma.cubin"
        return [sys.executable, "-c", script, str(cubin)], cubin

    monkeypatch.setattr(wgmma, "nvcc_command", command)


def test_the_cubin_builds_beside_the_suite_and_a_failed_build_says_why(tmp_path, monkeypatch):
    """The background build gives its cubin once waited for, with nvcc's report in
    ptxas.txt; a failing one gives its last line as the records' reason."""
    ok = (
        "import sys, pathlib; print('ptxas info: 168 registers'); "
        "pathlib.Path(sys.argv[1]).write_bytes(b'x')"
    )
    _fake_nvcc(monkeypatch, ok)
    with records_stage.CubinBuild(tmp_path / "a") as build:
        build.start()
        cubin, reason = build.wait()
    assert reason is None and cubin.read_bytes() == b"x"
    assert "168 registers" in (tmp_path / "a" / "wgmma" / "ptxas.txt").read_text()
    _fake_nvcc(monkeypatch, "import sys; print('error: bad asm'); sys.exit(1)")
    with records_stage.CubinBuild(tmp_path / "b") as build:
        assert build.wait() == (None, "the wgmma cubin did not build: error: bad asm")


def test_the_records_without_the_cubin_run_while_it_builds(tmp_path, monkeypatch):
    """Those that do not take the wgmma cubin run first; the status keeps RECORDS' order."""
    _fake_nvcc(monkeypatch, "import sys, pathlib; pathlib.Path(sys.argv[1]).write_bytes(b'x')")
    ran: list[str] = []

    def fake_run(cmd, capture_output, text, timeout):
        ran.append(cmd[2].rsplit(".", 1)[1] + (" cubin" if "--cubin" in cmd else ""))
        Path(cmd[cmd.index("--out") + 1]).write_text("{}")
        return subprocess.CompletedProcess(cmd, 0, "", "")

    monkeypatch.setattr(records_stage.subprocess, "run", fake_run)
    logged: list[str] = []
    seconds: dict[str, float] = {}
    status = records_stage.run_records(tmp_path, True, logged.append, seconds=seconds)
    assert set(seconds) == {r.name for r in records_stage.RECORDS} | {"cubin_wait"}
    assert ran[:6] == ["l2_bytes", "kv_walk", "cta_life", "dram_read", "step_stream",
                       "group_products"]  # fmt: skip
    assert all(r.endswith(" cubin") for r in ran[6:]) and len(ran) == 10
    assert list(status) == [r.name for r in records_stage.RECORDS]
    assert set(status.values()) == {"ok"}
    assert any(line.startswith("wgmma cubin: built") for line in logged)


def test_a_build_still_running_when_the_command_stops_is_killed(tmp_path, monkeypatch):
    _fake_nvcc(monkeypatch, "import time; time.sleep(60)")
    with records_stage.CubinBuild(tmp_path) as build:
        build.start()
        proc = build.proc
    assert proc.poll() is not None


def test_the_plan_lists_the_records_unless_asked_not_to():
    assert list(calibrate(plan_only=True)["records"]) == [r.name for r in records_stage.RUN_ORDER]
    assert calibrate(plan_only=True, records=False)["records"] == {}
    assert calibrate(plan_only=True, only="dram")["records"] == {}


def test_the_one_command_h100_run_is_replayed_from_its_raw_files(tmp_path):
    """`gpusim calibrate` ran on an H100 in one command (data/h100/2026-12-05_calibrate_one_
    command); replaying its raw results and records gives the profile it wrote, with the
    one record that gave no value (l2_bytes --hot: the shared set stopped fitting before half
    was lost) named."""
    import tarfile

    run = REPO_ROOT / "data" / "h100" / "2026-12-05_calibrate_one_command" / "full"
    with tarfile.open(run / "raw.tar.gz") as tar:
        tar.extractall(tmp_path, filter="data")
    results = tmp_path / "full" / "h100-full.results.json"
    out = tmp_path / "replayed.yaml"
    doc = calibrate(out=out, base_profile="h100-sxm5", from_results=results, name="h100-full")
    replayed = _values(yaml.safe_load(out.read_text()))
    # the run predates wgmma_step_one (decode set 3): its field keeps the base's, said in a
    # warning; every other value is the run's
    base = load_profile("h100-sxm5")
    one = replayed.pop("wgmma_softmax_cycles_per_instr_1_warpgroups")
    assert one == base.wgmma_softmax_cycles_per_instr_1_warpgroups.value
    tiles = replayed.pop("wgmma_softmax_cycles_per_instr_1_warpgroups_by_tile")  # decode set 4
    want = base.wgmma_softmax_cycles_per_instr_1_warpgroups_by_tile.value
    assert tiles == {d: [list(r) for r in rows] for d, rows in want.items()}
    # the shared-memory release (2026-12-06): the run's record has its loops, so the replay
    # adds the H100's own share and counts it among the measured values
    assert replayed.pop("smem_sched_release_share") == 0.366  # (2026-12-05 suite run: 0.370)
    # the run predates step_stream (held-out set 25): the law keeps the base's, in a warning
    for f in ("tile_stream_latency_s", "tile_stream_ingress_bytes_per_s", "tile_stream_knee_power"):
        assert replayed.pop(f) == getattr(base, f).value
    # the run predates group_products (held-out set 41): its field keeps the base's, in a warning
    kappa = replayed.pop("grouped_products_kappa_by_cta_warps")
    want = base.grouped_products_kappa_by_cta_warps.value
    assert kappa == {w: [list(r) for r in rows] for w, rows in want.items()}
    written = _values(yaml.safe_load((run / "h100-full.yaml").read_text()))
    counts = [
        int(re.search(r"(\d+) measured values", d.pop("note"))[1]) for d in (replayed, written)
    ]
    assert counts[0] == counts[1] + 1
    assert replayed == written
    assert doc["missing"] == [] and doc["records"]["applied"] == [
        "wgmma", "wgmma_burst", "kv_drift", "cta_life", "dram_read", "wgmma_step"
    ]  # fmt: skip
    assert [w.split(":")[0] for w in doc["warnings"]] == [
        "l2_hot", "step_stream", "group_products", "wgmma_step_one"
    ]  # fmt: skip


def test_a_broken_record_is_named_and_assemble_refuses_it(tmp_path):
    from gpusim.calibrate import assemble
    from gpusim.errors import GpusimError

    results = tmp_path / "h100.results.json"
    shutil.copy(RESULTS, results)
    folder = records_stage.records_folder(results)
    shutil.copytree(FOLDER / "records", folder)
    (folder / "dr" / "dram-read.json").write_text("{")
    doc = calibrate(out=tmp_path / "p.yaml", base_profile="h100-sxm5", from_results=results,
                    name="x")  # fmt: skip
    assert any(w.startswith("dram_read:") and "is not JSON" in w for w in doc["warnings"])
    try:
        assemble.assemble(FOLDER / "suite", folder, "h100-sxm5", "x")
    except GpusimError as exc:
        assert "dram_read" in str(exc) and "not JSON" in str(exc)
    else:
        raise AssertionError("assemble wrote a profile from a broken record")


def test_the_quick_plan_runs_wgmma_step_without_its_gap_and_ring_rows():
    quick, full = records_stage.plan(True)["wgmma_step"], records_stage.plan(False)["wgmma_step"]
    assert quick["runs"] == "python -m gpusim.calibrate.wgmma_step --quick"
    assert full["runs"] == "python -m gpusim.calibrate.wgmma_step"


def test_the_one_command_h200_run_is_replayed_from_its_raw_files(tmp_path):
    """`gpusim calibrate` ran on an H200 in one command (data/h200/2026-12-07_calibrate_one_
    command, 186 s, every record applied, nothing missing); replaying its raw results and
    records gives the profile the device wrote, value for value."""
    import tarfile

    run = REPO_ROOT / "data" / "h200" / "2026-12-07_calibrate_one_command" / "full"
    with tarfile.open(run / "raw.tar.gz") as tar:
        tar.extractall(tmp_path, filter="data")
    results = tmp_path / "full" / "h200-full.results.json"
    out = tmp_path / "replayed.yaml"
    doc = calibrate(out=out, base_profile="h200-sxm-datasheet", from_results=results,
                    name="h200-full")  # fmt: skip
    replayed = _values(yaml.safe_load(out.read_text()))
    written = _values(yaml.safe_load((run / "h200-full.yaml").read_text()))
    for d in (replayed, written):
        d.pop("note")
    assert replayed == written
    assert doc["missing"] == [] and doc["warnings"] == []
    assert sorted(doc["records"]["applied"]) == sorted(
        ["wgmma", "wgmma_burst", "l2_hot", "kv_drift", "cta_life", "dram_read", "step_stream",
         "group_products", "wgmma_step", "wgmma_step_one"]
    )  # fmt: skip
