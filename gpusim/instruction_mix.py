"""The instruction mix of one K/V step of a FlashAttention-2 loop, from the tile shapes and class.

Counts are warp-instructions per warp (every thread of a warp runs the same code), written
from how a kernel of each class must execute the step, not read from any binary:

Products (``mma`` = mma.sync m16n8k16; a warp owns ``R`` query rows and ``C`` keys of the tile):
    HMMA = R C d / 1024 (QK^T: R/16 x C/8 x d/16 fragments, PV: R/16 x d/8 x C/16);
    LDSM = d C / 256 (K: an ldmatrix.x4 per two n8 tiles per k16) + C d / 256 (V, .trans)
    + R d / 256 (Q's A fragments, unless they stay in registers: 16 rows and d <= 128).
``wgmma`` (a consumer warpgroup owns ``G`` rows, in m64 blocks, and issues one m64nNk16 per
    k16 step, N = C for QK^T and d for PV; B from shared memory, P as A from registers):
    HGMMA = G/64 x (d/16 + C/16) per warp, 4 warpgroup fences (arrive, commit and wait for each
    product), no LDSM.
``ffma`` (the fp32 kernel's thread grid: 16 threads across keys, 2 x warps across rows; a
    thread owns TM rows x TN keys of S and TM rows x d/16 columns of O):
    FFMA = TM TN d + TM (d/16) C, LDS.128 = d/4 (TM + TN) + C/4 (TM + d/16), loop control of the
    two unrolled product loops: 5 per iteration (counter, compare, branch, two address
    increments) over d/16 + C/8 iterations.

Online softmax (per thread: E score elements, H rows, each row shared by L lanes, O_e elements
of O): a max over its elements and log2 L shuffle-maxes per row; one exp per element and one
for each row's rescale factor; an FFMA per element (scale and subtract), two per row (the
factor's argument, l = l * alpha + rowsum); an add per element (the row sum); a multiply per
O element (the rescale) and per row (m times the scale); one compare and select per row (a row
with no key yet); P handed to the second product: packed in pairs into A fragments (F2FP, E/2)
on the tensor cores, stored to shared memory (STS, E) by the fp32 kernel.

Tiles: ``cp.async`` issues one LDGSTS per 16 bytes and thread, each with 8 integer instructions
(the row index, the bounds test and select of the zero-fill, a 64-bit global address in two, the
shared address: swizzle, shift, stage offset; 6 without a swizzle), a commit and a wait; ``plain``
an LDG.128 and an STS.128 per 16 bytes with the same arithmetic and no async bookkeeping;
``tma`` one bulk copy per tile from one warp (2 instructions for its coordinates, 2 for the
mbarrier's expected bytes and arrival) and a wait on the mbarrier (2: try, branch) in every
consumer warp, no per-chunk arithmetic. Producer warps (warp specialization) take the copies
off the compute warps. Per step besides: the loop's counter, compare and branch (3), the
stage ring's indices (4, with more than one stage), the prefetch guard (2), the test whether the
tile needs the mask (6), a stage offset per ldmatrix base address (8, 4 for K and 4 for V, with
more than one stage); the barriers: one ``__syncthreads`` per step with a ring, the single-buffer
order's three (mma) or two (ffma) with one stage, an mbarrier wait instead with TMA.

The mask (a masked tile only): 2 per element (the causal compare, the select of -inf), 2 per
distinct key column the thread holds (its index, the length compare), 1 per row (row + diagonal).

Checked against the SASS of the project's compiled loops by a test (the per-opcode ratios over
the instances are in reports/heldout_shapes/README.md); nothing here is fitted to them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from gpusim.errors import GpusimError
from gpusim.kernel_class import KernelClass

WARP_THREADS = 32
#: Threads across keys in the fp32 kernel's thread grid (flash2_simt.cu, TC).
FFMA_KEY_THREADS = 16
#: Integer instructions per 16-byte copy: row, bounds test, select, global address (2),
#: shared address (swizzle, shift, stage offset: 3; a padded layout: 1).
COPY_INT_SWIZZLED, COPY_INT_PADDED = 8, 6
COPY_BYTES = 16
#: Per step: loop counter, compare, branch; stage indices; prefetch guard; mask test.
LOOP_INT, STAGE_INT, PREFETCH_INT, MASK_TEST_INT = 3, 4, 2, 6
#: Stage offsets of the ldmatrix base addresses (4 for K, 4 for V), with a ring of stages.
LDSM_BASE_INT = 8
#: Integer instructions per iteration of the fp32 kernel's unrolled product loops.
FFMA_LOOP_INT = 5
#: Opcodes of the two products: they run in the step's first phase (tensor and
#: shared-memory lanes), not on the schedulers' issue lane the rest of the mix goes to.
PRODUCT_OPCODES = frozenset({"HMMA", "LDSM", "HGMMA", "WARPGROUP", "FFMA.product",
                             "LDS.product", "INT.product"})  # fmt: skip


@dataclass(frozen=True)
class StepShape:
    """What a step's mix depends on: per-warp tile, head dim, warps, stages, element bytes."""

    rows_per_warp: float  # R: query rows a compute warp owns
    keys: float  # C: keys of the tile each compute warp's rows see
    head_dim: int
    warps: int  # compute warps of the CTA
    stages: int
    elem_bytes: int
    block_n: int  # keys of the K/V tile the CTA loads per step


def _softmax(elems: float, rows: float, lanes: int, o_elems: float, packed: bool) -> dict:
    red = rows * math.log2(lanes)
    mix = {
        "FMNMX": elems + red,
        "SHFL": red,
        "MUFU": elems + rows,
        "FFMA": elems + 2 * rows,
        "FADD": elems,
        "FMUL": o_elems + rows,
        "FSETP": rows,
        "FSEL": rows,
    }
    mix["F2FP" if packed else "STS"] = elems / 2 if packed else elems
    return mix


def _products(cls: KernelClass, s: StepShape) -> tuple[dict, float, float, int, float, bool]:
    """The products' mix and the softmax's per-thread (elements, rows, lanes per row, O)."""
    r, c, d = s.rows_per_warp, s.keys, s.head_dim
    if cls.product == "ffma":
        threads = s.warps * WARP_THREADS
        tm = r * s.warps / (threads / FFMA_KEY_THREADS)  # rows per thread
        tn = c / FFMA_KEY_THREADS  # keys per thread
        dq = d / FFMA_KEY_THREADS  # O columns per thread
        mix = {
            "FFMA.product": tm * tn * d + tm * dq * c,
            "LDS.product": d / 4 * (tm + tn) + c / 4 * (tm + dq),
            "INT.product": FFMA_LOOP_INT * (d / 16 + c / 8),
        }
        return mix, tm * tn, tm, FFMA_KEY_THREADS, tm * dq, False
    elems = r * c / WARP_THREADS  # a quad of lanes holds two rows of each m16 (or m64) block
    rows = r / 8
    o_elems = r * d / WARP_THREADS
    if cls.product == "mma":
        q_in_regs = r <= 16 and d <= 128  # flash2_tc.cu's Q_IN_REGS
        ldsm = d * c / 256 + c * d / 256 + (0 if q_in_regs else r * d / 256)
        mix = {"HMMA": r * c * d / 1024, "LDSM": ldsm}
    else:  # wgmma: a warp's share of its warpgroup's rows is r; the group's is 4 r
        group_rows = 4 * r
        mix = {"HGMMA": group_rows / 64 * (d / 16 + c / 16), "WARPGROUP": 4.0}
    return mix, elems, rows, 4, o_elems, True


def _copies(cls: KernelClass, s: StepShape, consumer: bool) -> dict:
    """Instructions one warp spends on the step's K and V tiles (a compute warp's share when
    ``consumer``, else one producer warp's)."""
    swizzled = cls.product != "ffma"
    if cls.tile_copy == "tma":
        tiles = 2  # K and V
        if consumer:
            return {"SYNCS": 2.0 * tiles}  # wait on each tile's mbarrier: try, branch
        return {"UTMALDG": tiles, "INT": 2.0 * tiles, "SYNCS": 2.0 * tiles}
    copy_warps = cls.producer_warps if cls.producer_warps else s.warps
    if consumer and cls.producer_warps:
        return {}
    per_warp = 2 * s.block_n * s.head_dim * s.elem_bytes / COPY_BYTES / (copy_warps * WARP_THREADS)
    arith = (COPY_INT_SWIZZLED if swizzled else COPY_INT_PADDED) * per_warp
    if cls.tile_copy == "plain":
        return {"LDG": per_warp, "STS.tile": per_warp, "INT": arith}
    return {"LDGSTS": per_warp, "INT": arith, "LDGDEPBAR": 1.0, "DEPBAR": 1.0}


def _step_control(cls: KernelClass, s: StepShape) -> dict:
    ints = LOOP_INT + PREFETCH_INT + MASK_TEST_INT
    if s.stages > 1:
        ints += STAGE_INT + (LDSM_BASE_INT if cls.product == "mma" else 0)
    if cls.tile_copy == "tma" or cls.producer_warps:
        bars = 1.0 if cls.tile_copy != "tma" else 0.0  # mbarrier waits instead (in _copies)
        return {"INT": float(ints), "BAR": bars, "SYNCS": 1.0 if cls.tile_copy == "tma" else 0.0}
    one_buffer_bars = 3.0 if cls.product == "mma" else 2.0
    return {"INT": float(ints), "BAR": 1.0 if s.stages > 1 else one_buffer_bars}


def _add(total: dict, part: dict) -> dict:
    for k, v in part.items():
        if v:
            total[k] = total.get(k, 0.0) + v
    return total


def step_mix(cls: KernelClass, s: StepShape) -> dict[str, float]:
    """Warp-instructions of one compute warp in one steady step (no mask), by opcode class;
    ``compiled`` counts (mma.sync only): the formulas plus what nvcc emits per score element
    (:data:`BWD_COMPILED_PER_ELEMENT`, read off the backward's binary; PyTorch's forward loops
    have the same: d64 and d128 FSETP, FMUL, FADD and FFMA within the rows' 4 of it)."""
    if cls.instruction_counts == "compiled" and cls.product != "mma":
        raise GpusimError(
            f"--instruction-counts compiled describes nvcc's mma.sync FlashAttention-2 loops "
            f"(exp2f without flush-to-zero); {cls.label()} has the formulas"
        )
    products, elems, rows, lanes, o_elems, packed = _products(cls, s)
    mix = dict(products)
    _add(mix, _softmax(elems, rows, lanes, o_elems, packed))
    if cls.instruction_counts == "compiled":
        _add(mix, {op: v * elems for op, v in BWD_COMPILED_PER_ELEMENT.items()})
    _add(mix, _copies(cls, s, consumer=True))
    _add(mix, _step_control(cls, s))
    return mix


def producer_mix(cls: KernelClass, s: StepShape) -> dict[str, float]:
    """Warp-instructions of one producer warp per step (empty without warp specialization;
    with TMA and no producer warps, the copying warp's share, charged to one compute warp)."""
    if not cls.producer_warps and cls.tile_copy != "tma":
        return {}
    mix = _copies(cls, s, consumer=False)
    if cls.producer_warps:
        _add(mix, {"INT": float(LOOP_INT + STAGE_INT), "SYNCS": 2.0})  # its loop, the ring
    return mix


def mask_mix(cls: KernelClass, s: StepShape) -> dict[str, float]:
    """Warp-instructions the mask adds to one compute warp on a masked tile."""
    _, elems, rows, _lanes, _, _ = _products(cls, s)
    # keys a thread holds (shared by its rows): the fp32 grid's 1 in 16; a quad lane's 2 per n8
    columns = s.keys / FFMA_KEY_THREADS if cls.product == "ffma" else s.keys / 4
    return {"INT": 2 * columns + rows, "ISETP.mask": elems, "FSEL": elems}


def issued(mix: dict[str, float]) -> float:
    """The warp-instructions of ``mix`` that the issue lane carries (the products' aside)."""
    return sum(v for k, v in mix.items() if k not in PRODUCT_OPCODES)


# The least-squares fit this module's formulas were written to replace (``sass-fit``): all
# warp-instructions but HMMA and LDSM (mma) or FFMA (ffma) of the loop of
# gpusim/kernels/flash2_tc.cu and flash2_simt.cu, compiled for sm_90 (nvcc 13.0), static
# counts of 9 tc and 5 simt instances as is and with the masking body cut to one element,
# data/h200/2026-11-30_validation_sass_mask_split/; per thread = A x its score elements + B x
# its O elements + C per warp and step; the mask M x score elements + N per warp. Residuals:
# tc within 83 instructions of 208-839, simt within 55 of 430-812.
SASS_FIT = {  # product: (A, B, C, M, N)
    "mma": (5.09, 3.56, 12.0, 3.58, 58.8),
    "ffma": (15.5, 3.33, 165.4, 5.85, 1.67),
}


def fitted_cta_issue(cls: KernelClass, s: StepShape, masked: bool = False) -> float:
    """The fit's warp-instructions of the CTA in one step (``sass-fit``), the mask's apart."""
    a, b, c, m, n = SASS_FIT[cls.product]
    rows_cta = s.rows_per_warp * s.warps if s.keys == s.block_n else s.rows_per_warp
    elems, o_elems = rows_cta * s.block_n, rows_cta * s.head_dim
    if masked:
        return m * elems / WARP_THREADS + n * s.warps
    return (a * elems + b * o_elems) / WARP_THREADS + c * s.warps


def cta_mask_issue(cls: KernelClass, s: StepShape) -> float:
    """Warp-instructions the mask adds to the whole CTA on a masked tile."""
    if cls.instruction_counts == "sass-fit":
        return fitted_cta_issue(cls, s, masked=True)
    return s.warps * issued(mask_mix(cls, s))


def cta_step_issue(cls: KernelClass, s: StepShape, masked: bool = False) -> float:
    """Warp-instructions of the whole CTA in one step on the issue lane (compute warps,
    producer warps, the mask on a masked tile)."""
    if cls.step_issue_per_warp is not None:
        # a compiled loop's own count (its producer warps' work, if any, is in it too)
        return s.warps * cls.step_issue_per_warp + (cta_mask_issue(cls, s) if masked else 0.0)
    if cls.instruction_counts == "sass-fit":
        return fitted_cta_issue(cls, s) + (fitted_cta_issue(cls, s, True) if masked else 0.0)
    per_warp = issued(step_mix(cls, s)) + (issued(mask_mix(cls, s)) if masked else 0.0)
    producers = max(cls.producer_warps, 1 if producer_mix(cls, s) else 0)
    return s.warps * per_warp + producers * issued(producer_mix(cls, s))


#: Backward (FlashAttention-2's ``compute_dq_dk_dv_1colblock``, one query block of a K/V
#: block's CTA; a warp's share ``E = Br Bc / (32 w)`` of the score tile per thread): the
#: probabilities recomputed, an FFMA (scale and subtract the log-sum-exp) and an exp per
#: element; ``dS = P (dP - Dsum)``, a subtraction and a multiply per element; P and dS each
#: converted in pairs (F2FP, E/2) and stored to shared memory for the transposed products
#: (32-bit stores of a pair, E/2 each); dQ's block added into the fp32 accumulator, a RED per
#: element (``Br d / (32 w)``); each row's log-sum-exp and Dsum read from shared memory; the Q
#: and dO tiles copied as the forward copies K and V; the loop's control and barriers.
#: Products: 5 of them, m16n8k16 HMMAs and ldmatrix, in the products' phase (not on the
#: issue lane) as in the forward.
BWD_PRODUCTS = 5
#: ``__syncthreads()`` per query block of the backward's main loop (FlashAttention-2's
#: ``compute_dq_dk_dv_1colblock``: the Q/dO tiles landed; P and dS stored before the
#: transposed products read them; those products done before the next step overwrites
#: them); one more with a single buffer, whose next tiles must wait for this step's.
BWD_BARRIERS_PIPELINED = 3
BWD_BARRIERS_ONE_BUFFER = 4


def bwd_barriers_per_step(stages: int) -> int:
    """Barriers per step of the backward's main kernel (see the constants)."""
    return BWD_BARRIERS_PIPELINED if stages > 1 else BWD_BARRIERS_ONE_BUFFER


#: What nvcc 12-13 emits for that arithmetic (``--instruction-counts compiled``), read off
#: every instance of PyTorch's compiled loop (``data/h200/2026-12-05_torch_flash_bwd_sass``,
#: ``python -m gpusim.reporting.torch_bwd_counts_look``): ``exp2f`` without flush-to-zero
#: compiles to a range check (FSETP) and a halving and squaring around ``MUFU.EX2`` (two
#: FMUL) per element, so subnormal results stay exact (the PTX ISA's ``ex2.approx.f32``
#: without ``.ftz``); the scale and the log-sum-exp's subtraction stay an FMUL and an FADD
#: (no FFMA in any instance's loop); each RED to dQ's accumulator takes its 64-bit address
#: from a LEA pair. Per element (the other terms as the formulas):
BWD_COMPILED_PER_ELEMENT = {"FFMA": -1.0, "FMUL": 3.0, "FADD": 1.0, "FSETP": 1.0}
#: LEAs per RED (the address of each thread's dQ element)
BWD_COMPILED_INT_PER_RED = 2.0


def bwd_step_mix(cls: KernelClass, s: StepShape, barriers: int) -> dict[str, float]:
    """Warp-instructions of one warp in one steady step of the backward's main kernel (no
    mask); ``s.rows_per_warp * s.warps`` query rows (Br), ``s.keys`` keys (Bc). What nvcc
    emits for the arithmetic (see the constants; the default since held-out set 38,
    ``reports/torch_heldout38``) unless the class's ``instruction_counts`` is ``formulas``:
    the source's arithmetic, one instruction an operation."""
    if cls.product != "mma" or cls.tile_copy != "cp.async" or cls.producer_warps:
        raise GpusimError(
            f"flash2's backward step is described for mma.sync products fed by cp.async "
            f"(fp16/bf16), not {cls.label()}: it has no timing for this class"
        )
    br, bc, d, w = s.rows_per_warp * s.warps, s.keys, s.head_dim, s.warps
    elems = br * bc / (WARP_THREADS * w)
    rows = s.rows_per_warp / 8  # rows of a thread in a warp's m16 blocks (two per eight)
    copy_per_warp = 2 * br * d * s.elem_bytes / COPY_BYTES / (w * WARP_THREADS)
    ints = LOOP_INT + PREFETCH_INT + MASK_TEST_INT
    if s.stages > 1:
        ints += STAGE_INT + LDSM_BASE_INT
    mix = {
        "HMMA": BWD_PRODUCTS * br * bc * d / (4096 * w) * 2,
        "FFMA": elems,
        "MUFU": elems,
        "FADD": elems,
        "FMUL": elems,
        "F2FP": elems,
        "STS": elems,
        "RED": br * d / (WARP_THREADS * w),
        "LDS": 2 * rows,
        "LDGSTS": copy_per_warp,
        "INT": COPY_INT_SWIZZLED * copy_per_warp + ints,
        "LDGDEPBAR": 1.0,
        "DEPBAR": 1.0,
        "BAR": float(barriers),
    }
    if cls.instruction_counts != "formulas":
        for op, per_element in BWD_COMPILED_PER_ELEMENT.items():
            mix[op] = mix.get(op, 0.0) + per_element * elems
        mix["INT"] += BWD_COMPILED_INT_PER_RED * mix["RED"]
    return mix


def cta_bwd_step_issue(
    cls: KernelClass, s: StepShape, barriers: int, masked: bool = False
) -> float:
    """Warp-instructions of the whole CTA in one backward step on the issue lane (the mask's
    formula on a masked tile: the compiled forward's fit does not describe this loop)."""
    if cls.step_issue_per_warp is not None:
        per_warp = cls.step_issue_per_warp  # a compiled backward loop's own count
    else:
        per_warp = issued(bwd_step_mix(cls, s, barriers))
    if masked:
        per_warp += issued(mask_mix(cls, s))
    return s.warps * per_warp
