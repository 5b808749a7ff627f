"""Held-out set 48 (SM partitions, the model as it stands): predictions and the comparison.

    python -m gpusim.reporting.partitions_set48 predict --out FILE
    python -m gpusim.reporting.partitions_set48 compare --measured DIR --out FILE

The set and its rule: :mod:`gpusim.validation.partitions_heldout48`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from gpusim import atomic
from gpusim.errors import GpusimError
from gpusim.validation.partition_configs import manifest_doc, read_manifest
from gpusim.validation.partitions_heldout48 import MANIFEST, PROFILES, reference

PREDICTIONS = Path("reports/partitions_heldout48/predictions.json")
KIND = "gpusim.partitions_heldout48.predictions"


def predict(configs) -> dict[str, Any]:
    """Every config on both profiles, as the model stands (the partition sets' predictions,
    under this set's kind)."""
    from gpusim.reporting import partitions

    return partitions.predict(configs, PROFILES) | {"kind": KIND}


def compare(configs, measured_dir: Path, predictions: dict[str, Any]) -> dict[str, Any]:
    """Set 22's comparison (per kernel, 8-72 SMs and 132 apart) on this set's profiles."""
    from gpusim.reporting.release_sets import compare_partitions

    if predictions.get("manifest_configs_sha256") != manifest_doc(configs)["configs_sha256"]:
        raise GpusimError("the predictions are not of this manifest's configurations")
    return compare_partitions(configs, measured_dir, predictions, PROFILES, reference())


def main(argv: list[str] | None = None) -> int:
    """Predict or compare; a bad input is one line, exit 2."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cmd", choices=("predict", "compare"))
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--measured", type=Path)
    ap.add_argument("--predictions", type=Path, default=PREDICTIONS)
    ap.add_argument("--manifest", type=Path, default=MANIFEST)
    a = ap.parse_args(argv)
    if a.cmd == "compare" and (a.measured is None or not a.measured.is_dir()):
        ap.error("compare needs --measured DIR, a folder of measured runs")
    try:
        configs = read_manifest(a.manifest)
        if a.cmd == "predict":
            doc = predict(configs)
        else:
            doc = compare(configs, a.measured, json.loads(a.predictions.read_text()))
    except (OSError, ValueError, KeyError, GpusimError) as exc:
        print(f"partitions_set48: error: {exc}", file=sys.stderr)
        return 2
    atomic.write_text(a.out, json.dumps(doc, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
