"""``gpusim validate --from`` and the analysis modules write only where they are told, or into
a fresh folder: never beside the recorded data (``git status`` stays as it was)."""

import json
import shutil
import subprocess
import sys

import pytest

from gpusim.data.layout import DATA_DIR, REPO_ROOT, TUNING_CAPS
from gpusim.validation import predicted_vs_measured as compare
from gpusim.validation import validate_command as command

DATASETS = sorted(DATA_DIR.rglob("h200-dataset.json"))
needs_git = pytest.mark.skipif(
    shutil.which("git") is None or not (REPO_ROOT / ".git").exists(), reason="no git checkout"
)


def _status() -> str:
    return subprocess.run(
        ["git", "-C", str(REPO_ROOT), "status", "--porcelain"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout


@pytest.fixture
def cold_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUSIM_CACHE_DIR", str(tmp_path / "cache"))


def test_every_committed_dataset_is_found():
    assert len(DATASETS) >= 4


@needs_git
@pytest.mark.parametrize("dataset", DATASETS, ids=lambda p: p.parent.name)
def test_validate_from_writes_only_into_a_fresh_folder(dataset, tmp_path, monkeypatch):
    """Every committed dataset, with the simulations stubbed (the write path is under test)."""
    before = _status()

    def rows(records, profile, jobs=None, log=None):
        ok = [r for r in records if r.get("status") == "ok"]
        return [_row(r) for r in ok]

    monkeypatch.setattr(command, "compare_records", rows)
    given = command.compare_dataset(dataset, out_dir=tmp_path / "out")
    fresh = command.compare_dataset(dataset)
    assert {p.rsplit("/", 1)[0] for p in given["files"]} == {str(tmp_path / "out")}
    assert all(not p.startswith(str(dataset.parent)) for p in fresh["files"])
    assert all(not p.startswith(str(REPO_ROOT)) for p in fresh["files"])
    assert _status() == before


def _row(rec):
    w = rec["workload"]
    return compare.Row(
        id=rec["id"], kind=rec["kind"], variant=rec.get("variant", ""), dtype=w["dtype"],
        head_dim=w["head_dim"], seq_len=w["seq_len_q"], causal=w["causal"], batch=w["batch"],
        heads=w["heads"], block_m=64, block_n=64, warps=4, stages=2, regs_per_thread=None,
        smem_bytes_per_cta=None, measured_s=rec["median_s"], predicted_s=rec["median_s"],
        runtime_err=0.0, bound="dram", ctas_per_sm=1, waves=1.0, utilisation={},
    )  # fmt: skip


@needs_git
@pytest.mark.slow
def test_the_cli_on_the_smallest_dataset_leaves_git_status_clean(tmp_path, cold_cache):
    """The real command, simulations and all, once: the smallest committed dataset, judged
    with the datasheet profile (its CTAs stay in lockstep, so the wave skip keeps this to a
    few seconds; what is written where does not depend on the profile)."""
    smallest = min(DATASETS, key=lambda p: p.stat().st_size)
    before = _status()
    out = subprocess.run(
        [sys.executable, "-m", "gpusim.cli.main", "validate", "--from", str(smallest),
         "--profile", "h200-sxm-datasheet", "--out", str(tmp_path / "v"), "--json"],
        capture_output=True, text=True, check=True, cwd=REPO_ROOT,
    ).stdout  # fmt: skip
    doc = json.loads(out)
    assert doc["configs"] > 0 and all(f.startswith(str(tmp_path)) for f in doc["files"])
    assert _status() == before


@needs_git
def test_caps_report_writes_into_the_folder_given(tmp_path, monkeypatch):
    from gpusim.tuning import caps_report

    before = _status()
    monkeypatch.setattr(caps_report, "predict", lambda w, s, key, ctas, profile: 1e-3 * ctas)
    assert caps_report.main(["--out", str(tmp_path)]) == 0
    doc = json.loads((tmp_path / "predictions.json").read_text())
    assert doc["measured_file"] == str((TUNING_CAPS / "h200_caps.json").relative_to(REPO_ROOT))
    assert _status() == before


@needs_git
@pytest.mark.parametrize(
    "module",
    [
        "gpusim.tuning.proof_repeatability",
        "gpusim.validation.ncu_loop_check",
        "gpusim.kernels.bench_tables",
    ],
)
def test_printing_analyses_write_nothing(module, tmp_path):
    before = _status()
    args = {"gpusim.kernels.bench_tables": [str(DATA_DIR / "h200" / "2026-11-30_kernels_bench")]}
    proc = subprocess.run(
        [sys.executable, "-m", module, *args.get(module, [])],
        capture_output=True, text=True, cwd=tmp_path, check=True,
    )  # fmt: skip
    assert proc.stdout.strip() and list(tmp_path.iterdir()) == []
    assert _status() == before
