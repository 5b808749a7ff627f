"""The validation sweep: which attention runs judge the model, and which of them Nsight counts.

Workloads follow the FlashAttention-2 paper's benchmark (batch x length = 16k tokens, heads x
head dim = 2048), so every length fills the GPU. The flash2 runs cover both kernel variants
(tensor-core bf16/fp16, SIMT fp32), block sizes, warps and stages, head dims 64 and 128,
causal and not, lengths 512 to 16384; ``standard`` is cuBLAS products around a softmax kernel.
None of these runs feeds a profile value: calibration used microbenchmarks only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from gpusim.schedule import Schedule
from gpusim.workload import Workload

TOKENS = 16_384
HIDDEN = 2_048
SEQ_LENS = (512, 1024, 2048, 4096, 8192, 16384)
SIMT_SEQ_LENS = (512, 2048, 8192)

Kind = Literal["flash2", "standard"]

#: (block_m, block_n, warps, stages) of the runs that sweep one workload's schedule.
TC_D128_SCHEDULES = (
    (64, 32, 4, 1),
    (64, 64, 4, 2),
    (64, 128, 4, 2),
    (128, 32, 4, 2),
    (128, 32, 8, 3),
    (128, 64, 4, 1),
    (128, 64, 4, 3),
    (128, 64, 8, 2),
    (128, 128, 8, 2),
)
TC_D64_SCHEDULES = ((64, 64, 4, 2), (128, 32, 8, 1), (128, 128, 8, 2))
SIMT_D64_SCHEDULES = ((64, 32, 4, 1), (64, 64, 4, 2), (128, 32, 8, 2), (128, 64, 8, 3))
#: The instance each length/mask sweep runs.
TC_DEFAULT = (128, 64, 4, 2)
SIMT_DEFAULT = {64: (64, 64, 8, 2), 128: (64, 32, 8, 2)}
#: Standard attention: cuBLAS picks its own tiles; the model is given 128 x 128 tiles
#: (a common cuBLAS tile) and a 4-warp softmax CTA per query row, as the softmax kernel runs.
STANDARD_SCHEDULE = (128, 128, 4, 2)


@dataclass(frozen=True)
class ValidationConfig:
    """One measured run: what ran (kind, workload, schedule) and whether Nsight counts it."""

    kind: Kind
    workload: Workload
    schedule: Schedule
    ncu: bool = False

    @property
    def variant(self) -> str:
        """``tc`` (tensor cores), ``simt`` (fp32 CUDA cores) or ``cublas`` (standard)."""
        if self.kind == "standard":
            return "cublas"
        return "simt" if self.workload.dtype == "fp32" else "tc"

    @property
    def config_id(self) -> str:
        """A unique, file-name-safe name, e.g. ``flash2_bf16_d128_n4096_c1_m128n64w4s2``."""
        w, s = self.workload, self.schedule
        # The key length only where it differs (the sweep's ids, all Nq = Nk, read as before).
        n = f"{w.seq_len_q}" + (f"k{w.seq_len_k}" if w.seq_len_k != w.seq_len_q else "")
        return (
            f"{self.kind}_{w.dtype}_d{w.head_dim}_n{n}_c{int(w.causal)}"
            f"_b{w.batch}h{w.heads}_m{s.block_m}n{s.block_n}w{s.warps}s{s.stages}"
        )

    def as_dict(self) -> dict:
        """JSON-ready fields (the dataset stores these beside each measurement)."""
        return {
            "id": self.config_id,
            "kind": self.kind,
            "variant": self.variant,
            "workload": self.workload.model_dump(),
            "schedule": self.schedule.model_dump(),
            "ncu": self.ncu,
        }

    @classmethod
    def from_dict(cls, d: dict) -> ValidationConfig:
        """Inverse of :meth:`as_dict` (``id`` and ``variant`` are derived, not read)."""
        return cls(
            d["kind"], Workload(**d["workload"]), Schedule.from_record(d["schedule"]), d["ncu"]
        )


def paper_workload(n: int, d: int, dtype: str, causal: bool) -> Workload:
    """The FlashAttention-2 benchmark's shape at length ``n``: 16k tokens, hidden 2048."""
    return Workload(
        batch=max(1, TOKENS // n),
        heads=HIDDEN // d,
        seq_len_q=n,
        seq_len_k=n,
        head_dim=d,
        dtype=dtype,
        causal=causal,
    )


def _sched(algorithm: str, bm_bn_w_s: tuple[int, int, int, int]) -> Schedule:
    bm, bn, w, s = bm_bn_w_s
    return Schedule(block_m=bm, block_n=bn, warps=w, stages=s)


#: Config ids counted by Nsight Compute (with the standard runs marked below).
NCU_FLASH2 = {
    ("bf16", 128, 512, False, TC_DEFAULT),
    ("bf16", 128, 4096, False, TC_DEFAULT),
    ("bf16", 128, 16384, False, TC_DEFAULT),
    ("bf16", 128, 4096, True, TC_DEFAULT),
    ("bf16", 64, 4096, False, TC_DEFAULT),
    ("bf16", 64, 16384, True, TC_DEFAULT),
    ("bf16", 128, 4096, False, (64, 32, 4, 1)),
    ("bf16", 128, 4096, False, (128, 128, 8, 2)),
    ("fp32", 64, 2048, False, SIMT_DEFAULT[64]),
    ("fp32", 128, 2048, True, SIMT_DEFAULT[128]),
    # Added for the fourth session's sweep: more runs whose heads straddle waves at depth
    # (long sequences, few heads per wave), one CTA per SM, and the fp32 kernel at length.
    ("bf16", 128, 2048, False, TC_DEFAULT),
    ("bf16", 128, 8192, False, TC_DEFAULT),
    ("bf16", 128, 16384, True, TC_DEFAULT),
    ("bf16", 64, 8192, False, TC_DEFAULT),
    ("bf16", 64, 16384, False, TC_DEFAULT),
    ("bf16", 128, 4096, False, (128, 64, 8, 2)),
    ("fp16", 128, 16384, True, (128, 128, 8, 2)),
    ("fp32", 128, 8192, False, SIMT_DEFAULT[128]),
}
NCU_STANDARD = {(128, 4096), (64, 1024), (64, 16384)}


def _flash2(dtype: str, d: int, n: int, causal: bool, sched: tuple) -> ValidationConfig:
    ncu = (dtype, d, n, causal, sched) in NCU_FLASH2
    return ValidationConfig(
        "flash2", paper_workload(n, d, dtype, causal), _sched("flash2", sched), ncu
    )


def sweep_configs() -> list[ValidationConfig]:
    """The whole sweep, in run order (62 runs: 56 flash2, 6 standard)."""
    out: list[ValidationConfig] = []
    for d in (128, 64):  # tensor cores: every length, both masks, one instance
        for causal in (False, True):
            out += [_flash2("bf16", d, n, causal, TC_DEFAULT) for n in SEQ_LENS]
    out += [_flash2("bf16", 128, 4096, False, s) for s in TC_D128_SCHEDULES if s != TC_DEFAULT]
    out += [_flash2("bf16", 128, 4096, True, s) for s in ((64, 64, 4, 2), (128, 128, 8, 2))]
    out += [_flash2("bf16", 64, 4096, False, s) for s in TC_D64_SCHEDULES]
    out += [
        _flash2("fp16", 128, 2048, False, TC_DEFAULT),
        _flash2("fp16", 64, 8192, True, TC_DEFAULT),
        _flash2("fp16", 128, 16384, True, (128, 128, 8, 2)),
    ]
    for d in (64, 128):  # CUDA cores (fp32 SIMT)
        for causal in (False, True):
            out += [_flash2("fp32", d, n, causal, SIMT_DEFAULT[d]) for n in SIMT_SEQ_LENS]
    out += [_flash2("fp32", 64, 2048, False, s) for s in SIMT_D64_SCHEDULES]
    for d in (64, 128):
        for n in (1024, 4096, 16384):
            out.append(
                ValidationConfig(
                    "standard",
                    paper_workload(n, d, "fp16", False),
                    _sched("standard", STANDARD_SCHEDULE),
                    (d, n) in NCU_STANDARD,
                )
            )
    return out
