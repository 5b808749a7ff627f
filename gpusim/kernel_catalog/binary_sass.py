"""One kernel's main loop read from any binary's SASS (``cuobjdump -sass`` text): a cubin of
the project's, PyTorch's ``libtorch_cuda.so``, a Triton kernel's.

The text may hold many functions; ``--kernel NAME`` picks one by its mangled name or by a
part of its demangled name (``c++filt`` or ``cu++filt`` where installed). Its main loop is
walked as the project's own loops are (:mod:`gpusim.kernel_catalog.sass_loop`: the largest
loop a backward branch closes, one steady step: prefetch taken, mask not), decoded
(:mod:`gpusim.kernel_catalog.sass_decode`), and every opcode on that path must be one the
SM core model has a pipe for (:data:`KNOWN_OPS`); anything else, a loop that cannot be found,
a name that matches no function or several, is a :class:`~gpusim.errors.GpusimError`
(one line), never a fallback to another model.

Only text here: running cuobjdump on a cubin is :mod:`gpusim.kernels.binary_dump`'s.
"""

from __future__ import annotations

import gzip
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from gpusim.errors import GpusimError
from gpusim.kernel_catalog.sass_decode import decoded
from gpusim.kernel_catalog.sass_instr import Instr
from gpusim.kernel_catalog.sass_loop import outside_loop, step_path

#: Opcodes the SM core model (gpusim/engine/core_model.py) times, by how it times them. The
#: first group are every opcode of the project's 182 committed loops (the model's pipes and
#: latencies were checked on them against Nsight Compute); the rest are of the same classes.
_OP_GROUPS = (
    # tensor, MUFU (XU), FMA and shuffle pipes, shared memory (core_model.PIPES)
    "HMMA MUFU FFMA FMUL FADD IMAD SHFL LDSM LDS STS",
    # integer and logic ALU, compares, selects, moves, predicates
    "IADD3 VIADD LEA LOP3 SHF SEL FSEL ISETP FSETP PLOP3 P2R R2P MOV PRMT IABS IMNMX VIMNMX",
    # PyTorch's FlashAttention-2 backward: add-then-min/max, a move to a uniform register and
    # a warp vote into one (issued on the integer pipe here: not uniform-prefixed)
    "VIADDMNMX R2UR VOTEU",
    "FMNMX F2FP CS2R S2R",
    # uniform datapath (its own pipe, not contended in the model)
    "UIADD3 UIMAD UISETP ULDC ULEA ULOP3 UMOV USHF USEL UPRMT S2UR UPLOP3",
    # copies and their waits, and loads whose time is the engine's memory model's
    # (REDG: a global reduction, the backward's dQ atomic adds; the engine charges its bytes)
    "LDGSTS LDGDEPBAR DEPBAR LDG STG LDL STL LDC REDG",
    # control
    "BAR BRA BSSY BSYNC NOP EXIT WARPSYNC YIELD",
    # conversions run on the XU pipe with the transcendentals (Nsight Compute's pipe
    # description); the core model issues them on MUFU's pipe
    "F2I I2F",
)
KNOWN_OPS = frozenset(" ".join(_OP_GROUPS).split())
#: Conversions the core model issues on the MUFU (XU) pipe.
CONVERSIONS = ("F2I", "I2F")
_FUNCTION = re.compile(r"\n\s*Function : (\S+)")
_RES = re.compile(r"Function (\S+?):\s*\n\s*REG:(\d+) STACK:(\d+) SHARED:(\d+) LOCAL:(\d+)")
#: tensor-core product instructions of one m16n8k16 HMMA: its FLOPs per warp
HMMA_16816_FLOPS = 2 * 16 * 8 * 16


@dataclass(frozen=True)
class BinaryLoop:
    """One kernel's steady main-loop step, as read from its binary."""

    kernel: str  # the mangled name
    demangled: str | None
    source: str  # the file it was read from
    path: tuple[Instr, ...]  # one steady step, as the core model replays it
    registers: int | None  # per thread (cuobjdump -res-usage), where known
    static_smem_bytes: int | None
    #: warp-instructions of the function outside its main loop besides HMMA and LDSM, and
    #: its HMMAs there (the steps the compiler peeled off the loop)
    outside_issue: int
    outside_hmma: int

    @property
    def hmma(self) -> int:
        """HMMA instructions per warp in one pass of the loop."""
        return sum(i.op == "HMMA" for i in self.path)

    @property
    def issue_besides_products(self) -> int:
        """Warp-instructions per warp in one pass other than the products and their operand
        loads (HMMA, LDSM): what the pipe model's issue lane carries of the step
        (:func:`gpusim.instruction_mix.issued`)."""
        return sum(i.op not in ("HMMA", "LDSM") for i in self.path)

    @property
    def peeled_steps(self) -> float:
        """Steps of the loop the compiler laid out before or after it (FlashAttention-2's
        forward unrolls its masking steps ahead of the loop): HMMAs outside it per pass."""
        return self.outside_hmma / self.hmma

    @property
    def cta_issue_besides_steps(self) -> float:
        """Warp-instructions a warp issues once per CTA outside the steps (set-up, Q's load,
        the epilogue; the peeled steps' excess over a steady step), besides HMMA and LDSM;
        static counts of the function's text."""
        return self.outside_issue - self.peeled_steps * self.issue_besides_products

    def label(self) -> str:
        return self.demangled or self.kernel


def read_text(path: Path) -> str:
    """A SASS dump, plain or gzip-compressed."""
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise GpusimError(f"cannot read {path}: {exc.strerror or exc}") from exc
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return raw.decode(errors="replace")


def functions(sass_text: str) -> dict[str, str]:
    """Each function's SASS text by mangled name (the dump's ``Function :`` headers)."""
    parts = _FUNCTION.split("\n" + sass_text)
    return {parts[i]: parts[i + 1] for i in range(1, len(parts) - 1, 2)}


def res_usage(text: str) -> dict[str, tuple[int, int]]:
    """(registers per thread, static shared bytes) by function from ``cuobjdump -res-usage``."""
    return {m[0]: (int(m[1]), int(m[3])) for m in _RES.findall(text)}


def demangle(names: list[str]) -> dict[str, str] | None:
    """Demangled names by mangled name (``cu++filt`` or ``c++filt``), None without either."""
    tool = shutil.which("cu++filt") or shutil.which("c++filt")
    if tool is None or not names:
        return None
    out = subprocess.run(
        [tool], input="\n".join(names), capture_output=True, text=True, check=False
    ).stdout.splitlines()
    return dict(zip(names, out, strict=False)) if len(out) == len(names) else None


def pick(names: list[str], wanted: str, source: str) -> tuple[str, str | None]:
    """The one function ``wanted`` names: its mangled name exactly, else the one mangled or
    demangled name that contains it."""
    if not names:
        raise GpusimError(f"{source} holds no SASS functions")
    readable = demangle(names) or {}
    if wanted in names:
        return wanted, readable.get(wanted)
    exact = [n for n in names if readable.get(n) == wanted]
    hits = exact or [n for n in names if wanted in n or wanted in readable.get(n, "")]
    if not hits:
        how = "" if readable else " (no c++filt here: give the mangled name)"
        raise GpusimError(
            f"kernel {wanted!r} is not in {source} ({len(names)} functions, e.g. "
            f"{(readable.get(names[0]) or names[0])[:120]}){how}"
        )
    if len(hits) > 1:
        raise GpusimError(
            f"kernel {wanted!r} is ambiguous in {source}: {len(hits)} functions match "
            f"(e.g. {(readable.get(hits[0]) or hits[0])[:120]}); give more of the name"
        )
    return hits[0], readable.get(hits[0])


def loop_path(function_text: str, label: str) -> tuple[Instr, ...]:
    """One steady step of the function's main loop, every opcode checked against
    :data:`KNOWN_OPS`."""
    try:
        addrs = step_path(function_text)
    except GpusimError as exc:
        raise GpusimError(f"{label[:120]}: {exc}; the SM core model has nothing to replay") from exc
    by_addr = decoded(function_text)
    path = []
    for a in addrs:
        ins = by_addr.get(a)
        if ins is None:
            raise GpusimError(f"{label[:120]}: no control word for the instruction at {a:#06x}")
        if ins.op not in KNOWN_OPS:
            raise GpusimError(
                f"{label[:120]}: opcode {ins.op} (at {a:#06x} in its main loop) is not one the "
                "SM core model knows; it cannot replay this kernel"
            )
        path.append(ins)
    return tuple(path)


def binary_loop(sass_text: str, kernel: str, source: str, res_text: str | None = None):
    """The named kernel's :class:`BinaryLoop` from a ``cuobjdump -sass`` dump (and, where
    given, its ``-res-usage`` text for the registers)."""
    funcs = functions(sass_text)
    name, readable = pick(sorted(funcs), kernel, source)
    path = loop_path(funcs[name], readable or name)
    if not any(i.op == "HMMA" for i in path):
        raise GpusimError(
            f"{(readable or name)[:120]}: its main loop has no HMMA; the SM core model replays "
            "mma.sync (HMMA) loops only"
        )
    regs, smem = res_usage(res_text or "").get(name, (None, None))
    issue, hmma = outside_loop(funcs[name])
    return BinaryLoop(name, readable, source, path, regs, smem, issue, hmma)
