"""Warp-instructions per step of the tensor-core kernel's main loop, read from its compiled SASS.

The engine charges each warp's instructions besides the matrix products (softmax, address
arithmetic, the cp.async prefetch, barriers) to the SM's issue slots. A formula over tile
sizes misses by up to 40 % on some instances (the compiler unrolls, hoists and predicates
differently per instance), so the counts come from the instance's own machine code: the
largest loop of its SASS (the K/V loop, closed by a backward branch) is walked along the path
one step takes. Each forward conditional branch in it skips a region, classified by what the
region holds:

- cp.async copies (``LDGSTS``): the prefetch of a later tile, taken on every step but the last
  few, so counted;
- ``LDSM`` without ``HMMA``: Q's fragments loaded into registers on the first step only, so
  not counted;
- anything else: the causal or edge mask, counted only on a masked tile (``masked``; where
  the mask has two arms, the longer).

HMMA and LDSM are reported apart (the tracer counts those from the tiles). These are
compile-time facts: nothing here is fitted to a timing. Regenerate with
``python -m gpusim.kernels.loop_counts`` (nvcc and cuobjdump needed).
"""

from __future__ import annotations

import functools
import gzip
import json
import re
import subprocess
import tempfile
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from gpusim import atomic
from gpusim.errors import GpusimError
from gpusim.kernels.build import find_tool, nvcc_version
from gpusim.kernels.instances import KernelInstance
from gpusim.kernels.source import CXX_OPTIONS, nvcc_translation_unit

LOOP_COUNTS = (
    Path(__file__).resolve().parents[2] / "reports" / "kernels" / "build_sm90" / "loop_counts.json"
)
#: One step of each instance's loop as the core model runs it (gzip-compressed JSON).
LOOP_PATHS = LOOP_COUNTS.with_name("loop_paths.json.gz")
#: Counted by the tracer from the tiles, not here.
PRODUCT_OPS = ("HMMA", "LDSM")
INSTR_BYTES = 16  # every sm_90 instruction is 128 bits
_SASS_LINE = re.compile(r"/\*([0-9a-f]{4,})\*/\s+((?:@!?U?P\w+\s+)?[A-Z][A-Z0-9_.]*[^;]*);")
_BRANCH = re.compile(r"\bBRA\b(?:.*?)0x([0-9a-f]+)")
_GUARD = re.compile(r"^@!?U?P\w+\s+")


def _op(text: str) -> str:
    return _GUARD.sub("", text).split()[0].split(".")[0]


def parse(sass_function: str) -> list[tuple[int, str]]:
    """(address, instruction text) of one function's SASS."""
    return [(int(a, 16), t.strip()) for a, t in _SASS_LINE.findall(sass_function)]


def main_loop(ins: list[tuple[int, str]]) -> tuple[int, int]:
    """(first, last) address of the largest loop: the longest span a backward branch closes."""
    best = None
    for addr, text in ins:
        m = _BRANCH.search(text)
        if m and int(m.group(1), 16) < addr:
            span = (int(m.group(1), 16), addr)
            if best is None or span[1] - span[0] > best[1] - best[0]:
                best = span
    if best is None:
        raise GpusimError("no loop in this function's SASS")
    return best


def _path(ins: dict[int, str], lo: int, hi: int, masked: bool, top: bool) -> list[int]:
    """Addresses executed from ``lo`` up to ``hi`` (exclusive) on one step's path, in order."""
    ops: list[int] = []
    a = lo
    while a < hi:
        text = ins[a]
        ops.append(a)
        m = _BRANCH.search(text)
        target = int(m.group(1), 16) if m else None
        if target is None or target <= a or target > hi:
            a += INSTR_BYTES
            continue
        if not _GUARD.match(text):  # an unconditional jump over an else arm
            a = target
            continue
        region = Counter(_op(ins[x]) for x in range(a + INSTR_BYTES, target, INSTR_BYTES))
        if top and region["LDGSTS"]:
            taken = True  # the prefetch
        elif top and region["LDSM"] and not region["HMMA"]:
            taken = False  # Q into registers, first step only
        elif top:
            taken = masked  # the mask
        else:  # an arm inside the mask: the longer way through
            inner = _path(ins, a + INSTR_BYTES, target, masked, top=False)
            jump = ins.get(target - INSTR_BYTES, "")
            j = _BRANCH.search(jump)
            if j and not _GUARD.match(jump) and int(j.group(1), 16) > target:
                other = _path(ins, target, int(j.group(1), 16), masked, top=False)
                if len(other) > len(inner) - 1:
                    a = target  # the else arm is the longer
                    continue
            taken = True
        if taken:
            ops += _path(ins, a + INSTR_BYTES, target, masked, top=False)
        a = target
    return ops


def _straight(ins: dict[int, str], lo: int, hi: int) -> int:
    """Instructions run once per CTA from ``lo`` to ``hi`` or the first unguarded EXIT: a
    guarded region is taken when it copies (LDGSTS) or stores (STG), not otherwise (the
    slow paths of a division, the empty-range guards)."""
    n, a = 0, lo
    while a < hi:
        text = ins[a]
        n += 1
        if _op(text) == "EXIT" and not _GUARD.match(text):
            break
        m = _BRANCH.search(text)
        target = int(m.group(1), 16) if m else None
        if target is None or target <= a or target > hi:
            a += INSTR_BYTES
            continue
        if not _GUARD.match(text):
            a = target
            continue
        region = {_op(ins[x]) for x in range(a + INSTR_BYTES, target, INSTR_BYTES)}
        a = a + INSTR_BYTES if region & {"LDGSTS", "STG"} else target
    return n


def step_path(sass_function: str, masked: bool = False) -> list[int]:
    """Addresses of one step of the main loop, in the order a warp runs them."""
    ins = parse(sass_function)
    lo, hi = main_loop(ins)
    return _path(dict(ins), lo, hi + INSTR_BYTES, masked, top=True)


def step_ops(sass_function: str) -> dict[str, Counter]:
    """Opcodes of one step of the main loop: ``steady`` (no mask) and ``masked``; and
    ``first``, what the first step adds (Q's fragments into registers)."""
    ins = parse(sass_function)
    lo, hi = main_loop(ins)
    table = dict(ins)
    out = {
        form: Counter(_op(table[a]) for a in _path(table, lo, hi + INSTR_BYTES, masked, top=True))
        for form, masked in (("steady", False), ("masked", True))
    }
    loop = Counter(_op(t) for a, t in ins if lo <= a <= hi)
    q_regs = loop["LDSM"] - out["masked"]["LDSM"]  # the region no form takes: Q's load
    out["first_ldsm"] = Counter({"LDSM": q_regs})
    return out


def cta_overhead(sass_function: str) -> int:
    """Warp-instructions run once per CTA outside the loop: set-up, Q's copy and the
    prefetch before it, the epilogue's normalisation and stores."""
    ins = parse(sass_function)
    lo, hi = main_loop(ins)
    table = dict(ins)
    return _straight(table, min(table), lo) + _straight(table, hi + INSTR_BYTES, max(table) + 1)


def _sass(insts: list[KernelInstance], tmp: Path, tag: str) -> str:
    nvcc, cuobjdump = find_tool("nvcc"), find_tool("cuobjdump")
    if nvcc is None or cuobjdump is None:
        raise GpusimError("nvcc and cuobjdump are needed to count the kernels' loops")
    cu, cubin = tmp / f"{tag}.cu", tmp / f"{tag}.cubin"
    cu.write_text(nvcc_translation_unit(insts))
    proc = subprocess.run(
        [nvcc, "-arch=sm_90", *CXX_OPTIONS, "-cubin", "-o", str(cubin), str(cu)],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        raise GpusimError(f"nvcc failed: {proc.stderr.strip()[-1000:]}")
    dirs = {str(Path(t).parent) for t in (cuobjdump, find_tool("nvdisasm")) if t}
    env = {"PATH": ":".join([*dirs, "/usr/bin", "/bin"])}
    return subprocess.run(
        [cuobjdump, "-sass", str(cubin)], capture_output=True, text=True, check=True, env=env
    ).stdout


def count(
    insts: list[KernelInstance], jobs: int = 2, paths: dict[str, list] | None = None
) -> dict[str, dict[str, int]]:
    """Per instance key, per warp: instructions of one step besides HMMA and LDSM (``steady``,
    ``masked``), the step's HMMA and LDSM, the LDSM the first step adds, and the
    instructions run once per CTA outside the loop (``cta_overhead``). ``paths``, when
    given, receives each instance's steady step as the core model's instructions (lists)."""
    insts = [i for i in insts if i.variant == "tc"]
    out: dict[str, dict[str, int]] = {}
    with tempfile.TemporaryDirectory() as tmp:

        def one(inst: KernelInstance) -> tuple[str, dict[str, int]]:
            (fn,) = re.split(r"\n\s*Function : ", _sass([inst], Path(tmp), inst.key))[1:]
            forms = step_ops(fn)
            if paths is not None:
                paths[inst.key] = [_as_list(i) for i in core_path(fn)]
            rec = {
                form: sum(v for op, v in forms[form].items() if op not in PRODUCT_OPS)
                for form in ("steady", "masked")
            }
            return inst.key, rec | {
                "hmma": forms["steady"]["HMMA"],
                "ldsm": forms["steady"]["LDSM"],
                "first_step_ldsm": forms["first_ldsm"]["LDSM"],
                "cta_overhead": cta_overhead(fn),
            }

        with ThreadPoolExecutor(max_workers=jobs) as pool:
            out.update(pool.map(one, insts))
    return out


def _as_list(i) -> list:
    return [i.op, i.stall, i.wbar, i.rbar, i.wait, list(i.dst), list(i.src)]


@functools.cache
def loop_path(key: str) -> tuple | None:
    """The committed steady step of instance ``key`` as core-model instructions, or None."""
    from gpusim.engine.core_model import Instr

    table = _loop_paths()
    if key not in table:
        return None
    return tuple(
        Instr(op, st, wb, rb, wt, tuple(d), tuple(s)) for op, st, wb, rb, wt, d, s in table[key]
    )


@functools.cache
def _loop_paths() -> dict[str, list]:
    if not LOOP_PATHS.exists():
        return {}
    return json.loads(gzip.decompress(LOOP_PATHS.read_bytes()))["instances"]


@functools.cache
def loop_counts() -> dict[str, dict[str, int]]:
    """The committed counts (empty when the file is absent)."""
    if not LOOP_COUNTS.exists():
        return {}
    return json.loads(LOOP_COUNTS.read_text())["instances"]


def main(argv: list[str] | None = None) -> int:
    """Count every tensor-core instance's loop and write :data:`LOOP_COUNTS`."""
    import argparse

    from gpusim.kernels.instances import all_instances
    from gpusim.kernels.provenance import git_commit

    ap = argparse.ArgumentParser(description=main.__doc__)
    ap.add_argument("--out", type=Path, default=LOOP_COUNTS)
    ap.add_argument("--only", default="", help="substring filter on instance keys")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args(argv)
    insts = [i for i in all_instances() if i.variant == "tc" and args.only in i.key]
    doc = {
        "what": "warp-instructions per K/V step of the main loop, besides HMMA and LDSM "
        "(steady: prefetch, no mask; masked: the same on a masked tile); see "
        "gpusim/kernels/loop_counts.py",
        "nvcc": nvcc_version(),
        "arch": "sm_90",
        "git_commit": git_commit(),
    }
    paths: dict[str, list] = {}
    doc["instances"] = count(insts, args.jobs, paths)
    atomic.write_text(args.out, json.dumps(doc, indent=1, sort_keys=True) + "\n")
    path_doc = {k: v for k, v in doc.items() if k not in ("instances", "what")}
    path_doc["what"] = (
        "one steady step of each instance's main loop, per instruction: [opcode, stall, "
        "write barrier, read barrier, wait mask, registers written, registers read]"
    )
    path_doc["instances"] = paths
    blob = gzip.compress(json.dumps(path_doc, sort_keys=True).encode(), mtime=0)
    args.out.with_name(LOOP_PATHS.name).write_bytes(blob)
    print(f"{len(doc['instances'])} instances -> {args.out}")
    return 0


# --- the loop as the core model runs it ----------------------------------------------------
_SASS_WITH_CONTROL = re.compile(
    r"/\*([0-9a-f]{4,})\*/\s+([^;]*);\s*/\* 0x[0-9a-f]{16} \*/\s*\n\s*/\* 0x([0-9a-f]{16}) \*/"
)
#: Opcodes that write no general register through their first operand.
_NO_DEST = ("ST", "STS", "STG", "STL", "BAR", "BRA", "DEPBAR", "LDGDEPBAR", "LDGSTS", "EXIT",
            "NOP", "BSSY", "BSYNC", "WARPSYNC", "RET", "CALL")  # fmt: skip


def control(high_word: int) -> tuple[int, int, int, int]:
    """(stall, write barrier, read barrier, wait mask) of an sm_70+ instruction's control
    bits (bits 105-121 of the 128-bit word: 4 stall, 1 yield, 3 + 3 barrier indices, 6 wait)."""
    c = high_word >> 41
    return c & 0xF, (c >> 5) & 7, (c >> 8) & 7, (c >> 11) & 0x3F


def decode(text: str, high_word: int):
    """One instruction as :class:`gpusim.engine.core_model.Instr`."""
    from gpusim.engine.core_model import Instr, registers

    body = _GUARD.sub("", text).strip()
    head, _, rest = body.partition(" ")
    op = head.split(".")[0]
    parts = [p.strip() for p in rest.split(",")]
    stall, wbar, rbar, wait = control(high_word)
    if op == "HMMA":  # D, A, B, C: an f32 accumulator holds 4 registers, f16 2
        acc = 4 if ".F32" in head else 2
        dst = registers(parts[0], acc)
        src = registers(parts[1], 4) + registers(parts[2], 2) + registers(parts[3], acc)
        return Instr(op, stall, wbar, rbar, wait, dst, src)
    writes = op not in _NO_DEST and parts and parts[0].startswith("R")
    dst = registers(parts[0]) if writes else ()
    src = registers(",".join(parts[1:] if writes else parts))
    return Instr(op, stall, wbar, rbar, wait, dst, src)


def core_path(sass_text: str, masked: bool = False) -> list:
    """The decoded instructions of one step of the function's main loop (cuobjdump -sass text
    of one function, with its control words)."""
    words = {
        int(a, 16): (t.strip(), int(hi, 16)) for a, t, hi in _SASS_WITH_CONTROL.findall(sass_text)
    }
    order = step_path(sass_text, masked)
    return [decode(*words[a]) for a in order]


if __name__ == "__main__":
    raise SystemExit(main())
