"""A kernel description: the schedule plus its implementation class, and its per-step mix.

What the engine times is an algorithm's tile program under a description like this one
(:mod:`gpusim.kernel_class` for the class, :mod:`gpusim.instruction_mix` for the formulas).
:func:`describe` resolves a schedule's class for a workload (the project's kernel where the
schedule leaves it out), checks it, and gives the instruction mix of one steady K/V step,
per compute warp and for the whole CTA, so a kernel nobody compiled (a wgmma one, a TMA
one) can be looked at before its rates exist.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from gpusim.instruction_mix import (
    StepShape,
    bwd_barriers_per_step,
    bwd_step_mix,
    cta_bwd_step_issue,
    cta_mask_issue,
    cta_step_issue,
    issued,
    mask_mix,
    producer_mix,
    step_mix,
)
from gpusim.kernel_class import KernelClass, resolve_class
from gpusim.schedule import Schedule
from gpusim.workload import Workload


class KernelDescription(BaseModel):
    """A schedule, its implementation class (defaults resolved) and where S/P and O live."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    schedule: Schedule
    kernel_class: KernelClass
    dtype: str
    head_dim: int
    #: the workload's pass: the forward's step (two products around a softmax), the
    #: backward's main kernel's (five products; compiled or the formulas), or both
    pass_: str = "fwd"

    @property
    def scores_in(self) -> str:
        """Where S/P live between the products (the schedule's residency)."""
        return self.schedule.residency

    @property
    def output_in(self) -> str:
        """Where the running O lives."""
        return self.schedule.residency

    def step_shape(self, backward: bool = False) -> StepShape:
        """The step's tile per warp; ``backward``: the backward's (its own tiles, if any)."""
        s = self.schedule.backward() if backward else self.schedule
        from gpusim.dtypes import dtype_bytes

        if s.warp_split == "split-k":
            per_warp = (float(s.block_m), s.block_n / s.warps)
        else:
            per_warp = (s.block_m / s.warps, float(s.block_n))
        return StepShape(*per_warp, self.head_dim, s.warps, s.stages, dtype_bytes(self.dtype),
                         s.block_n)  # fmt: skip

    def mix(self, backward: bool = False) -> dict[str, Any]:
        """The steady step's instruction mix from the formulas (warp-instructions per compute
        warp, by opcode class), the mask's, a producer warp's; and what the engine charges
        the CTA's issue lane per step and per masked tile, from the class's
        ``instruction_counts`` (the formulas or the fit); ``backward``: the backward's main
        kernel's step instead (compiled, or the formulas where asked)."""
        shape = self.step_shape(backward)
        if backward:
            barriers = bwd_barriers_per_step(self.schedule.backward().stages)
            per_warp = bwd_step_mix(self.kernel_class, shape, barriers)
            cls = self.kernel_class
            return {
                "step": "backward",
                "instruction_counts": "formulas"
                if cls.instruction_counts == "formulas"
                else "compiled",
                "engine_issue_per_cta": cta_bwd_step_issue(cls, shape, barriers),
                "engine_mask_issue_per_cta": shape.warps * issued(mask_mix(cls, shape)),
                "per_compute_warp": dict(sorted(per_warp.items())),
                "mask_per_compute_warp": dict(sorted(mask_mix(cls, shape).items())),
                "per_producer_warp": {},
                "formulas_issued_per_compute_warp": issued(per_warp),
            }
        per_warp = step_mix(self.kernel_class, shape)
        return {
            "instruction_counts": self.kernel_class.instruction_counts,
            "engine_issue_per_cta": cta_step_issue(self.kernel_class, shape),
            "engine_mask_issue_per_cta": cta_mask_issue(self.kernel_class, shape),
            "per_compute_warp": dict(sorted(per_warp.items())),
            "mask_per_compute_warp": dict(sorted(mask_mix(self.kernel_class, shape).items())),
            "per_producer_warp": dict(sorted(producer_mix(self.kernel_class, shape).items())),
            "formulas_issued_per_compute_warp": issued(per_warp),
        }

    def as_dict(self) -> dict[str, Any]:
        """The class, where S/P and O live, and the step's mix: ``step_mix`` is the pass's
        first kernel's (the backward's main kernel for ``bwd``), and a training step
        (``fwd+bwd``) adds the backward's as ``backward_step_mix``."""
        out = {
            "class": self.kernel_class.model_dump(),
            "label": self.kernel_class.label(),
            "scores_in": self.scores_in,
            "output_in": self.output_in,
            "step_mix": self.mix(backward=self.pass_ == "bwd"),
        }
        if self.pass_ == "fwd+bwd":
            out["backward_step_mix"] = self.mix(backward=True)
        return out


def describe(workload: Workload, schedule: Schedule) -> KernelDescription:
    """The description of ``schedule`` on ``workload``; a one-line GpusimError where the class
    cannot exist for the workload's storage type (``--mma wgmma`` with fp32 ...)."""
    return KernelDescription(
        schedule=schedule,
        kernel_class=resolve_class(schedule, workload.dtype),
        dtype=workload.dtype,
        head_dim=workload.head_dim,
        pass_=workload.pass_,
    )
