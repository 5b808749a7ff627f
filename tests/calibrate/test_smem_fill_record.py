"""The fill cost the profile uses, against the recorded smem_fill microbenchmark (H200).

A tile fill (cp.async from L2 into shared memory) and the warps' ldmatrix reads: recorded
in data/h200/2026-11-30_calibration_smem_fill, loops with and without fills.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpusim.calibrate.smem_fill import fill_costs, profile_entries
from gpusim.engine.rates import rates_for
from gpusim.profiles import load_profile

RECORD = (
    Path(__file__).resolve().parents[2]
    / "data/h200/2026-11-30_calibration_smem_fill/smem-fill-h200.json"
)


@pytest.fixture(scope="module")
def record():
    return json.loads(RECORD.read_text())


def test_fills_never_cost_more_than_a_third_of_a_read_byte(record):
    # Were fills charged byte for byte (cost 1), the loops with one filled byte per 4 read
    # would take 25 % longer than those without; at 2 and 4 warps per scheduler they take
    # at most 8 % longer, and some run faster.
    costs = [c for c in fill_costs(record) if c["warps_per_scheduler"] >= 2]
    assert len(costs) == 8
    assert max(c["cost"] for c in costs) < 0.34
    assert not any(c["fill_bound"] for c in costs)


def test_the_calibrated_profile_carries_the_recorded_cost(record):
    entry = profile_entries(record)["smem_fill_cost_per_byte"]
    prof = load_profile("h200-sxm")
    assert prof.smem_fill_cost_per_byte.value == entry["value"] == 0.0
    assert rates_for(prof, "bf16").smem_fill_cost == 0.0


def test_a_profile_without_the_measurement_charges_fills_in_full():
    assert load_profile("h200-sxm-datasheet").smem_fill_cost_per_byte is None
    assert rates_for(load_profile("h200-sxm-datasheet"), "bf16").smem_fill_cost == 1.0


def test_cost_formula_on_a_synthetic_record():
    def row(nld, nfill, cycles):
        return {
            "nld": nld,
            "nfill": nfill,
            "threads": 128,
            "ctas_per_sm": 4,
            "warps_per_scheduler": 4,
            "cycles_per_iteration_per_scheduler": cycles,
        }

    # 32 reads take 1000 cycles; adding 8 fills (a quarter of the bytes) charged in full
    # would give 1250; 1125 means half a read byte per filled byte.
    rec = {"gpu": "X", "date": "d", "rows": [row(32, 0, 1000), row(0, 8, 300), row(32, 8, 1125)]}
    (c,) = fill_costs(rec)
    assert c["cost"] == pytest.approx(0.5)
    assert profile_entries(rec)["smem_fill_cost_per_byte"]["value"] == 0.5
    # Fills alone as slow as the pair: L2-bound, says nothing about sharing.
    rec["rows"][1]["cycles_per_iteration_per_scheduler"] = 1200
    with pytest.raises(ValueError):
        profile_entries(rec)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cannot read the smem_fill record"),
        ("{}", "is not a smem_fill record"),
        (
            '{"gpu": "X", "date": "d", "rows": [{"nld": 32, "nfill": 0, "threads": 128, '
            '"ctas_per_sm": 4, "warps_per_scheduler": 4, '
            '"cycles_per_iteration_per_scheduler": 1}]}',
            "gives no fill cost",
        ),
    ],
)
def test_bad_fill_records_fail_with_one_line(tmp_path, content, message):
    from gpusim.calibrate import profile_writer
    from gpusim.errors import GpusimError

    path = tmp_path / "fill.json"
    if content is not None:
        path.write_text(content)
    results = profile_writer.load_results(
        Path(__file__).resolve().parents[2] / "data/h200/2026-11-30_calibration/h200-results.json"
    )
    with pytest.raises(GpusimError, match=message) as err:
        profile_writer.write_profile(
            results, "h200-sxm-datasheet", tmp_path / "p.yaml", None, smem_fill_path=path
        )
    assert "\n" not in str(err.value)
