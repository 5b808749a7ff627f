"""The sweep covers what the issue asks for, and every flash2 run has a kernel instance."""

from __future__ import annotations

from gpusim.kernel_catalog.instances import instance_for
from gpusim.validation.configs import SEQ_LENS, ValidationConfig, sweep_configs
from gpusim.validation.standard_gpu import check_workload


def test_sweep_size_and_unique_ids():
    configs = sweep_configs()
    assert len(configs) >= 48
    assert len({c.config_id for c in configs}) == len(configs)


def test_sweep_covers_the_classes():
    flash = [c for c in sweep_configs() if c.kind == "flash2"]
    assert {c.variant for c in flash} == {"tc", "simt"}
    for variant in ("tc", "simt"):
        runs = [c for c in flash if c.variant == variant]
        assert {c.workload.head_dim for c in runs} == {64, 128}
        assert {c.workload.causal for c in runs} == {False, True}
    assert {c.workload.seq_len_q for c in flash} >= set(SEQ_LENS)
    for attr in ("block_m", "block_n", "warps", "stages"):
        assert len({getattr(c.schedule, attr) for c in flash}) >= 2, attr


def test_ncu_subset_has_both_kinds():
    ncu = [c for c in sweep_configs() if c.ncu]
    assert 10 <= len(ncu) <= 24  # a third of the sweep: Nsight replays each counted kernel
    assert {c.variant for c in ncu} == {"tc", "simt", "cublas"}


def test_every_flash2_config_has_an_instance_and_standard_runs_on_cublas():
    for c in sweep_configs():
        if c.kind == "flash2":
            inst = instance_for(c.workload, c.schedule)
            assert inst.variant == c.variant
        else:
            check_workload(c.workload)  # raises if the cuBLAS path cannot run it


def test_round_trip():
    for c in sweep_configs()[:5]:
        assert ValidationConfig.from_dict(c.as_dict()) == c
