"""The backward instance a run launches, and its loop as the core model replays it, against
what Nsight Compute saw on three of held-out set 15's runs
(data/h200/2026-12-05_torch_bwd_ncu: the kernel's name, grid and executed instructions)."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from gpusim.errors import GpusimError
from gpusim.kernel_catalog.binary_sass import binary_loop, functions, read_text
from gpusim.validation.torch_bwd_kernel import SASS, kernel_name

NCU = Path(__file__).parents[2] / "data" / "h200" / "2026-12-05_torch_bwd_ncu"
#: file stem -> (head dim, seq len, block m of PyTorch's traits)
RUNS = {
    "b4h32_n4096_d64_bf16_c0": (64, 4096, 128),
    "b4h16_n4096_d128_bf16_c0": (128, 4096, 64),
    "b2h8_n4096_d256_bf16_c0": (256, 4096, 64),
}


def _ncu(stem: str) -> dict[str, str]:
    with (NCU / f"{stem}.details.csv").open() as f:
        rows = list(csv.DictReader(f))
    out = {r["Metric Name"]: r["Metric Value"] for r in rows}
    out["kernel"], out["grid"] = rows[0]["Kernel Name"], rows[0]["Grid Size"]
    return out


@pytest.fixture(scope="module")
def names() -> list[str]:
    return sorted(functions(read_text(SASS)))


def _template_flags(name: str) -> tuple[int, ...]:
    """The bool template arguments of a demangled or mangled instance name."""
    m = re.search(r">, (\d), (\d), (\d), (\d), (\d), (\d), (\d)>\(Flash_bwd_params\)", name)
    if m:
        return tuple(int(x) for x in m.groups())
    m = re.search(r"EELb(\d)ELb(\d)ELb(\d)ELb(\d)ELb(\d)ELb(\d)ELb(\d)EEEv", name)
    return tuple(int(x) for x in m.groups())


@pytest.mark.parametrize("stem", sorted(RUNS))
def test_the_picked_instance_is_the_one_ncu_saw(stem, names):
    d, n, _ = RUNS[stem]
    seen = _ncu(stem)["kernel"]
    picked = kernel_name(names, d, "bf16", n, n, causal=False)
    assert _template_flags(picked) == _template_flags(seen)
    ints = re.search(r"Flash_bwd_kernel_traits<([\d, ]+)", seen).group(1).split(",")[:7]
    assert "traitsI" + "".join(f"Li{int(x)}E" for x in ints) in picked


@pytest.mark.parametrize("stem", sorted(RUNS))
def test_the_replayed_step_has_the_instructions_the_kernel_executes(stem, names):
    """One pass of the replayed loop against ncu's executed warp-instructions per warp and
    query-block step (each CTA of 8 warps walks N / block_m steps): within 3 %. Before the
    step loop was told from the outer loop over K/V blocks the path was 1.7 times too long."""
    d, n, block_m = RUNS[stem]
    m = _ncu(stem)
    ctas = 1
    for g in m["grid"].strip("()").split(","):
        ctas *= int(g)
    executed = float(m["Executed Instructions"].replace(",", ""))
    per_warp_step = executed / (ctas * (n // block_m) * 8)
    loop = binary_loop(read_text(SASS), kernel_name(names, d, "bf16", n, n, False), "sass")
    assert loop.hmma == 320
    assert len(loop.path) == pytest.approx(per_warp_step, rel=0.03)


def test_no_instance_for_fp32(names):
    with pytest.raises(GpusimError, match="bf16 and fp16"):
        kernel_name(names, 128, "fp32", 4096, 4096, False)


def test_a_replayed_backward_carries_no_described_bias_warning(names):
    from gpusim.cli.commands.simulate import described_backward_note
    from gpusim.validation.backward_heldout17 import manifest_runs, simulate_backward

    run = next(r for r in manifest_runs() if r["head_dim"] == 256)
    replayed = simulate_backward(run, "replay", names).to_json_dict()["kernels"]
    described = simulate_backward(run, "described", names).to_json_dict()["kernels"]
    assert described_backward_note("flash2", replayed) == []
    assert len(described_backward_note("flash2", described)) == 1


FWD_NCU = Path(__file__).parents[2] / "data" / "h200" / "2026-12-05_torch_fwd_ncu"


@pytest.mark.parametrize(("stem", "d", "block_n", "heads"),
                         [("b4h16_n4096_d128_bf16_c0", 128, 64, 16),
                          ("b4h32_n4096_d64_bf16_c0", 64, 128, 32)])  # fmt: skip
def test_pytorchs_forward_replay_walks_the_executed_step(stem, d, block_n, heads):
    """PyTorch's forward: the replayed path against ncu's executed warp-instructions per warp
    and step, within 4 % (the executed count also holds each CTA's prologue and epilogue)."""
    from gpusim.kernels.binary_dump import load_binary_loop
    from gpusim.reporting.torch_sass import RES_USAGE, torch_kernel
    from gpusim.reporting.torch_sass import SASS as FWD_SASS
    from gpusim.schedule import Schedule
    from gpusim.workload import Workload

    with (FWD_NCU / f"{stem}.details.csv").open() as f:
        rows = list(csv.DictReader(f))
    executed = float(next(r for r in rows if r["Metric Name"] == "Executed Instructions")
                     ["Metric Value"].replace(",", ""))  # fmt: skip
    w = Workload(batch=4, heads=heads, seq_len_q=4096, seq_len_k=4096, head_dim=d, dtype="bf16")
    s = Schedule(block_m=128, block_n=block_n, warps=4)
    loop = load_binary_loop(torch_kernel(w, s), sass=FWD_SASS, res_usage=RES_USAGE)
    steps = (4096 // 128) * 4 * heads * (4096 // block_n)
    assert len(loop.path) == pytest.approx(executed / (steps * 4), rel=0.04)


def test_the_command_prints_the_name_or_one_line(capsys, names):
    from gpusim.validation.torch_bwd_kernel import main

    assert main(["--head-dim", "128", "--seq-len-q", "4096"]) == 0
    assert capsys.readouterr().out.strip() == kernel_name(names, 128, "bf16", 4096, 4096, False)
    assert main(["--head-dim", "200", "--seq-len-q", "64"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
