"""Issue 18's long-context sweep, end to end: manifest, kernels, timing, bytes, model, errors.

    python -m gpusim.reporting.long_context configs --write MANIFEST
    python -m gpusim.reporting.long_context build   --cubin-dir DIR [--jobs N] [--checks]
    python -m gpusim.reporting.long_context measure --out OUT [--cubin-dir DIR] [--budget-s S]
    python -m gpusim.reporting.long_context ncu     --out OUT --scratch DIR [--cubin-dir DIR]
    python -m gpusim.reporting.long_context predict --out PREDICTIONS.json [--profiles ...]
    python -m gpusim.reporting.long_context compare --measured OUT --predictions P.json
                                                    [--out COMPARE.json]

Every subcommand but ``configs`` reads the committed manifest (``--manifest``, default
``data/h200/2026-12-02_long_context/manifest_configs.json``). ``build``, ``measure`` and
``ncu`` need the GPU machine (``gpusim/validation/run_long_context_device.sh`` runs them in
one call); ``predict`` and ``compare`` run anywhere. It lives here, above the API layer,
because ``predict`` goes through the public API (:func:`gpusim.api.simulate`).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from gpusim import atomic
from gpusim.data.layout import LONG_CONTEXT_MANIFEST, VALIDATION_DRAM21
from gpusim.errors import GpusimError
from gpusim.validation import long_context_configs, long_context_sweep
from gpusim.validation.long_context_configs import read_manifest


def log(msg: str) -> None:
    """Progress on standard error, flushed."""
    print(msg, file=sys.stderr, flush=True)


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m gpusim.reporting.long_context")
    sub = ap.add_subparsers(dest="cmd", required=True)
    cfg = sub.add_parser("configs", help="write or list the manifest")
    cfg.add_argument("--write", type=Path, default=None)
    cfg.add_argument("--list", action="store_true")
    for name in ("build", "measure", "ncu", "predict", "compare"):
        p = sub.add_parser(name)
        p.add_argument("--manifest", type=Path, default=LONG_CONTEXT_MANIFEST)
        p.add_argument("--only", default="", help="comma-separated parts of config ids")
        if name in ("build", "measure", "ncu"):
            p.add_argument("--cubin-dir", type=Path, default=None)
    sub.choices["build"].add_argument("--jobs", type=int, default=2)
    sub.choices["build"].add_argument(
        "--checks", action="store_true", help="also the correctness check's variants"
    )
    sub.choices["measure"].add_argument("--out", type=Path, required=True)
    sub.choices["measure"].add_argument(
        "--budget-s", type=float, default=None, help="stop starting configs after this many seconds"
    )
    sub.choices["ncu"].add_argument("--out", type=Path, required=True)
    sub.choices["ncu"].add_argument("--scratch", type=Path, required=True)
    sub.choices["ncu"].add_argument("--timeout-s", type=float, default=240)
    sub.choices["predict"].add_argument("--out", type=Path, required=True)
    sub.choices["predict"].add_argument("--profiles", nargs="+", default=None)
    sub.choices["predict"].add_argument("--detail", default="auto")
    sub.choices["compare"].add_argument("--measured", type=Path, required=True)
    sub.choices["compare"].add_argument("--predictions", type=Path, required=True)
    sub.choices["compare"].add_argument("--out", type=Path, default=None)
    sub.choices["compare"].add_argument(
        "--efficiency-dataset", type=Path, default=VALIDATION_DRAM21 / "h200-dataset.json"
    )
    return ap


def _configs(args: argparse.Namespace) -> list:
    configs = read_manifest(args.manifest)
    parts = [p for p in args.only.split(",") if p]
    if parts:
        configs = [c for c in configs if any(p in c.config_id for p in parts)]
        if not configs:
            raise GpusimError(f"--only {args.only!r} matches no config of the manifest")
    return configs


def run(args: argparse.Namespace) -> int:
    """Dispatch one subcommand."""
    if args.cmd == "configs":
        argv = (["--write", str(args.write)] if args.write else []) + (
            ["--list"] if args.list else []
        )
        return long_context_configs.main(argv)
    configs = _configs(args)
    if args.cmd == "build":
        report = long_context_sweep.build(configs, args.cubin_dir, args.jobs, args.checks)
        spills = {
            k: v["spill_store_bytes"] for k, v in report.items() if v.get("spill_store_bytes")
        }
        print(f"{len(report)} cubins in {args.cubin_dir}; spilling: {spills}")
        return 0
    if args.cmd == "measure":
        deadline = time.time() + args.budget_s if args.budget_s else None
        path = long_context_sweep.measure(
            configs, args.manifest, args.out, args.cubin_dir, deadline, log
        )
        recs = long_context_sweep.records(args.out)
        ok = sum(r.get("status") == "ok" for r in recs)
        print(f"{ok}/{len(recs)} ok of {len(configs)} configs; records in {path}")
        return 0
    if args.cmd == "ncu":
        from gpusim.validation.long_context_ncu import ncu_step

        out_file = args.out / long_context_sweep.NCU_FILE
        state = ncu_step(
            configs, args.manifest, out_file, args.scratch, args.cubin_dir, args.timeout_s, log
        )
        print(f"ncu: {len(state.get('by_config', {}))} configs counted in {out_file}")
        return 0
    if args.cmd == "predict":
        from gpusim.reporting.long_context_predict import PROFILES, predict

        _json_out(args.out)
        doc = predict(configs, tuple(args.profiles or PROFILES), args.detail, log)
        atomic.write_text(args.out, json.dumps(doc, indent=1) + "\n")
        n = sum(any("runtime_s" in p for p in v.values()) for v in doc["by_config"].values())
        print(f"{n}/{len(configs)} configs predicted on some profile -> {args.out}")
        return 0
    return _compare(args, configs)


def _compare(args: argparse.Namespace, configs: list) -> int:
    from gpusim.api import load_profile
    from gpusim.validation.long_context_compare import compare, efficiency_from_dataset, table

    if args.out:
        _json_out(args.out)
    predictions = json.loads(args.predictions.read_text())
    measured = {r["id"]: r for r in long_context_sweep.records(args.measured)}
    ncu_path = args.measured / long_context_sweep.NCU_FILE
    ncu = json.loads(ncu_path.read_text()) if ncu_path.exists() else {}
    profiles = {p: load_profile(p) for p in predictions["profiles"]}
    eff = {}
    if args.efficiency_dataset.exists():
        eff = {
            p: efficiency_from_dataset(args.efficiency_dataset, hw) for p, hw in profiles.items()
        }
    doc = compare(configs, measured, predictions, profiles, eff, ncu)
    if args.out:
        atomic.write_text(args.out, json.dumps(doc, indent=1) + "\n")
    print(table(doc))
    return 0


def _json_out(path: Path) -> None:
    """``--out`` of ``predict`` and ``compare`` names the JSON file to write, not a folder."""
    if path.is_dir():
        raise GpusimError(f"--out {path} is a folder: name the JSON file to write in it")


def main(argv: list[str] | None = None) -> int:
    """Parse and run; a GpusimError is one line and exit 2."""
    args = _parser().parse_args(argv)
    try:
        return run(args)
    except GpusimError as exc:
        print(f"long_context: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
