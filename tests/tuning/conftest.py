"""Shared fixtures of the tuning tests."""

import pytest


@pytest.fixture(scope="session")
def h200():
    """The H200 profile as shipped."""
    loader = pytest.importorskip("gpusim.profiles.loader")
    return loader.load_profile("h200-sxm-datasheet")


def closed_form_simulate(algorithm, w, s, profile, detail="aggregated", on_chip=None):
    """A stand-in engine for the tuner's logic: K/V re-reads over L2 plus tile-shaped compute."""
    from types import SimpleNamespace

    tr = -(-w.seq_len_q // s.block_m)
    kv = 2 * w.batch_heads * w.seq_len_k * w.head_dim * w.elem_bytes
    l2 = w.qkvo_bytes() + tr * kv
    compute_s = w.model_flops() / 5e14 * (1 + 16 / s.block_n) * (1.25 if s.stages == 1 else 1)
    return SimpleNamespace(
        runtime_s=l2 / 4e12 + compute_s,
        dram_read_bytes=w.qkvo_bytes() // 2,
        dram_write_bytes=w.qkvo_bytes() // 4,
        global_read_bytes=l2,
        global_write_bytes=w.qkvo_bytes() // 4,
        ctas_per_sm=1,
        bound="tensor",
    )


@pytest.fixture
def fake_simulate():
    """The closed-form stand-in engine."""
    return closed_form_simulate
