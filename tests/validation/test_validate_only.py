"""``gpusim validate --from DATASET --only PARTS`` compares only the records whose id contains
one of the parts (it was ignored with --from); one that matches none is a one-line error."""

import pytest

from gpusim.errors import GpusimError
from gpusim.validation import validate_command as command
from tests.validation.test_no_writes import DATASETS, _row


@pytest.fixture
def stubbed(monkeypatch):
    seen: list[list[str]] = []

    def rows(records, profile, jobs=None, log=None):
        ok = [r for r in records if r.get("status") == "ok"]
        seen.append([r["id"] for r in ok])
        return [_row(r) for r in ok]

    monkeypatch.setattr(command, "compare_records", rows)
    return seen


def test_only_keeps_the_records_it_names(stubbed, tmp_path):
    dataset = min(DATASETS, key=lambda p: p.stat().st_size)
    whole = command.compare_dataset(dataset, out_dir=tmp_path / "all")
    ids = stubbed[-1]
    assert len(ids) > 2
    picked = command.validate(dataset, out_dir=tmp_path / "some", only=f"{ids[0]},{ids[-1]}")
    assert stubbed[-1] == [ids[0], ids[-1]]
    assert picked["configs"] == 2 < whole["configs"]


def test_only_that_matches_nothing_is_an_error(stubbed, tmp_path):
    dataset = min(DATASETS, key=lambda p: p.stat().st_size)
    with pytest.raises(GpusimError, match="--only zzz: no config"):
        command.validate(dataset, out_dir=tmp_path / "none", only="zzz")
