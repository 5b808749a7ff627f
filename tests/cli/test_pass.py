"""``--pass``: the backward and a training step through count, simulate and tune."""

from __future__ import annotations

import pytest

SMALL = ["--batch", "1", "--heads", "4", "--seq-len", "512", "--head-dim", "64", "--dtype", "bf16"]


def test_simulate_backward_json(gpusim):
    result = gpusim("simulate", "-a", "flash2", "--pass", "bwd", *SMALL, "--json")
    assert result.code == 0, result.err
    data = result.json()
    assert data["workload"]["pass"] == "bwd"
    assert [k["name"] for k in data["kernels"]] == [
        "flash2_bwd_dot",
        "flash2_bwd",
        "flash2_bwd_convert",
    ]
    assert data["flops"] == 10 * 4 * 512 * 512 * 64
    assert data["runtime_s"] > sum(k["duration_s"] for k in data["kernels"][1:2])
    # no CUDA kernel of the project runs it, and the output says so (not the forward's reason)
    assert data["cuda_instance"] is None and "backward" in data["cuda_instance_missing"]
    # the described step's measured bias is said where the step is described, not replayed
    assert any("described backward step ran fast" in w for w in data["warnings"])
    fwd = gpusim("simulate", "-a", "flash2", *SMALL, "--json").json()
    assert not any("described backward" in w for w in fwd["warnings"])


def test_training_step_is_the_forward_then_the_backward(gpusim):
    runs = {
        p: gpusim("simulate", "-a", "flash2", "--pass", p, *SMALL, "--json").json()
        for p in ("fwd", "bwd", "fwd+bwd")
    }
    assert "pass" not in runs["fwd"]["workload"]  # a forward reads as before the option
    names = [k["name"] for k in runs["fwd+bwd"]["kernels"]]
    assert names[0] == "flash2_fwd" and names[1:] == [k["name"] for k in runs["bwd"]["kernels"]]
    assert runs["fwd+bwd"]["runtime_s"] > runs["bwd"]["runtime_s"] > runs["fwd"]["runtime_s"]


def test_both_algorithms_run_backward_on_defaults(gpusim):
    result = gpusim("simulate", "--pass", "bwd", *SMALL)
    assert result.code == 0, result.err
    assert "pass bwd" in result.out and "standard" in result.out and "bwd_ds" in result.out


def test_count_and_tune_take_the_pass(gpusim):
    c = gpusim("count", "-a", "standard", "--pass", "bwd", *SMALL, "--json").json()
    assert c["workload"]["pass"] == "bwd" and c["flops"] == 10 * 4 * 512 * 512 * 64
    t = gpusim("tune", "-a", "flash2", "--pass", "bwd", *SMALL, "--json")
    assert t.code == 0, t.err
    data = t.json()
    assert data["candidates"] and all(c["kv_splits"] == 1 for c in data["candidates"])


@pytest.mark.parametrize(
    "argv,fragment",
    [
        (["simulate", "-a", "flash1", "--pass", "bwd"], "has no backward pass"),
        (["simulate", "-a", "flash2", "--pass", "bwd", "--kv-splits", "2"], "forward options"),
        (["simulate", "-a", "flash2", "--pass", "bwd", "--dtype", "fp32"], "mma.sync"),
        (["simulate", "--pass", "sideways"], "sideways"),
    ],
)
def test_backward_refusals(gpusim, argv, fragment):
    result = gpusim(*argv)
    assert result.code == 2
    lines = result.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("gpusim: error: ") and fragment in lines[0]
