"""Provenance records exist without a GPU and take the commit from the driver script."""

from gpusim.kernels.measurement_provenance import provenance


def test_provenance_without_gpu(monkeypatch):
    monkeypatch.setenv("GPUSIM_COMMIT", "abc123")
    p = provenance(None)
    assert p["git_commit"] == "abc123"
    assert p["date_utc"].endswith("+00:00")
    assert isinstance(p["nvidia_smi"], dict)
    assert "python" in p
