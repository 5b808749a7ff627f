"""What an instruction costs when its code is not in the instruction cache.

    python -m gpusim.calibrate.icache --out FILE      # on the GPU (about 40 s)

A kernel whose CTAs each run a block of straight-line code once (FFMAs on eight independent
accumulators, so no instruction waits on another's result), generated at lengths of 256 to
16384 instructions (4 to 256 KiB of SASS at 16 bytes an instruction), against the same count
of the same instructions as a 256-instruction loop body repeated (code that stays cached),
and the straight code cut into eight blocks that each CTA runs from its own block on
(``rotated``: the CTAs that share an SM fetch different code at once). All run with 4 warps
a CTA and 2 CTAs an SM (shared memory holds them to 2) over 16 CTAs an SM, timed by CUDA
events (median of 7 after a warm-up). The record: nanoseconds per warp-instruction per SM for
each, and their ratios to the loop, by length. No attention kernel's code.

Why: PyTorch's uneven causal FlashAttention-2 forward (a long kernel, its masking steps
peeled ahead of the loop) spends half its cycles between instructions waiting on instruction
fetch on short grids (``reports/torch_short_causal_look``); the model has no instruction
cache. This measures the cost such a mechanism would need, apart from any attention kernel.
"""

from __future__ import annotations

import json
import statistics

from gpusim.calibrate import standalone

#: instructions of straight-line code per CTA (64-192 KiB in 16 KiB steps: the first record,
#: 2026-12-07, found the cost rising between 128 and 192 KiB)
LENGTHS = (256, 1024, 2048, 4096, 5120, 6144, 7168, 8192, 9216, 10240, 11264, 12288, 16384)
#: the rotated variant's blocks: CTA b runs them in the order b, b+1, ... (mod SEGMENTS), so
#: that the CTAs sharing an SM fetch different code at once, as the CTAs of a kernel whose
#: CTAs run different numbers of steps do
SEGMENTS = 8
#: the cached variant's loop body
LOOP_BODY = 256
WARPS, CTAS_PER_SM, WAVES = 4, 2, 8
ACCUMULATORS = 8
#: dynamic shared memory a CTA reserves at launch (unused), so that at most two share an SM
#: (228 KiB an SM)
SMEM_BYTES = 96 * 1024


VARIANTS = ("straight", "rotated", "loop")


def _ffmas(n: int) -> list[str]:
    fma = '"fma.rn.f32 %0, %0, %1, %2;"'
    return [f'    asm volatile({fma} : "+f"(acc{i % ACCUMULATORS}) : "f"(x), "f"(y));'
            for i in range(n)]  # fmt: skip


def source(length: int, variant: str) -> str:
    """CUDA C of one kernel: ``length`` FFMAs straight; the same in :data:`SEGMENTS` blocks
    each CTA enters at its own (``rotated``); or a ``LOOP_BODY`` loop repeated (``loop``)."""
    if variant == "loop":
        # unroll 1: the loop must stay a loop (its body cached), not become straight code
        body = (f"    #pragma unroll 1\n    for (int r = 0; r < {length // LOOP_BODY}; ++r) {{\n"
                + "\n".join(_ffmas(LOOP_BODY)) + "\n    }")  # fmt: skip
    elif variant == "rotated":
        block = "\n".join(_ffmas(length // SEGMENTS))
        cases = [f"      case {b}: {{\n{block}\n      }} break;" for b in range(SEGMENTS)]
        body = (f"    #pragma unroll 1\n    for (int i = 0; i < {SEGMENTS}; ++i) {{\n"
                f"      switch ((blockIdx.x + i) % {SEGMENTS}) {{\n" + "\n".join(cases)
                + "\n      }\n    }")  # fmt: skip
    elif variant == "straight":
        body = "\n".join(_ffmas(length))
    else:
        raise ValueError(f"unknown variant {variant!r}")
    decl = "\n".join(f"    float acc{a} = x * {a + 1}.0f;" for a in range(ACCUMULATORS))
    total = " + ".join(f"acc{a}" for a in range(ACCUMULATORS))
    return (
        f'extern "C" __global__ void {variant}_{length}(float *out, float x, float y) {{\n'
        f"{decl}\n{body}\n"
        f"    float s = {total};\n"
        "    if (threadIdx.x == 0) out[blockIdx.x] = s;  // keeps every accumulator live\n"
        "}\n"
    )


def time_kernel(cp, kernel, grid: int, threads: int, out) -> float:
    """Median seconds of one launch (7 after a warm-up)."""
    args = (out, cp.float32(1.0001), cp.float32(0.0001))
    kernel((grid,), (threads,), args, shared_mem=SMEM_BYTES)
    times = []
    for _ in range(7):
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        kernel((grid,), (threads,), args, shared_mem=SMEM_BYTES)
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop) * 1e-3)
    return statistics.median(times)


def run() -> dict:
    from gpusim.calibrate.context import import_cupy, make_context

    cp = import_cupy()
    ctx = make_context(cp)
    grid = ctx.sm_count * CTAS_PER_SM * WAVES
    threads = WARPS * 32
    out = cp.zeros(grid, dtype=cp.float32)
    rows = []
    for length in LENGTHS:
        row = {"instructions": length, "code_kib_straight": length * 16 / 1024}
        for variant in VARIANTS:
            name = f"{variant}_{length}"
            k = cp.RawModule(code=source(length, variant)).get_function(name)
            k.max_dynamic_shared_size_bytes = SMEM_BYTES
            t = time_kernel(cp, k, grid, threads, out)
            warp_instr_per_sm = grid * WARPS * length / ctx.sm_count
            row[f"{variant}_ns"] = t * 1e9 / warp_instr_per_sm
            row[f"{variant}_s"] = t
        row["ratio"] = row["straight_ns"] / row["loop_ns"]
        row["rotated_ratio"] = row["rotated_ns"] / row["loop_ns"]
        rows.append(row)
        print(json.dumps(row), flush=True)
    return {"gpu": ctx.gpu_name, "sm_count": ctx.sm_count, "date": ctx.date, "warps": WARPS,
            "ctas_per_sm": CTAS_PER_SM, "waves": WAVES, "accumulators": ACCUMULATORS,
            "loop_body": LOOP_BODY, "segments": SEGMENTS, "rows": rows}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    # --quick changes nothing here: the whole record takes about 40 s
    return standalone.main(__doc__, lambda _quick: run(), argv)


if __name__ == "__main__":
    raise SystemExit(main())
