"""The long-context sweep's configurations (issue 18), fixed in a manifest before they run.

    python -m gpusim.validation.long_context_configs --write PATH   # the manifest (JSON)
    python -m gpusim.validation.long_context_configs --list         # one line per config

Four groups, all d128 bf16 with 32 query heads unless said:

- ``decode``: Nq in (1, 16, 128) against a KV cache of 4k to 128k keys, batch 1 to 64
  (batch x keys <= 256k, so that K and V stay under 4.3 GB), bottom-right causal (Nq = 1:
  no mask in effect); the project's kernel at kv_splits 1, 4 and 16 (tile 64 x 64, 4 warps,
  2 stages), PyTorch's flash backend beside it.
- ``gqa_decode``: the same with 8 and 4 K/V heads (batch 8, 32k keys, Nq 1 and 16).
- ``gqa_prefill``: 16k tokens, 8 and 4 K/V heads, causal and not; the project's kernel
  walking its keys forward and backward (tile 128 x 64, 4 warps, 2 stages).
- ``prefill``: batch 1, 16 heads, 16k to 128k tokens, causal and not, both KV orders, and
  the first query blocks first for two causal lengths; Nsight Compute counts the DRAM bytes
  of every run of this group (``ncu``), PyTorch's too.

PyTorch's runs carry the schedule its flash backend chooses
(:func:`gpusim.validation.torch_flash_schedule.schedule_before_set43`, 132 SMs: the fit's
instruction counts these sets judged), so that the
model is given the tiles and split count that kernel really runs. The manifest is the
source of truth: the sweep, ``predict`` and ``compare`` read it, not this module.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from gpusim.data.layout import H200
from gpusim.errors import GpusimError
from gpusim.schedule import Schedule
from gpusim.validation import config_manifest
from gpusim.validation.torch_flash_schedule import schedule_before_set43
from gpusim.workload import Workload

MANIFEST_KIND = "gpusim.long_context_manifest"
MANIFEST_SCHEMA = 1
H200_SMS = 132

Kernel = Literal["project", "torch"]
Group = Literal["decode", "gqa_decode", "gqa_prefill", "prefill"]

HEADS, HEAD_DIM, DTYPE = 32, 128, "bf16"
DECODE_QUERIES = (1, 16, 128)
#: (batch, keys) of the decode runs: batch 1 to 64, 4k to 128k keys, batch x keys <= 256k.
DECODE_CACHES = ((1, 4096), (1, 32768), (1, 131072), (8, 32768), (64, 4096))
DECODE_SPLITS = (1, 4, 16)
#: (Br, Bc, warps, stages) of the project's decode and prefill runs.
DECODE_TILE = (64, 64, 4, 2)
PREFILL_TILE = (128, 64, 4, 2)
GQA_KV_HEADS = (8, 4)
GQA_DECODE = (8, 32768, (1, 16))  # batch, keys, query counts
GQA_PREFILL_TOKENS = 16384
PREFILL_HEADS = 16
PREFILL_TOKENS = (16384, 32768, 65536, 131072)
#: Causal lengths also run with the first query blocks launched first.
Q_FIRST_TOKENS = (32768, 131072)


@dataclass(frozen=True)
class LongContextConfig:
    """One measured run: which kernel, which group, the workload and the schedule given to
    the model (for PyTorch's runs: the one its flash backend chooses), and whether Nsight
    Compute counts it."""

    kernel: Kernel
    group: Group
    workload: Workload
    schedule: Schedule
    ncu: bool = False

    @property
    def config_id(self) -> str:
        """A unique, file-name-safe name, e.g.
        ``project_decode_b1h32kv32_q1k4096_c1_m64n64w4s2_sp4_fwd_lf``."""
        w, s = self.workload, self.schedule
        order = f"{'bwd' if s.kv_order == 'backward' else 'fwd'}_"
        order += "ff" if s.q_order == "first-first" else "lf"
        return (
            f"{self.kernel}_{self.group}_b{w.batch}h{w.heads}kv{w.kv_heads}"
            f"_q{w.seq_len_q}k{w.seq_len_k}_c{int(w.causal)}"
            f"_m{s.block_m}n{s.block_n}w{s.warps}s{s.stages}_sp{s.kv_splits}_{order}"
            + ("_pack" if s.pack_gqa else "")
            + (f"_d{w.head_dim}" if w.head_dim != HEAD_DIM else "")  # the sweep's are all d128
        )

    def as_dict(self) -> dict:
        """JSON-ready fields (the manifest and every record store these)."""
        return {
            "id": self.config_id,
            "kernel": self.kernel,
            "group": self.group,
            "workload": self.workload.model_dump(),
            "schedule": self.schedule.model_dump(),
            "ncu": self.ncu,
        }

    @classmethod
    def from_dict(cls, d: dict) -> LongContextConfig:
        """Inverse of :meth:`as_dict`; the id is derived, and checked."""
        c = cls(
            d["kernel"],
            d["group"],
            Workload(**d["workload"]),
            Schedule.from_record(d["schedule"]),
            bool(d.get("ncu", False)),
        )
        if "id" in d and d["id"] != c.config_id:
            raise GpusimError(f"manifest entry {d['id']!r} does not match its fields")
        return c


def _sched(tile: tuple[int, int, int, int], **fields) -> Schedule:
    bm, bn, w, s = tile
    return Schedule(block_m=bm, block_n=bn, warps=w, stages=s, **fields)


def _pair(group: Group, w: Workload, schedules: list[Schedule], ncu: bool = False) -> list:
    """The project's kernel at each schedule, then PyTorch's with the schedule it runs."""
    out = [LongContextConfig("project", group, w, s, ncu) for s in schedules]
    return [*out, LongContextConfig("torch", group, w, schedule_before_set43(w, H200_SMS), ncu)]


def set_workload(
    b: int, h: int, hkv: int, nq: int, nk: int, causal: bool, head_dim: int = HEAD_DIM
) -> Workload:
    """A long-context set's bf16 workload: batch, heads, K/V heads, queries, keys, mask."""
    return Workload(
        batch=b, heads=h, heads_kv=hkv, seq_len_q=nq, seq_len_k=nk, head_dim=head_dim,
        dtype=DTYPE, causal=causal,
    )  # fmt: skip


def run_group(w: Workload) -> Group:
    """A run's group from its workload: decode where the queries are fewer than the keys,
    prefill otherwise; grouped (``gqa_``) where the K/V heads are fewer than the heads."""
    kind = "decode" if w.seq_len_q < w.seq_len_k else "prefill"
    return f"gqa_{kind}" if w.kv_heads != w.heads else kind  # type: ignore[return-value]


def torch_runs(shapes) -> list[LongContextConfig]:
    """PyTorch's flash backend on ``shapes`` (batch, heads, K/V heads, queries, keys, and
    optionally head dim and causal: d128 and causal without them) with the schedule it runs,
    grouped by :func:`run_group`."""
    out = []
    for row in shapes:
        b, h, hkv, nq, nk = row[:5]
        d, causal = row[5:] if len(row) == 7 else (HEAD_DIM, True)
        w = set_workload(b, h, hkv, nq, nk, causal, d)
        out.append(LongContextConfig("torch", run_group(w), w, schedule_before_set43(w, H200_SMS)))
    return out


def long_context_configs() -> list[LongContextConfig]:
    """The whole sweep in run order (114 runs: 84 of the project's kernel, 30 PyTorch's)."""
    out: list[LongContextConfig] = []
    splits = [_sched(DECODE_TILE, kv_splits=n) for n in DECODE_SPLITS]
    for b, nk in DECODE_CACHES:
        for nq in DECODE_QUERIES:
            out += _pair("decode", set_workload(b, HEADS, HEADS, nq, nk, True), splits)
    b, nk, queries = GQA_DECODE
    for hkv in GQA_KV_HEADS:
        for nq in queries:
            out += _pair("gqa_decode", set_workload(b, HEADS, hkv, nq, nk, True), splits)
    orders = [_sched(PREFILL_TILE), _sched(PREFILL_TILE, kv_order="backward")]
    n = GQA_PREFILL_TOKENS
    for hkv in GQA_KV_HEADS:
        for causal in (False, True):
            out += _pair("gqa_prefill", set_workload(1, HEADS, hkv, n, n, causal), orders)
    for n in PREFILL_TOKENS:
        for causal in (False, True):
            scheds = list(orders)
            if causal and n in Q_FIRST_TOKENS:
                scheds.append(_sched(PREFILL_TILE, q_order="first-first"))
            w = set_workload(1, PREFILL_HEADS, PREFILL_HEADS, n, n, causal)
            out += _pair("prefill", w, scheds, ncu=True)
    return out


def manifest_doc(configs: list[LongContextConfig]) -> dict:
    """The manifest: what it is, a digest of its configurations, and the configurations."""
    what = (
        "issue 18 long-context sweep: configurations fixed before they are measured "
        "(python -m gpusim.validation.long_context_configs --write)"
    )
    return config_manifest.manifest_doc(
        [c.as_dict() for c in configs], MANIFEST_KIND, MANIFEST_SCHEMA, what
    )


def read_manifest(path: Path) -> list[LongContextConfig]:
    """The configurations of a manifest file; GpusimError if it is not one or was edited."""
    return config_manifest.read_manifest(
        path, MANIFEST_KIND, "long-context", LongContextConfig.from_dict, LongContextConfig.as_dict
    )


def set_command(
    prog: str,
    description: str,
    configs: list[LongContextConfig],
    what: str,
    rule: str | None = None,
    argv: list[str] | None = None,
) -> int:
    """The body of a judged set's ``--write PATH`` / ``--list`` command: its manifest (what it
    is, and the decision rule fixed before it is measured), write-once, or its config ids."""
    ap = argparse.ArgumentParser(prog=prog, description=description)
    ap.add_argument("--write", type=Path, default=None, help="manifest file to write")
    ap.add_argument("--list", action="store_true")
    ap.add_argument(
        "--allow-seen", action="store_true",
        help="write even if some runs are in a long-context set measured before",
    )  # fmt: skip
    args = ap.parse_args(argv)
    if args.write and not args.allow_seen:
        seen = seen_runs(configs, H200, besides=args.write.parent)
        if seen:
            print(f"{prog}: error: {len(seen)} run(s) already in measured sets, e.g. "
                  f"{seen[0]}; a held-out set is new (--allow-seen to write it anyway)",
                  file=sys.stderr)  # fmt: skip
            return 2
    doc = manifest_doc(configs)
    doc["what"] = what
    if rule is not None:
        doc["decision_rule"] = rule
    lines = [c.config_id for c in configs]
    return config_manifest.write_or_list(prog, args.write, args.list, doc, lines)


def seen_runs(
    configs: list[LongContextConfig], data_root: Path, besides: Path | None = None
) -> list[str]:
    """``"id (folder)"`` of each config already in a long-context manifest under
    ``data_root`` (data/h200), where a held-out set's runs must not be; the folder
    ``besides`` (the set's own) is not looked at."""
    ids = {c.config_id for c in configs}
    out = []
    own = besides.resolve() if besides is not None else None
    for path in sorted(data_root.glob("*/manifest_configs.json")):
        if path.parent.resolve() == own:
            continue
        try:
            earlier = read_manifest(path)
        except GpusimError:  # a manifest of another kind (partitions, validation)
            continue
        out += [f"{c.config_id} ({path.parent.name})" for c in earlier if c.config_id in ids]
    return out


def main(argv: list[str] | None = None) -> int:
    """Write the manifest, or list the configurations."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", type=Path, default=None, help="manifest file to write")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args(argv)
    configs = long_context_configs()
    lines = [f"{c.config_id}{'  [ncu]' if c.ncu else ''}" for c in configs]
    return config_manifest.write_or_list(
        "long_context_configs", args.write, args.list, manifest_doc(configs), lines
    )


if __name__ == "__main__":
    raise SystemExit(main())
