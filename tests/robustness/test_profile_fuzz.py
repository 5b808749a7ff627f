"""Profile files with missing, extra, misspelt, absurd, NaN/inf and plausible-extreme fields.

Each generated file (YAML or JSON) goes through ``gpusim profiles FILE`` and
``gpusim simulate --profile FILE``: a valid result or a one-line error, never a
crash or a hang. Files that must be refused are; a plausible profile (every
value inside :data:`gpusim.profiles.schema.PLAUSIBLE`) simulates to a finite,
positive runtime.
"""

from __future__ import annotations

import copy
import json
import math
import tempfile
from pathlib import Path
from typing import Any

import yaml
from hypothesis import given
from hypothesis import strategies as st

from gpusim.profiles import list_profiles, profile_path
from gpusim.profiles.schema import CORE_CYCLES_RANGE, PLAUSIBLE, HardwareProfile
from tests.robustness.harness import check_contract, check_rejected, invoke
from tests.robustness.strategies import fuzz
from tests.robustness.tally import tally

SHIPPED = {n: yaml.safe_load(profile_path(n).read_text()) for n in list_profiles()}

MISSING = "profile: missing field"
EXTRA = "profile: extra field"
MISSPELT = "profile: misspelt field"
ABSURD = "profile: absurd value"
NAN_INF = "profile: nan/inf value"
EXTREME = "profile: plausible extreme value"
BROKEN = "profile: broken file"
VALID = "profile: valid"

#: Mutations after which the file must be refused.
REFUSED = {EXTRA, MISSPELT, ABSURD, NAN_INF, BROKEN}


def _numeric_paths(data: dict[str, Any]) -> list[tuple[str, ...]]:
    """Paths to every ``value`` that is a single number (Sourced fields, rates by dtype)."""
    out = []
    for k, v in data.items():
        if isinstance(v, dict) and isinstance(v.get("value"), int | float):
            out.append((k, "value"))
        elif isinstance(v, dict) and isinstance(v.get("value"), dict):  # named cycle counts
            # (a rate table's entries are lists of [N, rate] pairs: not single numbers)
            out += [(k, "value", s) for s, sv in v["value"].items() if isinstance(sv, int | float)]
        elif isinstance(v, dict):
            out += [(k, s, "value") for s, sv in v.items() if isinstance(sv, dict)]
    return out


def _get(data: dict, path: tuple[str, ...]) -> Any:
    for p in path:
        data = data[p]
    return data


def _set(data: dict, path: tuple[str, ...], value: Any) -> None:
    _get(data, path[:-1])[path[-1]] = value


def _required(path: tuple[str, ...]) -> bool:
    if len(path) == 1:
        return HardwareProfile.model_fields[path[0]].is_required()
    # A Sourced needs its value and source ("note" is optional); rates need fp16 and bf16.
    return path[-1] in ("value", "source", "fp16", "bf16")


def _typo(draw, key: str) -> str:
    i = draw(st.integers(0, len(key) - 1))
    return draw(
        st.sampled_from(
            [
                key[:i] + key[i + 1 :],  # a letter dropped
                key[:i] + key[i] * 2 + key[i + 1 :],  # doubled
                key.replace("_bytes", "_byte"),
                key.replace("_", "-"),
                key.upper(),
                key + "s",
            ]
        ).filter(lambda k: k != key)
    )


_ABSURD = st.one_of(
    st.sampled_from([0, -1, -1e-9, 10**30, 1e300, 1e-300, 5e-324, "fast", "", [], {}, None]),
    st.integers(-(10**20), 0),
)
_NAN_INF = st.sampled_from([math.nan, math.inf, -math.inf])


@st.composite
def mutated_profile(draw) -> tuple[str, dict | bytes]:
    """``(class, data)``: a shipped profile changed in one way (or raw bytes of a broken file)."""
    data = copy.deepcopy(SHIPPED[draw(st.sampled_from(sorted(SHIPPED)))])
    kinds = [MISSING, EXTRA, MISSPELT, ABSURD, NAN_INF, EXTREME, BROKEN, VALID]
    kind = draw(st.sampled_from(kinds))
    numeric = _numeric_paths(data)
    if kind == MISSING:
        top = draw(st.sampled_from(sorted(data)))
        nested = isinstance(data[top], dict) and draw(st.booleans())
        path = (top, draw(st.sampled_from(sorted(data[top])))) if nested else (top,)
        del _get(data, path[:-1])[path[-1]]
        return (MISSING if _required(path) else VALID + " (optional field left out)"), data
    if kind == EXTRA:
        where = data if draw(st.booleans()) else data[draw(st.sampled_from(numeric))[0]]
        key = draw(st.sampled_from(["unit", "comment", "sm_count_extra", "value2", "x"]))
        where.setdefault(key, draw(st.sampled_from([1, "x", None, [1]])))
        return EXTRA, data
    if kind == MISSPELT:
        top = draw(st.sampled_from(sorted(data)))
        data[_typo(draw, top)] = data.pop(top)
        return MISSPELT, data
    path = draw(st.sampled_from(numeric))
    if kind == ABSURD:
        value = draw(_ABSURD)
        _set(data, path, value)
        fraction = PLAUSIBLE.get(path[0], (1, 1))[0] == 0  # a share: 0 is a measured value
        if fraction and isinstance(value, int | float) and 0 <= value <= 1:
            return VALID, data
        return ABSURD, data
    if kind == NAN_INF:
        _set(data, path, draw(_NAN_INF))
        return NAN_INF, data
    if kind == EXTREME:
        # The edge of the plausible range (or 1000x off the shipped value, inside it).
        lo, hi = CORE_CYCLES_RANGE if path[0] == "sass_core_cycles" else PLAUSIBLE[path[0]]
        old = _get(data, path)
        if draw(st.booleans()):
            value = hi if lo == 0 else draw(st.sampled_from([lo, hi]))
        else:
            value = min(max(old * draw(st.sampled_from([1e-3, 1e3])), lo), hi)
        value = max(1, round(value)) if isinstance(old, int) else float(value)
        _set(data, path, value)
        return EXTREME, data
    if kind == BROKEN:
        return BROKEN, draw(
            st.sampled_from(
                [
                    b"",
                    b"[1, 2, 3]\n",
                    b"sm_count: [\n",
                    b"\xff\xfe\x00 not utf-8",
                    b'{"schema_version": 1,',
                    b"- a\n- b\n",
                    b"a: &x [*x]\n",
                    b"!!python/object:os.system 'true'\n",
                    b"\x00\x01\x02",
                ]
            )
        )
    return VALID, data


def _write(data: dict | bytes, fmt: str, directory: Path) -> Path:
    path = directory / f"fuzzed.{fmt}"
    if isinstance(data, bytes):
        path.write_bytes(data)
    elif fmt == "json":
        path.write_text(json.dumps(data))  # NaN/Infinity as Python writes them
    else:
        path.write_text(yaml.safe_dump(data))
    return path


@fuzz(200)
@given(case=mutated_profile(), fmt=st.sampled_from(["yaml", "json"]))
def test_profile_files(case, fmt):
    kind, data = case
    tally(kind, f"profile file format: {fmt}")
    with tempfile.TemporaryDirectory() as tmp:
        path = _write(data, fmt, Path(tmp))
        shown = invoke(["profiles", str(path), "--json"])
        small = ["--batch", "1", "--heads", "2", "--seq-len", "256"]
        run = invoke(["simulate", "-a", "flash2", "--profile", str(path), *small, "--json"])
    if kind in REFUSED:
        check_rejected(shown)
        check_rejected(run)
        return
    check_contract(shown)
    check_contract(run)
    if kind == EXTREME and shown.ok:
        tally("profile: plausible extreme value, accepted")
    if run.ok:
        r = run.json()
        assert 0 < r["runtime_s"] < math.inf, r["runtime_s"]
