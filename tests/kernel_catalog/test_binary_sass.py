"""A kernel's loop read from any binary's SASS (:mod:`gpusim.kernel_catalog.binary_sass`)."""

from __future__ import annotations

import gzip
import shutil

import pytest

from gpusim.errors import GpusimError
from gpusim.kernel_catalog.binary_sass import binary_loop, functions, res_usage

NAME = "_ZN4demo4loopEPf"
OTHER = "_ZN4demo5otherEPf"


def _ctl(stall: int = 1) -> str:
    c = stall | 7 << 5 | 7 << 8  # no scoreboard written or waited on
    return f"0x{c << 41:016x}"


def function(name: str, body: list[str], loop: bool = True) -> str:
    """One function of ``cuobjdump -sass`` text: a prologue, ``body`` closed by a backward
    branch (a loop) or not, EXIT."""
    lines, a = [f"\t\tFunction : {name}", '\t.headerflags\t@"EF_CUDA_SM90"'], 0
    for text in ["MOV R1, c[0x0][0x28]", *body, *(["@P0 BRA 0x10"] if loop else []), "EXIT"]:
        lines.append(f"        /*{a:04x}*/                   {text} ;  /* 0x0000000000000000 */")
        lines.append(f"                                                  /* {_ctl()} */")
        a += 16
    return "\n".join(lines) + "\n"


def dump(*funcs: str) -> str:
    return "\n\tcode for sm_90\n" + "".join(funcs)


HMMA = "HMMA.16816.F32.BF16 R0, R4, R8, R0"


def test_reads_the_named_kernels_loop_and_registers():
    text = dump(function(OTHER, ["FADD R2, R2, R3"]), function(NAME, [HMMA, HMMA, "BAR.SYNC 0x0"]))
    assert sorted(functions(text)) == [NAME, OTHER]
    res = f" Function {NAME}:\n  REG:168 STACK:0 SHARED:1024 LOCAL:0 CONSTANT[0]:1000 TEXTURE:0\n"
    assert res_usage(res) == {NAME: (168, 1024)}
    loop = binary_loop(text, NAME, "demo.sass", res)
    assert loop.hmma == 2 and loop.registers == 168
    assert [i.op for i in loop.path] == ["HMMA", "HMMA", "BAR", "BRA"]
    assert binary_loop(text, "4loop", "demo.sass").kernel == NAME  # a part of the name
    assert binary_loop(text, NAME, "demo.sass").registers is None  # no res-usage given


@pytest.mark.skipif(not (shutil.which("c++filt") or shutil.which("cu++filt")), reason="no c++filt")
def test_a_part_of_the_demangled_name_picks_it():
    text = dump(function(OTHER, [HMMA]), function(NAME, [HMMA]))
    loop = binary_loop(text, "demo::loop(", "demo.sass")
    assert loop.kernel == NAME and loop.demangled == "demo::loop(float*)"


@pytest.mark.parametrize(
    ("funcs", "kernel", "says"),
    [
        ([function(NAME, [HMMA])], "missing", "is not in demo.sass"),
        ([function(NAME, [HMMA]), function(OTHER, [HMMA])], "demo", "is ambiguous"),
        ([function(NAME, [HMMA], loop=False)], NAME, "no loop"),
        ([function(NAME, [HMMA, "HGMMA.64x64x16.F32.BF16 R0, gdesc[UR4], R0"])], NAME,
         "opcode HGMMA (at 0x0020 in its main loop) is not one the SM core model knows"),
        ([function(NAME, ["FADD R2, R2, R3"])], NAME, "has no HMMA"),
        ([], NAME, "holds no SASS functions"),
    ],
)  # fmt: skip
def test_what_it_cannot_replay_is_one_line(funcs, kernel, says):
    with pytest.raises(GpusimError, match=None) as exc:
        binary_loop(dump(*funcs), kernel, "demo.sass")
    msg = str(exc.value)
    assert says in msg and "\n" not in msg


def test_reads_a_gzip_dump(tmp_path):
    from gpusim.kernel_catalog.binary_sass import read_text

    p = tmp_path / "d.sass.gz"
    p.write_bytes(gzip.compress(dump(function(NAME, [HMMA])).encode()))
    assert NAME in functions(read_text(p))
    with pytest.raises(GpusimError, match="cannot read"):
        read_text(tmp_path / "absent.sass")
