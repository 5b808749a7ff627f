"""The L2 counter probe: which end of the SM-to-L2 traffic the model's bytes match.

The probe's counts are measured (committed); the model's bytes are the current model's,
simulated again for the committed dataset's runs (``recorded_rows``), not the bytes a
committed comparison.json recorded.
"""

from __future__ import annotations

import json

import pytest

from gpusim.validation.l2_probe import compare, main
from tests.validation.conftest import ROOT

PROBE = ROOT / "data/h200/2026-11-30_validation_l2_probe/l2-probe.json"


@pytest.fixture(scope="module")
def comparison(recorded_rows) -> dict:
    """What ``gpusim validate --from`` writes as comparison.json, from the current model, for
    the probed runs only: their rows of ``recorded_rows`` (``compare_record`` of the same
    runs on the same profile, simulated once for this module and test_recorded.py, which
    tests/conftest.py keeps on one worker)."""
    probed = set(json.loads(PROBE.read_text())["by_config"])
    return {"rows": [row.as_dict() for row in recorded_rows if row.id in probed]}


@pytest.fixture(scope="module")
def rows(comparison):
    out = compare(json.loads(PROBE.read_text()), comparison)
    assert all(r["model_bytes"] for r in out)  # every probed run is in the dataset
    return out


def test_tensor_core_runs_match_the_bytes_the_sms_receive(rows):
    tc = [r for r in rows if "_fp32_" not in r["id"]]
    assert len(tc) == 8
    # Within 4 % of the SMs' count, while the L2 slices count up to 41 % fewer sectors.
    assert max(abs(r["err_vs_sms"]) for r in tc) < 0.04
    assert max(r["err_vs_slices"] for r in tc) > 0.5


def test_simt_runs_match_once_padded_copies_fetch_half_again(rows):
    simt = [r for r in rows if "_fp32_" in r["id"]]
    assert len(simt) == 2
    # The fp32 kernel's cp.async into padded rows fetches 1.5x (l2_bytes benchmark); with
    # that factor the model agrees with both ends, which agree with each other here.
    for r in simt:
        assert abs(r["err_vs_sms"]) < 0.01
        assert abs(r["err_vs_slices"]) < 0.02


def test_compare_needs_both_files(capsys, tmp_path, comparison):
    path = tmp_path / "comparison.json"
    path.write_text(json.dumps(comparison))
    with pytest.raises(SystemExit):
        main(["--compare", str(PROBE)])
    assert main(["--compare", "/nonexistent.json", "--comparison", str(path)]) == 2
    assert "cannot compare" in capsys.readouterr().err
    assert main(["--compare", str(PROBE), "--comparison", str(path)]) == 0
    assert capsys.readouterr().out.count("flash2_") == 10
