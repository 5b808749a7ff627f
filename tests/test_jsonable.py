"""Model objects as plain JSON types."""

import json
import math
from pathlib import Path

from gpusim.jsonable import jsonable
from gpusim.schedule import Schedule


def test_models_paths_and_non_finite_numbers_become_json():
    out = jsonable({"s": Schedule(), "p": Path("a/b"), "x": math.nan, "t": (1, 2.5)})
    assert out["s"]["block_m"] == 128 and out["p"] == "a/b" and out["x"] is None
    assert out["t"] == [1, 2.5]
    json.dumps(out, allow_nan=False)
