"""The tuner's bookkeeping: ranking, reasons, rules, SRAM too small (stand-in engine)."""

import re

import pytest

from gpusim.errors import GpusimError
from gpusim.tuning.space import search_space
from gpusim.tuning.tuner import tune
from gpusim.workload import Workload

CANDIDATE_KEYS = (
    "block_m",
    "block_n",
    "warps",
    "stages",
    "smem_bytes_per_cta",
    "runtime_s",
    "tflops",
    "dram_read_bytes",
    "dram_write_bytes",
    "l2_bytes",
    "ctas_per_sm",
    "bound",
)
W = Workload(batch=2, heads=8, seq_len_q=4096, seq_len_k=4096, head_dim=128, dtype="bf16")


def test_ranking_is_sorted_and_accounts_for_every_schedule(h200, fake_simulate):
    r = tune("flash2", W, h200, simulate=fake_simulate)
    times = [c.runtime_s for c in r.candidates]
    assert times == sorted(times)
    assert len(r.candidates) + len(r.rejected) == len(search_space("flash2", W).schedules)
    assert all(x.reason for x in r.rejected)
    assert r.best.tflops == pytest.approx(W.model_flops() / r.best.runtime_s / 1e12)


def test_json_has_the_cli_contract_keys(h200, fake_simulate):
    d = tune("flash2", W, h200, simulate=fake_simulate).to_dict()
    for c in d["candidates"]:
        assert set(CANDIDATE_KEYS) <= set(c)
    for x in d["rejected"]:
        assert {"block_m", "block_n", "warps", "stages", "reason"} <= set(x)
    assert {p["rule"] for p in d["rules"]} == {"paper", "seed"}
    assert all(p["slower_than_best"] >= 0 for p in d["rules"])


def test_sram_override_rejects_with_numbers(h200, fake_simulate):
    r = tune("flash2", W, h200, sram_bytes=64 * 1024, simulate=fake_simulate)
    assert r.sram_overridden and r.sram_bytes == 64 * 1024
    assert all(c.smem_bytes_per_cta <= 64 * 1024 for c in r.candidates)
    smem = [x for x in r.rejected if x.reason.startswith("shared memory")]
    assert smem
    for x in smem:
        need, avail = map(int, re.findall(r"(\d+) B", x.reason))
        assert need == x.smem_bytes_per_cta > avail == 64 * 1024


def test_sram_too_small_names_the_smallest_that_works(h200, fake_simulate):
    with pytest.raises(GpusimError) as e:
        tune("flash2", W, h200, sram_bytes=8 * 1024, simulate=fake_simulate)
    msg = str(e.value)
    assert "\n" not in msg
    kib = int(re.search(r"smallest SRAM that works is (\d+) KiB", msg).group(1))
    tune("flash2", W, h200, sram_bytes=kib * 1024, simulate=fake_simulate)  # and it does
    with pytest.raises(GpusimError):
        tune("flash2", W, h200, sram_bytes=(kib - 1) * 1024, simulate=fake_simulate)


def test_unsupported_kernel_instances_are_rejected_with_the_kernels_reason(h200, fake_simulate):
    r = tune("flash2", W, h200, simulate=fake_simulate)
    shapes = [x for x in r.rejected if x.schedule.block_m == 64 and x.schedule.warps == 8]
    assert shapes and all(x.reason.startswith("kernel") for x in shapes)


def test_no_sram_size_helps_says_what_blocks_instead(h200, fake_simulate):
    w = W.model_copy(update={"head_dim": 1024, "dtype": "fp16"})
    with pytest.raises(GpusimError, match="at any SRAM size: registers"):
        tune("flash2", w, h200, simulate=fake_simulate)


def test_compiled_footprints_reject_spills_and_set_registers(h200, fake_simulate):
    from gpusim.kernel_catalog.compiled import compiled_footprints

    table = compiled_footprints(h200.compute_capability)
    if not table:
        pytest.skip("no offline ptxas report for sm_90")
    r = tune("flash2", W, h200, simulate=fake_simulate)
    assert r.footprints.startswith("compiled")
    spills = [x for x in r.rejected if "spills" in x.reason]
    assert spills and all("ptxas" in x.reason for x in spills)
    for c in r.candidates:
        key = f"tc_bf16_d128_m{c.schedule.block_m}_n{c.schedule.block_n}_w{c.schedule.warps}"
        assert c.regs_per_thread == table[f"{key}_s{c.schedule.stages}"].registers
    est = tune("flash2", W, h200, simulate=fake_simulate, footprints="estimate")
    assert est.footprints == "estimate" and not any("spills" in x.reason for x in est.rejected)


def test_compiled_footprints_only_for_their_architecture(fake_simulate):
    from gpusim.profiles.loader import load_profile

    a100 = load_profile("a100-sxm4-80gb")  # sm_80: the sm_90 build says nothing about it
    assert tune("flash2", W, a100, simulate=fake_simulate).footprints == "estimate"


@pytest.mark.parametrize("head_dim", [64, 128])
def test_feasible_lists_what_tune_simulates(h200, fake_simulate, head_dim):
    """``feasible`` names the schedules ``tune`` ranks (neither more nor fewer), unsimulated."""
    from gpusim.tuning.tuner import feasible

    w = W.model_copy(update={"head_dim": head_dim})
    listed = feasible("flash2", w, h200)
    ranked = tune("flash2", w, h200, simulate=fake_simulate).candidates
    assert len(listed) == len(set(listed)) == len(ranked)
    assert set(listed) == {c.schedule for c in ranked}
