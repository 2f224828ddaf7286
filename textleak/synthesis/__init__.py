"""Synthesis by fine-tuning, with and without DP-SGD (Yue et al. 2023; seed 000 appendix A.2).

- :mod:`~textleak.synthesis.templates`: templates over record fields (paper / release / none);
- :mod:`~textleak.synthesis.training`: tokenization with masked control codes, LoRA/full fine-tuning
  with ``accelerate``, :func:`~textleak.synthesis.training.train_causal_lm`;
- :mod:`~textleak.synthesis.dp`: opacus DP-SGD (Poisson sampling, per-record clipping, noise
  calibrated to a target epsilon, the accountant's report);
- :mod:`~textleak.synthesis.generation`: seeded, batch-invariant generation from control codes;
- :mod:`~textleak.synthesis.callback`: ``LeakageCallback`` for any Hugging Face ``Trainer``;
- :mod:`~textleak.synthesis.synthesizer`: ``SyntheticData`` (fit / generate / privacy_report).
- :mod:`~textleak.synthesis.audit`: canary audit of a synthesizer (membership from the synthetic
  text, the one-run lower bound on epsilon; ``textleak audit``).

Submodules import torch and transformers; import them directly.
"""
