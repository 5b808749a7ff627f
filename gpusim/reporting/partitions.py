"""Issue 19's SM-partition set, end to end: manifest, predictions, and the comparison.

    python -m gpusim.reporting.partitions configs --write MANIFEST
    python -m gpusim.reporting.partitions predict --out PREDICTIONS.json [--profiles ...]
    python -m gpusim.reporting.partitions compare --measured DATA_DIR --predictions P.json
                                                  --out REPORT_DIR

``predict`` simulates every config of the committed manifest (``--manifest``, default
``data/h200/2026-12-02_partitions/manifest_configs.json``) through the public API on the
config's SM count (``gpusim.simulate(..., sm_count=N)``: the profile's memory system, L2
and clocks, N SMs); PyTorch's runs carry the schedule its flash backend runs, as the
manifest holds it (the long-context sweep's way, :mod:`gpusim.reporting.long_context_predict`).
The GPU side is ``python -m gpusim.validation.partitions_device``
(``gpusim/validation/run_partitions_device.sh`` runs it in one device call). ``compare``
writes ``compare.json`` and ``compare.md`` into ``--out``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gpusim import atomic
from gpusim.api import simulate
from gpusim.errors import GpusimError
from gpusim.source_commit import git_commit
from gpusim.validation import partition_configs
from gpusim.validation.partition_configs import PartitionConfig, manifest_doc, read_manifest
from gpusim.validation.partitions_device import MANIFEST

PROFILES = ("h200-sxm-calibrated",)
PREDICTIONS_KIND = "gpusim.partitions_predictions"


def log(msg: str) -> None:
    """Progress on standard error, flushed."""
    print(msg, file=sys.stderr, flush=True)


def predict_one(
    c: PartitionConfig, profile: str, sm_count: int | None = None, detail: str = "auto"
) -> dict[str, Any]:
    """Runtime, bytes, bound and occupancy of one config on ``sm_count`` SMs (default: the
    config's) of one profile; ``error`` where the model refuses it."""
    n = c.sm_count if sm_count is None else sm_count
    t0 = time.perf_counter()
    try:
        r = simulate("flash2", c.workload, c.schedule, profile, detail=detail, sm_count=n)
    except GpusimError as exc:
        return {"error": str(exc), "sm_count": n, "sim_wall_s": time.perf_counter() - t0}
    return {
        "runtime_s": r.runtime_s,
        "sm_count": r.sm_count,
        "dram_bytes": r.dram_read_bytes + r.dram_write_bytes,
        "sm_l2_read_bytes": r.counters.sm_l2_read_bytes,
        "bound": r.bound,
        "ctas_per_sm": r.ctas_per_sm,
        "waves": r.waves,
        "detail": r.detail,
        "sim_wall_s": time.perf_counter() - t0,
    }


def predict(
    configs: list[PartitionConfig],
    profiles: tuple[str, ...] = PROFILES,
    log: Callable[[str], None] = log,
) -> dict[str, Any]:
    """Every config on every profile, as one JSON-ready document."""
    by_config: dict[str, dict] = {}
    for n, c in enumerate(configs, 1):
        by_config[c.config_id] = {p: predict_one(c, p) for p in profiles}
        got = by_config[c.config_id][profiles[0]]
        log(f"[{n}/{len(configs)}] {c.config_id}: {got.get('runtime_s', got.get('error'))}")
    return {
        "kind": PREDICTIONS_KIND,
        "model_commit": git_commit(),
        "manifest_configs_sha256": manifest_doc(configs)["configs_sha256"],
        "profiles": list(profiles),
        "by_config": by_config,
    }


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m gpusim.reporting.partitions")
    sub = ap.add_subparsers(dest="cmd", required=True)
    cfg = sub.add_parser("configs", help="write or list the manifest")
    cfg.add_argument("--write", type=Path, default=None)
    cfg.add_argument("--list", action="store_true")
    for name in ("predict", "compare"):
        p = sub.add_parser(name)
        p.add_argument("--manifest", type=Path, default=MANIFEST)
    sub.choices["predict"].add_argument("--out", type=Path, required=True)
    sub.choices["predict"].add_argument("--profiles", nargs="+", default=None)
    cmp = sub.choices["compare"]
    cmp.add_argument("--measured", type=Path, required=True)
    cmp.add_argument("--predictions", type=Path, required=True)
    cmp.add_argument("--out", type=Path, required=True, help="folder for compare.json/.md")
    return ap


def run(args: argparse.Namespace) -> int:
    """Dispatch one subcommand."""
    if args.cmd == "configs":
        argv = (["--write", str(args.write)] if args.write else []) + (
            ["--list"] if args.list else []
        )
        return partition_configs.main(argv)
    configs = read_manifest(args.manifest)
    if args.cmd == "predict":
        doc = predict(configs, tuple(args.profiles or PROFILES))
        atomic.write_text(args.out, json.dumps(doc, indent=1) + "\n")
        n = sum(any("runtime_s" in p for p in v.values()) for v in doc["by_config"].values())
        print(f"{n}/{len(configs)} configs predicted -> {args.out}")
        return 0
    from gpusim.reporting.partitions_report import write_comparison

    for path in write_comparison(configs, args.measured, args.predictions, args.out):
        print(path)
    return 0


def main(argv: list[str] | None = None) -> int:
    """Parse and run; a GpusimError is one line and exit 2."""
    args = _parser().parse_args(argv)
    try:
        return run(args)
    except GpusimError as exc:
        print(f"partitions: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
