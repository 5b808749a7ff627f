"""The SM-partition set's configurations (issue 19, item 4), fixed in a manifest before they run.

    python -m gpusim.validation.partition_configs --write PATH   # the manifest (JSON)
    python -m gpusim.validation.partition_configs --list         # one line per config

Every workload is bf16, d128; each runs on green-context partitions of 8, 16, 32, 72 and
132 SMs (132: the whole H200, a green context too), for the project's ``mma.sync`` flash2
kernel (prefill tile 128 x 64, 4 warps, 2 stages; decode tile 64 x 64) and for PyTorch's
flash backend given the schedule it runs (:func:`torch_flash_schedule` with the 132 SMs
the device reports: PyTorch sizes its split heuristic by the device's SM count, which a
green context does not change; no workload here is split on 132 SMs, so none is split on
a partition either). Workloads: prefill N 2048 (batch 2, 16 heads) causal and not, N 4096
causal, N 8192 (batch 1, 16 heads) causal and not, and one decode-like shape (batch 16,
32 heads, one query against 8192 keys). The manifest is the source of truth: the device
harness, ``predict`` and ``compare`` read it, not this module.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from gpusim.errors import GpusimError
from gpusim.schedule import Schedule
from gpusim.validation import config_manifest
from gpusim.validation.torch_flash_schedule import schedule_before_set43
from gpusim.workload import Workload

MANIFEST_KIND = "gpusim.partitions_manifest"
MANIFEST_SCHEMA = 1
H200_SMS = 132
#: Partition sizes asked of the driver (multiples of its 8-SM granularity, and the whole GPU).
SM_COUNTS = (8, 16, 32, 72, 132)
DTYPE, HEAD_DIM = "bf16", 128
PREFILL_TILE = (128, 64, 4, 2)
DECODE_TILE = (64, 64, 4, 2)

Kernel = Literal["project", "torch"]
Group = Literal["prefill", "decode"]

#: (group, batch, heads, Nq, Nk, causal), in run order.
WORKLOADS: tuple[tuple[Group, int, int, int, int, bool], ...] = (
    ("prefill", 2, 16, 2048, 2048, False),
    ("prefill", 2, 16, 2048, 2048, True),
    ("prefill", 1, 16, 4096, 4096, True),
    ("prefill", 1, 16, 8192, 8192, False),
    ("prefill", 1, 16, 8192, 8192, True),
    ("decode", 16, 32, 1, 8192, False),
)


@dataclass(frozen=True)
class PartitionConfig:
    """One measured run: which kernel on how many SMs (asked of the driver), the workload,
    and the schedule given to the model (PyTorch's: the one its flash backend runs)."""

    kernel: Kernel
    group: Group
    sm_count: int
    workload: Workload
    schedule: Schedule

    @property
    def config_id(self) -> str:
        """A unique, file-name-safe name, e.g.
        ``project_sm8_prefill_b2h16_q2048k2048_c0_m128n64w4s2_sp1``."""
        w, s = self.workload, self.schedule
        return (
            f"{self.kernel}_sm{self.sm_count}_{self.group}_b{w.batch}h{w.heads}"
            f"_q{w.seq_len_q}k{w.seq_len_k}_c{int(w.causal)}"
            f"_m{s.block_m}n{s.block_n}w{s.warps}s{s.stages}_sp{s.kv_splits}"
        )

    def as_dict(self) -> dict:
        """JSON-ready fields (the manifest and every record store these)."""
        return {
            "id": self.config_id,
            "kernel": self.kernel,
            "group": self.group,
            "sm_count": self.sm_count,
            "workload": self.workload.model_dump(),
            "schedule": self.schedule.model_dump(),
        }

    @classmethod
    def from_dict(cls, d: dict) -> PartitionConfig:
        """Inverse of :meth:`as_dict`; the id is derived, and checked."""
        c = cls(
            d["kernel"],
            d["group"],
            int(d["sm_count"]),
            Workload(**d["workload"]),
            Schedule.from_record(d["schedule"]),
        )
        if "id" in d and d["id"] != c.config_id:
            raise GpusimError(f"manifest entry {d['id']!r} does not match its fields")
        return c


def _workload(b: int, h: int, nq: int, nk: int, causal: bool) -> Workload:
    return Workload(
        batch=b, heads=h, seq_len_q=nq, seq_len_k=nk, head_dim=HEAD_DIM, dtype=DTYPE,
        causal=causal,
    )  # fmt: skip


def partition_configs(workloads=WORKLOADS, torch_schedule=None) -> list[PartitionConfig]:
    """The whole set in run order: per workload, per partition, the project's kernel then
    PyTorch's (60 runs for :data:`WORKLOADS`; a held-out set passes its own).
    ``torch_schedule(workload, sm_count)`` gives PyTorch's schedule to the model (default: as
    the sets before held-out set 43 had it)."""
    out: list[PartitionConfig] = []
    for group, b, h, nq, nk, causal in workloads:
        w = _workload(b, h, nq, nk, causal)
        bm, bn, warps, stages = DECODE_TILE if group == "decode" else PREFILL_TILE
        mine = Schedule(block_m=bm, block_n=bn, warps=warps, stages=stages)
        theirs = (torch_schedule or schedule_before_set43)(w, H200_SMS)
        for n in SM_COUNTS:
            out.append(PartitionConfig("project", group, n, w, mine))
            out.append(PartitionConfig("torch", group, n, w, theirs))
    return out


def manifest_doc(configs: list[PartitionConfig]) -> dict:
    """The manifest: what it is, a digest of its configurations, and the configurations."""
    what = (
        "issue 19 SM-partition set: configurations fixed before they are measured "
        "(python -m gpusim.validation.partition_configs --write)"
    )
    return config_manifest.manifest_doc(
        [c.as_dict() for c in configs], MANIFEST_KIND, MANIFEST_SCHEMA, what
    )


def read_manifest(path: Path) -> list[PartitionConfig]:
    """The configurations of a manifest file; GpusimError if it is not one or was edited."""
    return config_manifest.read_manifest(
        path, MANIFEST_KIND, "partitions", PartitionConfig.from_dict, PartitionConfig.as_dict
    )


def set_command(
    prog: str,
    description: str,
    configs: list[PartitionConfig],
    argv: list[str] | None,
    what: str | None = None,
    rule: str | None = None,
) -> int:
    """A partition set's ``--write PATH`` / ``--list`` command: its manifest (with what it is
    and the decision rule fixed before it is measured, where given), write-once, or its ids."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--write", type=Path, default=None, help="manifest file to write")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args(argv)
    doc = manifest_doc(configs)
    if what is not None:
        doc["what"] = what
    if rule is not None:
        doc["decision_rule"] = rule
    lines = [c.config_id for c in configs]
    return config_manifest.write_or_list(prog, args.write, args.list, doc, lines)


def main(argv: list[str] | None = None) -> int:
    """Write the manifest, or list the configurations."""
    return set_command("partition_configs", __doc__.splitlines()[0], partition_configs(), argv)


if __name__ == "__main__":
    raise SystemExit(main())
