"""The three prefix-tuning loss terms on toy tensors, against values computed by hand."""

import math

import pytest
import torch

from textleak.controlled.losses import LossWeights, masked_prefix_losses

LN3 = math.log(3)


def toy():
    # B=1, T=4, V=2. Positions 0,1 are the control code (labels -100); text tokens 0 then 1.
    # Shifted: position t predicts labels[t+1] -> targets [-100, 0, 1] at t = 0, 1, 2.
    theta = torch.tensor([[[0.0, LN3], [0.0, 0.0], [LN3, 0.0], [5.0, -5.0]]])  # p: [.25,.75] [.5,.5] [.75,.25]
    base = torch.tensor([[[0.0, 0.0], [LN3, 0.0], [0.0, 0.0], [1.0, 2.0]]])  # p: [.5,.5] [.75,.25] [.5,.5]
    labels = torch.tensor([[-100, -100, 0, 1]])
    private = torch.tensor([[False, False, False, True]])  # the last text token is private
    return theta, base, labels, private


def test_terms_match_hand_computed_values():
    theta, base, labels, private = toy()
    out = masked_prefix_losses(theta, labels, private, base, LossWeights.paper(), kl_mask="public")
    lm = -(math.log(0.5) + math.log(0.25)) / 2  # text targets at t=1 (p=.5) and t=2 (p=.25)
    contrastive = -math.log(0.25 / (0.25 + 0.5))  # private target at t=2: p_theta=.25, p_base=.5 -> ln 3
    kl_t1 = 0.75 * math.log(0.75 / 0.5) + 0.25 * math.log(0.25 / 0.5)  # the one public text position
    assert out["lm"].item() == pytest.approx(lm, abs=1e-6)
    assert out["contrastive"].item() == pytest.approx(contrastive, abs=1e-6)
    assert out["contrastive"].item() == pytest.approx(LN3, abs=1e-6)
    assert out["kl"].item() == pytest.approx(kl_t1, abs=1e-6)
    assert out["loss"].item() == pytest.approx(lm + contrastive + kl_t1, abs=1e-6)


def test_released_kl_covers_every_position_and_released_weights():
    theta, base, labels, private = toy()
    out = masked_prefix_losses(theta, labels, private, base, LossWeights.released(), kl_mask="all")
    kl_t0 = 0.5 * math.log(0.5 / 0.25) + 0.5 * math.log(0.5 / 0.75)  # a code position
    kl_t1 = 0.75 * math.log(0.75 / 0.5) + 0.25 * math.log(0.25 / 0.5)
    kl_t2 = 0.5 * math.log(0.5 / 0.75) + 0.5 * math.log(0.5 / 0.25)  # the private position
    kl_all = (kl_t0 + kl_t1 + kl_t2) / 3
    assert out["kl"].item() == pytest.approx(kl_all, abs=1e-6)
    lm = -(math.log(0.5) + math.log(0.25)) / 2
    assert out["loss"].item() == pytest.approx(1.0 * lm + 4.0 * LN3 + 1.6 * kl_all, abs=1e-5)


def test_contrastive_vanishes_without_private_tokens():
    theta, base, labels, private = toy()
    out = masked_prefix_losses(theta, labels, torch.zeros_like(private), base)
    assert out["contrastive"].item() == 0.0
    # the KL then covers both text positions
    kl_t1 = 0.75 * math.log(1.5) + 0.25 * math.log(0.5)
    kl_t2 = 0.5 * math.log(0.5 / 0.75) + 0.5 * math.log(2)
    assert out["kl"].item() == pytest.approx((kl_t1 + kl_t2) / 2, abs=1e-6)


@pytest.mark.parametrize("kl_mask", ["public", "all"])
def test_kl_vanishes_for_identical_models_and_contrastive_is_log2(kl_mask):
    torch.manual_seed(0)
    logits = torch.randn(2, 5, 7)
    labels = torch.tensor([[-100, 3, 1, 4, -100], [-100, -100, 2, 6, 0]])
    private = torch.tensor([[0, 0, 1, 0, 0], [0, 0, 0, 1, 1]]).bool()
    out = masked_prefix_losses(logits, labels, private, logits.clone(), kl_mask=kl_mask)
    assert out["kl"].item() == pytest.approx(0.0, abs=1e-6)
    assert out["contrastive"].item() == pytest.approx(math.log(2), abs=1e-6)


def test_lm_only_needs_no_base_and_masked_positions_do_not_count():
    theta, _, labels, private = toy()
    out = masked_prefix_losses(theta, labels, private, None, LossWeights.lm_only())
    assert out["loss"].item() == pytest.approx(-(math.log(0.5) + math.log(0.25)) / 2, abs=1e-6)
    with pytest.raises(ValueError, match="base_logits"):
        masked_prefix_losses(theta, labels, private, None, LossWeights.paper())
    all_masked = masked_prefix_losses(theta, torch.full_like(labels, -100), private, None, LossWeights.lm_only())
    assert all_masked["lm"].item() == 0.0


def test_contrastive_gradient_pushes_theta_away_from_base_on_private_tokens():
    theta, base, labels, private = toy()
    theta = theta.clone().requires_grad_(True)
    out = masked_prefix_losses(theta, labels, private, base, LossWeights(0.0, 1.0, 0.0))
    out["loss"].backward()
    # raising p_theta of the private target lowers the loss: the gradient on its logit is negative
    assert theta.grad[0, 2, 1].item() < 0
    assert theta.grad[0, 1].abs().sum().item() == 0.0  # public positions get no contrastive gradient


def test_weight_presets():
    assert LossWeights.resolve("paper") == LossWeights(1, 1, 1)
    assert LossWeights.resolve("released") == LossWeights(1, 4, 1.6)
    assert LossWeights.resolve((1, 0, 0)) == LossWeights.lm_only()
    with pytest.raises(ValueError):
        LossWeights.resolve("bogus")
