"""Algorithm and profile names as a user types them: an unknown one suggests the closest."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from pathlib import Path

from algorithms import ALGORITHMS, get_algorithm
from algorithms.base import Algorithm
from gpusim.errors import GpusimError
from gpusim.profiles import HardwareProfile, list_profiles, load_profile
from gpusim.profiles.loader import PROFILE_SUFFIXES

#: Suggestions an unknown name gets, closest first.
MAX_SUGGESTIONS = 3


def closest(name: str, known: Iterable[str]) -> list[str]:
    """The known names nearest to ``name`` (difflib's ratio), closest first; may be empty."""
    return difflib.get_close_matches(name, list(known), n=MAX_SUGGESTIONS, cutoff=0.5)


def _unknown(kind: str, name: object, known: list[str]) -> GpusimError:
    near = closest(str(name), known) if isinstance(name, str) else []
    hint = f"did you mean {' or '.join(repr(n) for n in near)}? " if near else ""
    return GpusimError(f"unknown {kind} {name!r}; {hint}known: {', '.join(known)}")


def algorithm_named(name: str) -> Algorithm:
    """The algorithm called ``name``; a one-line error naming the closest known ones otherwise."""
    if not isinstance(name, str) or name not in ALGORITHMS:
        raise _unknown("algorithm", name, list(ALGORITHMS))
    return get_algorithm(name)


def profile_named(profile: str | Path | HardwareProfile) -> HardwareProfile:
    """``profile`` itself, or the shipped profile or YAML/JSON file it names; an unknown name is
    a one-line error naming the closest shipped ones."""
    if isinstance(profile, HardwareProfile):
        return profile
    if not isinstance(profile, str | Path):
        raise GpusimError(
            f"profile must be a name, a file path or a HardwareProfile, not "
            f"{type(profile).__name__}"
        )
    known = list_profiles()
    text = str(profile)
    as_path = Path(text)
    is_name = isinstance(profile, str) and as_path.suffix not in PROFILE_SUFFIXES
    is_name = is_name and len(as_path.parts) == 1
    if is_name and text and text not in known:
        raise _unknown("profile", text, known)
    return load_profile(profile)
