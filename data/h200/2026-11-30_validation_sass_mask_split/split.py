"""Main-loop SASS of flash2 instances, with and without the masking path (see tracing.py).

Run from the repository root with nvcc 13.0 on PATH and the dev extra's cuobjdump:
``.venv/bin/python reports/validation/sass_mask_split/split.py``; writes split.json beside it.
"""

import collections
import json
import re
import subprocess
import tempfile
from pathlib import Path

from gpusim.kernels.instances import KernelInstance
from gpusim.kernels.source import nvcc_translation_unit

CO = ".venv/lib/python3.11/site-packages/nvidia/cu13/bin/cuobjdump"
TMP = Path(tempfile.mkdtemp())


def T(*a):
    return KernelInstance("tc", "bf16", *a)


def S(*a):
    return KernelInstance("simt", "fp32", *a)


insts = [
    T(128, 128, 64, 4, 2),
    T(64, 128, 64, 4, 2),
    T(128, 64, 64, 4, 2),
    T(128, 64, 32, 4, 2),
    T(128, 64, 32, 4, 1),
    T(64, 64, 32, 4, 2),
    T(128, 128, 128, 8, 2),
    T(64, 128, 32, 8, 1),
    T(128, 128, 64, 4, 1),
    S(128, 128, 32, 8, 2),
    S(64, 64, 64, 4, 2),
    S(64, 64, 32, 4, 1),
    S(64, 64, 64, 8, 2),
    S(64, 128, 64, 8, 3),
]
TC_MASK = "if (col >= nk || (causal && col > row + diag)) s[mt][nt][e] = -F2_INF;"
SIMT_MASK = "if (col >= nk || (causal && col > q0 + r + diag)) s[i][j] = -F2_INF;"


def loops(src, tag):
    (TMP / f"{tag}.cu").write_text(src)
    subprocess.run(
        [
            "nvcc",
            "-arch=sm_90",
            "-std=c++17",
            "-cubin",
            "-o",
            f"{TMP}/{tag}.cubin",
            f"{TMP}/{tag}.cu",
        ],
        check=True,
    )
    sass = subprocess.run(
        [CO, "-sass", f"{TMP}/{tag}.cubin"], capture_output=True, text=True
    ).stdout
    out = {}
    for fn in re.split(r"\n\s*Function : ", sass)[1:]:
        name = fn.split("\n")[0].strip()
        lines = re.findall(r"/\*([0-9a-f]{4,})\*/\s+((?:@!?U?P\w+\s+)?[A-Z0-9_]+[^;]*);", fn)
        ins = [(int(a, 16), t) for a, t in lines]
        best = None
        for addr, t in ins:
            m = re.search(r"\bBRA\b.*?0x([0-9a-f]+)", t)
            if m and int(m.group(1), 16) < addr:
                body = [x for a, x in ins if int(m.group(1), 16) <= a <= addr]
                if best is None or len(body) > len(best):
                    best = body
        ops = collections.Counter(
            re.sub(r"^@!?U?P\w+\s+", "", x).split()[0].split(".")[0] for x in best
        )
        out[name] = ops
    return out


src = nvcc_translation_unit(insts)
assert TC_MASK in src and SIMT_MASK in src
orig = loops(src, "orig")
nomask = loops(
    src.replace(
        TC_MASK, "if (mt == 0 && nt == 0 && e == 0 && col >= nk) s[mt][nt][e] = -F2_INF;"
    ).replace(SIMT_MASK, "if (i == 0 && j == 0 && col >= nk) s[i][j] = -F2_INF;"),
    "nomask",
)
res = []
for inst in insts:
    key = [
        k
        for k in orig
        if f"{inst.head_dim}ELi{inst.block_m}ELi{inst.block_n}ELi{inst.warps}ELi{inst.stages}E" in k
        and inst.kernel_name in k
    ]
    assert len(key) == 1, (inst, key)
    k = key[0]
    skip = ("HMMA", "LDSM") if inst.variant == "tc" else ("FFMA",)
    o = sum(v for op, v in orig[k].items() if op not in skip)
    n = sum(v for op, v in nomask[k].items() if op not in skip)
    elems = inst.block_m * inst.block_n // (32 * inst.warps)
    row = dict(
        inst=(
            f"{inst.variant} d{inst.head_dim} Br{inst.block_m} Bc{inst.block_n}"
            f" w{inst.warps} s{inst.stages}"
        ),
        elems_per_thread=elems,
        masked_path=o,
        unmasked_path=n,
        mask_only=o - n,
    )
    res.append(row)
    print(row)
with open(Path(__file__).with_name("split.json"), "w") as fh:
    json.dump(res, fh, indent=1)
