"""Quality of synthetic text: perplexity under a chosen causal LM, and MAUVE against real text.

- :func:`perplexity`: exp of the token-weighted mean negative log-likelihood of the texts (every
  token after BOS), under ``"embedded"``, a Hub id or a folder. Seed 004 reports the perplexity of
  a model *fine-tuned on* the synthetic text on the real test set; that is a training run, done by
  ``textleak synthesize``/``train_causal_lm`` and then this function on the test texts.
- :func:`mauve_score`: ``mauve.compute_mauve`` (mauve-text) on features we compute, so any feature
  model works offline: ``"minilm"`` (the bundled all-MiniLM-L6-v2 sentence embeddings, the default),
  any sentence-transformers path, or a causal LM spec (``"embedded"``, ``"hf:gpt2-large"``: the last
  token's final hidden state, MAUVE's own featurisation).
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Sequence

import numpy as np
import torch


@lru_cache(maxsize=2)
def _causal_lm(spec: str):
    from textleak.synthesis.training import load_causal_lm

    model, tokenizer = load_causal_lm(spec)
    model.eval()
    return model, tokenizer


def perplexity(texts: Sequence[str], model: str = "embedded", batch_size: int = 8, max_length: int = 1024) -> float:
    """Token-weighted perplexity of ``texts`` (each truncated to ``max_length`` tokens)."""
    lm, tok = _causal_lm(model)
    bos = [tok.bos_token_id] if tok.bos_token_id is not None else [tok.eos_token_id]
    seqs = [(bos + tok(t, add_special_tokens=False)["input_ids"])[:max_length] for t in texts if t]
    if not seqs:
        raise ValueError("perplexity needs at least one non-empty text")
    nll, count = 0.0, 0
    with torch.no_grad():
        for start in range(0, len(seqs), batch_size):
            chunk = seqs[start:start + batch_size]
            width = max(len(s) for s in chunk)
            ids = torch.tensor([s + [tok.pad_token_id] * (width - len(s)) for s in chunk])
            mask = torch.tensor([[1] * len(s) + [0] * (width - len(s)) for s in chunk])
            logits = lm(input_ids=ids, attention_mask=mask).logits[:, :-1].float()
            targets, valid = ids[:, 1:], mask[:, 1:].bool()
            token_nll = torch.nn.functional.cross_entropy(logits.transpose(1, 2), targets, reduction="none")
            nll += float(token_nll[valid].sum())
            count += int(valid.sum())
    return math.exp(nll / max(count, 1))


def text_features(texts: Sequence[str], model: str = "minilm", max_length: int = 512) -> np.ndarray:
    """One feature vector per text from the chosen feature model (see module docstring)."""
    if model == "minilm" or not (model == "embedded" or model.startswith("hf:")):
        from textleak.encoders import load_sentence_encoder

        encoder = load_sentence_encoder(None if model == "minilm" else model)
        return np.asarray(encoder.encode(list(texts), show_progress_bar=False))
    lm, tok = _causal_lm(model)
    feats = []
    with torch.no_grad():
        for t in texts:
            ids = tok(t, return_tensors="pt", truncation=True, max_length=max_length)
            out = lm(**ids, output_hidden_states=True)
            feats.append(out.hidden_states[-1][0, -1].float().numpy())
    return np.stack(feats)


def mauve_score(predictions: Sequence[str], references: Sequence[str], features: str = "minilm", seed: int = 25) -> float:
    """MAUVE between the real texts (p) and the synthetic ones (q); empty texts are left out."""
    import mauve

    p = [t for t in references if t and t.strip()]
    q = [t for t in predictions if t and t.strip()]
    if len(p) < 2 or len(q) < 2:
        raise ValueError(f"MAUVE needs at least 2 non-empty texts on each side, got {len(p)} real and {len(q)} synthetic")
    out = mauve.compute_mauve(p_features=text_features(p, features), q_features=text_features(q, features), seed=seed, verbose=False)
    return float(out.mauve)
