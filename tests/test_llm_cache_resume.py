"""A failed or interrupted LLM call keeps what it computed: finished chunks are cached at once."""

from __future__ import annotations

import pytest

from textleak.llm import LLMError, ScriptedLM


def test_prompts_answered_before_a_failure_are_not_asked_again(tmp_path, monkeypatch):
    monkeypatch.setenv("TEXTLEAK_CACHE_DIR", str(tmp_path))
    asked: list[str] = []

    def flaky(prompt, i, seed):
        asked.append(prompt)
        return None if prompt == "p3" else prompt.upper()

    lm = ScriptedLM(flaky, name="flaky", use_cache=True)
    lm.cache_chunk = 2
    prompts = [f"p{i}" for i in range(6)]
    with pytest.raises(LLMError, match="prompt 3"):
        lm.generate(prompts)
    assert asked == ["p0", "p1", "p2", "p3"]  # it stopped at the failing chunk

    asked.clear()
    fixed = ScriptedLM(lambda p, i, s: asked.append(p) or p.upper(), name="flaky", use_cache=True)
    fixed.cache_chunk = 2
    assert fixed.generate(prompts) == [[p.upper()] for p in prompts]
    assert asked == ["p3", "p4", "p5"]  # p0-p2 came from the cache


def test_on_error_none_returns_every_answer_and_caches_only_successes(tmp_path, monkeypatch):
    monkeypatch.setenv("TEXTLEAK_CACHE_DIR", str(tmp_path))
    lm = ScriptedLM(lambda p, i, s: None if p == "bad" else "ok", name="partial", use_cache=True)
    lm.cache_chunk = 1
    assert lm.generate(["a", "bad", "b"], on_error="none") == [["ok"], [None], ["ok"]]
    asked: list[str] = []
    again = ScriptedLM(lambda p, i, s: asked.append(p) or "fine", name="partial", use_cache=True)
    assert again.generate(["a", "bad", "b"]) == [["ok"], ["fine"], ["ok"]]
    assert asked == ["bad"]
