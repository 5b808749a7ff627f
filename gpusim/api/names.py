"""Algorithm and profile names as a user types them: an unknown one suggests the closest."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from pathlib import Path

from algorithms import ALGORITHMS, get_algorithm
from algorithms.base import Algorithm
from gpusim.errors import GpusimError
from gpusim.profiles import HardwareProfile, list_profiles, load_profile
from gpusim.profiles.loader import FORMER_NAMES, PROFILE_SUFFIXES

#: Suggestions an unknown name gets, closest first.
MAX_SUGGESTIONS = 3


def closest(name: str, known: Iterable[str]) -> list[str]:
    """The known names nearest to ``name``, closest first; may be empty.

    Names that ``name`` begins (``a100`` for ``a100-sxm4-80gb``, the usual shorthand) come
    first, then difflib's nearest by ratio."""
    known = list(known)
    prefixed = [k for k in known if name and k.startswith(name)]
    near = prefixed + difflib.get_close_matches(name, known, n=MAX_SUGGESTIONS, cutoff=0.5)
    return list(dict.fromkeys(near))[:MAX_SUGGESTIONS]


def _unknown(kind: str, name: object, known: list[str]) -> GpusimError:
    near = closest(str(name), known) if isinstance(name, str) else []
    hint = f"did you mean {' or '.join(repr(n) for n in near)}? " if near else ""
    return GpusimError(f"unknown {kind} {name!r}; {hint}known: {', '.join(known)}")


def algorithm_named(name: str) -> Algorithm:
    """The algorithm called ``name``; a one-line error naming the closest known ones otherwise."""
    if not isinstance(name, str) or name not in ALGORITHMS:
        raise _unknown("algorithm", name, list(ALGORITHMS))
    return get_algorithm(name)


def is_profile_file(text: str) -> bool:
    """Whether ``text`` names a profile file (a YAML/JSON suffix or a directory part) rather
    than a shipped profile; only a bare name can be misspelt."""
    as_path = Path(text)
    return as_path.suffix in PROFILE_SUFFIXES or len(as_path.parts) != 1


def check_profile_name(text: str) -> None:
    """A one-line error, the closest shipped names suggested, unless ``text`` is a shipped
    profile's name or names a file (which the loader judges)."""
    known = list_profiles()
    if text and not is_profile_file(text) and text not in known and text not in FORMER_NAMES:
        raise _unknown("profile", text, known)


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
    if isinstance(profile, str):
        check_profile_name(profile)
    return load_profile(profile)
