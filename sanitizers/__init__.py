"""Sanitizers as ``datasets.map`` transforms: thin callables over the textleak engine.

    from sanitizers import PresidioScrubber
    ds = ds.map(PresidioScrubber(), batched=True, input_columns="text", with_indices=True)

Each record-level sanitizer is one module here whose class registers itself by name
(``@textleak.registry.sanitizers.register("presidio")``). textleak finds them through the one
``textleak.sanitizers`` entry point naming this package: importing it imports every module below,
which runs the registrations. Dataset-level synthesizers (``SyntheticData``, ``ControlledGenerator``)
have no ``datasets.map`` entry and are not in the registry.
"""

import importlib
import pkgutil

_EXPORTS = {
    "Identity": "sanitizers.record",
    "RemoveAll": "sanitizers.record",
    "PresidioScrubber": "sanitizers.presidio",
    "LLMAnonymizer": "sanitizers.llm",
    "SanitizeParaphrase": "sanitizers.llm",
    "SpanAbstraction": "sanitizers.llm",
    "SanText": "sanitizers.word_dp",
    "SanTextPlus": "sanitizers.word_dp",
    "CusText": "sanitizers.word_dp",
    "CusTextPlus": "sanitizers.word_dp",
    "SyntheticData": "sanitizers.synthetic",
    "ControlledGenerator": "sanitizers.controlled",
}

__all__ = sorted(_EXPORTS)

for _module in pkgutil.iter_modules(__path__):
    if not _module.name.startswith("_"):
        importlib.import_module(f"{__name__}.{_module.name}")


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'sanitizers' has no attribute {name!r}")
