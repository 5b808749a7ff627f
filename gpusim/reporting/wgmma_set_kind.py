"""What a held-out set of issue 20's Hopper kernel is (:class:`HeldoutSet`), its workloads'
names and the manifest committed before it is measured; the sets themselves are
:mod:`gpusim.reporting.wgmma_sets`."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpusim.kernel_catalog.wgmma_instances import WgmmaInstance, all_instances
from gpusim.workload import Workload

PROFILE = "h200-sxm"
#: The tuner's fixed-rule baseline: FlashAttention-3's usual tile for each head size.
FIXED_RULE = {64: (128, 128, 2, 2), 128: (128, 128, 2, 2), 256: (128, 64, 2, 2)}
TARGETS = (
    "runtime MAPE <= 5 %, mean signed within +-2 %; tune: Spearman >= 0.85 "
    "and first choice within 3 % of the measured best in every workload"
)
NOT_JUDGED = (
    "ping-pong instances (_pp): the kernel description cannot say that two "
    "consumer warpgroups take turns; measured and listed, not scored"
)
#: The record the ping-pong variants' softmax cycles per instruction come from.
PINGPONG_RECORD = "data/h200/2026-12-04_calibration_wgmma_step"


@dataclass(frozen=True)
class HeldoutSet:
    """One held-out set. ``variants`` maps a model variant's name to the profile fields it
    drops from :data:`PROFILE` (empty: the profile as committed); each variant's predictions
    are committed under ``predictions`` with the variant's name in the file name."""

    name: str
    #: (dtype, head_dim, causal, batch, heads, seq_len): none of them is a paper-sweep point
    workloads: tuple[tuple[str, int, bool, int, int, int], ...]
    what: str
    measured: Path
    variants: dict[str, tuple[str, ...]] = field(default_factory=lambda: {"model": ()})
    extra: dict[str, str] = field(default_factory=dict)
    #: schedule fields a variant sets on every instance's schedule (a variant that drops a
    #: profile field the class needs also names the class that does without it)
    variant_schedules: dict[str, dict[str, str]] = field(default_factory=dict)
    #: the wgmma_step rows (``step`` or ``fill``) whose softmax cycles per instruction a
    #: variant adds to the profile (gpusim.calibrate.wgmma_pingpong)
    variant_pingpong: dict[str, str] = field(default_factory=dict)
    #: a variant that is another profile as committed (a set judged on whichever card the
    #: device lends): the variant's name is the profile's
    variant_profiles: tuple[str, ...] = ()
    #: a variant that is a committed profile with an engine candidate switched on: name ->
    #: (profile, switch); the only switch is ``lone_stream_masks``
    #: (:func:`gpusim.engine.wgmma_rates.lone_stream_masks`)
    variant_switches: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: a variant that is a committed profile with fields of a wgmma_step record: name ->
    #: (profile, record file, row family, fields taken from
    #: :func:`gpusim.calibrate.wgmma_pingpong.entries`)
    variant_records: dict[str, tuple[str, str, str, tuple[str, ...]]] = field(default_factory=dict)

    @property
    def folder(self) -> Path:
        return Path("reports/kernels/wgmma") / self.name

    @property
    def manifest_path(self) -> Path:
        return self.folder / "manifest.json"

    def predictions_path(self, variant: str = "model") -> Path:
        if variant in (*self.variant_profiles, *self.variant_switches, *self.variant_records):
            return self.folder / f"predictions_{variant}.json"
        tail = "" if variant == "model" else f"_{variant}"
        return self.folder / f"predictions_{PROFILE}{tail}.json"

    def profile_of(self, variant: str) -> str:
        """The profile a variant starts from: its own where it names one, else PROFILE."""
        if variant in self.variant_switches:
            return self.variant_switches[variant][0]
        if variant in self.variant_records:
            return self.variant_records[variant][0]
        return variant if variant in self.variant_profiles else PROFILE


def workload_id(w: tuple) -> str:
    dtype, d, causal, b, h, n = w
    return f"{dtype}_d{d}_{'causal' if causal else 'full'}_b{b}h{h}n{n}"


def make_workload(w: tuple) -> Workload:
    dtype, d, causal, b, h, n = w
    return Workload(
        batch=b, heads=h, seq_len_q=n, seq_len_k=n, head_dim=d, dtype=dtype, causal=causal
    )


def instances_for(dtype: str, d: int) -> list[WgmmaInstance]:
    return [i for i in all_instances() if i.dtype == dtype and i.head_dim == d]


def manifest(s: HeldoutSet) -> dict[str, Any]:
    """The set as committed before it is measured: every (workload, instance) and whether it
    is judged, with a digest the measurement records."""
    configs = []
    for w in s.workloads:
        for inst in instances_for(w[0], w[1]):
            configs.append(
                {
                    "id": f"{workload_id(w)}:{inst.key}",
                    "workload": workload_id(w),
                    "instance": inst.key,
                    "judged": not inst.pingpong,
                }
            )
    body = json.dumps(configs, sort_keys=True)
    doc: dict[str, Any] = {
        "kind": "gpusim.wgmma_heldout_manifest",
        "what": s.what,
        "profile": PROFILE,
        "workloads": {workload_id(w): make_workload(w).model_dump() for w in s.workloads},
        "not_judged": NOT_JUDGED,
        "fixed_rule": {str(d): list(v) for d, v in FIXED_RULE.items()},
        "targets": TARGETS,
    }
    if s.variants != {"model": ()}:
        doc["variants"] = {k: {"drops_profile_fields": list(v)} for k, v in s.variants.items()}
        for k, fields in s.variant_schedules.items():
            doc["variants"][k]["schedule_fields"] = fields
        for k, rows in s.variant_pingpong.items():
            doc["variants"][k]["adds_profile_fields"] = {
                "wgmma_softmax_cycles_per_instr_*_warpgroups": f"{PINGPONG_RECORD}, {rows} rows"
            }
        for k, (profile, record, rows, fields) in s.variant_records.items():
            doc["variants"][k] |= {
                "profile": profile,
                "adds_profile_fields": {f: f"{record}, {rows} rows" for f in fields},
            }
    doc |= s.extra
    doc["configs_sha256"] = hashlib.sha256(body.encode()).hexdigest()
    doc["configs"] = configs
    return doc


def record_fields(hw: Any, record: str, family: str, fields: tuple[str, ...]) -> Any:
    """``hw`` with ``fields`` of a wgmma_step record's ``family`` rows set (only those: a
    variant judges one field at a time); a per-tile table among ``fields`` is of the rows off
    SHAPES, or of every row for ``family/every``."""
    from gpusim.calibrate.wgmma_pingpong import BY_BLOCK_N, entries
    from gpusim.data.layout import REPO_ROOT
    from gpusim.profiles.schema import HardwareProfile

    doc = json.loads((REPO_ROOT / record).read_text())
    family, _, scope = family.partition("/")
    tiles = (scope or "gap") if BY_BLOCK_N in fields else None
    got = entries(doc, str(Path(record).parent), family, tiles)
    if missing := [f for f in fields if f not in got]:
        raise ValueError(f"{record} gives no {', '.join(missing)} from its {family} rows")
    return HardwareProfile.model_validate(hw.model_dump() | {f: got[f] for f in fields})


#: The two softmax cycles-per-instruction fields of the ping-pong bound.
PINGPONG_FIELDS = (
    "wgmma_softmax_cycles_per_instr_2_warpgroups",
    "wgmma_softmax_cycles_per_instr_3_warpgroups",
)
#: both fields and the per-tile table
BY_N = (*PINGPONG_FIELDS, "wgmma_softmax_cycles_per_instr_by_block_n")
#: The profiles a set predicts for each card the device may lend.
CARD_PROFILES = ("h200-sxm", "h100-sxm5", "h100-sxm5-measured")


def card_variants(*others: str) -> dict[str, tuple[str, ...]]:
    """A card set's variants: each card profile as committed and ``others``, none dropping a
    field."""
    return {p: () for p in (*CARD_PROFILES, *others)}
