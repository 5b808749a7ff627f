"""Hardware profiles: the schema, and loading the YAML/JSON files of ``hardware_profiles``."""

from gpusim.profiles.loader import DEFAULT_PROFILE, list_profiles, load_profile, profile_path
from gpusim.profiles.schema import HardwareProfile

__all__ = ["DEFAULT_PROFILE", "HardwareProfile", "list_profiles", "load_profile", "profile_path"]
