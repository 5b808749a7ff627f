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
import json
import sys
from pathlib import Path
from typing import Any

import yaml

from gpusim import atomic
from gpusim.calibrate import (
    cta_life,
    dram_read,
    l2_shared_aging,
    profile_writer,
    sm_mate_drift,
    wgmma_burst,
    wgmma_pingpong,
    wgmma_record,
)
from gpusim.data.layout import REPO_ROOT
from gpusim.errors import GpusimError

#: Each record's file under the folder's records part, as the device script names them.
RECORDS = {
    "wgmma": "wgmma/wgmma.json",
    "wgmma_burst": "wgmma/wgmma-burst.json",
    "wgmma_step": "ws/wgmma-step.json",
    "cta_life": "cl/cta-life.json",
    "dram_read": "dr/dram-read.json",
    "l2_hot": "l2h/l2-survive-hot.json",
    "kv_drift": "kvd/kv-walk-drift.json",
}


def _rel(p: Path) -> str:
    try:
        return str(p.resolve().relative_to(REPO_ROOT))
    except ValueError:
        return str(p)


def _load(path: Path) -> dict[str, Any]:
    if not path.is_file():
        raise GpusimError(f"assemble: no record at {path}: the profile would not be complete")
    try:
        return json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise GpusimError(f"assemble: {path} is not JSON ({exc.msg})") from None


def assemble(suite: Path, records: Path, base: str, name: str) -> str:
    """The profile's YAML text: ``suite`` the folder with ``cal/*.results.json``, ``records``
    the folder with the stand-alone records (:data:`RECORDS`)."""
    found = sorted((suite / "cal").glob("*.results.json"))
    if len(found) != 1:
        raise GpusimError(
            f"assemble: expected one cal/*.results.json under {suite}, found {len(found)}"
        )
    results = profile_writer.load_results(found[0])
    base_doc = yaml.safe_load(profile_writer.base_profile_path(base).read_text())
    profile, _ = profile_writer.build_profile(results, base_doc, name)
    text = profile_writer.profile_yaml(profile, _rel(found[0]), results)
    path = {k: records / v for k, v in RECORDS.items()}
    rel = {k: _rel(p) for k, p in path.items()}
    doc = {k: _load(p) for k, p in path.items()}
    text = wgmma_record.apply(text, doc["wgmma"], rel["wgmma"])
    text = wgmma_burst.apply(text, doc["wgmma_burst"], rel["wgmma_burst"])
    text = l2_shared_aging.apply(text, doc["l2_hot"], rel["l2_hot"])
    text = sm_mate_drift.apply(text, sm_mate_drift.calibration(doc["kv_drift"]), rel["kv_drift"])
    text = cta_life.apply(text, doc["cta_life"], rel["cta_life"])
    text = cta_life.apply(text, doc["cta_life"], rel["cta_life"], "16-byte")
    text = dram_read.apply(text, doc["dram_read"], rel["dram_read"])
    # the ping-pong softmax cost from the fill rows, as held-out set 4's rule chose for the H200
    step_folder = str(Path(rel["wgmma_step"]).parent)
    return wgmma_pingpong.apply(text, doc["wgmma_step"], step_folder, "fill")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", type=Path, help="the calibration call's folder (suite/, records/)")
    ap.add_argument("--base", required=True, help="profile whose cited values are kept")
    ap.add_argument("--name", required=True, help="the written profile's name")
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args(argv)
    try:
        text = assemble(a.folder / "suite", a.folder / "records", a.base, a.name)
    except GpusimError as exc:
        print(f"gpusim: error: {exc}", file=sys.stderr)
        return 2
    atomic.write_text(a.out, text)
    print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
