"""The fp32 kernel and the simt_mm microbenchmark include one copy of the product loops.

The full proof (every instance compiled before and after, SASS compared) takes minutes of
nvcc: ``python -m gpusim.kernels.sass_identity``. These checks are the cheap part of it.
"""

from __future__ import annotations

import re

from gpusim.calibrate.sources import INCLUDE_OPTIONS as CALIBRATE_INCLUDES
from gpusim.calibrate.sources import KERNEL_DIR as CALIBRATE_DIR
from gpusim.kernels import sass_identity
from gpusim.kernels.source import KERNEL_DIR, SIMT_PRODUCTS, kernel_source

_INCLUDE = f'#include "{SIMT_PRODUCTS}"'


def _products_included(text: str) -> list[str]:
    """The selector macro defined before each include of the fragment, in order."""
    return re.findall(r"#define (SIMT_PRODUCT_\w+)\n" + re.escape(_INCLUDE), text)


def test_kernel_and_microbenchmark_include_the_same_products():
    kernel = (KERNEL_DIR / "flash2_simt.cu").read_text()
    bench = (CALIBRATE_DIR / "simt_mm.cu").read_text()
    assert _products_included(kernel) == ["SIMT_PRODUCT_QK", "SIMT_PRODUCT_PV"]
    assert _products_included(bench) == ["SIMT_PRODUCT_QK", "SIMT_PRODUCT_PV"]
    # no second copy of the loops left in either source
    for text in (kernel, bench):
        assert "fmaf(qv[i].x, kv[j].x" not in text
        assert "fmaf(p, vv[q].x" not in text


def test_nvrtc_source_has_the_fragment_inlined():
    text = kernel_source()
    assert _INCLUDE not in text  # NVRTC gets no include path
    # the whole fragment at each of its two includes; the macro defined before it picks a half
    assert text.count("#if defined(SIMT_PRODUCT_QK)") == 2
    assert text.count("fmaf(qv[i].x, kv[j].x, s[i][j])") == 2


def test_the_proof_compiles_simt_mm_as_calibrate_does():
    assert sass_identity.INCLUDE_OPTIONS == CALIBRATE_INCLUDES
