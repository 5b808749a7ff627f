"""The compiled instances of the Hopper ``flash3_wgmma`` kernel and the rules they obey.

A :class:`WgmmaInstance` is one template instantiation ``flash3_wgmma<BF16, D, BC, STAGES,
NC>``: NC consumer warpgroups of 64 query rows each (Br = 64·NC) plus one producer
warpgroup, key blocks of Bc rows in a ring of ``stages`` shared-memory slots. The rules are
wgmma's (M = 64 per warpgroup; N of S = Q K^T is Bc, a multiple of 8 up to 256; 16-bit inputs
only), the kernel's (Bc a multiple of 16 for the P V k-steps, d in {64, 128, 256}), and the
H200's (shared memory per block; registers per thread after ``setmaxnreg``).
"""

from __future__ import annotations

from dataclasses import dataclass

from gpusim.errors import GpusimError

WGMMA_DTYPES = ("bf16", "fp16")
WGMMA_HEAD_DIMS = (64, 128, 256)
#: Opt-in shared memory per block on sm_90 (H100/H200).
SMEM_PER_BLOCK_OPTIN_BYTES = 232_448
#: Registers per consumer thread after ``setmaxnreg.inc`` (producer keeps 24).
CONSUMER_REGS = {1: 240, 2: 240, 3: 160}
PRODUCER_WARPS = 4
#: Slack the kernel adds to align its panels to 1024 bytes (128-byte swizzle).
ALIGN_SLACK_BYTES = 1024


@dataclass(frozen=True, order=True)
class WgmmaInstance:
    """One template instance of ``flash3_wgmma``."""

    dtype: str
    head_dim: int
    block_n: int
    stages: int
    consumer_wgs: int
    #: The two consumer warpgroups take turns issuing products (named barriers).
    pingpong: bool = False
    #: Grouped K/V heads (GQA/MQA): query head h reads K/V head h / group.
    gqa: bool = False
    #: Split-KV (FlashDecoding): a CTA per (query block, split), partials merged by
    #: flash2_combine.cu.
    split: bool = False

    def __post_init__(self) -> None:
        check_shape(self.dtype, self.head_dim, 64 * self.consumer_wgs, self.block_n)
        if not 1 <= self.consumer_wgs <= 3:
            raise GpusimError(f"consumer warpgroups must be 1..3, got {self.consumer_wgs}")
        if self.pingpong and self.consumer_wgs != 2:
            raise GpusimError("ping-pong scheduling takes exactly two consumer warpgroups")
        if not 1 <= self.stages <= 4:
            raise GpusimError(f"stages must be 1..4, got {self.stages}")

    @property
    def block_m(self) -> int:
        """Query rows per CTA: 64 per consumer warpgroup."""
        return 64 * self.consumer_wgs

    @property
    def threads(self) -> int:
        """Threads per CTA: the producer warpgroup and the consumers."""
        return 128 * (self.consumer_wgs + 1)

    @property
    def producer_warps(self) -> int:
        """Warps of the producer warpgroup (one thread of them issues the copies)."""
        return PRODUCER_WARPS

    @property
    def smem_bytes(self) -> int:
        """Dynamic shared memory: Q tile, K and V rings, barriers, alignment slack."""
        q = self.block_m * self.head_dim * 2
        kv = 2 * self.stages * self.block_n * self.head_dim * 2
        barriers = 8 * (1 + 4 * self.stages)
        return q + kv + barriers + ALIGN_SLACK_BYTES

    @property
    def accumulator_regs(self) -> int:
        """fp32 S and O accumulators plus the 16-bit P fragments, per consumer thread."""
        return self.block_n // 2 + self.head_dim // 2 + self.block_n // 4

    @property
    def key(self) -> str:
        """Stable name, e.g. ``wgmma_bf16_d128_m128_n128_s2_c2``."""
        return (
            f"wgmma_{self.dtype}_d{self.head_dim}_m{self.block_m}_n{self.block_n}"
            f"_s{self.stages}_c{self.consumer_wgs}{'_pp' if self.pingpong else ''}"
            f"{'_gqa' if self.gqa else ''}{'_split' if self.split else ''}"
        )

    @property
    def name_expression(self) -> str:
        """The C++ expression NVRTC instantiates."""
        bf16 = "true" if self.dtype == "bf16" else "false"
        pp = "true" if self.pingpong else "false"
        tail = ""
        if self.gqa or self.split:  # the instances without either keep their old name
            tail = f",{str(self.gqa).lower()},{str(self.split).lower()}"
        return (
            f"flash3_wgmma<{bf16},{self.head_dim},{self.block_n},{self.stages},"
            f"{self.consumer_wgs},{pp}{tail}>"
        )

    def describe(self) -> dict:
        """The catalogue record: tiling, warps, shared memory."""
        return {
            "key": self.key,
            "dtype": self.dtype,
            "head_dim": self.head_dim,
            "block_m": self.block_m,
            "block_n": self.block_n,
            "stages": self.stages,
            "consumer_warpgroups": self.consumer_wgs,
            "pingpong": self.pingpong,
            "gqa": self.gqa,
            "split": self.split,
            "producer_warps": self.producer_warps,
            "threads": self.threads,
            "smem_bytes": self.smem_bytes,
        }


def check_shape(dtype: str, head_dim: int, block_m: int, block_n: int) -> None:
    """Raise GpusimError naming the rule a wgmma tiling breaks."""
    if dtype not in WGMMA_DTYPES:
        raise GpusimError(f"wgmma kernels take bf16 or fp16 inputs, not {dtype}")
    if head_dim not in WGMMA_HEAD_DIMS:
        raise GpusimError(f"wgmma kernel head dim must be one of {WGMMA_HEAD_DIMS}, got {head_dim}")
    if block_m % 64 or block_m <= 0:
        raise GpusimError(
            f"wgmma M is 64 per warpgroup: Br must be a multiple of 64, got {block_m}"
        )
    if block_n % 8 or not 8 <= block_n <= 256:
        raise GpusimError(f"wgmma N must be a multiple of 8 in 8..256: Bc = {block_n}")
    if block_n % 16:
        raise GpusimError(f"Bc must be a multiple of 16 (k16 steps of P V), got {block_n}")


def feasible(inst: WgmmaInstance, smem_limit: int = SMEM_PER_BLOCK_OPTIN_BYTES) -> str | None:
    """None if the instance fits the H200, else why not."""
    if inst.smem_bytes > smem_limit:
        return f"{inst.key}: {inst.smem_bytes} bytes of shared memory > {smem_limit}"
    budget = CONSUMER_REGS[inst.consumer_wgs] - 40  # addresses, m, l, loop state
    if inst.accumulator_regs > budget:
        return (
            f"{inst.key}: {inst.accumulator_regs} accumulator registers per consumer thread "
            f"> {budget} of its {CONSUMER_REGS[inst.consumer_wgs]}"
        )
    return None


#: d -> (Bc, stages, consumer warpgroups) tilings built and timed, both dtypes.
TILINGS = {
    64: ((128, 2, 2), (192, 2, 2), (128, 2, 3), (96, 3, 3)),
    128: ((128, 2, 2), (128, 3, 2), (176, 2, 2), (96, 2, 2), (64, 2, 2)),
    256: ((80, 2, 2), (64, 2, 2), (64, 2, 1)),
}


#: d -> Bc of the ping-pong instances (2 stages, 2 consumer warpgroups).
PINGPONG_BLOCK_N = {64: (128, 192), 128: (128, 176), 256: (80, 64)}


def all_instances(smem_limit: int = SMEM_PER_BLOCK_OPTIN_BYTES) -> list[WgmmaInstance]:
    """Every catalogued tiling for both dtypes that fits (sorted)."""
    out = []
    for dtype in WGMMA_DTYPES:
        for d, tilings in TILINGS.items():
            cands = [WgmmaInstance(dtype, d, bc, st, nc) for bc, st, nc in tilings]
            cands += [WgmmaInstance(dtype, d, bc, 2, 2, True) for bc in PINGPONG_BLOCK_N[d]]
            out += [i for i in cands if feasible(i, smem_limit) is None]
    return sorted(out)
