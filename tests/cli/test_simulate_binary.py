"""``gpusim simulate --sass/--cubin --kernel``: the core model replays a binary's loop."""

from __future__ import annotations

from gpusim.reporting.torch_sass import RES_USAGE, SASS, SASS_DIR, torch_kernel
from tests.engine.test_replay_binary import S, W

ARGS = ["-a", "flash2", "--batch", "1", "--heads", "8", "--seq-len", "1024", "--head-dim", "128",
        "--dtype", "bf16", "--block-m", "128", "--block-n", "64", "--warps", "4", "--stages", "1",
        "--profile", "h200-sxm-core"]  # fmt: skip


def test_sass_replay_of_pytorchs_kernel_is_in_the_json(gpusim):
    r = gpusim("simulate", *ARGS, "--sass", str(SASS), "--res-usage", str(RES_USAGE),
               "--kernel", torch_kernel(W, S), "--json")  # fmt: skip
    assert r.code == 0, r.err
    (k,) = r.json()["kernels"]
    assert k["timing_model"] == "sass-replay" and "torch_flash_fwd" in k["timing_source"]


def _one_line_error(r, says: str) -> None:
    assert r.code == 2 and r.out == "", r.err
    lines = r.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("gpusim: error: ") and says in lines[0], r.err


def test_bad_binary_input_is_one_line_exit_2(gpusim):
    _one_line_error(gpusim("simulate", *ARGS, "--sass", str(SASS), "--kernel", "no_such"),
                    "is not in")  # fmt: skip
    _one_line_error(gpusim("simulate", *ARGS, "--sass", str(SASS), "--kernel", "flash_fwd"),
                    "is ambiguous")  # fmt: skip
    _one_line_error(gpusim("simulate", *ARGS, "--sass", str(SASS)), "need --kernel")
    _one_line_error(gpusim("simulate", "--sass", str(SASS), "--kernel", "x"), "name it with -a")


def test_an_unknown_opcode_in_a_triton_cubin_is_one_line(gpusim):
    from gpusim.kernels.build import find_tool

    if find_tool("cuobjdump") is None:
        return
    r = gpusim("simulate", *ARGS, "--cubin", str(SASS_DIR / "triton_attn_fwd.cubin"),
               "--kernel", "attn_fwd")  # fmt: skip
    _one_line_error(r, "is not one the SM core model knows")
