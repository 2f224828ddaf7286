"""The fused per-record loss (logits only at labelled positions, chunked, frozen output layer) gives
the reference loss, the same per-record gradients and, under opacus, the same clipped per-sample
gradients; it refuses or falls back where it does not apply (tiny models)."""

from __future__ import annotations

import pytest
import torch

from textleak.synthesis.dp import DPConfig, DPTrainingSession
from textleak.synthesis.lm_loss import (
    causal_lm_parts, check_fused_matches, frozen_head_token_losses, fused_per_record_loss, resolve_loss_impl,
)
from textleak.synthesis.tiny import byte_tokenizer, tiny_causal_lm
from textleak.synthesis.training import (
    CausalLMCollator, EncodedRecords, TrainingConfig, apply_lora, encode_example, per_record_loss, position_ids_for,
    train_causal_lm,
)


pytestmark = pytest.mark.usefixtures("one_torch_thread")  # small models: one thread is fastest and steady


def _tiny_gemma3(softcap: float | None = 5.0):
    """A 2-block Gemma 3 text model (scaled embedding, tied output layer, optional logit soft-capping)."""
    from transformers import AutoModelForCausalLM, Gemma3TextConfig

    tok = byte_tokenizer()
    config = Gemma3TextConfig(vocab_size=len(tok), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                              num_attention_heads=2, num_key_value_heads=1, head_dim=16, max_position_embeddings=256,
                              sliding_window=64, final_logit_softcapping=softcap, bos_token_id=tok.bos_token_id,
                              eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        model = AutoModelForCausalLM.from_config(config)
    return model, tok


def _lora_model(architecture: str):
    model, tok = _tiny_gemma3() if architecture == "gemma3" else tiny_causal_lm(architecture, seed=3)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(1)
        model = apply_lora(model, r=2)
        for name, p in model.named_parameters():  # LoRA B starts at zero; make the adapters matter
            if "lora_B" in name:
                p.data.normal_(0, 0.2)
    model.train()
    return model, tok


def _batch(tok, n=6):
    texts = [f"Patient {i} reports {'fever ' * (i % 4 + 1)}and cough." for i in range(n)]
    examples = [encode_example(tok, f"Answer: a{i}\n", t, 96) for i, t in enumerate(texts)]
    return examples, CausalLMCollator(tok.pad_token_id)(examples)


@pytest.mark.parametrize("architecture", ["llama", "gpt2", "gemma3"])
def test_fused_loss_and_gradients_equal_the_reference(architecture):
    model, tok = _lora_model(architecture)
    _, batch = _batch(tok)
    positions = position_ids_for(batch["attention_mask"])
    parts = resolve_loss_impl(model, "fused", batch["input_ids"])
    assert parts is not None and parts.softcap == (5.0 if architecture == "gemma3" else None)
    params = [p for p in model.parameters() if p.requires_grad]
    logits = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"], position_ids=positions).logits
    reference = per_record_loss(logits, batch["labels"])
    ref_grads = torch.autograd.grad(reference.mean(), params)
    # a chunk of 2 rows: several chunks per batch, and one cut mid-record
    fused = fused_per_record_loss(parts, batch["input_ids"], batch["attention_mask"], positions, batch["labels"],
                                  chunk_elements=2 * logits.shape[-1])
    grads = torch.autograd.grad(fused.mean(), params)
    assert torch.allclose(fused, reference, atol=1e-5, rtol=1e-5)
    for g, r in zip(grads, ref_grads):
        assert torch.allclose(g, r, atol=1e-6, rtol=1e-4)
    assert any(float(r.abs().max()) > 1e-4 for r in ref_grads)  # the comparison is not between zeros


@pytest.mark.parametrize("architecture", ["llama", "gemma3"])
def test_opacus_per_sample_gradients_and_clipped_sum_match_the_reference_path(architecture):
    """The fused path bypasses the model's forward (it calls the decoder and the output matrix
    itself); opacus's hooks sit on the adapters, so each record's gradient, its clipping and the
    clipped sum must come out as on the reference path."""
    results = {}
    for impl in ("full", "fused"):
        model, tok = _lora_model(architecture)
        examples, batch = _batch(tok)
        params = [p for p in model.parameters() if p.requires_grad]
        session = DPTrainingSession(DPConfig(epsilon=None, noise_multiplier=1.0, max_grad_norm=0.05), num_records=6,
                                    batch_size=6, steps=1)
        gsm, dp_opt, _ = session.make_private(model, torch.optim.SGD(params, lr=0.0), EncodedRecords(examples),
                                              CausalLMCollator(tok.pad_token_id))
        dp_opt.noise_multiplier = 0.0
        positions = position_ids_for(batch["attention_mask"])
        parts = resolve_loss_impl(gsm, impl, batch["input_ids"])
        assert (parts is None) == (impl == "full")
        if parts is None:
            logits = gsm(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"], position_ids=positions).logits
            loss = per_record_loss(logits, batch["labels"]).mean()
        else:
            loss = fused_per_record_loss(parts, batch["input_ids"], batch["attention_mask"], positions, batch["labels"])
            loss = loss.mean()
        loss.backward()
        session.check_per_sample_shapes(dp_opt, 6)
        per_sample = torch.cat([g.reshape(6, -1) for g in dp_opt.grad_samples], dim=1).clone()
        norms = session.per_sample_gradient_norms(dp_opt)
        dp_opt.clip_and_accumulate()
        summed = torch.cat([p.summed_grad.reshape(-1) for p in dp_opt.params]).clone()
        results[impl] = (float(loss.detach()), per_sample, norms, summed)
    (l_ref, g_ref, n_ref, s_ref), (l_f, g_f, n_f, s_f) = results["full"], results["fused"]
    assert l_f == pytest.approx(l_ref, rel=1e-5)
    assert torch.allclose(g_f, g_ref, atol=1e-6, rtol=1e-4)
    assert torch.allclose(n_f, n_ref, rtol=1e-4)
    assert 0 < int((n_ref > 0.05).sum())  # some records were clipped
    assert torch.allclose(s_f, s_ref, atol=1e-6, rtol=1e-4)


def test_a_trainable_output_layer_or_an_unknown_logit_scaling_falls_back_to_full_logits():
    model, tok = tiny_causal_lm("gpt2", seed=0)  # full fine-tuning: the tied output matrix is trained
    _, batch = _batch(tok)
    assert causal_lm_parts(model) is None
    assert resolve_loss_impl(model, "auto", batch["input_ids"]) is None
    with pytest.raises(ValueError, match="does not apply"):
        resolve_loss_impl(model, "fused", batch["input_ids"])
    # a model whose forward rescales its logits: the fused path would train on another loss
    lora, tok = _lora_model("llama")
    parts = causal_lm_parts(lora)
    assert parts is not None and check_fused_matches(lora, parts, batch["input_ids"])
    parts.head.register_forward_hook(lambda module, args, out: out * 2.0)
    assert not check_fused_matches(lora, parts, batch["input_ids"])
    assert resolve_loss_impl(lora, "auto", batch["input_ids"]) is None
    with pytest.raises(ValueError, match="loss_impl"):
        resolve_loss_impl(lora, "fast", batch["input_ids"])


def test_token_losses_survive_float32_underflow_of_the_target_probability():
    """A target whose softmax probability underflows float32 still gets log-sum-exp - z_t, not inf."""
    weight = torch.zeros(5, 2)
    weight[0] = torch.tensor([100.0, 0.0])
    weight[1] = torch.tensor([-100.0, 0.0])
    hidden = torch.tensor([[1.0, 0.0], [0.1, 0.0]], requires_grad=True)
    targets = torch.tensor([1, 1])
    losses = frozen_head_token_losses(hidden, weight, targets)
    z = hidden.detach() @ weight.t()
    expected = torch.logsumexp(z, -1) - z[torch.arange(2), targets]
    assert torch.isfinite(losses).all() and float(losses[0]) == pytest.approx(200.0, rel=1e-5)
    assert torch.allclose(losses, expected, rtol=1e-5)
    losses.sum().backward()
    ref = hidden.detach().clone().requires_grad_(True)
    torch.nn.functional.cross_entropy(ref @ weight.t(), targets, reduction="sum").backward()
    assert torch.allclose(hidden.grad, ref.grad, atol=1e-5)
    with pytest.raises(ValueError, match="frozen"):
        frozen_head_token_losses(hidden, weight.requires_grad_(True), targets)


def test_bfloat16_base_with_float32_adapters_trains_under_dp():
    model, tok = tiny_causal_lm("llama", seed=0)
    model = model.to(torch.bfloat16)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        model = apply_lora(model, r=2, layers=[-1])
    trainable = {n: p.dtype for n, p in model.named_parameters() if p.requires_grad}
    assert trainable and all(d == torch.float32 for d in trainable.values())
    assert all(".layers.1." in n for n in trainable)  # adapters only in the top block
    examples, _ = _batch(tok, 8)
    result = train_causal_lm(model, tok, examples, TrainingConfig(max_steps=3, batch_size=4),
                             dp=DPConfig(epsilon=8.0))
    assert result.loss_impl == "fused" and result.privacy.steps == 3
    finite = [l for l in result.losses if l == l]  # NaN marks an empty Poisson batch (noise-only step)
    assert finite and all(abs(l) < 1e4 for l in finite)
