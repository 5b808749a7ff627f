"""Hopper's warpgroup products measured on every SM (kernels/wgmma.cu): rate per N, latency,
softmax overlap, the SM clock under their load.

Not part of ``gpusim calibrate``'s suite (it needs sm_90a, which CuPy's default NVRTC target
is not): run on its own, ``python -m gpusim.calibrate.wgmma --out FILE [--cubin FILE]``
(``--cubin``: a prebuilt ``nvcc -gencode=arch=compute_90a,code=sm_90a -cubin`` of
kernels/wgmma.cu; without it nvcc builds one). Every launch fills all SMs; time from CUDA
events, the SM clock from each block's clock64/%globaltimer stamps over the same loop, so
FLOP per clock and FLOP per second are both recorded. Rows (``rows``):

- ``rate``: m64nNk16 products, 8 per loop iteration, one accumulator chained (``chains`` 1)
  or two alternating (2), A from shared memory (``a_src`` smem) or registers (reg), bf16 and
  fp16 in, f32 accumulate, 1-3 warpgroups per CTA, 1-2 CTAs per SM (as registers allow),
  128-byte swizzled operands (``swizzle`` 1) or none (0);
- ``latency``: one product, commit, wait: SM cycles per dependent product;
- ``overlap``: products (role P), a softmax-like pass (S: max, shuffles, FFMA, EX2, sum over
  an accumulator-sized tile) or both (B) in one warpgroup, and the two-warpgroup mixes;
- ``sustained``: the clock after seconds of back-to-back product launches (nvidia-smi polled);
- ``checks``: one product against a float64 reference of the assumed operand layouts.

Written for gpusim from the PTX ISA's description; shares no code with any attention kernel.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from gpusim.calibrate import standalone
from gpusim.calibrate.context import BenchContext, import_cupy, make_context
from gpusim.calibrate.sources import KERNEL_DIR, kernel_attributes
from gpusim.calibrate.throughput import run_config
from gpusim.calibrate.wgmma_check import check_product, operand_words
from gpusim.calibrate.wgmma_ops import NS

U = 8  # products per loop iteration (kernels/wgmma.cu GS_U)
A_BYTES = 8192
DT_CODE = {"fp16": 0, "bf16": 1}
#: ``--split-compile=8``: the optimizer on up to 8 threads (the cubin is 30-60 s of one core, and
#: `gpusim calibrate --quick` can wait for it); with nvcc 13.0 (V13.0.88) every kernel's SASS is
#: identical to a one-thread build's (cuobjdump -sass; only the ELF sections' order differs)
NVCC_FLAGS = ("-gencode=arch=compute_90a,code=sm_90a", "-cubin", "-std=c++17", "-Xptxas", "-v",
              "--split-compile=8")  # fmt: skip
REGS_PER_SM, MAX_THREADS_PER_SM, REG_UNIT = 65536, 2048, 256
#: (warpgroups per CTA, CTAs per SM) of the occupancy sweep; (2, 1) is the rate sweep's
SHAPES = ((1, 1), (2, 1), (3, 1), (1, 2), (2, 2))
#: the overlap sweep: (label, warpgroups, roles: 2 bits per warpgroup, bit 0 P, bit 1 S)
ROLE_MIXES = (
    ("P", 1, 0b01),
    ("S", 1, 0b10),
    ("B", 1, 0b11),
    ("P.", 2, 0b0001),
    (".S", 2, 0b1000),
    ("PS", 2, 0b1001),
    ("PP", 2, 0b0101),
    ("SS", 2, 0b1010),
    ("BB", 2, 0b1111),
)
OVERLAP_NS = (64, 128)


def tput_name(n: int, dt: int, areg: int, chains: int, soft: int) -> str:
    return f"_Z7wg_tputILi{n}ELi{dt}ELi{areg}ELi{chains}ELi{soft}EEvPKjiiiiPfPy"


def lat_name(n: int, dt: int, areg: int) -> str:
    return f"_Z6wg_latILi{n}ELi{dt}ELi{areg}EEvPKjiiiiPfPy"


def check_name(n: int, dt: int, areg: int) -> str:
    return f"_Z8wg_checkILi{n}ELi{dt}ELi{areg}EEvPKjiiPf"


def nvcc_command(out_dir: Path) -> tuple[list[str], Path]:
    """The nvcc command that builds kernels/wgmma.cu's sm_90a cubin into ``out_dir``, and the
    cubin's path; a RuntimeError where there is no nvcc."""
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        raise RuntimeError("nvcc not found: pass --cubin (a prebuilt sm_90a cubin of wgmma.cu)")
    cubin = out_dir / "wgmma.cubin"
    cmd = [nvcc, *NVCC_FLAGS, f"-I{KERNEL_DIR}", "-o", str(cubin), str(KERNEL_DIR / "wgmma.cu")]
    return cmd, cubin


def build_cubin(out_dir: Path) -> tuple[Path, str]:
    """nvcc's sm_90a cubin of kernels/wgmma.cu and ptxas's report."""
    cmd, cubin = nvcc_command(out_dir)
    proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return cubin, proc.stdout + proc.stderr


def ctas_that_fit(regs: int, threads: int, smem: int, smem_per_sm: int) -> int:
    """CTAs of ``threads`` threads one SM holds (registers in 256-register warp units)."""
    per_warp = -(-regs * 32 // REG_UNIT) * REG_UNIT
    by_regs = REGS_PER_SM // (per_warp * threads // 32)
    return min(by_regs, MAX_THREADS_PER_SM // threads, smem_per_sm // (smem + 1024))


def _smem(n: int, groups: int) -> int:
    return n * 128 + groups * A_BYTES + 1024  # + the slack for 1024-byte alignment


class Bench:
    """The loaded module, the operand buffers and the run's rows."""

    def __init__(self, ctx: BenchContext, cubin: Path):
        cp = ctx.cp
        self.ctx, self.cp = ctx, cp
        self.mod = cp.RawModule(path=str(cubin))
        self.smem_per_sm = cp.cuda.Device().attributes["MaxSharedMemoryPerMultiprocessor"]
        rng = np.random.default_rng(20261203)
        self.words = 1 << 16
        self.init = {dt: cp.asarray(operand_words(rng, dt, self.words)) for dt in DT_CODE}
        self.out = cp.full(ctx.sm_count * 2 * 384, cp.nan, dtype=cp.float32)
        self.rows: list[dict[str, Any]] = []
        self.kernels: dict[str, Any] = {}

    def fn(self, name: str, smem: int) -> Any:
        f = self.mod.get_function(name)
        f.max_dynamic_shared_size_bytes = smem
        self.kernels[name] = kernel_attributes(f) | {"dynamic_smem_bytes": smem}
        return f

    def timed(
        self,
        name: str,
        dtype: str,
        groups: int,
        ctas: int,
        roles: int,
        swz: int,
        n: int,
        flop_per_iter_per_block: float,
        label: str,
    ) -> dict[str, Any] | None:
        cp, ctx = self.cp, self.ctx
        smem = _smem(n, groups)
        f = self.fn(name, smem)
        threads = 128 * groups
        fit = ctas_that_fit(self.kernels[name]["num_regs"], threads, smem, self.smem_per_sm)
        base = {
            "kernel": name,
            "dtype": dtype,
            "n": n,
            "warpgroups": groups,
            "ctas_per_sm": ctas,
            "roles": roles,
            "swizzle": swz,
            "num_regs": self.kernels[name]["num_regs"],
        }
        if ctas > fit:
            row = base | {"skipped": f"{ctas} CTAs per SM do not fit (registers/smem: {fit})"}
            self.rows.append(row)
            return None
        self.out.fill(cp.nan)
        init = self.init[dtype]

        def args(iters: int, stamps: Any) -> tuple[Any, ...]:
            return (
                init,
                np.int32(self.words),
                np.int32(iters),
                np.int32(roles),
                np.int32(swz),
                self.out,
                stamps,
            )

        try:
            cfg = run_config(
                ctx,
                f,
                args,
                threads,
                ctas,
                max(flop_per_iter_per_block, 1.0),
                "FLOP",
                label,
                shared_mem_bytes=smem,
            )
        except ValueError as err:
            # One configuration that cannot be read must not lose the sweep's other rows.
            self.rows.append(base | {"failed": str(err)})
            ctx.log(f"{label}: FAILED ({err})")
            return None
        written = self.out[: ctx.sm_count * ctas * threads]
        clk = cfg["sm_clock_hz"]["median_hz"]
        t = cfg["time_s"]["value"]
        cyc = cfg["block_cycles"]["median"]
        row = base | {
            "iters": cfg["iters"],
            "time_s": t,
            "sm_clock_hz": clk,
            # Per clock from the blocks' own cycle counts: the event time over a clock read
            # from another launch went 9 % over the 4096 FLOP/clk/SM ceiling when the clock
            # fell between launches (2026-12-03 run).
            "cycles_per_iter": cyc / cfg["iters"],
            "flops_per_clk_per_sm": flop_per_iter_per_block * cfg["iters"] * ctas / cyc,
            "flops_per_clk_per_sm_events": cfg["per_clk_per_sm"]["median"]
            if flop_per_iter_per_block
            else 0.0,
            "flops_per_s": cfg["per_s"]["median"] if flop_per_iter_per_block else 0.0,
            "outputs_finite": bool(cp.isfinite(written).all()),
            "raw": cfg,
        }
        self.rows.append(row)
        ctx.log(
            f"{label}: {row['flops_per_clk_per_sm']:.0f} FLOP/clk/SM, "
            f"{row['cycles_per_iter']:.1f} clk/iter at {clk / 1e6:.0f} MHz"
        )
        return row


def _flop(n: int) -> int:
    return 2 * 64 * n * 16


def sweep_rates(b: Bench) -> None:
    for dtype, dt in DT_CODE.items():
        for areg in (0, 1):
            for n in NS:
                for chains in (1, 2) if n <= 128 else (1,):
                    shapes = SHAPES if (dtype == "bf16" and chains == 1) else ((2, 1),)
                    for groups, ctas in shapes:
                        row = b.timed(
                            tput_name(n, dt, areg, chains, 0),
                            dtype,
                            groups,
                            ctas,
                            0b010101,
                            1,
                            n,
                            groups * U * _flop(n),
                            f"rate {dtype} n{n} a-{'reg' if areg else 'smem'} "
                            f"chains{chains} wg{groups} cta{ctas}",
                        )
                        if row:
                            row.update(kind="rate", a_src="reg" if areg else "smem", chains=chains)
    for n in NS:  # unswizzled operands
        row = b.timed(
            tput_name(n, 1, 0, 1, 0),
            "bf16",
            2,
            1,
            0b0101,
            0,
            n,
            2 * U * _flop(n),
            f"rate bf16 n{n} a-smem no-swizzle",
        )
        if row:
            row.update(kind="rate", a_src="smem", chains=1)


def sweep_latency(b: Bench) -> None:
    for dtype, areg in (("bf16", 0), ("bf16", 1), ("fp16", 0)):
        for n in NS:
            row = b.timed(
                lat_name(n, DT_CODE[dtype], areg),
                dtype,
                1,
                1,
                1,
                1,
                n,
                _flop(n),
                f"latency {dtype} n{n} a-{'reg' if areg else 'smem'}",
            )
            if row:
                row.update(kind="latency", a_src="reg" if areg else "smem", chains=1)


def sweep_overlap(b: Bench) -> None:
    for n in OVERLAP_NS:
        for areg in (0, 1):
            for label, groups, roles in ROLE_MIXES:
                prod_groups = sum(1 for g in range(groups) if (roles >> 2 * g) & 1)
                row = b.timed(
                    tput_name(n, 1, areg, 1, 1),
                    "bf16",
                    groups,
                    1,
                    roles,
                    1,
                    n,
                    prod_groups * U * _flop(n),
                    f"overlap {label} n{n} a-{'reg' if areg else 'smem'}",
                )
                if row:
                    row.update(
                        kind="overlap",
                        mix=label,
                        a_src="reg" if areg else "smem",
                        chains=1,
                        softmax_elems_per_thread=n // 2,
                    )


def checks(b: Bench) -> list[dict[str, Any]]:
    cp = b.cp
    rows = []
    for n in NS:
        for dtype, dt in DT_CODE.items():
            for areg in (0, 1):
                for swz in (0, 1):
                    f = b.fn(check_name(n, dt, areg), _smem(n, 1))
                    out = cp.full(128 * n // 2, cp.nan, dtype=cp.float32)
                    f(
                        (1,),
                        (128,),
                        (b.init[dtype], np.int32(b.words), np.int32(swz), out),
                        shared_mem=_smem(n, 1),
                    )
                    got = out.get().astype(np.float64)
                    words = b.init[dtype].get()
                    rows.append(check_product(got, words, n, dtype, bool(areg), swz))
    bad = [r for r in rows if not r["ok"]]
    b.ctx.log(f"checks: {len(rows) - len(bad)}/{len(rows)} within tolerance")
    return rows


def measure(ctx: BenchContext, cubin: Path | None = None) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix="gpusim-wgmma-"))
    ptxas = ""
    if cubin is None:
        cubin, ptxas = build_cubin(tmp)
    sha = hashlib.sha256(cubin.read_bytes()).hexdigest()
    b = Bench(ctx, cubin)
    check_rows = checks(b)
    sweep_latency(b)
    sweep_rates(b)
    sweep_overlap(b)
    from gpusim.calibrate.wgmma_sustained import sustained_clock  # it imports Bench from here

    sustained = sustained_clock(b, ctx.scale(3.0, 0.3))
    return {
        "gpu": ctx.gpu_name,
        "date": ctx.date,
        "sm_count": ctx.sm_count,
        "cubin_sha256": sha,
        "ptxas_report": ptxas,
        "products_per_iter": U,
        "kernels": b.kernels,
        "checks": check_rows,
        "rows": b.rows,
        "sustained": sustained,
    }


def run(quick: bool = False, cubin: str | None = None) -> dict[str, Any]:
    return measure(make_context(import_cupy(), quick=quick), Path(cubin) if cubin else None)


def main(argv: list[str] | None = None) -> int:
    import argparse
    import sys

    ap = argparse.ArgumentParser(add_help=False)
    ap.add_argument("--cubin")
    known, rest = ap.parse_known_args(argv if argv is not None else sys.argv[1:])
    return standalone.main(__doc__, lambda q: run(q, known.cubin), rest)


if __name__ == "__main__":
    raise SystemExit(main())
