"""DP-SGD: the accountant's epsilon meets the target, clipping bounds every record's gradient,
per-record gradients are really per record, and the report says what was done (tiny models)."""

from __future__ import annotations

import pytest
import torch

from textleak.synthesis.dp import DPConfig, DPTrainingSession, epsilon_for, noise_multiplier_for
from textleak.synthesis.tiny import tiny_causal_lm
from textleak.synthesis.training import (
    CausalLMCollator, EncodedRecords, TrainingConfig, apply_lora, encode_example, per_record_loss, position_ids_for,
    train_causal_lm,
)


pytestmark = pytest.mark.usefixtures("one_torch_thread")  # small models: one thread is fastest and steady


def _examples(tok, n=12):
    texts = [f"Patient {i} reports {'fever ' * (i % 4 + 1)}and cough." for i in range(n)]
    return [encode_example(tok, f"Answer: a{i}\n", t, 96) for i, t in enumerate(texts)]


@pytest.mark.parametrize("epsilon,batch_size,steps,accountant", [
    (3.0, 4, 9, "rdp"), (8.0, 3, 6, "prv"), (64.0, 6, 4, "rdp"), (1024.0, 4, 5, "rdp"),
])
def test_accountant_epsilon_after_training_is_within_5_percent_of_target(epsilon, batch_size, steps, accountant):
    model, tok = tiny_causal_lm("llama", seed=0)
    model = apply_lora(model, r=2)
    result = train_causal_lm(model, tok, _examples(tok), TrainingConfig(max_steps=steps, batch_size=batch_size),
                             dp=DPConfig(epsilon=epsilon, accountant=accountant))
    report = result.privacy
    assert report.steps == steps and report.accountant == accountant
    assert report.sample_rate == pytest.approx(batch_size / 12)
    assert report.delta == pytest.approx(1 / 12) and report.delta_source == "1/N (default)"
    assert report.epsilon <= epsilon * 1.0001
    assert report.epsilon == pytest.approx(epsilon, rel=0.05)
    # the report's noise multiplier reproduces its epsilon through an independent accountant
    assert epsilon_for(report.noise_multiplier, report.delta, report.sample_rate, steps, accountant) == pytest.approx(report.epsilon, rel=1e-3)


def test_noise_grows_as_epsilon_shrinks_and_user_delta_is_kept():
    sigmas = [noise_multiplier_for(e, 1e-3, 0.1, 50) for e in (64, 8, 3)]  # RDP
    assert sigmas == sorted(sigmas) and sigmas[0] < sigmas[-1]
    session = DPTrainingSession(DPConfig(epsilon=8, delta=1e-5), num_records=100, batch_size=10, steps=20)
    assert session.delta == 1e-5


def test_invalid_settings_are_refused():
    with pytest.raises(ValueError, match="epsilon"):
        DPConfig(epsilon=float("inf"))
    with pytest.raises(ValueError, match="accountant"):
        DPConfig(epsilon=1, accountant="moments")
    with pytest.raises(ValueError, match="PRV accountant is numerically unreliable"):
        DPConfig(epsilon=1024, accountant="prv")
    with pytest.raises(ValueError, match="exactly one"):
        DPConfig(epsilon=None)
    with pytest.raises(ValueError, match="batch_size"):
        DPTrainingSession(DPConfig(epsilon=1), num_records=5, batch_size=6, steps=3)


@pytest.mark.parametrize("architecture,lora", [("gpt2", False), ("gpt2", True), ("llama", True)])
def test_per_record_gradients_are_exact_and_clipping_bounds_each(architecture, lora):
    """opacus's per-sample gradient of record i equals the gradient of record i's loss alone (so no
    record's gradient depends on another's: GPT-2's broadcast position ids would break this), and
    the clipped sum equals sum_i g_i * min(1, C / |g_i|), every term of norm <= C."""
    model, tok = tiny_causal_lm(architecture, seed=3)
    if lora:
        model = apply_lora(model, r=2)
    examples = _examples(tok, 6)
    collate = CausalLMCollator(tok.pad_token_id)
    batch = collate([EncodedRecords(examples)[i] for i in range(6)])
    params = [p for p in model.parameters() if p.requires_grad]
    model.train()
    expected = []
    for i in range(6):  # reference: each record's gradient computed alone
        one = collate([EncodedRecords(examples)[i]])
        model.zero_grad()
        logits = model(input_ids=one["input_ids"], attention_mask=one["attention_mask"], position_ids=position_ids_for(one["attention_mask"])).logits
        per_record_loss(logits, one["labels"]).mean().backward()
        expected.append(torch.cat([p.grad.reshape(-1) for p in params]).clone())
    model.zero_grad()
    norms = torch.stack([g.norm() for g in expected])
    clip = float(norms.median())  # half the records get clipped
    session = DPTrainingSession(DPConfig(epsilon=None, noise_multiplier=1.0, max_grad_norm=clip), num_records=6,
                                batch_size=6, steps=1)
    optimizer = torch.optim.SGD(params, lr=0.0)
    gsm, dp_opt, _ = session.make_private(model, optimizer, EncodedRecords(examples), collate)
    dp_opt.noise_multiplier = 0.0
    logits = gsm(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"], position_ids=position_ids_for(batch["attention_mask"])).logits
    per_record_loss(logits, batch["labels"]).mean().backward()
    session.check_per_sample_shapes(dp_opt, 6)
    per_sample = torch.cat([g.reshape(6, -1) for g in dp_opt.grad_samples], dim=1)
    # the padded batch's per-sample gradients match the records' own gradients
    assert torch.allclose(per_sample, torch.stack(expected), atol=1e-5, rtol=1e-3)
    assert torch.allclose(session.per_sample_gradient_norms(dp_opt), norms, rtol=1e-3)
    dp_opt.clip_and_accumulate()
    summed = torch.cat([p.summed_grad.reshape(-1) for p in dp_opt.params])
    factors = (clip / (norms + 1e-6)).clamp(max=1.0)
    assert (norms * factors <= clip * (1 + 1e-4)).all()
    assert 0 < int((norms > clip).sum()) < 6
    assert torch.allclose(summed, (torch.stack(expected) * factors[:, None]).sum(0), atol=1e-5, rtol=1e-3)
    assert summed.norm() <= 6 * clip * (1 + 1e-4)


def test_an_empty_poisson_batch_still_takes_a_noise_step():
    model, tok = tiny_causal_lm("llama", seed=0)
    model = apply_lora(model, r=2)
    params = [p for p in model.parameters() if p.requires_grad]
    session = DPTrainingSession(DPConfig(epsilon=None, noise_multiplier=1.0), num_records=4, batch_size=1, steps=1)
    gsm, dp_opt, _ = session.make_private(model, torch.optim.SGD(params, lr=1.0), EncodedRecords(_examples(tok, 4)),
                                          CausalLMCollator(tok.pad_token_id))
    before = [p.detach().clone() for p in params]
    session.prepare_empty_step(dp_opt)
    dp_opt.step()
    assert any(not torch.equal(b, p) for b, p in zip(before, params))  # noise moved the weights
    assert sum(s for _, _, s in session.engine.accountant.history) == 1
    report = session.report(steps_taken=1)
    assert report.steps == 1 and report.target_epsilon is None and report.noise_multiplier == 1.0
    assert report.epsilon == pytest.approx(epsilon_for(1.0, 0.25, 0.25, 1, "rdp"))


def test_seeded_dp_training_is_reproducible():
    losses = []
    for _ in range(2):
        model, tok = tiny_causal_lm("llama", seed=0)
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(0)  # LoRA's A matrices are drawn from the global RNG
            model = apply_lora(model, r=2)
        result = train_causal_lm(model, tok, _examples(tok), TrainingConfig(max_steps=3, batch_size=4, seed=5),
                                 dp=DPConfig(epsilon=8))
        losses.append(result.losses)
        weights = torch.cat([p.detach().reshape(-1) for n, p in result.model.named_parameters() if "lora" in n])
        losses.append(weights)
    assert losses[0] == losses[2] and torch.equal(losses[1], losses[3])


def test_opacus_version_pin_is_checked(monkeypatch):
    import opacus

    from textleak.synthesis.dp import check_opacus_version

    assert check_opacus_version() == opacus.__version__  # the installed version is a tested one
    monkeypatch.setattr(opacus, "__version__", "1.7.0")
    with pytest.raises(ImportError, match="untested"):
        check_opacus_version()
    monkeypatch.setattr(opacus, "__version__", "1.4.0")
    with pytest.raises(ImportError, match=">=1.5,<1.7"):
        check_opacus_version()
