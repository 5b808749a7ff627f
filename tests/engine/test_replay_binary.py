"""The core model on a binary's loop (:mod:`gpusim.engine.replay_binary`), through the API."""

from __future__ import annotations

import pytest

import gpusim
from gpusim.errors import GpusimError
from gpusim.kernel_catalog.binary_sass import BinaryLoop, binary_loop
from gpusim.kernels.binary_dump import load_binary_loop
from gpusim.reporting.torch_sass import RES_USAGE, SASS, torch_kernel
from tests.kernel_catalog.test_binary_sass import HMMA, NAME, dump, function

W = gpusim.Workload(batch=1, heads=8, seq_len_q=1024, seq_len_k=1024, head_dim=128, dtype="bf16")
S = gpusim.Schedule(block_m=128, block_n=64, warps=4, stages=1, kv_order="backward",
                    q_order="first-first")  # fmt: skip


def _loop(hmma: int) -> BinaryLoop:
    return binary_loop(dump(function(NAME, [HMMA] * hmma)), NAME, "demo.sass")


def test_a_pass_maps_onto_one_tile_step_or_is_refused():
    from gpusim.engine.replay_binary import steps_per_pass

    flops = 128 * 64 * 128 * 2 * 2  # S = Q K^T and O += P V of one 128 x 64 tile, d128
    assert steps_per_pass(_loop(256), flops, 4) == 1  # 256 m16n8k16 per warp
    for hmma in (100, 512):  # 512: unrolled twice, or a tile twice as large: not guessed
        with pytest.raises(GpusimError, match="do not describe this binary's loop"):
            steps_per_pass(_loop(hmma), flops, 4)


def test_a_profile_without_core_cycles_refuses():
    with pytest.raises(GpusimError, match="has no sass_core_cycles"):
        gpusim.simulate("flash2", W, S, "h200-sxm-datasheet", sass=_sass_file(), kernel=NAME)


_TMP: list = []


def _sass_file():
    import tempfile
    from pathlib import Path

    d = Path(tempfile.mkdtemp())
    _TMP.append(d)
    p = d / "demo.sass"
    p.write_text(dump(function(NAME, [HMMA] * 256, loop=True)))
    return p


def test_pytorch_flash_kernel_replays_and_says_so():
    name = torch_kernel(W, S)
    loop = load_binary_loop(name, sass=SASS, res_usage=RES_USAGE)
    assert loop.hmma == 256 and loop.registers == 255  # d128 128 x 64: ptxas's 255
    r = gpusim.simulate("flash2", W, S, "h200-sxm-core", sass=SASS, res_usage=RES_USAGE,
                        kernel=name)  # fmt: skip
    (k,) = r.kernels
    assert k.timing_model == "sass-replay" and k.timing_note is None
    assert "torch_flash_fwd.sass.gz" in k.timing_source and "1 step(s)" in k.timing_source
    assert k.ctas_per_sm == 2  # 255 registers x 128 threads: two CTAs per SM
    # without the binary: the project's own (switch) instance of PyTorch's schedule, not its
    # loop (S walks K/V backward: gpusim/engine/switch_replay.py)
    own = gpusim.simulate("flash2", W, S, "h200-sxm-core")
    assert own.kernels[0].timing_source is None or "torch" not in own.kernels[0].timing_source
    assert own.runtime_s != r.runtime_s


def test_a_binary_with_a_non_matching_tile_is_refused():
    name = torch_kernel(W, S)
    wrong = gpusim.Schedule(block_m=64, block_n=64, warps=4, stages=1)
    with pytest.raises(GpusimError, match="do not describe"):
        gpusim.simulate("flash2", W, wrong, "h200-sxm-core", sass=SASS, kernel=name)
