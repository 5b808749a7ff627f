"""A card's complete profile from the files of one calibration call, no GPU needed.

    python -m gpusim.calibrate.assemble FOLDER --base h100-sxm5 --name h100-sxm5-measured \\
        --out hardware_profiles/h100-sxm5-measured.yaml

``gpusim/validation/run_calibrate_card_device.sh`` runs `gpusim calibrate` (the suite) and the
stand-alone microbenchmarks whose records the default H200 profile takes from separate runs.
This writes the profile their files give: the suite's results over the base profile (as
``gpusim calibrate --from``), then each record's fields in the order the H200's profile was
built (tests/calibrate/test_profile_writer.py). ``FOLDER`` holds ``suite/`` (``cal/*.results.json``)
and ``records/`` (``wgmma/``, ``ws/``, ``cl/``, ``dr/``, ``l2h/``, ``kvd/``), as
``data/h100/2026-12-05_calibration`` does. A record that is missing is an error naming it:
the profile is complete or not written.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import yaml

from gpusim import atomic
from gpusim.calibrate import profile_writer
from gpusim.calibrate.records_stage import apply_records
from gpusim.data.layout import REPO_ROOT
from gpusim.errors import GpusimError


def _rel(p: Path) -> str:
    try:
        return str(p.resolve().relative_to(REPO_ROOT))
    except ValueError:
        return str(p)


def assemble(
    suite: Path, records: Path, base: str, name: str, elsewhere: dict[str, Path] | None = None
) -> str:
    """The profile's YAML text: ``suite`` the folder with ``cal/*.results.json``, ``records``
    the folder with the stand-alone records (:data:`gpusim.calibrate.records_stage.RECORDS`);
    ``elsewhere`` a record by name from another call on the same card (one the call predates)."""
    found = sorted((suite / "cal").glob("*.results.json"))
    if len(found) != 1:
        raise GpusimError(
            f"assemble: expected one cal/*.results.json under {suite}, found {len(found)}"
        )
    results = profile_writer.load_results(found[0])
    base_doc = yaml.safe_load(profile_writer.base_profile_path(base).read_text())
    profile, _ = profile_writer.build_profile(results, base_doc, name)
    text = profile_writer.profile_yaml(profile, _rel(found[0]), results)
    try:
        return apply_records(text, records, _rel, strict=True, elsewhere=elsewhere)[0]
    except GpusimError as exc:
        raise GpusimError(f"assemble: {exc}") from None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", type=Path, help="the calibration call's folder (suite/, records/)")
    ap.add_argument("--base", required=True, help="profile whose cited values are kept")
    ap.add_argument("--name", required=True, help="the written profile's name")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument(
        "--record",
        action="append",
        default=[],
        metavar="NAME=PATH",
        help="a record the call predates, from another call on the same card",
    )
    a = ap.parse_args(argv)
    try:
        bad = [r for r in a.record if "=" not in r]
        if bad:
            raise GpusimError(f"--record takes NAME=PATH, not {bad[0]!r}")
        elsewhere = {k: Path(v) for k, v in (r.split("=", 1) for r in a.record)}
        text = assemble(a.folder / "suite", a.folder / "records", a.base, a.name, elsewhere)
    except GpusimError as exc:
        print(f"gpusim: error: {exc}", file=sys.stderr)
        return 2
    atomic.write_text(a.out, text)
    print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
