"""Tiny causal LMs built from a config, with a byte-level tokenizer built in memory.

For tests and quick benchmarks of training code: no download, seconds to train, the same code paths
(LoRA, opacus, generation) as a real model. Random weights, so the text they write is noise.
"""

from __future__ import annotations

import torch


def byte_tokenizer():
    """A byte-level tokenizer (256 byte symbols + ``<bos>``, ``<eos>``, ``<pad>``), no merges:
    every string round-trips exactly, and no file is read."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    alphabet = sorted(pre_tokenizers.ByteLevel.alphabet())
    vocab = {symbol: i for i, symbol in enumerate(alphabet)}
    for special in ("<bos>", "<eos>", "<pad>"):
        vocab[special] = len(vocab)
    backend = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    backend.decoder = decoders.ByteLevel()
    return PreTrainedTokenizerFast(tokenizer_object=backend, bos_token="<bos>", eos_token="<eos>", pad_token="<pad>")


def tiny_causal_lm(architecture: str = "gpt2", seed: int = 0, hidden: int = 32, layers: int = 2, max_positions: int = 512):
    """(model, tokenizer): a randomly initialised ``gpt2`` or ``llama`` model of a few ten thousand
    parameters over :func:`byte_tokenizer`. The init is seeded without touching global RNG state."""
    from transformers import AutoModelForCausalLM, GPT2Config, LlamaConfig

    tokenizer = byte_tokenizer()
    ids = dict(vocab_size=len(tokenizer), bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
               pad_token_id=tokenizer.pad_token_id)
    if architecture == "gpt2":
        config = GPT2Config(n_layer=layers, n_embd=hidden, n_head=2, n_positions=max_positions, resid_pdrop=0.0,
                            embd_pdrop=0.0, attn_pdrop=0.0, **ids)
    elif architecture == "llama":
        config = LlamaConfig(num_hidden_layers=layers, hidden_size=hidden, intermediate_size=2 * hidden,
                             num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=max_positions, **ids)
    else:
        raise ValueError(f"architecture must be 'gpt2' or 'llama', got {architecture!r}")
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = AutoModelForCausalLM.from_config(config)
    model.eval()
    return model, tokenizer
