"""The main loop of a kernel's SASS, walked along the path one step takes.

The largest loop of a function (the K/V loop, closed by a backward branch) is walked from its
head; each forward conditional branch in it skips a region, classified by what the region
holds:

- cp.async copies (``LDGSTS``): the prefetch of a later tile, taken on every step but the last
  few;
- ``LDSM`` without ``HMMA``: Q's fragments loaded into registers on the first step only, not
  taken;
- anything else: the causal or edge mask, taken only on a masked tile (where the mask has two
  arms, the longer).

Text of ``cuobjdump -sass``; no GPU, no compiler needed here.
"""

from __future__ import annotations

import re
from collections import Counter

from gpusim.errors import GpusimError

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
    """(first, last) address of the K/V loop: the longest span a backward branch closes, or
    the longest loop nested in it that holds all of its HMMAs.

    A kernel that walks several tiles per CTA (PyTorch's FlashAttention-2 backward loops over
    K/V blocks around its loop over query blocks) has its step loop inside an outer loop whose
    body adds a prologue and epilogue per tile; the step is the inner loop.
    """
    spans = []
    for addr, text in ins:
        m = _BRANCH.search(text)
        if m and int(m.group(1), 16) < addr:
            spans.append((int(m.group(1), 16), addr))
    if not spans:
        raise GpusimError("no loop in this function's SASS")
    hmma_at = [a for a, text in ins if _op(text) == "HMMA"]
    hmma = {s: sum(s[0] <= a <= s[1] for a in hmma_at) for s in spans}
    best = max(spans, key=lambda s: s[1] - s[0])
    while True:
        inner = [s for s in spans if s != best and best[0] <= s[0] and s[1] <= best[1]
                 and hmma[s] == hmma[best] > 0]  # fmt: skip
        if not inner:
            return best
        best = max(inner, key=lambda s: s[1] - s[0])


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


def outside_loop(sass_function: str) -> tuple[int, int]:
    """(warp-instructions besides HMMA and LDSM, HMMAs) of the function outside its main
    loop: static counts of the text (a branch's both arms count), once per CTA."""
    ins = parse(sass_function)
    lo, hi = main_loop(ins)
    ops = Counter(_op(t) for a, t in ins if not lo <= a <= hi)
    return sum(n for op, n in ops.items() if op not in ("HMMA", "LDSM")), ops["HMMA"]
