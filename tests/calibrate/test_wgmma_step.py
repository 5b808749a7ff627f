"""wgmma_step's record: what it says about an attention step's products and softmax."""

from __future__ import annotations

import json

import pytest

from gpusim.calibrate.wgmma import _smem
from gpusim.calibrate.wgmma_step import SHAPES, fill_smem_n, main, step_flops, step_table, table
from gpusim.data.layout import REPO_ROOT
from gpusim.reporting import wgmma_step_check

RECORD = REPO_ROOT / "data/h200/2026-12-04_calibration_wgmma_step/wgmma-step-h200.json"


@pytest.fixture(scope="module")
def doc():
    return json.loads(RECORD.read_text())


def _row(doc, bc, d, g, softmax):
    return next(
        r for r in doc["rows"]
        if (r["block_n"], r["head_dim"], r["warpgroups"], r["softmax"]) == (bc, d, g, softmax)
    )  # fmt: skip


def test_products_issued_together_reach_the_peak_at_every_bc(doc):
    for bc, d, g in SHAPES:
        if g >= 2:
            assert _row(doc, bc, d, g, False)["flops_per_clk_per_sm"] > 4050, (bc, d)


def test_the_softmax_hides_behind_long_products_only(doc):
    def adds(bc, d):
        return (
            _row(doc, bc, d, 2, True)["cycles_per_iter"]
            / _row(doc, bc, d, 2, False)["cycles_per_iter"]
            - 1
        )

    assert adds(128, 64) > 0.7 > adds(128, 128) > 0.1 > adds(64, 256)


def test_the_readme_quotes_the_tables(doc):
    readme = (RECORD.parent / "README.md").read_text()
    assert table(doc) in readme
    assert all(len(v) >= 1 for v in step_table(doc).values())
    rows = wgmma_step_check.rows()
    assert len(rows) == 8 and all(0.04 < r["kernel_over_micro"] < 0.25 for r in rows)


def test_the_fill_kernels_shared_memory_is_what_the_host_asks():
    for bc, d, g in SHAPES:
        assert _smem(fill_smem_n(bc, d), g + 1) >= 2048 + g * 8192 + 8 * bc * d
    assert step_flops(128, 128, 2) == 2 * 2 * 2 * 64 * 128 * 128


def test_a_record_of_another_kind_is_refused(tmp_path, capsys):
    with pytest.raises(ValueError, match="not a wgmma_step record"):
        step_table({"kind": "x"})
    bad = tmp_path / "r.json"
    bad.write_text("{}")
    assert main(["--table", str(bad)]) == 2
    assert "not a recorded run" in capsys.readouterr().err


def _kernels(plan_rows, kind):
    return {(r["block_n"], r["head_dim"], r["warpgroups"], r["stages"]): r["kernel"]
            for r in plan_rows if r["kind"] == kind}  # fmt: skip


def test_the_plan_has_the_gap_and_ring_rows_and_quick_the_overlap_rows_of_the_fields():
    from gpusim.calibrate.wgmma_step import GAP_SHAPES, OVERLAP_SHAPES, RING_SHAPES, plan

    full, quick = plan(False), plan(True)
    fills = _kernels(full, "fill")
    assert (176, 128, 2, 2) in fills and (80, 256, 2, 2) in fills
    assert fills[(176, 128, 2, 2)] == "_Z12wg_step_fillILi176ELi128ELi1ELi1ELi2EEvPKjiiiiPfPy"
    products = _kernels(full, "step")
    assert (176, 128, 2, None) in products and (128, 64, 3, None) in products  # T of each c
    rings = _kernels(full, "ring")
    assert rings[(96, 64, 3, 3)] == "_Z12wg_step_ringILi96ELi64ELi1ELi3ELi3ELb0EEvPKjiiiiPfPy"
    assert set(rings) == set(RING_SHAPES)
    held = _kernels(full, "overlap")
    assert held[(96, 64, 3, 3)] == "_Z12wg_step_ringILi96ELi64ELi1ELi3ELi3ELb1EEvPKjiiiiPfPy"
    assert set(held) == set(OVERLAP_SHAPES) and (176, 128, 2, 2) in held
    # --quick: SHAPES' three wg_step rows each (T, the step, the masked step), in the full
    # plan's order, and the overlap rows at SHAPES the profiles' two fields come from (set 10)
    steps = [r for r in full if (r["block_n"], r["head_dim"], r["warpgroups"]) in SHAPES
             and r["kind"] in ("step", "masked")]  # fmt: skip
    assert steps == quick[: 3 * len(SHAPES)]
    quick_held = _kernels(quick, "overlap")
    assert set(quick_held) == {(bc, d, g, g) for bc, d, g in SHAPES if g >= 2}
    assert all(held[k] == v for k, v in quick_held.items())
    assert len(quick) == 3 * len(SHAPES) + len(quick_held)
    assert not _kernels(quick, "ring") and not _kernels(quick, "fill")
    assert len(full) == 5 * (len(SHAPES) + len(GAP_SHAPES)) + len(RING_SHAPES) + len(held)


def test_every_instance_tile_has_its_fill_row_and_the_three_warpgroup_one_its_ring():
    from gpusim.calibrate.wgmma_step import plan
    from gpusim.kernel_catalog.wgmma_instances import all_instances

    full = plan(False)
    fills, rings = _kernels(full, "fill"), _kernels(full, "ring")
    held = _kernels(full, "overlap")
    for inst in all_instances():
        tile = (inst.block_n, inst.head_dim, inst.consumer_wgs)
        assert (*tile, 2) in fills, inst.key
        if inst.consumer_wgs >= 2:  # each ping-pong tile at its ring depth, softmax held
            assert (*tile, inst.consumer_wgs) in held, inst.key
        if inst.consumer_wgs == 3:  # d64 m192 n96 s3: its ring depth, 160 registers a thread
            assert (*tile, inst.stages) in rings, inst.key


def test_every_planned_kernel_is_instantiated_in_the_source():
    import re

    from gpusim.calibrate.wgmma import KERNEL_DIR
    from gpusim.calibrate.wgmma_ops import NS, STEP_NS
    from gpusim.calibrate.wgmma_step import fill_name, lag_name, plan, ring_name, step_name

    src = (KERNEL_DIR / "wgmma.cu").read_text()
    names = set()
    for macro, args in re.findall(r"\b(GS_STEP|GS_FILL|GS_LAG|GS_RING|GS_OVL)\(([\d, ]+)\)", src):
        a = [int(x) for x in args.split(",")]
        if macro == "GS_STEP":
            names |= {step_name(a[0], a[1], s, a[2]) for s in (0, 1, 2)}
        elif macro == "GS_FILL":
            names.add(fill_name(*a))
        elif macro == "GS_LAG":
            names.add(lag_name(*a))
        else:
            names.add(ring_name(*a, macro == "GS_OVL"))
    planned = {r["kernel"] for r in plan(False)}
    assert planned <= names, planned - names
    # the products' N (Bc for S, d for P V) each have a wrapper in wgmma_ops.cuh
    assert {n for r in plan(False) for n in (r["block_n"], r["head_dim"])} <= {*NS, *STEP_NS}


def test_the_ring_kernels_shared_memory_is_what_the_host_asks():
    from gpusim.calibrate.wgmma_step import OVERLAP_SHAPES, RING_SHAPES, ring_smem_n
    from gpusim.kernel_catalog.wgmma_instances import SMEM_PER_BLOCK_OPTIN_BYTES

    for bc, d, _g in SHAPES:
        assert ring_smem_n(bc, d, 2) == fill_smem_n(bc, d)
    for bc, d, g, stages in (*RING_SHAPES, *OVERLAP_SHAPES):
        smem = _smem(ring_smem_n(bc, d, stages), g + 1)
        assert 2048 + g * 8192 + 4 * stages * bc * d <= smem <= SMEM_PER_BLOCK_OPTIN_BYTES


def test_a_record_with_ring_rows_tables_them_and_one_without_reads_as_before(doc):
    ring = {"block_n": 96, "head_dim": 64, "warpgroups": 3, "stages": 3, "softmax": True,
            "kind": "ring", "cycles_per_iter": 2300.0,
            "protocol": {"clock_hz": 1.75e9}}  # fmt: skip
    text = table(doc | {"ring_rows": [ring]})
    assert text.startswith(table(doc)) and "| 96 | 64 | 3 | 3 | 2300 | 1750 |" in text
