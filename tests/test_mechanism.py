"""A judged mechanism's switch: set for a block, restored after it, even on an error."""

import pytest

from gpusim.mechanism import Mechanism


def test_a_setting_holds_for_its_block_and_is_restored_after_an_error():
    m = Mechanism(True)
    with m.setting(False):
        assert not m.on
    assert m.on
    with pytest.raises(RuntimeError), m.setting(False):
        raise RuntimeError("inside")
    assert m.on

    @m.setting(False)
    def judged_without() -> bool:
        return m.on

    assert judged_without() is False and m.on
