"""``python -m gpusim.calibrate``: the calibrate command without the rest of the CLI."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from gpusim.calibrate.calibrate_command import calibrate, format_plan, format_table
from gpusim.errors import GpusimError


def main(argv: list[str] | None = None) -> int:
    """Parse options, run, print a table or one JSON object; 0 on success, 2 on bad input."""
    args_list = sys.argv[1:] if argv is None else argv
    p = argparse.ArgumentParser(prog="gpusim calibrate", description=__doc__)
    p.add_argument(
        "--out", type=Path, help="profile YAML to write (default <base>-calibrated.yaml)"
    )
    p.add_argument(
        "--base-profile", default="h200-sxm-datasheet", help="profile whose other values are kept"
    )
    p.add_argument("--results", type=Path, help="raw results JSON (default beside --out)")
    p.add_argument("--from", dest="from_results", type=Path, help="rebuild from recorded results")
    p.add_argument("--only", help="comma-separated benchmarks to run (default all)")
    p.add_argument("--quick", action="store_true", help="small sizes and few repeats (smoke test)")
    p.add_argument("--no-profile", action="store_true", help="write only the raw results")
    p.add_argument("--name", help="name of the written profile (default <base>-calibrated)")
    p.add_argument("--plan", action="store_true", help="say what would run; no GPU needed")
    p.add_argument("--json", action="store_true", help="print one JSON object on standard output")
    a = p.parse_args(args_list)
    try:
        doc = calibrate(
            out=a.out,
            base_profile=a.base_profile,
            results_path=a.results,
            from_results=a.from_results,
            only=a.only,
            quick=a.quick,
            write_profile=not a.no_profile,
            name=a.name,
            argv=args_list,
            plan_only=a.plan,
        )
    except GpusimError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    text = format_plan(doc) if a.plan else format_table(doc)
    print(json.dumps(doc) if a.json else text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
