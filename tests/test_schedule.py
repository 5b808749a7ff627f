"""The schedule: a training step's backward tiles apart from the forward's."""

from __future__ import annotations

from gpusim.schedule import BWD_FIELDS, Schedule


def test_backward_tiles_are_left_out_of_the_dump_until_set():
    s = Schedule(block_m=128, block_n=128, warps=8)
    assert not any(f in s.model_dump() for f in BWD_FIELDS)
    assert s.backward() is s and s.forward() is s
    t = Schedule(block_m=128, block_n=128, warps=8, bwd_block_m=64, bwd_warps=4)
    assert t.model_dump()["bwd_block_m"] == 64 and "bwd_block_n" not in t.model_dump()
    assert Schedule(**t.model_dump()) == t  # records round-trip


def test_the_backward_takes_its_own_tiles_and_the_rest_from_the_forward():
    t = Schedule(block_m=128, block_n=128, warps=8, stages=2, kv_order="backward",
                 bwd_block_m=64, bwd_stages=1)  # fmt: skip
    b = t.backward()
    assert (b.block_m, b.block_n, b.warps, b.stages) == (64, 128, 8, 1)
    assert b.kv_order == "backward" and not b.has_bwd_tiles
    f = t.forward()
    assert (f.block_m, f.block_n, f.warps, f.stages) == (128, 128, 8, 2)
    assert not f.has_bwd_tiles
    assert t.label().endswith("bwd Br64 Bc128 w8 s1")
