"""Controlled generation of private synthetic text (seed 004, Zhao & Field).

- :mod:`~textleak.controlled.control_codes`: entity control codes from annotations, Presidio or MIMIC markers.
- :mod:`~textleak.controlled.fictional`: seeded fictional codes.
- :mod:`~textleak.controlled.icl`: in-context generation, blocking of private values, regenerate-until-clean.
- :mod:`~textleak.controlled.prefix` and :mod:`~textleak.controlled.losses`: prefix tuning, masked 3-term loss.
- :mod:`~textleak.controlled.generator`: ``ControlledGenerator`` (fit/generate), exported as ``sanitizers.ControlledGenerator``.
- :mod:`~textleak.controlled.quality`: perplexity and MAUVE.

Leakage metrics live in :mod:`textleak.controlled.entity_metrics` and :mod:`textleak.metrics.entity_leakage`.
See ``docs/controlled_generation.md``.
"""
