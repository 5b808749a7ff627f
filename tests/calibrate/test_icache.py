"""The instruction-cache microbenchmark's kernels: as long as they say, the loop kept a loop."""

from gpusim.calibrate.icache import LOOP_BODY, source


def test_straight_code_holds_every_instruction_and_the_loop_one_body():
    straight, looped = source(4096, looped=False), source(4096, looped=True)
    assert straight.count("fma.rn.f32") == 4096
    assert looped.count("fma.rn.f32") == LOOP_BODY
    assert f"r < {4096 // LOOP_BODY}" in looped and "#pragma unroll 1" in looped
    assert "for (" not in straight
