"""The masked prefix-tuning objective of seed 004 (section 2.3, equations 2-5).

With targets y_t = input_ids[t+1], the private-token mask M (1 = private here, i.e. the paper's
M_t = 0), P_theta the prefix-tuned model and P_base the frozen base model:

- LM: mean cross-entropy of P_theta over the text tokens (labels != -100; the paper writes a sum,
  the code and HF use the mean).
- contrastive: mean over private text tokens of -log(P_theta(y_t) / (P_theta(y_t) + P_base(y_t)));
  pushes the tuned model away from the base model exactly where the text is private. 0 without
  private tokens.
- KL: mean over positions of KL(P_base || P_theta) summed over the vocabulary. ``kl_mask="public"``
  (paper, eq. 4) averages over the public text tokens only; ``kl_mask="all"`` is the released code,
  which computes the mask but applies it nowhere: every (shifted) position of the batch, code and
  padding included, divided by their number. 0 when the two models agree.

Weights: ``LossWeights()`` is the paper's (1, 1, 1); ``LossWeights.released()`` is the code's
(1, 4, 1.6). The total is sum(lambda * term).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F

KL_MASKS = ("public", "all")


@dataclass(frozen=True)
class LossWeights:
    """lambda_LM, lambda_contrastive, lambda_KL; paper default (1, 1, 1)."""

    lm: float = 1.0
    contrastive: float = 1.0
    kl: float = 1.0

    @classmethod
    def paper(cls) -> "LossWeights":
        return cls(1.0, 1.0, 1.0)

    @classmethod
    def released(cls) -> "LossWeights":
        """The released training script's weights (``masking.py``): 1, 4, 1.6."""
        return cls(1.0, 4.0, 1.6)

    @classmethod
    def lm_only(cls) -> "LossWeights":
        """Plain prefix tuning (no masking): the LM loss alone, no base-model pass."""
        return cls(1.0, 0.0, 0.0)

    @classmethod
    def resolve(cls, spec: "LossWeights | str | tuple | None") -> "LossWeights":
        if spec is None or spec == "paper":
            return cls.paper()
        if isinstance(spec, LossWeights):
            return spec
        if spec == "released":
            return cls.released()
        if spec == "lm_only":
            return cls.lm_only()
        if isinstance(spec, (tuple, list)) and len(spec) == 3:
            return cls(*map(float, spec))
        raise ValueError(f"loss weights are 'paper', 'released', 'lm_only', a LossWeights or a 3-tuple, got {spec!r}")

    @property
    def needs_base(self) -> bool:
        return self.contrastive > 0 or self.kl > 0


def masked_prefix_losses(
    logits: torch.Tensor,
    labels: torch.Tensor,
    private_mask: torch.Tensor,
    base_logits: torch.Tensor | None = None,
    weights: LossWeights = LossWeights(),
    kl_mask: str = "public",
) -> dict[str, torch.Tensor]:
    """The three terms and their weighted total for one batch.

    ``logits``/``base_logits``: [B, T, V] from the tuned and the frozen model on the same inputs;
    ``labels``: [B, T] token ids with -100 on the control code and padding; ``private_mask``: [B, T]
    bool, True on private text tokens (aligned with the input positions). ``base_logits`` may be None
    only when the contrastive and KL weights are 0.
    """
    if kl_mask not in KL_MASKS:
        raise ValueError(f"kl_mask must be one of {KL_MASKS}, got {kl_mask!r}")
    if logits.shape[:2] != labels.shape or labels.shape != private_mask.shape:
        raise ValueError(f"shape mismatch: logits {tuple(logits.shape)}, labels {tuple(labels.shape)}, mask {tuple(private_mask.shape)}")
    shift_logits = logits[:, :-1, :].float()
    targets = labels[:, 1:]
    valid = targets != -100
    private = private_mask[:, 1:].bool() & valid
    public = valid & ~private
    safe_targets = targets.clamp_min(0)

    logp = F.log_softmax(shift_logits, dim=-1)
    token_logp = logp.gather(-1, safe_targets.unsqueeze(-1)).squeeze(-1)
    zero = shift_logits.new_zeros(())
    lm = -(token_logp * valid).sum() / valid.sum().clamp_min(1)

    contrastive, kl = zero, zero
    if weights.needs_base:
        if base_logits is None:
            raise ValueError("base_logits are needed when the contrastive or KL weight is non-zero")
        base_logp = F.log_softmax(base_logits[:, :-1, :].float().detach(), dim=-1)
        if weights.contrastive > 0 and private.any():
            base_token_logp = base_logp.gather(-1, safe_targets.unsqueeze(-1)).squeeze(-1)
            # -log(p / (p + q)) = -(log p - logsumexp(log p, log q)), stable for tiny probabilities
            per_token = torch.logaddexp(token_logp, base_token_logp) - token_logp
            contrastive = (per_token * private).sum() / private.sum()
        if weights.kl > 0:
            per_position = (base_logp.exp() * (base_logp - logp)).sum(-1)  # KL(P_base || P_theta)
            if kl_mask == "public":
                kl = (per_position * public).sum() / public.sum().clamp_min(1)
            else:
                kl = per_position.mean()
    total = weights.lm * lm + weights.contrastive * contrastive + weights.kl * kl
    return {"loss": total, "lm": lm, "contrastive": contrastive, "kl": kl}
