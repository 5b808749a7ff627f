"""The instruction-cache microbenchmark's kernels: as long as they say, the loop kept a loop."""

from gpusim.calibrate.icache import LOOP_BODY, source


def test_straight_code_holds_every_instruction_and_the_loop_one_body():
    straight, looped = source(4096, looped=False), source(4096, looped=True)
    assert straight.count("fma.rn.f32") == 4096
    assert looped.count("fma.rn.f32") == LOOP_BODY
    assert f"r < {4096 // LOOP_BODY}" in looped and "#pragma unroll 1" in looped
    assert "for (" not in straight


def test_without_cupy_the_command_is_one_line_and_exit_2(tmp_path, capsys, monkeypatch):
    import sys

    from gpusim.calibrate import icache

    monkeypatch.setitem(sys.modules, "cupy", None)
    out = tmp_path / "icache.json"
    assert icache.main(["--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("gpusim: error:") and err.count("\n") == 1 and not out.exists()
