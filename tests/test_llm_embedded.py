"""The real embedded Gemma 3 270M through ``generate`` and ``score`` (converted once per machine)."""

from __future__ import annotations

import json

import pytest

from textleak.cache import DiskCache
from textleak.llm import load_llm
from textleak.llm.embedded import EmbeddedGemma, embedded_gguf_sha256, embedded_model_path


def test_fingerprint_needs_no_model():
    lm = EmbeddedGemma(use_cache=False)
    assert lm.fingerprint() == EmbeddedGemma(use_cache=False).fingerprint()
    assert lm.fingerprint() != EmbeddedGemma(dtype="bfloat16").fingerprint()
    assert lm.fingerprint() == EmbeddedGemma(dtype="float32", device="cpu").fingerprint()  # "auto" on a CPU
    assert EmbeddedGemma(device="cuda").resolved_dtype() == "float32"  # the converted checkpoint's, unconverted
    assert lm._model is None
    assert lm.describe()["backend"] == "embedded"
    assert len(embedded_gguf_sha256()) == 64


@pytest.mark.slow
def test_embedded_gemma_generates_and_scores(tmp_path):
    path = embedded_model_path()
    marker = json.loads((path / "textleak_conversion.json").read_text())
    assert marker["gguf_sha256"] == embedded_gguf_sha256()
    assert (path / "model.safetensors").is_file() and (path / "tokenizer.json").is_file()

    lm = load_llm("embedded")
    lm.cache = DiskCache("llm", root=tmp_path)
    prompt = "The capital of France is"
    [[paris, banana, london]] = lm.score([prompt], [" Paris", " banana", " London"])
    assert paris > london > banana
    assert paris > -6 and banana < paris - 5

    greedy = lm.generate([prompt, "Once upon a time"], max_new_tokens=8)
    assert "Paris" in greedy[0][0] or "France" in greedy[0][0]
    # chat messages on a base model without a template: plain rendering, still answered
    chat = lm.generate([[{"role": "user", "content": "Name a fruit."}]], max_new_tokens=4)
    assert chat[0][0]

    calls = lm.forward_stats["forward_calls"]
    again = EmbeddedGemma()
    again.cache = DiskCache("llm", root=tmp_path)
    assert again.generate([prompt, "Once upon a time"], max_new_tokens=8) == greedy
    assert again.score([prompt], [" Paris", " banana", " London"]) == [[paris, banana, london]]
    assert again._model is None and lm.forward_stats["forward_calls"] == calls

    # banned phrases hold on the real 262k-token vocabulary too
    blocked = lm.generate([prompt], max_new_tokens=8, banned_phrases=["paris", "France"])[0][0]
    assert "paris" not in blocked.casefold() and "france" not in blocked.casefold()
