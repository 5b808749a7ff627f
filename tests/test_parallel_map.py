"""pmap keeps the order of its items, on processes or in this one."""

from gpusim.parallel_map import pmap


def _square(x: int) -> int:
    return x * x


def test_results_come_back_in_order():
    items = list(range(7))
    assert pmap(_square, items, jobs=2) == [x * x for x in items]
    assert pmap(_square, items, jobs=1) == [x * x for x in items]
