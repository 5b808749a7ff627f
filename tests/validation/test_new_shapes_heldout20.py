"""Held-out set 20: its committed manifest is the module's set under its rule, every config
has a compiled instance, and no workload is in an earlier set."""

from __future__ import annotations

import json

from gpusim.kernel_catalog.compiled import compiled_footprints
from gpusim.kernel_catalog.instances import instance_for
from gpusim.validation.configs import sweep_configs
from gpusim.validation.heldout_shapes import configs_from_manifest, heldout_configs
from gpusim.validation.new_shapes_heldout14 import heldout14_configs
from gpusim.validation.new_shapes_heldout19 import heldout19_configs
from gpusim.validation.new_shapes_heldout20 import RULE, heldout20_configs
from tests.validation.heldout_sets import H200, LONG_CONTEXT_SETS
from tests.validation.test_new_shapes_heldout14 import _key, configs_from_long_context

MANIFEST = H200 / "2026-12-05_new_shapes_heldout20/manifest_configs.json"


def test_the_manifest_is_the_module_set_under_its_rule():
    committed = configs_from_manifest(MANIFEST)
    assert [c.config_id for c in committed] == [c.config_id for c in heldout20_configs()]
    assert json.loads(MANIFEST.read_text())["decision_rule"] == RULE


def test_every_config_has_a_compiled_instance_and_a_new_workload():
    compiled = compiled_footprints("9.0")
    configs = heldout20_configs()
    assert all(instance_for(c.workload, c.schedule).key in compiled for c in configs)
    earlier = heldout_configs() + sweep_configs() + heldout14_configs() + heldout19_configs()
    seen = {_key(c.workload) for c in earlier}
    for name in LONG_CONTEXT_SETS:
        seen |= {_key(c.workload) for c in configs_from_long_context(name)}
    assert not seen & {_key(c.workload) for c in configs}
