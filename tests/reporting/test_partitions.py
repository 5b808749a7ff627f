"""``python -m gpusim.reporting.partitions``: compare on the committed data, errors one line."""

from __future__ import annotations

import json
from pathlib import Path

from gpusim.reporting import partitions
from gpusim.validation.partitions_device import MANIFEST
from gpusim.validation.partitions_device import main as device_main

ROOT = Path(__file__).resolve().parents[2]
PREDICTIONS = ROOT / "reports" / "partitions" / "predictions_h200-sxm-calibrated.json"


def test_compare_writes_json_and_markdown_from_the_committed_set(tmp_path):
    assert partitions.main(
        ["compare", "--measured", str(MANIFEST.parent), "--predictions", str(PREDICTIONS),
         "--out", str(tmp_path)]
    ) == 0  # fmt: skip
    doc = json.loads((tmp_path / "compare.json").read_text())
    per = doc["profiles"]["h200-sxm-calibrated"]
    assert per["model"]["project"]["target_range"]["n"] == 24
    assert per["missing"] == [] and per["sm_mismatch"] == []
    md = (tmp_path / "compare.md").read_text()
    assert "| both | 8-72 | 48 |" in md


def test_predictions_were_made_for_this_manifest():
    doc = json.loads(PREDICTIONS.read_text())
    from gpusim.validation.partition_configs import manifest_doc, read_manifest

    assert doc["manifest_configs_sha256"] == manifest_doc(read_manifest(MANIFEST))["configs_sha256"]
    assert all("runtime_s" in v["h200-sxm-calibrated"] for v in doc["by_config"].values())


def test_bad_input_is_one_line(tmp_path, capsys):
    missing = tmp_path / "nope"
    code = partitions.main(
        ["compare", "--measured", str(missing), "--predictions", str(PREDICTIONS),
         "--out", str(tmp_path / "o")]
    )  # fmt: skip
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith("partitions: error:")


def test_the_device_harness_plans_without_a_gpu(capsys):
    assert device_main(["--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "60 configs" in out and "[8, 16, 32, 72, 132]" in out
    assert device_main([]) == 2
    assert "--out is required" in capsys.readouterr().err
