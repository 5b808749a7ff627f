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


def test_binary_counts_time_the_loop_with_the_pipe_model_on_any_profile(gpusim):
    args = [a if a != "h200-sxm-core" else "h100-sxm5" for a in ARGS]
    binary = ["--sass", str(SASS), "--res-usage", str(RES_USAGE), "--kernel", torch_kernel(W, S)]
    r = gpusim("simulate", *args, *binary, "--binary-timing", "counts", "--json")
    assert r.code == 0, r.err
    d = r.json()
    (k,) = d["kernels"]
    assert k["timing_model"] == "pipe" and d["registers_from"] == "binary"
    # the count is the loop's own: every instruction of a pass but its HMMA and LDSM
    assert d["schedule"]["step_issue_per_warp"] == 853
    # and its code outside the loop once per CTA (on since held-out set 40; not causal, even)
    assert d["schedule"]["cta_issue_per_warp"] == 990
    # the JSON describes what the engine charged: the binary's count, not the fit's
    mix = d["kernel_description"]["step_mix"]
    assert d["kernel_description"]["class"]["step_issue_per_warp"] == 853
    assert mix["engine_issue_per_cta"] == 853 * d["schedule"]["warps"]
    plain = gpusim("simulate", *args, "--json").json()
    assert "step_issue_per_warp" not in plain["schedule"]
    # the binary's loop issues more than the fit says of this tile: the step takes longer
    assert d["runtime_s"] > plain["runtime_s"]


def test_binary_timing_needs_a_binary_and_a_known_name(gpusim):
    _one_line_error(gpusim("simulate", *ARGS, "--binary-timing", "counts"),
                    "--binary-timing goes with --cubin/--sass")  # fmt: skip
    _one_line_error(gpusim("simulate", *ARGS, "--sass", str(SASS), "--res-usage", str(RES_USAGE),
                           "--kernel", torch_kernel(W, S), "--binary-timing", "guess"),
                    "unknown binary timing 'guess'")  # fmt: skip


def test_binary_counts_refuse_a_training_step_and_another_pass_s_loop(gpusim):
    # fwd+bwd has two loops and one count; a forward loop's count for the backward's step
    # fails the loop's HMMA check (the backward's own binary times it: test_torch_bwd_models)
    _one_line_error(gpusim("simulate", *ARGS, "--pass", "fwd+bwd", "--sass", str(SASS),
                           "--res-usage", str(RES_USAGE), "--kernel", torch_kernel(W, S),
                           "--binary-timing", "counts"),
                    "charges one loop's count")  # fmt: skip
    _one_line_error(gpusim("simulate", *ARGS, "--pass", "bwd", "--sass", str(SASS),
                           "--res-usage", str(RES_USAGE), "--kernel", torch_kernel(W, S),
                           "--binary-timing", "counts"),
                    "do not describe this binary's loop")  # fmt: skip
