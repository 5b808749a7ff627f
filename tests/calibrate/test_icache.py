"""The instruction-cache microbenchmark's kernels: as long as they say, the loop kept a loop."""

import pytest

from gpusim.calibrate.icache import LENGTHS, LOOP_BODY, SEGMENTS, source


def test_straight_code_holds_every_instruction_and_the_loop_one_body():
    straight, looped = source(4096, "straight"), source(4096, "loop")
    assert straight.count("fma.rn.f32") == 4096
    assert looped.count("fma.rn.f32") == LOOP_BODY
    assert f"r < {4096 // LOOP_BODY}" in looped and "#pragma unroll 1" in looped
    assert "for (" not in straight


def test_the_rotated_code_holds_every_instruction_once_in_blocks_each_cta_enters_at_its_own():
    rotated = source(8192, "rotated")
    assert rotated.count("fma.rn.f32") == 8192
    assert rotated.count("case ") == SEGMENTS and f"(blockIdx.x + i) % {SEGMENTS}" in rotated
    assert all(n % SEGMENTS == 0 and n % LOOP_BODY == 0 for n in LENGTHS)  # whole blocks
    with pytest.raises(ValueError, match="unknown variant"):
        source(256, "unrolled")


def test_without_cupy_the_command_is_one_line_and_exit_2(tmp_path, capsys, monkeypatch):
    import sys

    from gpusim.calibrate import icache

    monkeypatch.setitem(sys.modules, "cupy", None)
    out = tmp_path / "icache.json"
    assert icache.main(["--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("gpusim: error:") and err.count("\n") == 1 and not out.exists()

