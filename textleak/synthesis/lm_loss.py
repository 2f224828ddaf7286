"""Per-record causal-LM loss without materialising full-vocabulary logits for every position.

The training loss (:func:`textleak.synthesis.training.per_record_loss`) is each record's mean
next-token cross-entropy over its labelled tokens. With a large vocabulary (Gemma 3: 262,144 tokens)
the output layer dominates a CPU training step: the logits of a 4 x 256 batch alone are 1 GB in
float32, and the reference path computes them for every position (control-code and padding
positions included), copies them to float32, takes a log-softmax and keeps all of it for the
backward pass.

:func:`fused_per_record_loss` computes the same loss from the decoder's last hidden states:

- logits only at the positions whose next token is labelled (the control code and the padding have
  label -100 and contribute nothing to the loss, so skipping them changes no number);
- in row chunks, so at most ``chunk_rows x vocab`` logits exist at once;
- with a custom autograd function that, while the chunk's logits are in memory, also computes the
  gradient with respect to the hidden states (softmax - one-hot, times the output matrix) and keeps
  only that ``[rows, hidden]`` tensor for the backward pass. This needs the output matrix to be
  frozen (LoRA: the tied embedding is frozen); when it is trainable, callers use the reference path.

The arithmetic is the reference's (float32 log-sum-exp and softmax over the full vocabulary;
Gemma-style final logit soft-capping applied when the config sets it), so the loss and every
per-record gradient match the reference path up to float rounding; ``tests/test_synthesis_fast_loss.py``
checks that, with and without opacus's per-sample gradients. :func:`causal_lm_parts` finds the
decoder and the output layer inside peft / opacus / DDP wrappers, and :func:`check_fused_matches`
compares the fused logits with the model's own ``forward`` on a short input before a run, so an
architecture with some other output scaling falls back to the reference path instead of training
on a wrong loss.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import torch

logger = logging.getLogger(__name__)

IGNORE_INDEX = -100
DEFAULT_CHUNK_ELEMENTS = 2**25  # 32M logits per chunk: 128 MB in float32, 128 rows of a 262k vocabulary


@dataclass
class CausalLMParts:
    """The pieces of a causal LM the fused loss calls: decoder (hidden states) and output layer."""

    decoder: torch.nn.Module
    head: torch.nn.Module
    softcap: float | None


def _unwrap(module: torch.nn.Module) -> "torch.nn.Module | None":
    """The model inside opacus's GradSampleModule / DPDDP and peft (LoRA) wrappers; None when the
    fused loss must not bypass a wrapper's forward (torch DDP synchronises gradients from it,
    prompt learning injects virtual tokens in it)."""
    inner = module
    for _ in range(8):
        if hasattr(inner, "_module"):          # opacus GradSampleModule: forward is a pass-through
            inner = inner._module
        elif type(inner).__name__ == "DifferentiallyPrivateDistributedDataParallel":  # pass-through too
            inner = inner.module
        elif isinstance(inner, torch.nn.parallel.DistributedDataParallel) or hasattr(inner, "reducer"):
            return None
        else:
            break
    if hasattr(inner, "get_base_model") and hasattr(inner, "peft_config"):
        config = inner.peft_config.get(getattr(inner, "active_adapter", "default"))
        if config is not None and getattr(config, "is_prompt_learning", False):
            return None  # prefix/prompt tuning injects virtual tokens in PeftModel.forward: not bypassable
        inner = inner.get_base_model()
    return inner


def causal_lm_parts(model: torch.nn.Module) -> CausalLMParts | None:
    """Decoder and frozen, bias-free output layer of ``model``, or None when the fused loss does not apply
    (no separate decoder, a trainable or biased output layer, prompt-learning adapters)."""
    lm = _unwrap(model)
    if lm is None or not hasattr(lm, "get_output_embeddings"):
        return None
    head = lm.get_output_embeddings()
    decoder = getattr(lm, "base_model", None)
    if head is None or decoder is None or decoder is lm or not isinstance(head, torch.nn.Linear):
        return None
    if head.bias is not None or head.weight.requires_grad:
        return None
    config = getattr(lm, "config", None)
    softcap = getattr(config, "final_logit_softcapping", None) if config is not None else None
    return CausalLMParts(decoder=decoder, head=head, softcap=float(softcap) if softcap else None)


class _FrozenHeadCrossEntropy(torch.autograd.Function):
    """Token losses ``logsumexp(z) - z[target]`` with ``z = softcap(h @ W^T)``, W frozen.

    The gradient with respect to ``h`` is computed in the forward pass, chunk by chunk, and kept:
    the full logits never outlive their chunk.
    """

    @staticmethod
    def forward(ctx, hidden: torch.Tensor, weight: torch.Tensor, targets: torch.Tensor, softcap: float | None,
                chunk_rows: int):
        n = hidden.shape[0]
        losses = torch.empty(n, dtype=torch.float32, device=hidden.device)
        grad_hidden = torch.empty_like(hidden)
        for start in range(0, n, chunk_rows):
            h = hidden[start : start + chunk_rows]
            t = targets[start : start + chunk_rows]
            rows = torch.arange(len(t), device=h.device)
            z = h.to(weight.dtype) @ weight.t()          # the model's logits, in the model's dtype
            capped = None
            if softcap is not None:
                capped = torch.tanh(z.float() / softcap)
                z = capped * softcap
            # one fused pass: float32 softmax (max and sum accumulated in float32, as log_softmax does)
            p = torch.softmax(z, dim=-1, dtype=torch.float32)
            p_t = p[rows, t]
            loss = -torch.log(p_t)
            tiny = p_t < 1e-30  # -log underflows in float32 there: take log-sum-exp - z_t exactly
            if bool(tiny.any()):
                zt = z[tiny].float()
                loss[tiny] = torch.logsumexp(zt, dim=-1) - zt[torch.arange(len(zt), device=zt.device), t[tiny]]
            losses[start : start + len(t)] = loss
            # d loss / d z = softmax(z) - onehot(t), in place on p
            p[rows, t] -= 1.0
            if capped is not None:
                p.mul_(1.0 - capped.pow_(2))
            del z, capped
            grad_hidden[start : start + len(t)] = (p.to(weight.dtype) @ weight).to(hidden.dtype)
            del p
        ctx.save_for_backward(grad_hidden)
        return losses

    @staticmethod
    def backward(ctx, grad_losses: torch.Tensor):
        (grad_hidden,) = ctx.saved_tensors
        return grad_hidden * grad_losses.to(grad_hidden.dtype)[:, None], None, None, None, None


def frozen_head_token_losses(hidden: torch.Tensor, weight: torch.Tensor, targets: torch.Tensor,
                             softcap: float | None = None, chunk_elements: int = DEFAULT_CHUNK_ELEMENTS) -> torch.Tensor:
    """Cross-entropy of each row of ``hidden`` ([N, D]) against ``targets`` ([N]) under the frozen
    output matrix ``weight`` ([V, D]), float32, shape [N]. Differentiable in ``hidden`` only."""
    if weight.requires_grad:
        raise ValueError("the fused loss needs a frozen output matrix (use the reference loss when it is trained)")
    chunk_rows = max(1, int(chunk_elements) // int(weight.shape[0]))
    return _FrozenHeadCrossEntropy.apply(hidden, weight, targets, softcap, chunk_rows)


def fused_per_record_loss(parts: CausalLMParts, input_ids: torch.Tensor, attention_mask: torch.Tensor,
                          position_ids: torch.Tensor, labels: torch.Tensor,
                          chunk_elements: int = DEFAULT_CHUNK_ELEMENTS) -> torch.Tensor:
    """Each record's mean next-token loss over its labelled tokens, shape ``[batch]``: the number
    :func:`textleak.synthesis.training.per_record_loss` gives from full logits, computed only at
    labelled positions."""
    hidden = parts.decoder(input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids,
                           use_cache=False).last_hidden_state
    shift_labels = labels[:, 1:]
    keep = shift_labels != IGNORE_INDEX
    token_loss = torch.zeros(shift_labels.shape, dtype=torch.float32, device=hidden.device)
    if keep.any():
        selected = hidden[:, :-1][keep]
        token_loss = token_loss.masked_scatter(
            keep, frozen_head_token_losses(selected, parts.head.weight, shift_labels[keep], parts.softcap, chunk_elements))
    counts = keep.sum(dim=1).clamp(min=1)
    return token_loss.sum(dim=1) / counts


def check_fused_matches(model: torch.nn.Module, parts: CausalLMParts, input_ids: torch.Tensor,
                        rtol: float = 1e-3, atol: float = 1e-3) -> bool:
    """Whether ``softcap(head(decoder(x)))`` equals ``model(x).logits`` on a short input (one record,
    a few tokens): guards against architectures whose forward scales logits some other way."""
    ids = input_ids[:1, :16]
    mask = torch.ones_like(ids)
    pos = torch.arange(ids.shape[1], device=ids.device)[None]
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            reference = model(input_ids=ids, attention_mask=mask, position_ids=pos).logits.float()
            hidden = parts.decoder(input_ids=ids, attention_mask=mask, position_ids=pos, use_cache=False).last_hidden_state
            ours = (hidden.to(parts.head.weight.dtype) @ parts.head.weight.t()).float()
            if parts.softcap is not None:
                ours = torch.tanh(ours / parts.softcap) * parts.softcap
    finally:
        model.train(was_training)
    scale = max(1.0, float(reference.abs().max()))
    return bool(torch.allclose(ours, reference, rtol=rtol, atol=atol * scale))


def resolve_loss_impl(model: torch.nn.Module, impl: str, sample_input_ids: torch.Tensor) -> CausalLMParts | None:
    """The parts for the fused loss when ``impl`` is "fused" (or "auto") and it applies to ``model``;
    None means the reference full-logits loss. "fused" that cannot apply is an error; "auto" falls back."""
    if impl not in ("auto", "fused", "full"):
        raise ValueError(f"loss_impl must be 'auto', 'fused' or 'full', got {impl!r}")
    if impl == "full":
        return None
    parts = causal_lm_parts(model)
    reason = None
    if parts is None:
        reason = ("the model has no separate decoder and frozen bias-free output layer, uses prompt learning, "
                  "or is wrapped in DistributedDataParallel")
    elif not check_fused_matches(model, parts, sample_input_ids):
        reason = "softcap(head(decoder(x))) differs from the model's own logits"
    if reason is None:
        return parts
    if impl == "fused":
        raise ValueError(f"loss_impl='fused' does not apply: {reason}")
    logger.info("fused loss not used (%s): computing full logits", reason)
    return None


def describe(parts: CausalLMParts | None) -> dict[str, Any]:
    return {"loss_impl": "full" if parts is None else "fused", "softcap": None if parts is None else parts.softcap}
