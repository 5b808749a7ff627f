"""PyTorch's forward instances by their template arguments, and their code sizes looked up."""

import gzip
import json
import re

import pytest

from gpusim.data.layout import REPO_ROOT
from gpusim.errors import GpusimError
from gpusim.validation.torch_flash_schedule import torch_flash_schedule
from gpusim.validation.torch_fwd_kernel import torch_kernel
from gpusim.validation.torch_kernel_code import RECORD, instance_key, kernel_code_bytes
from gpusim.workload import Workload

SASS = REPO_ROOT / "data/h200/2026-12-02_torch_flash_sass/torch_flash_fwd.sass.gz"


def test_the_committed_sass_instances_read_back_as_their_dispatch_keys():
    names = re.findall(r"Function : (\S+)", gzip.decompress(SASS.read_bytes()).decode())
    keys = [instance_key(n) for n in names]
    assert len(set(keys)) == len(names) == 16 and None not in keys
    w = Workload(batch=4, heads=16, seq_len=700, head_dim=64, dtype="bf16", causal=True)
    s = torch_flash_schedule(w)
    assert instance_key(torch_kernel(w, s)) == (False, 64, 128, 128, 4, "bf16", True, False, True)
    assert instance_key("_ZN13pytorch_flash14flash_bwd_kernel") is None


def test_a_run_finds_its_instance_in_a_record(tmp_path):
    w = Workload(batch=4, heads=16, seq_len=700, head_dim=40, dtype="bf16", causal=True)
    s = torch_flash_schedule(w)
    name = torch_kernel(w.model_copy(update={"head_dim": 64}), s)
    bools = "Lb0ELb1ELb0ELb0ELb0E{}ELb0ELb0EEEv"  # Is_even_K the sixth
    uneven_k = name.replace(bools.format("Lb1"), bools.format("Lb0"))
    assert uneven_k != name
    record = tmp_path / "sizes.json"
    record.write_text(json.dumps({"code_bytes": {name: 1600, uneven_k: 1760}}))
    assert kernel_code_bytes(w, s, str(record)) == 1760  # d40 runs the d64 kernel, not even K
    with pytest.raises(GpusimError, match="no kernel"):
        kernel_code_bytes(w.model_copy(update={"causal": False}), s, str(record))


def test_the_committed_record_gives_the_dumped_kernels_their_size():
    """The d64 uneven causal forward: 7408 instructions in the SASS dumped on the H200."""
    w = Workload(batch=47, heads=12, seq_len=704, head_dim=64, dtype="bf16", causal=True)
    assert kernel_code_bytes(w, torch_flash_schedule(w)) == 7408 * 16
    even = w.model_copy(update={"seq_len_q": 768, "seq_len_k": 768})
    assert kernel_code_bytes(even, torch_flash_schedule(even)) == 4504 * 16
    d192 = w.model_copy(update={"head_dim": 192, "seq_len_q": 768, "seq_len_k": 768})
    assert kernel_code_bytes(d192, torch_flash_schedule(d192)) > 0  # no even-MN d192 instance
    assert RECORD.exists()


@pytest.mark.parametrize("d", [32, 40, 64, 80, 96, 128, 160, 192, 240, 256])
def test_every_head_size_finds_its_instance_split_or_not(d):
    """Prefills and decodes (split kernels: Split true, no K/V appended), causal or not."""
    from gpusim.validation.torch_head_buckets import executed

    shapes = [(1, 32, 8, 1, 4096), (2, 16, 16, 1000, 1000), (1, 8, 8, 333, 333)]
    for b, h, hkv, nq, nk in shapes:
        for causal in (False, True):
            w = Workload(batch=b, heads=h, heads_kv=hkv, seq_len_q=nq, seq_len_k=nk,
                         head_dim=d, dtype="fp16", causal=causal)  # fmt: skip
            s = torch_flash_schedule(executed(w))
            assert kernel_code_bytes(w, s) % 16 == 0
