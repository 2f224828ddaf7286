"""Sanitizers as ``datasets.map`` transforms: thin callables over the textleak engine.

    from sanitizers import PresidioScrubber
    ds = ds.map(PresidioScrubber(), batched=True, input_columns="text", with_indices=True)

Names resolve lazily so importing this package stays cheap.
"""

from importlib import import_module

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


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'sanitizers' has no attribute {name!r}")
