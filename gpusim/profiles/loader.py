"""Find, read and validate hardware profiles, by name or by path, with one-line errors.

A *name* is a file stem in the ``hardware_profiles`` package (installed as package
data, so it works from any directory); anything that looks like a path (has a
directory part or a ``.yaml``/``.yml``/``.json`` suffix) is read as a file.
Loaded profiles are cached per resolved path and modification time.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from gpusim.errors import GpusimError
from gpusim.profiles.schema import HardwareProfile

#: The profile the CLI uses when ``--profile`` is not given: the H200 as measured by
#: ``gpusim calibrate`` (its datasheet-only sibling is ``h200-sxm-datasheet``).
DEFAULT_PROFILE = "h200-sxm"

#: Names profiles had before: the same file under its present name, so that recorded
#: commands and reports that name them still run. Not listed by :func:`list_profiles`.
FORMER_NAMES = {"h200-sxm-calibrated": "h200-sxm"}


def canonical_profile_name(name: str) -> str:
    """A profile's present name, for one it had before (recorded files keep the old one)."""
    return FORMER_NAMES.get(name, name)


PROFILE_SUFFIXES = (".yaml", ".yml", ".json")


def _package_dir() -> Path:
    # hardware_profiles is a plain package (an empty __init__.py) shipped with its data files.
    return Path(str(resources.files("hardware_profiles")))


def list_profiles() -> list[str]:
    """Names of the profiles shipped in ``hardware_profiles``, sorted."""
    return sorted(
        p.stem
        for p in _package_dir().iterdir()
        if p.suffix in (".yaml", ".yml") and not p.name.startswith(".")
    )


def _looks_like_path(name_or_path: str) -> bool:
    p = Path(name_or_path)
    return p.suffix in PROFILE_SUFFIXES or len(p.parts) > 1


def profile_path(name_or_path: str | Path) -> Path:
    """The file a profile name or path refers to; a one-line error if there is none."""
    text = str(name_or_path)
    if not text:
        raise GpusimError(f"empty profile name; known profiles: {', '.join(list_profiles())}")
    if isinstance(name_or_path, Path) or _looks_like_path(text):
        path = Path(text).expanduser()
        try:
            found = path.is_file()
        except OSError:  # too long a name for the file system
            found = False
        if found:
            return path
        if len(path.parts) == 1 and path.stem in list_profiles():
            return profile_path(path.stem)  # "h200-sxm.yaml" given as a name
        raise GpusimError(f"profile file {text!r} not found")
    text = FORMER_NAMES.get(text, text)
    for suffix in (".yaml", ".yml"):
        path = _package_dir() / f"{text}{suffix}"
        try:
            if path.is_file():
                return path
        except OSError:  # a name no file system takes (too long): no such profile
            break
    shown = text if len(text) <= 80 else text[:77] + "..."
    raise GpusimError(f"unknown profile {shown!r}; known profiles: {', '.join(list_profiles())}")


def load_profile(name_or_path: str | Path) -> HardwareProfile:
    """The validated :class:`HardwareProfile` for a shipped name or a YAML/JSON file path."""
    path = profile_path(name_or_path).resolve()
    return _load_cached(path, path.stat().st_mtime_ns)


@lru_cache(maxsize=64)
def _load_cached(path: Path, mtime_ns: int) -> HardwareProfile:
    # mtime_ns is part of the key so that an edited file is read again.
    data = _read(path)
    try:
        return HardwareProfile.model_validate(data)
    except ValidationError as e:
        raise GpusimError(f"{path.name}: {validation_summary(e)}") from None


#: libyaml's safe loader where PyYAML was built with it (the same documents, about 8 times
#: faster than the pure-Python one: a profile file took 70 ms of each command's start).
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _read(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        where = f"{path.name}: not UTF-8 text (byte {e.start})"
        raise GpusimError(f"{where}; expected YAML or JSON") from None
    try:
        data = json.loads(text) if path.suffix == ".json" else yaml.load(text, Loader=_YAML_LOADER)
    except (yaml.YAMLError, json.JSONDecodeError) as e:
        where = ""
        mark = getattr(e, "problem_mark", None)
        if mark is not None:
            where = f" at line {mark.line + 1}"
        elif isinstance(e, json.JSONDecodeError):
            where = f" at line {e.lineno}"
        kind = "JSON" if path.suffix == ".json" else "YAML"
        raise GpusimError(f"{path.name}: not valid {kind}{where}") from None
    if not isinstance(data, dict):
        raise GpusimError(f"{path.name}: expected a mapping of profile fields at the top level")
    return data


def _num(x: object) -> str:
    return f"{x:g}" if isinstance(x, float) else str(x)


_MESSAGES = {
    "greater_than": lambda c: f"must be > {_num(c.get('gt'))}",
    "greater_than_equal": lambda c: f"must be >= {_num(c.get('ge'))}",
    "less_than": lambda c: f"must be < {_num(c.get('lt'))}",
    "less_than_equal": lambda c: f"must be <= {_num(c.get('le'))}",
    "extra_forbidden": lambda c: "unknown key (not in the profile schema)",
    "missing": lambda c: "missing (required)",
    "literal_error": lambda c: f"must be {c.get('expected')}",
    "string_too_short": lambda c: f"must have at least {c.get('min_length')} characters",
    "too_short": lambda c: f"must have at least {c.get('min_length')} entries",
    "string_pattern_mismatch": lambda c: f"must match {c.get('pattern')}",
}


def validation_summary(err: ValidationError) -> str:
    """The first error of a pydantic ``ValidationError`` as ``field.path: message``, one line."""
    # An unknown key is usually a misspelt one: report it before the "missing" it causes.
    errors = sorted(err.errors(), key=lambda e: e["type"] != "extra_forbidden")
    first = errors[0]
    loc = ".".join(str(p) for p in first["loc"])
    fmt = _MESSAGES.get(first["type"])
    msg = fmt(first.get("ctx") or {}) if fmt else first["msg"]
    if first["type"] == "value_error":
        msg = msg.removeprefix("Value error, ")
    if not fmt and first.get("input") is not None and first["type"].endswith("_parsing"):
        msg = f"{msg} (got {first['input']!r})"
    text = f"{loc}: {msg}" if loc else msg
    more = len(errors) - 1
    return text + (f" (and {more} more error{'s' if more > 1 else ''})" if more else "")
