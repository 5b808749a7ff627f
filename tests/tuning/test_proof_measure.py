"""gpusim.tuning.proof_measure on the CPU: its records feed gpusim.tuning.proof (timer stubbed)."""

from gpusim.tuning import proof, proof_measure
from gpusim.tuning.proof_workloads import proof_workloads
from gpusim.workload import Workload


def _script():
    return proof_measure


def test_workload_list_covers_the_issue():
    ws = proof_workloads(quick=False)
    assert len(ws) >= 8
    assert {w.head_dim for w in ws} >= {64, 128}
    assert {w.causal for w in ws} == {False, True}
    assert len({w.seq_len_q for w in ws}) >= 2


def test_records_round_trip_through_the_proof(monkeypatch, h200):
    mod = _script()

    def fake_measure(w, schedules, repeats, runner):
        # A "GPU" that likes big tiles; one schedule fails to launch.
        out = [{"median_s": 1e-3 / (s.block_m * s.block_n) ** 0.5} for s in schedules]
        out[0] = {"error": "no instance"}
        return out

    monkeypatch.setattr(mod, "measure", fake_measure)
    w = Workload(batch=1, heads=2, seq_len_q=256, seq_len_k=256, head_dim=64, dtype="bf16")
    entry = mod.run_workload(w, h200, repeats=1, log=lambda m: None, runner=None, predict=True)
    assert any(r["measured_s"] is None for r in entry["schedules"])
    assert all(r["predicted_s"] is None or r["predicted_s"] > 0 for r in entry["schedules"])
    (p,) = proof.evaluate({"workloads": [entry]})
    assert p.tuner_loss >= 0 and -1 <= p.spearman <= 1
    assert set(p.rule_loss) == {"paper", "seed"}


def test_measure_only_then_predictions_on_the_cpu(monkeypatch, h200):
    from gpusim.tuning.proof_report import markdown, predict_record, with_predictions

    mod = _script()
    monkeypatch.setattr(
        mod, "measure", lambda w, ss, repeats, runner: [{"median_s": 1e-3 / s.block_n} for s in ss]
    )
    w = Workload(batch=1, heads=2, seq_len_q=256, seq_len_k=256, head_dim=64, dtype="bf16")
    entry = mod.run_workload(w, h200, repeats=1, log=lambda m: None, runner=None)
    assert all(r["predicted_s"] is None for r in entry["schedules"])
    record = {"profile": "h200-sxm-datasheet", "workloads": [entry]}
    merged = with_predictions(record, predict_record(record, jobs=1))
    assert any(r["predicted_s"] for r in merged["workloads"][0]["schedules"])
    figures = proof.evaluate(merged)
    assert figures[0].schedules >= 2
    text = markdown(figures, proof.summary(figures), {"gpu_name": "NVIDIA H200"})
    assert "| B1 H2 N256 d64 |" in text and "NVIDIA H200" in text
