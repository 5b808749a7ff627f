"""Held-out set 19 (fixed before it was measured): its committed manifest is the module's set
under its rule, every config has a compiled instance, no workload is in an earlier set, and
the candidate profile is the core profile with only cta_phase's field added."""

from __future__ import annotations

import json

from gpusim.kernel_catalog.compiled import compiled_footprints
from gpusim.kernel_catalog.instances import instance_for
from gpusim.profiles.loader import load_profile
from gpusim.validation.configs import sweep_configs
from gpusim.validation.heldout_shapes import configs_from_manifest, heldout_configs
from gpusim.validation.new_shapes_heldout14 import heldout14_configs
from gpusim.validation.new_shapes_heldout19 import RULE, heldout19_configs, main, variant_profile
from tests.validation.heldout_sets import H200, LONG_CONTEXT_SETS
from tests.validation.test_new_shapes_heldout14 import _key, configs_from_long_context

MANIFEST = H200 / "2026-12-05_new_shapes_heldout19/manifest_configs.json"


def test_the_manifest_is_the_module_set_under_its_rule():
    committed = configs_from_manifest(MANIFEST)
    assert [c.config_id for c in committed] == [c.config_id for c in heldout19_configs()]
    assert json.loads(MANIFEST.read_text())["decision_rule"] == RULE


def test_every_config_has_a_compiled_instance_and_a_new_workload():
    compiled = compiled_footprints("9.0")
    configs = heldout19_configs()
    assert all(instance_for(c.workload, c.schedule).key in compiled for c in configs)
    seen = {_key(c.workload) for c in heldout_configs() + sweep_configs() + heldout14_configs()}
    for name in LONG_CONTEXT_SETS:
        seen |= {_key(c.workload) for c in configs_from_long_context(name)}
    assert not seen & {_key(c.workload) for c in configs}


def test_the_candidate_differs_from_the_core_profile_only_in_the_phases():
    core, variant = load_profile("h200-sxm-core"), variant_profile()
    a, b = core.model_dump(), variant.model_dump()
    assert b["sass_core_cycles"]["value"].pop("co_resident_phases") == 1
    a.pop("sass_core_cycles"), b.pop("sass_core_cycles"), b.pop("name"), a.pop("name")
    assert a == b


def test_the_manifest_is_written_once(capsys):
    assert main(["manifest", "--out", str(MANIFEST)]) == 2
    assert "write-once" in capsys.readouterr().err
