"""datasets fingerprints of the sanitizers: equal in two processes, changed by config and VERSION,
unchanged by loading models (conventions spec section 4)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from datasets.fingerprint import Hasher

from sanitizers import Identity, LLMAnonymizer, PresidioScrubber, RemoveAll, SanitizeParaphrase, SpanAbstraction

SNIPPET = """
from datasets.fingerprint import Hasher
from sanitizers import Identity, RemoveAll, PresidioScrubber, LLMAnonymizer, SanitizeParaphrase, SpanAbstraction
objs = [Identity(), RemoveAll(), PresidioScrubber(operator="replace", entities=["PERSON"]),
        LLMAnonymizer(llm="openai:gpt-4o@https://example.invalid/v1", rounds=2),
        SanitizeParaphrase(llm="embedded", domain="wildchat"), SpanAbstraction(llm="hf:gpt2")]
print(" ".join(Hasher.hash(o) for o in objs))
"""


def _hashes_in_subprocess() -> list[str]:
    out = subprocess.run([sys.executable, "-c", SNIPPET], capture_output=True, text=True, check=True, timeout=300)
    return out.stdout.strip().splitlines()[-1].split()


def test_fingerprint_same_in_two_processes():
    first, second = _hashes_in_subprocess(), _hashes_in_subprocess()
    assert first == second
    assert len(set(first)) == len(first)  # six different sanitizers, six different hashes


def test_fingerprint_changes_with_config_and_version(monkeypatch):
    base = Hasher.hash(PresidioScrubber())
    assert Hasher.hash(PresidioScrubber()) == base
    assert Hasher.hash(PresidioScrubber(operator="mask")) != base
    assert Hasher.hash(PresidioScrubber(score_threshold=0.5)) != base
    assert Hasher.hash(PresidioScrubber(output_column="x")) != base
    assert Hasher.hash(LLMAnonymizer(rounds=3)) != Hasher.hash(LLMAnonymizer(rounds=2))
    assert Hasher.hash(LLMAnonymizer(llm="hf:a")) != Hasher.hash(LLMAnonymizer(llm="hf:b"))
    monkeypatch.setattr(PresidioScrubber, "VERSION", "999")
    assert Hasher.hash(PresidioScrubber()) != base


def test_pickled_state_is_plain_config():
    state = LLMAnonymizer(llm="embedded").__getstate__()
    assert set(state) == {"config", "sanitizer", "version", "textleak"}
    assert state["config"]["rounds"] == 3 and state["config"]["temperature"] == 0.1
    assert all(not k.startswith("_") for k in state["config"])


@pytest.mark.slow
def test_fingerprint_unchanged_after_loading_presidio():
    scrubber = PresidioScrubber()
    before = Hasher.hash(scrubber)
    scrubber(["John Smith lives in Boston."], [0])
    assert "_engine" in scrubber.__dict__
    assert Hasher.hash(scrubber) == before
