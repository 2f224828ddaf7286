"""The canary audit (issue 30): canaries are seeded and built from the records, the one-run bound matches
Steinke et al.'s formula, scores see echoed canaries, and an audit on a tiny model catches a run whose
DP-SGD was broken on purpose while passing an honest one."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy.stats import binom

from textleak.synthesis.audit import (AuditConfig, Canary, NgramLM, audit_epsilon, canary_records, epsilon_lower_bound,
                                      make_canaries, max_epsilon_lower_bound, membership_metrics, ngram_lm_scores,
                                      ngram_overlap_scores, one_run_p_value, words)

pytestmark = pytest.mark.usefixtures("one_torch_thread")

FRUIT = ["apple", "banana", "cherry", "damson", "elder", "fig", "grape", "guava", "kiwi", "lemon", "lime", "mango",
         "melon", "olive", "peach", "pear", "plum", "quince", "rowan", "sloe"]


def _records(n: int = 8) -> list[dict]:
    return [{"id": f"r{i}", "question": f"Which fruit {i}?", "answer": FRUIT[i % len(FRUIT)],
             "text": f"patient {i} ate {FRUIT[i % len(FRUIT)]} and {FRUIT[(3 * i + 1) % len(FRUIT)]} today"}
            for i in range(n)]


# ---- canaries ------------------------------------------------------------------------------------
def test_canaries_are_seeded_and_leave_global_state_alone():
    records = _records(6)
    cfg = AuditConfig(canaries=40, prefix_words=2, suffix_words=3, suffix_pool_size=10, canary_seed=3)
    np.random.seed(1)
    state = np.random.get_state()[1].copy()
    first = make_canaries(records, cfg)
    assert (np.random.get_state()[1] == state).all()
    assert make_canaries(records, cfg) == first
    other = make_canaries(records, AuditConfig(canaries=40, prefix_words=2, suffix_words=3, suffix_pool_size=10, canary_seed=4))
    assert [c.suffix for c in other] != [c.suffix for c in first]
    assert [c.member for c in other] != [c.member for c in first]
    for c in first:
        source = records[c.source_index]["text"]
        assert c.prefix == " ".join(source.split()[:2]) and c.text.startswith(c.prefix + " ")
        assert len(c.suffix.split()) == 3
    # every record is a source about m / N times (seeded permutations, not independent draws)
    counts = np.bincount([c.source_index for c in first], minlength=6)
    assert counts.min() >= 6 and counts.max() <= 7


def test_membership_is_a_fair_coin_and_members_are_inserted_with_repetitions():
    records = _records(5)
    canaries = make_canaries(records, AuditConfig(canaries=2000, suffix_pool_size=5))
    share = np.mean([c.member for c in canaries])
    assert 0.46 < share < 0.54
    extra = canary_records(records, canaries[:10], repetitions=3)
    assert len(extra) == 3 * sum(c.member for c in canaries[:10])
    row = extra[0]
    c = next(c for c in canaries[:10] if c.member)
    assert row["text"] == c.text and row["id"] == f"canary-{c.index}"
    assert row["question"] == records[c.source_index]["question"]  # the control code is the source's


def test_rare_pool_takes_the_rarest_words():
    records = [{"text": "common common common rare1 common unusual"}, {"text": "common words again unusual"}]
    canaries = make_canaries(records, AuditConfig(canaries=50, suffix_pool_size=3, suffix_pool="rare"))
    pool = {w for c in canaries for w in c.suffix.split()}
    assert pool <= {"again", "words", "rare"} | {"unusual"} and "common" not in pool


# ---- the one-run bound ---------------------------------------------------------------------------
@pytest.mark.parametrize("m,r,v,eps", [(100, 40, 30, 0.5), (500, 100, 90, 2.0), (1000, 1000, 600, 0.3), (50, 10, 10, 4.0)])
def test_p_value_without_delta_is_the_binomial_tail(m, r, v, eps):
    q = math.exp(eps) / (1 + math.exp(eps))
    assert one_run_p_value(m, r, v, eps) == pytest.approx(binom.sf(v - 1, r, q), rel=1e-12)


@pytest.mark.parametrize("m,r,v,eps,delta", [(100, 40, 30, 0.5, 1e-3), (500, 100, 90, 2.0, 1e-5), (200, 200, 150, 1.0, 1e-4)])
def test_p_value_delta_term_follows_the_published_formula(m, r, v, eps, delta):
    """P[B >= v] + 2 m delta max_i (1/i) P[v - i <= B < v], written out term by term."""
    q = 1 / (1 + math.exp(-eps))
    alpha = max(sum(binom.pmf(j, r, q) for j in range(v - i, v)) / i for i in range(1, v + 1))
    expected = min(1.0, binom.sf(v - 1, r, q) + 2 * m * delta * alpha)
    assert one_run_p_value(m, r, v, eps, delta) == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("m", [10, 100, 1000])
def test_all_correct_bound_has_a_closed_form(m):
    """delta = 0, v = r = m: p = q^m, so the bound is logit(0.05^(1/m))."""
    q = 0.05 ** (1 / m)
    assert max_epsilon_lower_bound(m) == pytest.approx(math.log(q / (1 - q)), abs=1e-6)
    assert max_epsilon_lower_bound(1000) == pytest.approx(5.81, abs=0.01)


def test_bound_inverts_the_p_value_and_is_monotone():
    m, r, v = 500, 200, 170
    eps = epsilon_lower_bound(m, r, v, 1e-5)
    assert one_run_p_value(m, r, v, eps, 1e-5) < 0.05 <= one_run_p_value(m, r, v, eps + 1e-6, 1e-5)
    assert epsilon_lower_bound(m, r, v + 10, 1e-5) > eps
    assert epsilon_lower_bound(m, r, r // 2) == 0.0          # chance-level guesses show nothing
    assert epsilon_lower_bound(m, r, v, 1e-2) < eps           # a larger delta is harder to refute


def test_audit_epsilon_uses_bonferroni_and_reports_the_ceiling():
    rng = np.random.default_rng(0)
    members = rng.random(400) < 0.5
    perfect = audit_epsilon(members.astype(float) + rng.random(400) * 0.1, members)
    assert perfect["correct"] == perfect["guesses"] and 3 < perfect["epsilon"] <= perfect["max_possible"]
    assert perfect["max_possible"] < max_epsilon_lower_bound(400)  # the grid's confidence split costs something
    noise = audit_epsilon(rng.random(400), members)
    assert noise["epsilon"] < 0.5


def test_membership_metrics():
    members = np.array([True] * 50 + [False] * 50)
    out = membership_metrics(np.r_[np.ones(50), np.zeros(50)], members, bootstrap=50)
    assert out["auc"] == 1.0 and out["tpr_at_1pct_fpr"] == 1.0
    out = membership_metrics(np.r_[np.zeros(50), np.ones(50)], members, bootstrap=50)
    assert out["auc"] == 0.0 and out["tpr_at_1pct_fpr"] == 0.0


# ---- scores from synthetic text ------------------------------------------------------------------
def test_scores_see_an_echoed_suffix():
    canaries = [Canary(0, 0, "patient ate", "zebra quartz violin", True),
                Canary(1, 0, "patient ate", "walrus copper flute", False)]
    synthetic = ["the patient ate zebra quartz violin at noon", "patient ate an apple"]
    assert list(ngram_overlap_scores(canaries, synthetic, 2)) == [1.0, 0.0]
    lm = ngram_lm_scores(canaries, synthetic, 2)
    assert lm[0] > lm[1]
    model = NgramLM(2).fit(synthetic)
    vocab = [g[0] for g in model.counts[0]] + ["never-seen"]  # the known words, "</s>" and one unknown word
    for history in (["patient"], ["ate"], ["unseen"]):          # a proper distribution after any history
        assert sum(model.prob(history, w) for w in vocab) == pytest.approx(1.0, abs=1e-9)
    assert words("Ate 2 Zebras, quickly!") == ["ate", "zebras", "quickly"]


# ---- end to end on a tiny model ------------------------------------------------------------------
def _tiny_synth(epsilon):
    """Full fine-tuning of a tiny GPT-2 (LoRA on a random 64-wide model barely memorises); 60 steps at
    q = 6/18 visit each canary about 20 times."""
    from textleak.synthesis.synthesizer import SyntheticData
    from textleak.synthesis.tiny import tiny_causal_lm

    model, tok = tiny_causal_lm("gpt2", seed=1, hidden=64)
    return SyntheticData(model=model, tokenizer=tok, epsilon=epsilon, delta=1e-5, lora_r=None, max_steps=60,
                         batch_size=6, learning_rate=3e-3, max_length=96, max_new_tokens=32, seed=0, temperature=0.5)


def test_audit_catches_broken_dp_and_passes_an_honest_run(monkeypatch, tmp_path):
    """Claimed epsilon 0.2 with 24 canaries: the honest run shows nothing above it; the same run with the
    test-only switch (no clipping, no noise; the accountant unchanged) memorises its canaries, and the
    white-box bound exceeds 0.2 (black-box scores need more text than 6 records of 32 bytes)."""
    from textleak.synthesis.audit import run_audit
    from textleak.synthesis.dp import BREAK_DP_ENV

    records = _records(6)
    cfg = AuditConfig(canaries=24, prefix_words=2, suffix_words=3, suffix_pool_size=200, synthetic_records=6)
    honest = run_audit(records, _tiny_synth(0.2), cfg)
    assert honest.privacy["epsilon"] <= 0.2 and not honest.violation
    assert max(b["epsilon"] for b in honest.bounds.values()) <= 0.2
    monkeypatch.setenv(BREAK_DP_ENV, "both")
    broken = run_audit(records, _tiny_synth(0.2), cfg, output_dir=tmp_path / "broken")
    assert broken.privacy["epsilon"] == pytest.approx(honest.privacy["epsilon"])  # the accountant did not notice
    assert any("BROKEN ON PURPOSE" in n for n in broken.notes)
    assert broken.metrics["target_loss"]["auc"] > 0.9
    assert broken.bounds["target_loss"]["epsilon"] > 0.2 and broken.violation
    saved = json.loads((tmp_path / "broken" / "audit.json").read_text())
    assert saved["violation"] is True and (tmp_path / "broken" / "audit.png").stat().st_size > 1000
    rows = [json.loads(line) for line in (tmp_path / "broken" / "scores.jsonl").read_text().splitlines()]
    assert len(rows) == 24 and "text" not in rows[0]


def test_break_switch_rejects_unknown_values(monkeypatch):
    from textleak.synthesis.dp import BREAK_DP_ENV, broken_dp_mode

    monkeypatch.setenv(BREAK_DP_ENV, "sometimes")
    with pytest.raises(ValueError, match=BREAK_DP_ENV):
        broken_dp_mode()
    monkeypatch.delenv(BREAK_DP_ENV)
    assert broken_dp_mode() is None


def test_audit_command_end_to_end(tmp_path, capsys):
    """`textleak audit` with the synthesizer's own flags, on a tiny saved model: files, delta 1e-5 by default
    (without DP here: the RDP calibration costs seconds; the DP path is covered above)."""
    from textleak.cli import main
    from textleak.synthesis.tiny import tiny_causal_lm

    model, tok = tiny_causal_lm("gpt2", seed=0)
    model.save_pretrained(tmp_path / "tiny")
    tok.save_pretrained(tmp_path / "tiny")
    data = tmp_path / "records.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in _records(4)) + json.dumps({"id": "empty", "text": "", "question": "q", "answer": "a"}) + "\n")
    out = tmp_path / "audit"
    rc = main(["audit", "--data", str(data), "--model", str(tmp_path / "tiny"), "--lora-r", "0",
               "--max-steps", "2", "--batch-size", "2", "--max-length", "64", "--max-new-tokens", "8", "--canaries", "8",
               "--suffix-words", "2", "--prefix-words", "1", "--output", str(out)])
    assert rc == 0
    report = json.loads((out / "audit.json").read_text())
    assert report["privacy"]["dp"] is False and report["delta"] == 1e-5 and report["canaries"] == 8
    assert set(report["metrics"]) == {"ngram_overlap", "ngram_lm", "target_loss"}
    assert report["claimed_epsilon"] == "inf" and report["violation"] is False
    assert "| ngram_lm |" in capsys.readouterr().out
    assert (out / "audit.png").exists() and (out / "audit.md").exists()


@pytest.mark.parametrize("mode", ["noise", "clip", "both", None])
def test_break_switch_skips_exactly_what_it_says(monkeypatch, mode):
    """One DP-SGD step on a linear model whose per-record gradients have norm 100 (clip norm 1, noise
    multiplier 50): only the noise, only the clipping, or both are skipped; the noise multiplier the
    accountant reads is unchanged."""
    import torch

    from textleak.synthesis.dp import BREAK_DP_ENV, DPConfig, DPTrainingSession

    if mode:
        monkeypatch.setenv(BREAK_DP_ENV, mode)
    else:
        monkeypatch.delenv(BREAK_DP_ENV, raising=False)
    model = torch.nn.Linear(1, 1, bias=False)
    torch.nn.init.zeros_(model.weight)
    data = [torch.tensor([100.0])] * 4
    session = DPTrainingSession(DPConfig(epsilon=None, noise_multiplier=50.0), num_records=4, batch_size=4, steps=1)
    module, optimizer, loader = session.make_private(model, torch.optim.SGD(model.parameters(), lr=1.0), data,
                                                     lambda b: torch.stack(b))
    batch = next(b for b in loader if len(b))
    (module(batch) - 0).mean().backward()       # d/dw of w * 100 = 100 per record
    optimizer.pre_step()
    grad = float(model.weight.grad)              # (sum of (clipped) gradients + noise) / expected batch 4
    clean = len(batch) * (100.0 if mode in ("clip", "both") else 1.0) / 4
    if mode in ("noise", "both"):
        assert grad == pytest.approx(clean)
    else:
        assert 1e-3 < abs(grad - clean) < 40    # noise of std 50 * 1 / 4 = 12.5 added to the right sum (1 or 100)
    assert optimizer.noise_multiplier == 50.0


def test_white_box_scores_from_suffix_logits_match_the_full_logits():
    """The white-box scores computed with the fused loss (logits only at the suffix positions) equal
    those from the model's full logits, adapters on (target_loss) and off (target_loss_ref)."""
    import torch

    from textleak.synthesis.audit import target_loss_scores
    from textleak.synthesis.lm_loss import resolve_loss_impl
    from textleak.synthesis.tiny import tiny_causal_lm
    from textleak.synthesis.training import apply_lora

    model, tok = tiny_causal_lm("llama", seed=3, hidden=32)
    model = apply_lora(model, r=4)
    gen = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "lora_B" in name:                      # peft starts B at zero: make the adapters matter
                p.copy_(torch.randn(p.shape, generator=gen) * 0.5)
    assert resolve_loss_impl(model, "fused", torch.tensor([[5, 6, 7, 8]])) is not None  # the fused path applies
    records = _records(6)
    canaries = make_canaries(records, AuditConfig(canaries=10, prefix_words=2, suffix_words=3, suffix_pool_size=20))
    prompts = [f"Question: {records[c.source_index]['question']}" for c in canaries]
    fused = target_loss_scores(model, tok, prompts, canaries, batch_size=4)
    full = target_loss_scores(model, tok, prompts, canaries, batch_size=4, loss_impl="full")
    assert set(fused) == set(full) == {"target_loss", "target_loss_ref"}
    for name in full:
        np.testing.assert_allclose(fused[name], full[name], rtol=1e-4, atol=1e-4)
    assert np.abs(full["target_loss_ref"]).max() > 1e-3  # the adapters change the loss: the ref is not trivially 0
