"""Shared fixtures of the tuning tests."""

import pytest


@pytest.fixture(scope="session")
def h200():
    """The H200 profile as shipped."""
    loader = pytest.importorskip("gpusim.profiles.loader")
    return loader.load_profile("h200-sxm")
